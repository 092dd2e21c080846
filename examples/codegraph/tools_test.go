package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/examples/codegraph/graph"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// exercise calls every tool on an indexed copy of testdata/shapes.
func exercise(t *testing.T, c *mcp.Client, dir string, session bool) {
	t.Run("list_projects", func(t *testing.T) {
		l := call[ProjectList](t, c, "list_projects", nil)
		if l.Count != 1 || l.Projects[0].Name != pkg || l.Projects[0].Packages != 3 || l.Projects[0].Files != 5 || l.Projects[0].Nodes == 0 {
			t.Errorf("list_projects = %+v", l)
		}
	})
	t.Run("get_code_snippet", func(t *testing.T) {
		s := call[CodeSnippet](t, c, "get_code_snippet", map[string]any{"qualified_name": "Circle.Area"})
		want := "// Area is the circle's area.\nfunc (c *Circle) Area() float64 { return math.Pi * c.Radius * c.Radius }\n"
		if !s.Found || s.QualifiedName != pkg+".Circle.Area" || s.SourceCode != want || s.FilePath != "shapes.go" ||
			s.LineStart != 41 || s.LineEnd != 42 || s.Docstring != "Area is the circle's area.\n" || s.Kind != "method" {
			t.Errorf("get_code_snippet = %+v", s)
		}
		s = call[CodeSnippet](t, c, "get_code_snippet", map[string]any{"qualified_name": "Area"})
		if s.Found || !strings.Contains(s.Message, pkg+".Circle.Area") || !strings.Contains(s.Message, pkg+".Shape.Area") {
			t.Errorf("an ambiguous name: %+v", s)
		}
		s = call[CodeSnippet](t, c, "get_code_snippet", map[string]any{"qualified_name": "Nowhere"})
		if s.Found || !strings.Contains(s.Message, `no symbol "Nowhere"`) {
			t.Errorf("an unknown name: %+v", s)
		}
	})
	t.Run("find_callers", func(t *testing.T) {
		r := call[CallersResult](t, c, "find_callers", map[string]any{"qualified_name": "shapes.Total"})
		got := callerSites(r)
		want := []string{
			"example.com/shapes.Measure reference shapes.go:80:15",
			"example.com/shapes.Report call shapes.go:75:43",
			"example.com/shapes.TestTotal call shapes_test.go:6:12",
			"example.com/shapes/cmd/shapes.main call cmd/shapes/main.go:17:21",
		}
		if !slices.Equal(got, want) {
			t.Errorf("find_callers Total:\n got %q\nwant %q", got, want)
		}
		// A call of Shape.Area may dispatch to Circle.Area.
		r = call[CallersResult](t, c, "find_callers", map[string]any{"qualified_name": "(*shapes.Circle).Area"})
		got = callerSites(r)
		want = []string{
			"example.com/shapes.Largest dispatch shapes.go:66:23",
			"example.com/shapes.Largest dispatch shapes.go:66:37",
			"example.com/shapes.Total dispatch shapes.go:57:12",
			"example.com/shapes/cmd/shapes.main dispatch cmd/shapes/main.go:18:67",
		}
		if !slices.Equal(got, want) {
			t.Errorf("find_callers Circle.Area:\n got %q\nwant %q", got, want)
		}
		r = call[CallersResult](t, c, "find_callers", map[string]any{"qualified_name": "Total", "depth": 2})
		if !slices.ContainsFunc(r.Callers, func(c graph.Caller) bool { return c.Depth == 2 && c.Caller == pkg+"/cmd/shapes.main" }) {
			t.Errorf("find_callers depth 2 has no caller of Report: %+v", r.Callers)
		}
		msg := toolError(t, c, "find_callers", map[string]any{"qualified_name": "Area"})
		if !strings.Contains(msg, "names 3 symbols") {
			t.Errorf("ambiguous: %s", msg)
		}
	})
	t.Run("find_callees", func(t *testing.T) {
		r := call[CalleesResult](t, c, "find_callees", map[string]any{"qualified_name": "Largest"})
		if r.Count != 1 || r.Callees[0].Callee != pkg+".Shape.Area" || len(r.Callees[0].Sites) != 2 || !r.Callees[0].Dynamic ||
			!slices.Equal(r.Callees[0].MayCall, []string{pkg + ".Circle.Area", pkg + ".Square.Area"}) {
			t.Errorf("find_callees Largest = %+v", r)
		}
		r = call[CalleesResult](t, c, "find_callees", map[string]any{"qualified_name": "Report", "depth": 2})
		var names []string
		for _, c := range r.Callees {
			names = append(names, fmt.Sprintf("%d %s", c.Depth, c.Callee))
		}
		if want := []string{"1 fmt.Fprintf", "1 " + pkg + ".Total", "2 " + pkg + ".Shape.Area"}; !slices.Equal(names, want) {
			t.Errorf("find_callees Report depth 2 = %q, want %q", names, want)
		}
	})
	t.Run("find_implementations", func(t *testing.T) {
		r := call[ImplementationsResult](t, c, "find_implementations", map[string]any{"interface": "Shape"})
		if got, want := symbolNames(r), []string{pkg + ".Solid", pkg + ".Square", pkg + ".Circle", pkg + ".Labeled"}; !slices.Equal(got, want) {
			t.Errorf("find_implementations Shape = %q, want %q", got, want)
		}
		r = call[ImplementationsResult](t, c, "find_implementations", map[string]any{"interface": "io.Writer"})
		if got, want := symbolNames(r), []string{pkg + ".Counter"}; !slices.Equal(got, want) {
			t.Errorf("find_implementations io.Writer = %q, want %q", got, want)
		}
		r = call[ImplementationsResult](t, c, "find_implementations", map[string]any{"interface": "Square"})
		if got, want := symbolNames(r), []string{"fmt.Stringer", pkg + ".Shape", pkg + ".Solid"}; !slices.Equal(got, want) {
			t.Errorf("find_implementations Square = %q, want %q", got, want)
		}
	})
	t.Run("find_references", func(t *testing.T) {
		r := call[ReferencesResult](t, c, "find_references", map[string]any{"qualified_name": "Square.Side"})
		var got []string
		for _, s := range r.References {
			got = append(got, fmt.Sprintf("%s:%d:%d %s in %s", s.File, s.Line, s.Col, s.Kind, s.In))
		}
		want := []string{
			"shapes.go:29:43 reference in example.com/shapes.Square.Area",
			"shapes.go:29:52 reference in example.com/shapes.Square.Area",
			"shapes.go:32:52 reference in example.com/shapes.Square.Perimeter",
			"shapes.go:34:69 reference in example.com/shapes.Square.String",
			"shapes.go:86:53 reference in example.com/shapes.NewSquare",
			"shapes_test.go:6:33 reference in example.com/shapes.TestTotal",
		}
		if !slices.Equal(got, want) {
			t.Errorf("find_references Square.Side:\n got %q\nwant %q", got, want)
		}
	})
	t.Run("find_call_path", func(t *testing.T) {
		p := call[CallPath](t, c, "find_call_path", map[string]any{"from": pkg + "/cmd/shapes.main", "to": "Circle.Area"})
		// main calls s.Area() itself, in a function literal.
		want := []string{pkg + "/cmd/shapes.main", pkg + ".Shape.Area", pkg + ".Circle.Area"}
		if !p.Found || !slices.Equal(p.Path, want) {
			t.Errorf("find_call_path = %+v, want %q", p, want)
		}
		p = call[CallPath](t, c, "find_call_path", map[string]any{"from": "NewSquare", "to": "Total"})
		if p.Found || len(p.Path) != 0 {
			t.Errorf("find_call_path NewSquare -> Total = %+v", p)
		}
	})
	t.Run("read_file", func(t *testing.T) {
		text := call2text(t, c, "read_file", map[string]any{"file_path": "cmd/shapes/main.go", "offset": 1, "limit": 2})
		if want := "# Lines 2-3 of 20\npackage main\n\n"; text != want {
			t.Errorf("read_file = %q, want %q", text, want)
		}
		for _, outside := range []string{"../../etc/passwd", "/etc/passwd", filepath.Join(dir, "..", "graph.db")} {
			if msg := toolError(t, c, "read_file", map[string]any{"file_path": outside}); !strings.Contains(msg, "not a file of an indexed project") {
				t.Errorf("read_file %s: %s", outside, msg)
			}
		}
	})
	t.Run("query_code_graph", func(t *testing.T) {
		r := call[QueryResult](t, c, "query_code_graph", map[string]any{"natural_language_query": "who calls Total?"})
		if r.Method != "sampling" || len(r.Results) != 3 || r.Results[0]["caller"] != pkg+"/cmd/shapes.main" ||
			!strings.HasPrefix(r.QueryUsed, "SELECT src AS caller") || r.Summary != "Found 3 rows (caller, file, line)." {
			t.Errorf("who calls Total? = %+v", r)
		}
		r = call[QueryResult](t, c, "query_code_graph", map[string]any{"natural_language_query": "path from main to Area"})
		if len(r.Results) != 3 || r.Results[0]["path"] != pkg+"/cmd/shapes.main -> "+pkg+".Shape.Area" ||
			r.Results[2]["path"] != pkg+"/cmd/shapes.main -> "+pkg+".Report -> "+pkg+".Total -> "+pkg+".Shape.Area" {
			t.Errorf("a recursive query: %+v", r.Results)
		}
		r = call[QueryResult](t, c, "query_code_graph", map[string]any{"natural_language_query": "which types implement Shape?"})
		if len(r.Results) != 4 {
			t.Errorf("implements: %+v", r.Results)
		}
	})
	t.Run("read-only guard", func(t *testing.T) {
		for q, want := range map[string]string{
			"forget everything": "this one begins with DELETE",
			"sneak a write":     "this one says INSERT",
			"two at once":       "this SQL has 2 statements",
			"count forever":     "stopped after 300ms",
			"bad sql":           "no such column: nope",
		} {
			msg := toolError(t, c, "query_code_graph", map[string]any{"natural_language_query": q})
			if !strings.Contains(msg, want) {
				t.Errorf("%s: %s, want %q", q, msg, want)
			}
			if !strings.Contains(msg, "query_used: ") {
				t.Errorf("%s: the error does not show the query: %s", q, msg)
			}
		}
		if session {
			// In a session the server waits for the model, as long as -sample-timeout. (In
			// revision 2026-07-28 it does not wait: the question goes back to the client in
			// the answer, and the client's handler takes as long as it takes.)
			if msg := toolError(t, c, "query_code_graph", map[string]any{"natural_language_query": "think forever"}); !strings.Contains(msg, "did not answer within 1s") {
				t.Errorf("a model that never answers: %s", msg)
			}
		}
		if l := call[ProjectList](t, c, "list_projects", nil); l.Count != 1 || l.Projects[0].Nodes == 0 {
			t.Errorf("after the malicious queries: %+v", l)
		}
	})
	t.Run("resources", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		schema, err := c.ReadResource(ctx, "graph://schema")
		if err != nil || !strings.Contains(schema[0].Text, "CREATE TABLE IF NOT EXISTS nodes") {
			t.Errorf("graph://schema: %v %+v", err, schema)
		}
		projects, err := c.ReadResource(ctx, "graph://projects")
		if err != nil || !strings.Contains(projects[0].Text, `"name": "`+pkg+`"`) {
			t.Errorf("graph://projects: %v %+v", err, projects)
		}
	})
	// Last: it changes the module.
	t.Run("surgical_replace_code", func(t *testing.T) {
		msg := toolError(t, c, "surgical_replace_code", map[string]any{"file_path": "shapes.go", "target_code": "return", "replacement_code": "x"})
		if !strings.Contains(msg, "occurs 11 times in shapes.go (at lines 29, 32, 34, 42, 45, 59, 70, 76, 86, 94, 106)") {
			t.Errorf("several occurrences: %s", msg)
		}
		msg = toolError(t, c, "surgical_replace_code", map[string]any{"file_path": "shapes.go", "target_code": "func Unused()  {}", "replacement_code": "x"})
		if !strings.Contains(msg, "does not occur in shapes.go") || !strings.Contains(msg, "but for spacing") {
			t.Errorf("no occurrence: %s", msg)
		}
		r := call[ReplaceReport](t, c, "surgical_replace_code", map[string]any{"file_path": "shapes.go",
			"target_code": "func Unused() {}", "replacement_code": "func Unused() { Total(nil) }"})
		if !r.TypeChecks || r.Line != 98 || !slices.Equal(r.Packages, []string{pkg}) {
			t.Errorf("surgical_replace_code = %+v", r)
		}
		b, _ := os.ReadFile(filepath.Join(dir, "shapes.go"))
		if !strings.Contains(string(b), "func Unused() { Total(nil) }\n") {
			t.Errorf("the file was not changed")
		}
		// The next query finds the new call.
		callers := call[CallersResult](t, c, "find_callers", map[string]any{"qualified_name": "shapes.Total"})
		if !slices.Contains(callerSites(callers), "example.com/shapes.Unused call shapes.go:98:17") {
			t.Errorf("find_callers after the replacement: %q", callerSites(callers))
		}
		q := call[QueryResult](t, c, "query_code_graph", map[string]any{"natural_language_query": "who calls Total?"})
		if len(q.Results) != 4 || !slices.ContainsFunc(q.Results, func(r map[string]any) bool { return r["caller"] == pkg+".Unused" }) {
			t.Errorf("query_code_graph after the replacement: %+v", q.Results)
		}
		r = call[ReplaceReport](t, c, "surgical_replace_code", map[string]any{"file_path": "shapes.go",
			"target_code": "func Unused() { Total(nil) }", "replacement_code": "func Unused() { Total(1) }"})
		if r.TypeChecks || len(r.Errors) == 0 || !strings.Contains(r.Errors[0], "cannot use 1") {
			t.Errorf("a replacement that breaks the package: %+v", r)
		}
	})
}

func callerSites(r CallersResult) []string {
	var out []string
	for _, c := range r.Callers {
		for _, s := range c.Sites {
			out = append(out, fmt.Sprintf("%s %s %s:%d:%d", c.Caller, s.Kind, s.File, s.Line, s.Col))
		}
	}
	slices.Sort(out)
	return out
}

func symbolNames(r ImplementationsResult) []string {
	var out []string
	for _, s := range r.Implementations {
		out = append(out, s.QName)
	}
	return out
}

func call2text(t *testing.T, c *mcp.Client, tool string, args map[string]any) string {
	t.Helper()
	res := callRaw(t, c, tool, args)
	if err := res.Err(); err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res.Content[0].(mcp.Text).Text
}
