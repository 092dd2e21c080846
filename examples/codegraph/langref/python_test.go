package langref

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/examples/codegraph/graph"
	"github.com/mcpgen/mcpgen/examples/codegraph/index"
)

// pythonStdlib is the Python library Debian's libpython3.11-stdlib installs, which
// scripts/test.sh installs with python3-jedi.
const pythonStdlib = "/usr/lib/python3.11"

// index indexes dir into a fresh store and returns the calls to the project's declarations.
func indexCalls(t *testing.T, dir string) ([]Edge, *index.Result) {
	t.Helper()
	store, err := graph.Open(filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ctx := context.Background()
	start := time.Now()
	res, err := index.Run(ctx, store, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("indexed %s: %d packages in %v", dir, res.Packages, time.Since(start).Round(time.Millisecond))
	ps, err := store.Projects(ctx)
	if err != nil || len(ps) != 1 {
		t.Fatal(ps, err)
	}
	sites, err := store.CallSites(ctx, ps[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	var out []Edge
	for _, s := range sites {
		out = append(out, Edge{Site: Site{s.File, s.Line, s.Col}, Target: Place{s.TargetFile, s.TargetLine}, Resolution: s.Resolution})
	}
	return out, res
}

// Python's own library, against jedi: codegraph's calls to the library's declarations in
// json, email, http, logging and urllib, and where jedi says each goes.
func TestPythonAgainstJedi(t *testing.T) {
	if _, err := os.Stat(filepath.Join(pythonStdlib, "json", "decoder.py")); err != nil {
		t.Fatalf("%v: install Debian's libpython3.11-stdlib (scripts/test.sh does)", err)
	}
	if out, err := exec.Command("/usr/bin/python3", "-c", "import jedi").CombinedOutput(); err != nil {
		t.Fatalf("jedi: %v %s: install Debian's python3-jedi (scripts/test.sh does)", err, out)
	}
	edges, _ := indexCalls(t, pythonStdlib)
	start := time.Now()
	cmd := exec.Command("/usr/bin/python3", "jedi_calls.py", pythonStdlib, "json", "email", "http", "logging", "urllib")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("jedi: %v\n%s", err, stderr.String())
	}
	ref, err := ReadRef(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("jedi took %v", time.Since(start).Round(time.Millisecond))
	s := Compare(ref, edges)
	t.Logf("Python (jedi): %s", s)
	for _, w := range s.Wrong {
		t.Log("  ", w)
	}
	if s.Resolved < 2000 || s.Precision() < 0.93 || s.Recall() < 0.75 {
		t.Errorf("Python against jedi: %s", s)
	}
}
