package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// End to end: the codegraph binary, run as a process over stdio and over Streamable HTTP,
// driven by mcpgen's client, whose sampling handler is a scripted model (fixed SQL for fixed
// questions, a malicious query, one that never ends, and a model that never answers).

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "codegraph-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "codegraph")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building codegraph: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// module copies testdata/shapes into a fresh directory (tests change its files).
func module(t *testing.T) string {
	t.Helper()
	return copyTree(t, "testdata/shapes")
}

// copyTree copies a directory of testdata into a fresh directory, and returns its path with
// symbolic links resolved.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	err := filepath.Walk(src, func(path string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(dst)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

const pkg = "example.com/shapes"

// model is the scripted model: it answers each question with a fixed query.
func model(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	q := req.Messages[len(req.Messages)-1].Content.(mcp.Text).Text
	if !strings.Contains(req.SystemPrompt, "CREATE TABLE IF NOT EXISTS edges") {
		return nil, errors.New("the system prompt lacks the schema")
	}
	var sql string
	switch {
	case strings.HasPrefix(q, "who calls Total?"):
		sql = "Here it is:\n```sql\nSELECT src AS caller, file, line FROM edge_names WHERE kind = 'calls' AND dst = '" + pkg + ".Total' ORDER BY file, line;\n```"
	case strings.HasPrefix(q, "which types implement Shape?"):
		sql = "SELECT s.qualified_name FROM edges e JOIN symbols s ON s.id = e.src JOIN symbols i ON i.id = e.dst WHERE e.kind = 'implements' AND i.qualified_name = '" + pkg + ".Shape' ORDER BY 1"
	case strings.HasPrefix(q, "path from main to Area"):
		sql = `WITH RECURSIVE walk(name, depth, path) AS (
  SELECT 'example.com/shapes/cmd/shapes.main', 0, 'example.com/shapes/cmd/shapes.main'
  UNION ALL
  SELECT e.dst, w.depth + 1, w.path || ' -> ' || e.dst FROM walk w JOIN edge_names e ON e.src = w.name AND e.kind = 'calls'
  WHERE w.depth < 3 AND instr(w.path, e.dst) = 0
) SELECT path FROM walk WHERE name = '` + pkg + `.Shape.Area' ORDER BY depth, path`
	case strings.HasPrefix(q, "forget everything"):
		sql = "DELETE FROM nodes"
	case strings.HasPrefix(q, "sneak a write"):
		sql = "WITH x AS (SELECT 1) INSERT INTO projects (name, root) SELECT 'evil', '/'"
	case strings.HasPrefix(q, "two at once"):
		sql = "SELECT 1; DROP TABLE nodes"
	case strings.HasPrefix(q, "count forever"):
		sql = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"
	case strings.HasPrefix(q, "think forever"):
		<-ctx.Done()
		return nil, ctx.Err()
	case strings.HasPrefix(q, "bad sql"):
		sql = "SELECT nope FROM nodes"
	default:
		return nil, fmt.Errorf("the scripted model has no answer for %q", q)
	}
	return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Content: mcp.Text{Text: sql}, Model: "scripted"}, nil
}

