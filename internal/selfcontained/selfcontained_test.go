package selfcontained

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The repository refers to nothing outside itself: `go test ./...` fails on the first file
// that does, with its place and what to do.
func TestRepositoryIsSelfContained(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	files, err := Files(root)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(files, "go.mod") || !slices.Contains(files, "internal/selfcontained/selfcontained.go") {
		t.Fatalf("the file list of %s misses the repository's own files: %d files", root, len(files))
	}
	found, err := Check(root, files)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("%s", f)
	}
}

// The check finds what it is for, and only that.
func TestCheckFindsReferencesOutside(t *testing.T) {
	// Planted references are spelled in pieces, so that this file does not hold them.
	const up = ".." + "/"
	root := t.TempDir()
	files := map[string]string{
		"a/a_test.go":  "spec := \"" + up + up + "shared/" + "mcp-spec\"\nok := \"../b/file.txt\"\n",
		"a/b/c.go":     "x := filepath.Join(\"" + up + up + up + "elsewhere\")\ny := \"../../README.md\"\n",
		"scripts/x.sh": "export MCP_" + "SPEC_DIR=/tmp\ncat ../../sibling/file\n",
		"go.mod":       "replace example.com/m => ../m\n",
		"README.md":    "mcpgen new ../hello\nsee ../" + "shared for the spec\n",
		"bin.dat":      "\x00../../escape",
		"clean.go":     "// a/b/../c stays inside\n",
		"root.go":      "// but " + up + "x climbs out of the root\n",
	}
	var names []string
	for name, text := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	slices.Sort(names)
	found, err := Check(root, names)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range found {
		got = append(got, f.File+":"+strings.TrimSpace(f.Text))
	}
	slices.Sort(got)
	want := []string{
		"README.md:" + up + "shared",
		"a/a_test.go:" + up + "shared",
		"a/a_test.go:" + up + up + "shared/" + "mcp-spec",
		"a/a_test.go:shared/" + "mcp-spec",
		"a/b/c.go:" + up + up + up + "elsewhere",
		"go.mod:../m",
		"root.go:" + up + "x",
		"scripts/x.sh:../../sibling/file",
		"scripts/x.sh:MCP_" + "SPEC_DIR",
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("found\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}
