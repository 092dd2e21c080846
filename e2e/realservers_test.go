package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/spectest"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// mcpgen's client against real servers nobody here wrote: the reference servers of the MCP
// project (npm's @modelcontextprotocol/server-*, pinned by e2e/servers/package-lock.json and
// installed by scripts/test.sh). Every message a server sends is checked against the
// schema.json of the revision the client negotiated.

// serverScript returns the entry point of an installed reference server.
func serverScript(t *testing.T, name string) string {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("servers", "node_modules", "@modelcontextprotocol", name, "dist", "index.js"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%s is not installed: run ./scripts/test.sh, which installs e2e/servers (or: cd e2e/servers && npm ci): %v", name, err)
	}
	return path
}

// refereed collects what a server sends, for the referee to check once the revision is
// known: each message with the method of the request it answers.
type refereed struct {
	mu      sync.Mutex
	methods map[string]string // the client's request ids -> methods
	got     []tracedMessage
}

type tracedMessage struct {
	msg    []byte
	method string
}

func newRefereed() *refereed { return &refereed{methods: map[string]string{}} }

func (r *refereed) trace(fromServer bool, msg []byte) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Task json.RawMessage `json:"task"`
		} `json:"params"`
	}
	json.Unmarshal(msg, &m)
	r.mu.Lock()
	defer r.mu.Unlock()
	if !fromServer {
		if m.Method != "" && m.ID != nil {
			r.methods[string(m.ID)] = m.Method
			if m.Method == "tools/call" && m.Params.Task != nil {
				r.methods[string(m.ID)] = spectest.TaskAugmented // answered with a CreateTaskResult
			}
		}
		return
	}
	method := ""
	if m.Method == "" {
		method = r.methods[string(m.ID)]
	}
	r.got = append(r.got, tracedMessage{append([]byte(nil), msg...), method})
}

// check validates every message the server sent against its revision's schema.
func (r *refereed) check(t *testing.T, version string) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.got) == 0 {
		t.Fatal("the server sent nothing")
	}
	for _, m := range r.got {
		checkSchema(t, version, m.msg, m.method)
	}
}

// everythingClient connects to server-everything with every capability declared, and
// answers what it asks.
func everythingClient(t *testing.T, tr mcp.Transport) (*mcp.Client, *refereed, *everythingEvents) {
	t.Helper()
	ref := newRefereed()
	ev := &everythingEvents{}
	opts := &mcp.ClientOptions{
		Info: mcp.Implementation{Name: "mcpgen-e2e", Version: "1.0.0"},
		Sampling: func(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			ev.add("sampling")
			return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Content: mcp.Text{Text: "a model's answer"}, Model: "test-model", StopReason: "endTurn"}, nil
		},
		Elicitation: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			ev.add("elicitation")
			return &mcp.ElicitResult{Action: mcp.Accept, Content: map[string]any{}}, nil
		},
		Roots:           []mcp.Root{{URI: "file:///workspace", Name: "workspace"}},
		Log:             func(mcp.LogMessage) { ev.add("log") },
		ResourceUpdated: func(string) { ev.add("updated") },
		Trace:           ref.trace,
		Logger:          quietLogger(),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := mcp.Connect(ctx, tr, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, ref, ev
}

type everythingEvents struct {
	mu   sync.Mutex
	seen map[string]int
}

func (e *everythingEvents) add(what string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.seen == nil {
		e.seen = map[string]int{}
	}
	e.seen[what]++
}

func (e *everythingEvents) count(what string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.seen[what]
}

// everythingArgs are the arguments each tool of server-everything is called with. A tool
// not named here (a later release's) is called without arguments.
var everythingArgs = map[string]map[string]any{
	"echo":                           {"message": "hi"},
	"get-annotated-message":          {"messageType": "success", "includeImage": true},
	"get-resource-links":             {"count": 2},
	"get-resource-reference":         {"resourceType": "Text", "resourceId": 1},
	"get-structured-content":         {"location": "Chicago"},
	"get-sum":                        {"a": 2, "b": 3},
	"gzip-file-as-resource":          {"name": "hello.txt.gz", "data": "data:text/plain;base64,aGVsbG8gd29ybGQ=", "outputType": "resource"},
	"trigger-long-running-operation": {"duration": 1, "steps": 2},
	"trigger-sampling-request":       {"prompt": "Say hi", "maxTokens": 10},
	"simulate-research-query":        {"topic": "Go"},
}

