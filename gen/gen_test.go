package gen

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	udiff "github.com/aymanbagabas/go-udiff"
)

func TestWriteCompareDiff(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp_gen.go")
	f := File{Path: path, Content: []byte("one\ntwo\n")}
	if c, err := Compare(f); err != nil || c != Created {
		t.Fatalf("Compare on a missing file = %v, %v", c, err)
	}
	if d, _ := Diff(f, "x.go"); !strings.Contains(d, "--- /dev/null") || !strings.Contains(d, "+two") {
		t.Fatalf("Diff for a missing file:\n%s", d)
	}
	if c, err := Write(f); err != nil || c != Created {
		t.Fatalf("Write = %v, %v", c, err)
	}
	info, _ := os.Stat(path)
	if c, err := Write(f); err != nil || c != Unchanged {
		t.Fatalf("second Write = %v, %v", c, err)
	}
	if again, _ := os.Stat(path); !again.ModTime().Equal(info.ModTime()) {
		t.Errorf("unchanged file was rewritten")
	}
	f.Content = []byte("one\n2\n")
	if d, _ := Diff(f, "x.go"); !strings.Contains(d, "-two") || !strings.Contains(d, "+2") || !strings.Contains(d, "x.go (generated)") {
		t.Fatalf("Diff:\n%s", d)
	}
	if c, _ := Write(f); c != Updated {
		t.Fatalf("Write of new content = %v", c)
	}
	f.Content = nil
	if c, _ := Write(f); c != Removed {
		t.Fatalf("Write of nil content = %v", c)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("file not removed: %v", err)
	}
}

// The generated file of a package is the same whether or not the packages it imports are
// named on the command line too: doc comments of other packages of the module are read
// either way.
func TestOutputIgnoresWhichPackagesAreNamed(t *testing.T) {
	dir, _ := filepath.Abs("..")
	alone, err := Generate(Config{Dir: dir, Patterns: []string{"./golden/types"}})
	if err != nil {
		t.Fatal(err)
	}
	both, err := Generate(Config{Dir: dir, Patterns: []string{"./golden/types", "./golden/types/geo"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(alone.Files) != 1 || len(both.Files) != 1 || !bytes.Equal(alone.Files[0].Content, both.Files[0].Content) {
		t.Fatalf("the output depends on the packages named:\n%s", udiff.Unified("alone", "with geo", string(alone.Files[0].Content), string(both.Files[0].Content)))
	}
	if !bytes.Contains(alone.Files[0].Content, []byte("\"The latitude in degrees")) || !bytes.Contains(alone.Files[0].Content, []byte("\"The longitude in degrees.")) {
		t.Error("doc comments of another package's fields are missing")
	}
}
