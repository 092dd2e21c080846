package gen

import (
	"bytes"
	"go/ast"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	udiff "github.com/aymanbagabas/go-udiff"
	"github.com/mcpgen/mcpgen/gen/internal/diag"
)

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{
		"GetWeather": "get_weather", "HTTPServer": "http_server", "ListIDs": "list_ids", "getURLs": "get_urls",
		"Now": "now", "A": "a", "V2Search": "v2_search", "searchV2": "search_v2", "IsOK": "is_ok", "parseJSONValue": "parse_json_value",
	} {
		if got := snakeCase(in); got != want {
			t.Errorf("snakeCase(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestValidToolName(t *testing.T) {
	for name, want := range map[string]bool{
		"get_weather": true, "admin.tools.list": true, "DATA_EXPORT_v2": true, "a-b": true,
		"": false, "get weather": false, "naïve": false, "a/b": false, strings.Repeat("x", 128): true, strings.Repeat("x", 129): false,
	} {
		if got := validToolName(name); got != want {
			t.Errorf("validToolName(%q) = %v", name, got)
		}
	}
}

func TestLowerFirst(t *testing.T) {
	for in, want := range map[string]string{"Index": "index", "HTTPClient": "httpClient", "DB": "db", "X": "x", "clock": "clock"} {
		if got := lowerFirst(in); got != want {
			t.Errorf("lowerFirst(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseDirective(t *testing.T) {
	c := &ast.Comment{Slash: 100, Text: `//mcp:tool get_weather title="Current \"weather\"" readonly openworld=false`}
	d, problem, _ := parseDirective(c)
	if problem != "" || d.verb != "tool" || len(d.args) != 4 {
		t.Fatalf("parsed %+v, problem %q", d, problem)
	}
	want := []directiveArg{
		{key: "get_weather", pos: 111},
		{key: "title", value: `Current "weather"`, hasValue: true, pos: 123},
		{key: "readonly", pos: 151},
		{key: "openworld", value: "false", hasValue: true, pos: 160},
	}
	for i, a := range d.args {
		if a != want[i] {
			t.Errorf("arg %d = %+v, want %+v", i, a, want[i])
		}
	}
	if _, problem, at := parseDirective(&ast.Comment{Slash: 1, Text: `//mcp:tool title="open`}); problem == "" || at != 12 {
		t.Errorf("unterminated quote: problem %q at %d", problem, at)
	}
}

func TestLooksLikeDirective(t *testing.T) {
	for text, want := range map[string]bool{"// mcp:tool": true, "//  mcp:tool name": true, "//mcp:tool": false, "// mcp:toolbox": false, "// see mcp:tool": false} {
		if got := looksLikeDirective(&ast.Comment{Text: text}); got != want {
			t.Errorf("looksLikeDirective(%q) = %v", text, got)
		}
	}
}

func TestParsePosition(t *testing.T) {
	for in, want := range map[string]token.Position{
		"/a/b.go:3:4":   {Filename: "/a/b.go", Line: 3, Column: 4},
		"c:/x/b.go:3:4": {Filename: "c:/x/b.go", Line: 3, Column: 4},
		"b.go:7":        {Filename: "b.go", Line: 7},
		"-":             {},
		"go.mod":        {Filename: "go.mod"},
	} {
		if got := parsePosition(in); got != want {
			t.Errorf("parsePosition(%q) = %+v, want %+v", in, got, want)
		}
	}
}

func TestDiagnosticFormat(t *testing.T) {
	d := diag.Diagnostic{Pos: token.Position{Filename: "/w/pkg/a.go", Line: 3, Column: 5}, Message: "bad", Hint: "fix it"}
	if got := d.Format("/w"); got != "pkg/a.go:3:5: bad\n\thint: fix it" {
		t.Errorf("Format = %q", got)
	}
	if got := d.Format("/elsewhere"); !strings.HasPrefix(got, "/w/pkg/a.go:3:5: bad") {
		t.Errorf("Format outside base = %q", got)
	}
	fset := token.NewFileSet()
	l := diag.NewList(fset)
	l.Add(token.Position{Filename: "b.go", Line: 1}, "", "second")
	l.Add(token.Position{Filename: "a.go", Line: 9}, "", "first")
	l.Add(token.Position{Filename: "a.go", Line: 9}, "", "first")
	if got := l.Sorted(); len(got) != 2 || got[0].Message != "first" {
		t.Errorf("Sorted = %v", got)
	}
}

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
