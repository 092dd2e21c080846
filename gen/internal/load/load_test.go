package load

import (
	"go/token"
	"testing"
)

func TestParsePosition(t *testing.T) {
	for in, want := range map[string]token.Position{
		"/a/b.go:3:4":   {Filename: "/a/b.go", Line: 3, Column: 4},
		"c:/x/b.go:3:4": {Filename: "c:/x/b.go", Line: 3, Column: 4},
		"b.go:7":        {Filename: "b.go", Line: 7},
		"-":             {},
		"go.mod":        {Filename: "go.mod"},
	} {
		if got := ParsePosition(in); got != want {
			t.Errorf("ParsePosition(%q) = %+v, want %+v", in, got, want)
		}
	}
}
