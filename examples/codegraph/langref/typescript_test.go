package langref

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// rxjs's TypeScript sources (the npm package ships them, src/), against the TypeScript
// compiler's checker. scripts/test.sh installs both (npm ci in langref/ts).
func TestTypeScriptAgainstTheCompiler(t *testing.T) {
	t.Parallel()
	src := filepath.Join("ts", "node_modules", "rxjs", "src")
	if _, err := os.Stat(filepath.Join(src, "internal", "Observable.ts")); err != nil {
		t.Fatalf("%v: run npm ci in examples/codegraph/langref/ts (scripts/test.sh does)", err)
	}
	abs, err := filepath.Abs(src)
	if err != nil {
		t.Fatal(err)
	}
	s := againstReference(t, abs, "TypeScript (tsc)", func(ctx context.Context) ([]byte, error) {
		cmd := exec.CommandContext(ctx, "node", "calls.mjs", abs)
		cmd.Dir = "ts"
		return output(cmd)
	})
	if s.Resolved < 1000 || s.Precision() < 0.9 || s.Recall() < 0.5 {
		t.Errorf("TypeScript against the compiler: %s", s)
	}
}
