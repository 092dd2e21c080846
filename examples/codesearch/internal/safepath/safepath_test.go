package safepath

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestClean(t *testing.T) {
	for in, want := range map[string]string{"": ".", ".": ".", "a/b": "a/b", "a//b/": "a/b", "./a/./b": "a/b", "..a/b..": "..a/b.."} {
		if got, err := Clean("path", in); err != nil || got != want {
			t.Errorf("Clean(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for in, want := range map[string]string{
		"..": "outside the root", "../x": "outside the root", "a/../../x": "outside the root", `a\..\x`: "outside the root",
		"a/../b": "outside the root", "/etc/passwd": "absolute", `\x`: "absolute", "C:/x": "absolute", "a\x00b": "NUL",
	} {
		if _, err := Clean("path", in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Clean(%q): err = %v, want one saying %q", in, err, want)
		}
	}
}

func TestExplain(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "s"), []byte("s"), 0o644)
	os.Symlink(filepath.Join(outside, "s"), filepath.Join(root, "abs-link"))
	os.Symlink("../"+filepath.Base(outside)+"/s", filepath.Join(root, "rel-link"))
	r, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for name, want := range map[string]string{"abs-link": "outside the root", "rel-link": "outside the root", "missing": "does not exist"} {
		_, err := r.ReadFile(name)
		if got := Explain("file_path", name, err); got == nil || !strings.Contains(got.Error(), want) {
			t.Errorf("%s: %v (from %v), want %q", name, got, err, want)
		}
	}
}
