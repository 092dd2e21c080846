package langref

import (
	"bytes"
	"context"
	"fmt"
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

// againstReference indexes dir with codegraph while the reference tool runs (reference:
// its calls as JSON lines; the two only read dir, and each alone leaves a core idle, the
// tool most of all), and scores codegraph's calls against the tool's. It logs the score and a
// few false positives; the test judges them.
func againstReference(t *testing.T, dir, what string, reference func(ctx context.Context) ([]byte, error)) *Score {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var (
		out  []byte
		err  error
		took time.Duration
	)
	done := make(chan struct{})
	go func() {
		defer close(done)
		start := time.Now()
		out, err = reference(ctx)
		took = time.Since(start)
	}()
	t.Cleanup(func() { cancel(); <-done }) // the tool does not outlive the test, one that failed too
	edges, _ := indexCalls(t, dir)
	<-done
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	ref, err := ReadRef(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s took %v", what, took.Round(time.Millisecond))
	s := Compare(ref, edges)
	t.Logf("%s: %s", what, s)
	for _, w := range s.Wrong {
		t.Log("  ", w)
	}
	return s
}

// output runs cmd and returns its standard output, or an error with its standard error.
func output(cmd *exec.Cmd) ([]byte, error) {
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%v\n%s", err, stderr.String())
	}
	return out, nil
}

// Python's own library, against jedi: codegraph's calls to the library's declarations in
// json, email, http, logging and urllib, and where jedi says each goes.
func TestPythonAgainstJedi(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(filepath.Join(pythonStdlib, "json", "decoder.py")); err != nil {
		t.Fatalf("%v: install Debian's libpython3.11-stdlib (scripts/test.sh does)", err)
	}
	if out, err := exec.Command("/usr/bin/python3", "-c", "import jedi").CombinedOutput(); err != nil {
		t.Fatalf("jedi: %v %s: install Debian's python3-jedi (scripts/test.sh does)", err, out)
	}
	s := againstReference(t, pythonStdlib, "Python (jedi)", func(ctx context.Context) ([]byte, error) {
		return output(exec.CommandContext(ctx, "/usr/bin/python3", "jedi_calls.py", pythonStdlib, "json", "email", "http", "logging", "urllib"))
	})
	if s.Resolved < 2000 || s.Precision() < 0.93 || s.Recall() < 0.75 {
		t.Errorf("Python against jedi: %s", s)
	}
}
