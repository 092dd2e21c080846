package directive

import (
	"go/ast"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	c := &ast.Comment{Slash: 100, Text: `//mcp:tool get_weather title="Current \"weather\"" readonly openworld=false`}
	d, problem, _ := Parse(c)
	if problem != "" || d.Verb != "tool" || len(d.Args) != 4 {
		t.Fatalf("parsed %+v, problem %q", d, problem)
	}
	want := []Arg{
		{Key: "get_weather", Pos: 111},
		{Key: "title", Value: `Current "weather"`, HasValue: true, Pos: 123},
		{Key: "readonly", Pos: 151},
		{Key: "openworld", Value: "false", HasValue: true, Pos: 160},
	}
	for i, a := range d.Args {
		if a != want[i] {
			t.Errorf("arg %d = %+v, want %+v", i, a, want[i])
		}
	}
	if _, problem, at := Parse(&ast.Comment{Slash: 1, Text: `//mcp:tool title="open`}); problem == "" || at != 12 {
		t.Errorf("unterminated quote: problem %q at %d", problem, at)
	}
	// A quoted name is one problem, at the quote, not two arguments split at its space.
	if _, problem, at := Parse(&ast.Comment{Slash: 1, Text: `//mcp:tool "bad 6" readonly`}); !strings.HasPrefix(problem, `quoted argument "bad 6": a name or an option is written bare`) || at != 12 {
		t.Errorf("quoted name: problem %q at %d", problem, at)
	}
}

func TestLooksLike(t *testing.T) {
	for text, want := range map[string]bool{"// mcp:tool": true, "//  mcp:tool name": true, "//mcp:tool": false, "// mcp:toolbox": false, "// see mcp:tool": false} {
		if got := LooksLike(&ast.Comment{Text: text}); got != want {
			t.Errorf("LooksLike(%q) = %v", text, got)
		}
	}
}

func TestIsForm(t *testing.T) {
	for text, want := range map[string]bool{"//mcp:form": true, "//mcp:form x": true, "//mcp:formal": false, "//mcp:tool": false} {
		if got := IsForm(text); got != want {
			t.Errorf("IsForm(%q) = %v", text, got)
		}
	}
}
