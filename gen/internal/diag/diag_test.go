package diag

import (
	"go/token"
	"strings"
	"testing"
)

func TestDiagnosticFormat(t *testing.T) {
	d := Diagnostic{Pos: token.Position{Filename: "/w/pkg/a.go", Line: 3, Column: 5}, Message: "bad", Hint: "fix it"}
	if got := d.Format("/w"); got != "pkg/a.go:3:5: bad\n\thint: fix it" {
		t.Errorf("Format = %q", got)
	}
	if got := d.Format("/elsewhere"); !strings.HasPrefix(got, "/w/pkg/a.go:3:5: bad") {
		t.Errorf("Format outside base = %q", got)
	}
	fset := token.NewFileSet()
	l := NewList(fset)
	l.Add(token.Position{Filename: "b.go", Line: 1}, "", "second")
	l.Add(token.Position{Filename: "a.go", Line: 9}, "", "first")
	l.Add(token.Position{Filename: "a.go", Line: 9}, "", "first")
	if got := l.Sorted(); len(got) != 2 || got[0].Message != "first" {
		t.Errorf("Sorted = %v", got)
	}
}
