package langref

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// rxjs's TypeScript sources (the npm package ships them, src/), against the TypeScript
// compiler's checker. scripts/test.sh installs both (npm ci in langref/ts).
func TestTypeScriptAgainstTheCompiler(t *testing.T) {
	src := filepath.Join("ts", "node_modules", "rxjs", "src")
	if _, err := os.Stat(filepath.Join(src, "internal", "Observable.ts")); err != nil {
		t.Fatalf("%v: run npm ci in examples/codegraph/langref/ts (scripts/test.sh does)", err)
	}
	abs, err := filepath.Abs(src)
	if err != nil {
		t.Fatal(err)
	}
	edges, _ := indexCalls(t, abs)
	start := time.Now()
	cmd := exec.Command("node", "calls.mjs", abs)
	cmd.Dir = "ts"
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the TypeScript compiler: %v\n%s", err, stderr.String())
	}
	ref, err := ReadRef(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the TypeScript compiler took %v", time.Since(start).Round(time.Millisecond))
	s := Compare(ref, edges)
	t.Logf("TypeScript (tsc): %s", s)
	for _, w := range s.Wrong {
		t.Log("  ", w)
	}
	if s.Resolved < 1000 || s.Precision() < 0.9 || s.Recall() < 0.5 {
		t.Errorf("TypeScript against the compiler: %s", s)
	}
}
