package langref

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// googletestSources are googletest's C++ sources, which Debian's googletest package installs
// (and scripts/test.sh with it).
const googletestSources = "/usr/src/googletest/googletest"

// googletest's C++ (its src/, but the file that includes all the others, and include/),
// against libclang, as TestCAgainstClang.
func TestCppAgainstClang(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(filepath.Join(googletestSources, "src", "gtest.cc")); err != nil {
		t.Fatalf("%v: install Debian's googletest (scripts/test.sh does)", err)
	}
	if out, err := exec.Command("/usr/bin/python3", "-c", "import clang.cindex").CombinedOutput(); err != nil {
		t.Fatalf("libclang: %v %s: install Debian's python3-clang-14 (scripts/test.sh does)", err, out)
	}
	root := filepath.Join(t.TempDir(), "googletest")
	if out, err := exec.Command("cp", "-r", googletestSources, root).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	for _, gone := range []string{"src/gtest-all.cc", "samples", "cmake", "test", "docs", "scripts"} {
		os.RemoveAll(filepath.Join(root, gone))
	}
	s := againstReference(t, root, "C++ (clang)", func(ctx context.Context) ([]byte, error) {
		return output(exec.CommandContext(ctx, "/usr/bin/python3", "clang_calls.py", root, filepath.Join(root, "include")))
	})
	if s.Resolved < 1000 || s.Precision() < 0.8 || s.Recall() < 0.3 {
		t.Errorf("C++ against clang: %s", s)
	}
}
