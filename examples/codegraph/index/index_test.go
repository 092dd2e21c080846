package index

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/examples/codegraph/graph"
)

func copyModule(t *testing.T) string {
	t.Helper()
	src := filepath.Join("..", "testdata", "shapes")
	dst := filepath.Join(t.TempDir(), "shapes")
	err := filepath.Walk(src, func(path string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func edit(t *testing.T, file, old, new string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s lacks %q", file, old)
	}
	if err := os.WriteFile(file, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Each run indexes the packages whose files changed and those that depend on them, and
// nothing else; what a package's old source said goes with it.
func TestIncremental(t *testing.T) {
	ctx := context.Background()
	dir := copyModule(t)
	store, err := graph.Open(filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	run := func(wantIndexed, wantRemoved []string) {
		t.Helper()
		res, err := Run(ctx, store, dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.Indexed, wantIndexed) || !slices.Equal(res.Removed, wantRemoved) {
			t.Errorf("indexed %q, removed %q; want %q, %q", res.Indexed, res.Removed, wantIndexed, wantRemoved)
		}
	}
	const p = "example.com/shapes"
	run([]string{p, p + "/cmd/shapes", p + "_test"}, nil)
	run(nil, nil)

	// A leaf: only its package.
	edit(t, filepath.Join(dir, "cmd", "shapes", "main.go"), "shapes.Report(&c, all)", "error(nil)")
	run([]string{p + "/cmd/shapes"}, nil)
	report, err := store.Resolve(ctx, 0, p+".Report")
	if err != nil {
		t.Fatal(err)
	}
	if callers, _, err := store.Callers(ctx, report, 1, 100); err != nil || len(callers) != 0 {
		t.Errorf("the removed call is still there: %+v %v", callers, err)
	}

	// A test file: the package with its tests, and the external tests, which import it.
	edit(t, filepath.Join(dir, "shapes_test.go"), "got != 4", "got != 4.0")
	run([]string{p, p + "_test"}, nil)

	// What everything depends on.
	edit(t, filepath.Join(dir, "shapes.go"), "func Unused() {}", "func Unused() { Unused() }")
	run([]string{p, p + "/cmd/shapes", p + "_test"}, nil)

	// A new package, then gone.
	if err := os.MkdirAll(filepath.Join(dir, "extra"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "extra", "extra.go"), []byte("package extra\n\nimport \"example.com/shapes\"\n\nvar X = shapes.Total(nil)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run([]string{p + "/extra"}, nil)
	total, err := store.Resolve(ctx, 0, "shapes.Total")
	if err != nil {
		t.Fatal(err)
	}
	callers, _, err := store.Callers(ctx, total, 1, 100)
	if err != nil || !slices.ContainsFunc(callers, func(c graph.Caller) bool { return c.Caller == p+"/extra.X" }) {
		t.Errorf("callers of Total with extra: %+v %v", callers, err)
	}
	if err := os.RemoveAll(filepath.Join(dir, "extra")); err != nil {
		t.Fatal(err)
	}
	run(nil, []string{p + "/extra"})
	callers, _, _ = store.Callers(ctx, total, 1, 100)
	if slices.ContainsFunc(callers, func(c graph.Caller) bool { return strings.Contains(c.Caller, "extra") }) {
		t.Errorf("the removed package's calls are still there: %+v", callers)
	}
}

func TestNotAModule(t *testing.T) {
	store, err := graph.Open(filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	empty := t.TempDir()
	if _, err := Run(context.Background(), store, empty, nil); err == nil || !strings.Contains(err.Error(), "holds no source files codegraph indexes") {
		t.Errorf("indexing a directory outside any module: %v", err)
	}
	os.WriteFile(filepath.Join(empty, "go.mod"), []byte("module example.com/empty\n"), 0o644)
	if _, err := Run(context.Background(), store, empty, nil); err == nil {
		t.Error("indexed a module without packages")
	}
	if _, err := Run(context.Background(), store, filepath.Join(empty, "missing"), nil); err == nil {
		t.Error("indexed a directory that does not exist")
	}
}