// researchTask calls simulate-research-query, which runs only as a task (execution.taskSupport
// "required", the experimental tasks of 2025-11-25; the call was refused with -32601 before
// mcpgen's client asked for tasks): an ambiguous query asks the user on the way
// (elicitation, delivered while the client waits for tasks/result), and the task's status
// messages reach the progress function.
func researchTask(t *testing.T, c *mcp.Client, ev *everythingEvents) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var mu sync.Mutex
	var statuses []string
	ctx = mcp.WithProgress(ctx, func(n mcp.ProgressNotice) {
		mu.Lock()
		defer mu.Unlock()
		if n.Status != "" {
			statuses = append(statuses, n.Message)
		}
	})
	elicited := ev.count("elicitation")
	res, err := c.CallTool(ctx, "simulate-research-query", map[string]any{"topic": "python", "ambiguous": true})
	if err != nil {
		t.Fatalf("simulate-research-query: %v", err)
	}
	if res.IsError || len(res.Content) == 0 || !strings.Contains(res.Content[0].(mcp.Text).Text, "# Research Report: python (") {
		t.Errorf("simulate-research-query: %+v", res)
	}
	if ev.count("elicitation") != elicited+1 {
		t.Errorf("the task's question reached the elicitation handler %d times, want once", ev.count("elicitation")-elicited)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Contains(statuses, "Gathering sources...") {
		t.Errorf("the task's status messages: %q", statuses)
	}
}

// exerciseEverything lists and calls every tool of server-everything, and uses its
// resources, prompts and completions; then the referee checks what it sent.
func exerciseEverything(t *testing.T, c *mcp.Client, ref *refereed, ev *everythingEvents) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tools, err := c.ListTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Name)
	}
	for _, want := range []string{"echo", "get-sum", "get-structured-content", "trigger-sampling-request", "trigger-elicitation-request", "get-roots-list"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools/list lacks %s: %v", want, names)
		}
	}
	if err := c.SetLogLevel(ctx, mcp.LevelDebug); err != nil {
		t.Fatal(err)
	}
	var progress int
	var pmu sync.Mutex
	pctx := mcp.WithProgress(ctx, func(mcp.ProgressNotice) {
		pmu.Lock()
		progress++
		pmu.Unlock()
	})
	for _, name := range names {
		res, err := c.CallTool(pctx, name, everythingArgs[name])
		if err != nil {
			t.Errorf("tools/call %s: %v", name, err)
			continue
		}
		switch name {
		case "echo":
			if text := res.Content[0].(mcp.Text).Text; !strings.Contains(text, "hi") {
				t.Errorf("echo: %q", text)
			}
		case "get-sum":
			if text := res.Content[0].(mcp.Text).Text; !strings.Contains(text, "5") {
				t.Errorf("get-sum: %q", text)
			}
		case "get-structured-content":
			if res.StructuredContent == nil {
				t.Errorf("get-structured-content has no structured content: %+v", res)
			}
		case "get-tiny-image":
			if !slices.ContainsFunc(res.Content, func(b mcp.Content) bool { _, ok := b.(mcp.Image); return ok }) {
				t.Errorf("get-tiny-image has no image: %+v", res.Content)
			}
		case "get-resource-links":
			if !slices.ContainsFunc(res.Content, func(b mcp.Content) bool { _, ok := b.(mcp.ResourceLink); return ok }) {
				t.Errorf("get-resource-links has no resource link: %+v", res.Content)
			}
		}
		if res.IsError {
			t.Errorf("tools/call %s: an error result: %v", name, res.Err())
		}
	}
	if ev.count("sampling") == 0 || ev.count("elicitation") == 0 {
		t.Errorf("the server's requests reached the handlers: %v", ev.seen)
	}
	if slices.Contains(names, "simulate-research-query") {
		researchTask(t, c, ev)
	}
	pmu.Lock()
	if progress == 0 {
		t.Error("trigger-long-running-operation reported no progress")
	}
	pmu.Unlock()

	// Resources, templates, prompts, completions.
	resources, err := c.ListResources(ctx)
	if err != nil || len(resources) == 0 {
		t.Fatalf("resources/list: %d, %v", len(resources), err)
	}
	for _, r := range resources {
		if contents, err := c.ReadResource(ctx, r.URI); err != nil || len(contents) == 0 {
			t.Errorf("resources/read %s: %v", r.URI, err)
		}
	}
	templates, err := c.ListResourceTemplates(ctx)
	if err != nil || len(templates) == 0 {
		t.Fatalf("resources/templates/list: %d, %v", len(templates), err)
	}
	if contents, err := c.ReadResource(ctx, "demo://resource/dynamic/text/7"); err != nil || len(contents) == 0 || contents[0].Text == "" {
		t.Errorf("a template's resource: %+v %v", contents, err)
	}
	if err := c.Subscribe(ctx, resources[0].URI); err != nil {
		t.Errorf("resources/subscribe: %v", err)
	}
	prompts, err := c.ListPrompts(ctx)
	if err != nil || len(prompts) == 0 {
		t.Fatalf("prompts/list: %d, %v", len(prompts), err)
	}
	if p, err := c.GetPrompt(ctx, "args-prompt", map[string]string{"city": "Lisbon"}); err != nil || len(p.Messages) == 0 {
		t.Errorf("prompts/get: %+v %v", p, err)
	}
	if cr, err := c.Complete(ctx, mcp.CompletionRef{Prompt: "completable-prompt"}, "department", "E", nil); err != nil || len(cr.Values) == 0 {
		t.Errorf("completion/complete: %+v %v", cr, err)
	}
	if err := c.Ping(ctx); err != nil {
		t.Errorf("ping: %v", err)
	}
	ref.check(t, c.Server().ProtocolVersion)
}

