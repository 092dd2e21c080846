package load

import (
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Files type-checks the given files in process, with the imports' export data loaded while
// they are parsed; DeclarationsOnly leaves the function bodies unchecked (a body's error is
// not reported), the declarations checked all the same.
func TestFilesDeclarationsOnly(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/x\n\ngo 1.25\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		filepath.Join(dir, "a.go"): []byte("package x\n\nimport \"strings\"\n\n// T is a type.\ntype T struct{ A strings.Builder }\n"),
		filepath.Join(dir, "b.go"): []byte("package x\n\nimport \"strings\"\n\n// F is wrong inside.\nfunc F() int { return strings.ToUpper(\"a\") }\n"),
	}
	for _, only := range []bool{false, true} {
		pkg, err := Files(Config{DeclarationsOnly: only}, dir, files, token.NewFileSet())
		if err != nil {
			t.Fatal(err)
		}
		var msgs []string
		for _, e := range pkg.Errors {
			msgs = append(msgs, e.Msg)
		}
		bodyError := strings.Contains(strings.Join(msgs, "\n"), "cannot use strings.ToUpper")
		if bodyError == only || len(msgs) > 1 {
			t.Errorf("DeclarationsOnly %v: errors %q", only, msgs)
		}
		if pkg.Types.Scope().Lookup("T") == nil || pkg.Types.Scope().Lookup("F") == nil || len(pkg.Syntax) != 2 {
			t.Errorf("DeclarationsOnly %v: the declarations were not checked", only)
		}
	}
}
