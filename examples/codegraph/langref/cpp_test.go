package langref

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// googletestSources are googletest's C++ sources, which Debian's googletest package installs
// (and scripts/test.sh with it).
const googletestSources = "/usr/src/googletest/googletest"

// googletest's C++ (its src/, but the file that includes all the others, and include/),
// against libclang, as TestCAgainstClang.
func TestCppAgainstClang(t *testing.T) {
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
	edges, _ := indexCalls(t, root)
	start := time.Now()
	cmd := exec.Command("/usr/bin/python3", "clang_calls.py", root, filepath.Join(root, "include"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	ref, err := cmd.Output()
	if err != nil {
		t.Fatalf("clang: %v\n%s", err, stderr.String())
	}
	calls, err := ReadRef(bytes.NewReader(ref))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("clang took %v", time.Since(start).Round(time.Millisecond))
	s := Compare(calls, edges)
	t.Logf("C++ (clang): %s", s)
	for _, w := range s.Wrong {
		t.Log("  ", w)
	}
	if s.Resolved < 1000 || s.Precision() < 0.8 || s.Recall() < 0.3 {
		t.Errorf("C++ against clang: %s", s)
	}
}