func TestRealServerEverythingOverStdio(t *testing.T) {
	t.Parallel()
	script := serverScript(t, "server-everything")
	c, ref, ev := everythingClient(t, &mcp.CommandTransport{Command: "node", Args: []string{script, "stdio"}, Name: "everything"})
	if v := c.Server().ProtocolVersion; v != "2025-11-25" || c.Server().Name == "" {
		t.Fatalf("negotiated %s with %+v", v, c.Server())
	}
	exerciseEverything(t, c, ref, ev)
}

func TestRealServerEverythingOverHTTP(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"streamableHttp", "sse"} {
		t.Run(mode, func(t *testing.T) {
			base := startNodeServer(t, serverScript(t, "server-everything"), mode)
			var tr mcp.Transport = &mcp.StreamableHTTPTransport{URL: base + "/mcp"}
			if mode == "sse" {
				tr = &mcp.SSETransport{URL: base + "/sse"}
			}
			c, ref, ev := everythingClient(t, tr)
			exerciseEverything(t, c, ref, ev)
		})
	}
}

// startNodeServer runs a reference server in an HTTP mode on a free loopback port, until
// the test ends, and returns its base URL.
func startNodeServer(t *testing.T, script, mode string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command("node", script, mode)
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	// The server says when it listens.
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		once := sync.Once{}
		for sc.Scan() {
			if strings.Contains(sc.Text(), strconv.Itoa(port)) {
				once.Do(func() { close(ready) })
			}
		}
	}()
	select {
	case <-ready:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s %s did not start", script, mode)
	}
	return fmt.Sprintf("http://127.0.0.1:%d", port)
}

func TestRealServerFilesystem(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dir, _ = filepath.EvalSymlinks(dir)
	ref := newRefereed()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := mcp.Connect(ctx, &mcp.CommandTransport{Command: "node", Args: []string{serverScript(t, "server-filesystem"), dir}, Name: "filesystem"},
		&mcp.ClientOptions{Trace: ref.trace, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tools, err := c.ListTools(ctx)
	if err != nil || len(tools) < 5 {
		t.Fatalf("tools/list: %d, %v", len(tools), err)
	}
	file := filepath.Join(dir, "notes.txt")
	call := func(name string, args map[string]any) string {
		t.Helper()
		res, err := c.CallTool(ctx, name, args)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.IsError {
			t.Fatalf("%s: %v", name, res.Err())
		}
		return res.Content[0].(mcp.Text).Text
	}
	call("write_file", map[string]any{"path": file, "content": "water the plants\n"})
	if got := call("read_text_file", map[string]any{"path": file}); got != "water the plants\n" {
		t.Errorf("read_text_file: %q", got)
	}
	if got := call("list_directory", map[string]any{"path": dir}); !strings.Contains(got, "notes.txt") {
		t.Errorf("list_directory: %q", got)
	}
	// A path outside the allowed directory is the tool's error, not the protocol's.
	res, err := c.CallTool(ctx, "read_text_file", map[string]any{"path": "/etc/hostname"})
	if err != nil || !res.IsError {
		t.Errorf("a file outside the root: %+v %v", res, err)
	}
	ref.check(t, c.Server().ProtocolVersion)
}

func TestRealServerMemory(t *testing.T) {
	t.Parallel()
	ref := newRefereed()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := mcp.Connect(ctx, &mcp.CommandTransport{Command: "node", Args: []string{serverScript(t, "server-memory")}, Name: "memory",
		Env: []string{"MEMORY_FILE_PATH=" + filepath.Join(t.TempDir(), "memory.jsonl")}},
		&mcp.ClientOptions{Trace: ref.trace, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.CallTool(ctx, "create_entities", map[string]any{"entities": []map[string]any{
		{"name": "Ada", "entityType": "person", "observations": []string{"wrote the first program"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.CallTool(ctx, "read_graph", nil)
	if err != nil || res.IsError {
		t.Fatalf("read_graph: %+v %v", res, err)
	}
	var graph string
	if res.StructuredContent != nil {
		graph = string(res.StructuredContent)
	} else {
		graph = res.Content[0].(mcp.Text).Text
	}
	if !strings.Contains(graph, "wrote the first program") {
		t.Errorf("read_graph: %s", graph)
	}
	ref.check(t, c.Server().ProtocolVersion)
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