// server starts codegraph on a fresh database and connects to it. http chooses Streamable
// HTTP (at revision 2025-11-25, with sessions) over stdio (at the newest revision, 2026-07-28,
// where index_repository runs as a task).
func server(t *testing.T, http bool, sampling bool, trace func(bool, []byte), extra ...string) *mcp.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	args := []string{"-db", filepath.Join(t.TempDir(), "graph.db"), "-query-timeout", "300ms", "-sample-timeout", "1s"}
	if http {
		args = append(args, "-http", "127.0.0.1:0")
	}
	args = append(args, extra...) // flags, then directories
	opts := &mcp.ClientOptions{Info: mcp.Implementation{Name: "codegraph-test", Version: "1"}, Trace: trace}
	if sampling {
		opts.Sampling = model
	}
	var transport mcp.Transport
	if http {
		url := startHTTP(t, args)
		transport = &mcp.StreamableHTTPTransport{URL: url}
		opts.ProtocolVersion = "2025-11-25"
	} else {
		transport = &mcp.CommandTransport{Command: binary, Args: args}
	}
	c, err := mcp.Connect(ctx, transport, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// startHTTP runs codegraph with args (which say -http) until the test ends.
func startHTTP(t *testing.T, args []string) string {
	t.Helper()
	cmd := exec.Command(binary, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	buf := make([]byte, 4096)
	var got string
	for !strings.Contains(got, "\n") {
		n, err := stderr.Read(buf)
		if err != nil {
			t.Fatalf("codegraph -http: %v (%s)", err, got)
		}
		got += string(buf[:n])
	}
	url := strings.TrimSpace(strings.TrimPrefix(strings.SplitN(got, "\n", 2)[0], "serving MCP at "))
	go func() { // keep reading, so that the server never blocks on a full pipe
		for {
			if _, err := stderr.Read(buf); err != nil {
				return
			}
		}
	}()
	return url
}

// call calls a tool that must succeed and decodes its structured result.
func call[T any](t *testing.T, c *mcp.Client, tool string, args map[string]any) T {
	t.Helper()
	res := callRaw(t, c, tool, args)
	if err := res.Err(); err != nil {
		t.Fatalf("%s %v: %v", tool, args, err)
	}
	var out T
	if err := json.Unmarshal(res.StructuredContent, &out); err != nil {
		t.Fatalf("%s: %v in %s", tool, err, res.StructuredContent)
	}
	return out
}

func callRaw(t *testing.T, c *mcp.Client, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := c.CallTool(ctx, tool, args)
	if err != nil {
		t.Fatalf("%s %v: %v", tool, args, err)
	}
	return res
}

// toolError calls a tool that must fail and returns its message.
func toolError(t *testing.T, c *mcp.Client, tool string, args map[string]any) string {
	t.Helper()
	res := callRaw(t, c, tool, args)
	if !res.IsError {
		t.Fatalf("%s %v succeeded: %s", tool, args, res.StructuredContent)
	}
	return res.Content[0].(mcp.Text).Text
}

func TestStdio(t *testing.T) {
	var mu sync.Mutex
	var polls int
	dir := module(t)
	c := server(t, false, true, func(fromServer bool, msg []byte) {
		if !fromServer && strings.Contains(string(msg), `"tasks/get"`) {
			mu.Lock()
			polls++
			mu.Unlock()
		}
	}, "-write", "-root", dir)
	progress := indexWithProgress(t, c, dir)
	mu.Lock()
	defer mu.Unlock()
	if polls == 0 {
		t.Error("index_repository did not run as a task: the client never polled tasks/get")
	}
	if len(progress) == 0 {
		t.Error("index_repository's task reported no progress")
	}
	exercise(t, c, dir, false)
}

func TestHTTP(t *testing.T) {
	dir := module(t)
	c := server(t, true, true, nil, "-write", "-root", dir)
	progress := indexWithProgress(t, c, dir)
	if !slices.ContainsFunc(progress, func(m string) bool { return strings.HasPrefix(m, "indexed "+pkg) }) {
		t.Errorf("no progress notification named a package: %q", progress)
	}
	exercise(t, c, dir, true)
}

// indexWithProgress indexes dir and returns the progress messages the client heard.
func indexWithProgress(t *testing.T, c *mcp.Client, dir string) []string {
	t.Helper()
	var mu sync.Mutex
	var msgs []string
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ctx = mcp.WithProgress(ctx, func(p mcp.ProgressNotice) {
		mu.Lock()
		msgs = append(msgs, p.Message)
		mu.Unlock()
	})
	res, err := c.CallTool(ctx, "index_repository", map[string]any{"path": dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	var rep IndexReport
	if err := json.Unmarshal(res.StructuredContent, &rep); err != nil {
		t.Fatal(err)
	}
	// shapes (with its tests), shapes_test, cmd/shapes.
	if rep.Packages != 3 || rep.Indexed != 3 || rep.Root != dir || rep.Project != pkg || len(rep.Broken) != 0 {
		t.Errorf("index_repository = %+v", rep)
	}
	mu.Lock()
	defer mu.Unlock()
	return msgs
}

func TestWithoutSampling(t *testing.T) {
	dir := module(t)
	c := server(t, false, false, nil, "-root", dir)
	call[IndexReport](t, c, "index_repository", map[string]any{"path": dir})
	r := call[QueryResult](t, c, "query_code_graph", map[string]any{"natural_language_query": "Who calls shapes.Total?"})
	if r.Method != "parser" || r.QueryUsed != `find_callers("example.com/shapes.Total")` || len(r.Results) != 4 ||
		!strings.Contains(r.Summary, "offers no sampling") {
		t.Errorf("who calls = %+v", r)
	}
	r = call[QueryResult](t, c, "query_code_graph", map[string]any{"natural_language_query": "what implements `Shape`?"})
	if len(r.Results) != 4 {
		t.Errorf("what implements = %+v", r)
	}
	r = call[QueryResult](t, c, "query_code_graph", map[string]any{"natural_language_query": "types whose name contains \"ircl\""})
	if len(r.Results) != 1 || r.Results[0]["qualified_name"] != pkg+".Circle" {
		t.Errorf("types whose name contains = %+v", r)
	}
	msg := toolError(t, c, "query_code_graph", map[string]any{"natural_language_query": "how is the weather?"})
	if !strings.Contains(msg, "does not understand") || !strings.Contains(msg, "who calls X") {
		t.Errorf("an unparsable question: %s", msg)
	}
}

// The directories on the command line are indexed while the server serves.
func TestIndexAtStart(t *testing.T) {
	dir := module(t)
	c := server(t, false, false, nil, dir)
	deadline := time.Now().Add(90 * time.Second)
	for {
		l := call[ProjectList](t, c, "list_projects", nil)
		if l.Count == 1 && l.Projects[0].IndexedAt != "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the module given at start was not indexed: %+v", l)
		}
		time.Sleep(100 * time.Millisecond)
	}
	r := call[CallersResult](t, c, "find_callers", map[string]any{"qualified_name": "Report"})
	if r.Count != 1 || r.Callers[0].Caller != pkg+"/cmd/shapes.main" {
		t.Errorf("find_callers Report = %+v", r)
	}
}

// A query that arrives while a directory is being indexed (as those given at start are,
// while the server already answers) waits for the run, telling the client how it goes, and
// answers from the whole graph; one whose request ends first says why. Before, it answered
// at once that the name was not found.
func TestQueryWaitsForIndex(t *testing.T) {
	dir := module(t)
	c, g := inProcess(t, nil)
	ctx := t.Context()
	started, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	done := make(chan error, 1)
	go func() {
		_, err := g.reindex(ctx, dir, func(int, int, string) {
			once.Do(func() { close(started); <-release })
		})
		done <- err
	}()
	<-started
	// A request that ends while the run goes on.
	short, cancel := context.WithTimeout(ctx, 1500*time.Millisecond)
	res, err := c.CallTool(short, "find_callers", map[string]any{"qualified_name": "Report"})
	cancel()
	if err == nil && !res.IsError {
		t.Errorf("find_callers answered while %s was being indexed: %s", dir, res.StructuredContent)
	}
	// One that waits, hearing progress, until the run ends.
	var mu sync.Mutex
	var heard []string
	pctx := mcp.WithProgress(ctx, func(p mcp.ProgressNotice) {
		mu.Lock()
		heard = append(heard, p.Message)
		mu.Unlock()
	})
	answered := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := c.CallTool(pctx, "find_callers", map[string]any{"qualified_name": "Report"})
		if err != nil {
			t.Error(err)
		}
		answered <- res
	}()
	time.Sleep(2500 * time.Millisecond)
	select {
	case r := <-answered:
		t.Fatalf("find_callers answered before the index run ended: %+v", r)
	default:
	}
	if l := call[ProjectList](t, c, "list_projects", nil); len(l.Indexing) != 1 || l.Indexing[0].Dir != dir {
		t.Errorf("list_projects while indexing: %+v", l)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var r CallersResult
	if res := <-answered; res == nil || res.Err() != nil || json.Unmarshal(res.StructuredContent, &r) != nil || r.Count != 1 || r.Callers[0].Caller != pkg+"/cmd/shapes.main" {
		t.Errorf("find_callers once indexed = %+v", res)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.ContainsFunc(heard, func(m string) bool { return strings.HasPrefix(m, "waiting for the index of "+dir) }) {
		t.Errorf("no progress while waiting: %q", heard)
	}
	if _, err := g.FindCallers(ctx, DepthInput{QualifiedName: "NoSuchThing"}); err == nil || strings.Contains(err.Error(), "being indexed") {
		t.Errorf("find_callers of a name not found, with no index run: %v", err)
	}
}

// One-shot use (mcpgen call --stdio "codegraph DIR" find_callers ...): the call arrives as
// the server starts indexing DIR, waits for it, and answers. Before, it answered that the
// symbol was being indexed, and the process ended before the index did.
func TestOneShotCall(t *testing.T) {
	dir := module(t)
	c := server(t, false, false, nil, dir)
	r := call[CallersResult](t, c, "find_callers", map[string]any{"qualified_name": "Report"})
	if r.Count != 1 || r.Callers[0].Caller != pkg+"/cmd/shapes.main" {
		t.Errorf("find_callers at once = %+v", r)
	}
}

// An edit made outside codegraph's tools (an editor, git) is indexed within seconds: the
// server watches the trees it indexed. Before, the caller count stayed where it was until
// index_repository ran again.
func TestFollowsOutsideEdits(t *testing.T) {
	dir := module(t)
	c := server(t, false, false, nil, dir)
	callers := func() int {
		return call[CallersResult](t, c, "find_callers", map[string]any{"qualified_name": "shapes.Total"}).Count
	}
	if n := callers(); n != 4 {
		t.Fatalf("callers of Total: %d, want 4", n)
	}
	f := filepath.Join(dir, "shapes.go")
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, append(b, "\n// Twice is twice the total.\nfunc Twice(s []Shape) float64 { return 2 * Total(s) }\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for callers() != 5 {
		if time.Since(start) > 60*time.Second {
			t.Fatalf("the edit was not indexed within 60 s")
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("the edit was indexed in %v", time.Since(start).Round(10*time.Millisecond))
	// A file removed: its callers go.
	if err := os.Remove(filepath.Join(dir, "cmd", "shapes", "main.go")); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	for callers() != 4 {
		if time.Since(start) > 60*time.Second {
			t.Fatalf("the removal was not indexed within 60 s")
		}
		time.Sleep(200 * time.Millisecond)
	}
}
