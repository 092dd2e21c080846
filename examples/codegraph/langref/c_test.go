package langref

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// tree-sitter's own runtime, in C (the .c and .h files at the root of the Go module
// github.com/smacker/go-tree-sitter, which the module proxy serves), against clang: libclang
// (Debian's python3-clang-14, which scripts/test.sh installs) resolves each call and joins
// definitions across files by USR, as the linker would (langref/clang_calls.py).
func TestCAgainstClang(t *testing.T) {
	t.Parallel()
	if out, err := exec.Command("/usr/bin/python3", "-c", "import clang.cindex").CombinedOutput(); err != nil {
		t.Fatalf("libclang: %v %s: install Debian's python3-clang-14 (scripts/test.sh does)", err, out)
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/smacker/go-tree-sitter").Output()
	if err != nil {
		t.Fatal(err)
	}
	mod := strings.TrimSpace(string(out))
	root := filepath.Join(t.TempDir(), "tree-sitter")
	os.MkdirAll(root, 0o755)
	for _, pattern := range []string{"*.c", "*.h"} {
		names, _ := filepath.Glob(filepath.Join(mod, pattern))
		for _, name := range names {
			b, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(root, filepath.Base(name)), b, 0o644)
		}
	}
	s := againstReference(t, root, "C (clang)", func(ctx context.Context) ([]byte, error) {
		return output(exec.CommandContext(ctx, "/usr/bin/python3", "clang_calls.py", root))
	})
	if s.Resolved < 1000 || s.Precision() < 0.9 || s.Recall() < 0.5 {
		t.Errorf("C against clang: %s", s)
	}
}
