package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/examples/codegraph/graph"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// inProcess serves a fresh graph in this process and connects a client to it, which declares
// sampling only when it is given a handler (the clients people use do not declare it).
func inProcess(t *testing.T, sampling func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error)) (*mcp.Client, *Graph) {
	t.Helper()
	return inProcessAt(t, "", sampling)
}

// inProcessAt is inProcess at a revision ("" for the newest).
func inProcessAt(t *testing.T, revision string, sampling func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error)) (*mcp.Client, *Graph) {
	t.Helper()
	store, err := graph.Open(filepath.Join(t.TempDir(), "graph.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	g := NewGraph(store)
	g.Policy.IndexAny = true // the tests' modules are in temporary directories
	srv := mcp.NewServer(mcp.Implementation{Name: "codegraph", Version: "1"}, &mcp.ServerOptions{Instructions: instructions})
	RegisterMCP(srv, g)
	c, err := mcp.Connect(t.Context(), &mcp.MemoryTransport{Server: srv}, &mcp.ClientOptions{
		Info: mcp.Implementation{Name: "no-sampling", Version: "1"}, Sampling: sampling, ProtocolVersion: revision,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, g
}

// accounts copies testdata/accounts into a fresh directory and indexes it.
func accounts(t *testing.T, c *mcp.Client) string {
	t.Helper()
	dir := copyTree(t, "testdata/accounts")
	call[IndexReport](t, c, "index_repository", map[string]any{"path": dir})
	return dir
}

const acc = "example.com/accounts"

func names(rows []map[string]any, col string) []string {
	var out []string
	for _, r := range rows {
		out = append(out, fmt.Sprint(r[col]))
	}
	return out
}

// Without sampling, query_code_graph answers the seed's own examples and the relations,
// and says how it understood them.
func TestQueryWithoutSampling(t *testing.T) {
	c, _ := inProcess(t, nil)
	accounts(t, c)
	for _, tc := range []struct {
		q, col string
		want   []string
	}{
		{"Show me all classes that contain 'user' in their name", "qualified_name", []string{acc + "/user.User", acc + "/user.UserService"}},
		{"Find all classes in the user module", "qualified_name", []string{acc + "/user.MemoryStore", acc + "/user.Store", acc + "/user.User", acc + "/user.UserService"}},
		{"functions in package billing whose name contains invoice", "qualified_name", []string{acc + "/billing.UserInvoice"}},
		{"What does package billing import?", "package", []string{acc + "/user", "fmt"}},
		{"which packages import example.com/accounts/user?", "package", []string{acc + "/billing", acc + "/cmd/app"}},
		{"what calls CreateUser?", "caller", []string{acc + "/billing.UserInvoice"}},
		{"Who calls NewUserService", "caller", []string{acc + "/cmd/app.main"}},
		{"What does UserInvoice call?", "callee", []string{acc + "/user.UserService.CreateUser", "fmt.Errorf"}},
		{"which types implement user.Store?", "qualified_name", []string{acc + "/user.MemoryStore"}},
		{"references to Invoice.Amount", "in", []string{acc + "/billing.UserInvoice"}},
	} {
		r := call[QueryResult](t, c, "query_code_graph", map[string]any{"natural_language_query": tc.q})
		got := names(r.Results, tc.col)
		if tc.col != "callee" && tc.col != "package" {
			slices.Sort(got)
		}
		if r.Method != "parser" || !slices.Equal(got, tc.want) || !strings.Contains(r.Summary, "offers no sampling") {
			t.Errorf("%q:\n got %q (%s, %s)\nwant %q", tc.q, got, r.Method, r.Summary, tc.want)
		}
	}
	// A listing shows the SQL it ran, for the model to adapt.
	r := call[QueryResult](t, c, "query_code_graph", map[string]any{"natural_language_query": "Show me all classes that contain 'user' in their name"})
	if !strings.HasPrefix(r.QueryUsed, "SELECT n.qualified_name") || !strings.Contains(r.QueryUsed, `LIKE '%user%'`) {
		t.Errorf("query_used = %s", r.QueryUsed)
	}
	msg := toolError(t, c, "query_code_graph", map[string]any{"natural_language_query": "how is the weather?"})
	if !strings.Contains(msg, "does not understand") || !strings.Contains(msg, "query_sql") || !strings.Contains(msg, "who calls X") {
		t.Errorf("an unparsable question: %s", msg)
	}
}

// A client that declares sampling and refuses it (-32601, as some do) gets the parser's
// answer too. (In revision 2026-07-28 the request travels in the tool's answer, and mcpgen's
// client fails the call when its handler refuses: the server never hears of it.)
func TestQueryWhenSamplingIsRefused(t *testing.T) {
	c, _ := inProcessAt(t, "2025-11-25", func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "Method not found"}
	})
	accounts(t, c)
	r := call[QueryResult](t, c, "query_code_graph", map[string]any{"natural_language_query": "Find all classes in the user module"})
	if r.Method != "parser" || len(r.Results) != 4 || !strings.Contains(r.Summary, "did not sample") {
		t.Errorf("a refused sampling request: %+v", r)
	}
}

func TestQuerySQL(t *testing.T) {
	c, _ := inProcess(t, nil)
	accounts(t, c)
	r := call[SQLResult](t, c, "query_sql", map[string]any{"sql": "SELECT src, file, line FROM edge_names WHERE kind = 'calls' AND dst = '" + acc + "/user.UserService.CreateUser'"})
	if !slices.Equal(r.Columns, []string{"src", "file", "line"}) || len(r.Rows) != 1 || r.Rows[0][0] != acc+"/billing.UserInvoice" || r.Rows[0][1] != "billing/billing.go" {
		t.Errorf("query_sql = %+v", r)
	}
	r = call[SQLResult](t, c, "query_sql", map[string]any{"sql": "SELECT qualified_name FROM nodes ORDER BY 1", "max_rows": 3})
	if len(r.Rows) != 3 || !r.Truncated {
		t.Errorf("max_rows 3: %+v", r)
	}
	for sql, want := range map[string]string{
		"DELETE FROM nodes": "begins with DELETE",
		"WITH x AS (SELECT 1) INSERT INTO projects (name, root) SELECT 'evil', '/'": "says INSERT",
		"PRAGMA query_only = 0":      "begins with PRAGMA",
		"SELECT 1; DROP TABLE nodes": "2 statements",
		"ATTACH '/tmp/x.db' AS x":    "begins with ATTACH",
		"SELECT nope FROM nodes":     "no such column: nope",
		"SELECT * FROM classes":      "no such table: classes",
	} {
		msg := toolError(t, c, "query_sql", map[string]any{"sql": sql})
		if !strings.Contains(msg, want) {
			t.Errorf("%s: %s, want %q", sql, msg, want)
		}
		if strings.HasPrefix(want, "no such") && !strings.Contains(msg, "nodes: id, symbol_id, project_id") {
			t.Errorf("%s: the error does not list the tables' columns: %s", sql, msg)
		}
	}
	if l := call[ProjectList](t, c, "list_projects", nil); l.Count != 1 || l.Projects[0].Nodes == 0 {
		t.Errorf("after the refused writes: %+v", l)
	}
}

func TestSearchSymbols(t *testing.T) {
	c, _ := inProcess(t, nil)
	accounts(t, c)
	for _, tc := range []struct {
		query, kind string
		first, how  string
	}{
		{"CreateUser", "", acc + "/user.UserService.CreateUser", "exact"},
		{"createuser", "", acc + "/user.UserService.CreateUser", "case"},
		{"user.CreatUser", "", acc + "/user.UserService.CreateUser", "fuzzy"},
		{"billing.UserInvoce", "", acc + "/billing.UserInvoice", "fuzzy"},
		{"Invoic", "", acc + "/billing.Invoice", "prefix"},
		{"userserv", "class", acc + "/user.UserService", "prefix"},
		{"Store", "interface", acc + "/user.Store", "exact"},
	} {
		r := call[SearchResult](t, c, "search_symbols", map[string]any{"query": tc.query, "kind": tc.kind})
		if r.Count == 0 || r.Matches[0].QName != tc.first || r.Matches[0].How != tc.how {
			t.Errorf("search_symbols %q: %+v, want %s first (%s)", tc.query, r.Matches, tc.first, tc.how)
		}
	}
	// A name not found suggests the names it is a typo of.
	msg := toolError(t, c, "find_callers", map[string]any{"qualified_name": "user.NewUserServce"})
	if !strings.Contains(msg, "did you mean "+acc+"/user.NewUserService") {
		t.Errorf("a typo: %s", msg)
	}
	s := call[CodeSnippet](t, c, "get_code_snippet", map[string]any{"qualified_name": "billing.UserInvoce"})
	if s.Found || !strings.Contains(s.Message, "did you mean "+acc+"/billing.UserInvoice") {
		t.Errorf("get_code_snippet of a typo: %+v", s)
	}
}

func TestImports(t *testing.T) {
	c, _ := inProcess(t, nil)
	accounts(t, c)
	r := call[ImportsResult](t, c, "find_imports", map[string]any{"package": "cmd/app"})
	var got []string
	for _, im := range r.Imports {
		got = append(got, fmt.Sprintf("%s %v %s:%d", im.Package, im.InProject, im.Sites[0].File, im.Sites[0].Line))
	}
	if want := []string{acc + "/billing true cmd/app/main.go:7", acc + "/user true cmd/app/main.go:8", "fmt false cmd/app/main.go:5"}; r.Package != acc+"/cmd/app" || !slices.Equal(got, want) {
		t.Errorf("find_imports cmd/app = %s %q, want %q", r.Package, got, want)
	}
	r = call[ImportsResult](t, c, "find_importers", map[string]any{"package": "fmt"})
	got = nil
	for _, im := range r.Imports {
		got = append(got, im.Package)
	}
	if want := []string{acc + "/billing", acc + "/cmd/app"}; !slices.Equal(got, want) {
		t.Errorf("find_importers fmt = %q, want %q", got, want)
	}
	if msg := toolError(t, c, "find_imports", map[string]any{"package": "fmt"}); !strings.Contains(msg, "not a package of an indexed project") {
		t.Errorf("find_imports of a package outside: %s", msg)
	}
	if msg := toolError(t, c, "find_importers", map[string]any{"package": "biling"}); !strings.Contains(msg, `no package "biling"`) || !strings.Contains(msg, acc+"/billing") {
		t.Errorf("find_importers of a typo: %s", msg)
	}
}
