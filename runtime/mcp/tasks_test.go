package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// The _meta of a stateless request whose client declares the tasks extension (and
// elicitation), and of one that declares nothing.
const (
	taskMeta  = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	plainMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
)

type taskHarness struct {
	*harness
	id int
}

func (h *taskHarness) call(method, params string) map[string]any {
	h.t.Helper()
	h.id++
	return h.roundTrip(`{"jsonrpc":"2.0","id":` + itoa(h.id) + `,"method":"` + method + `","params":{` + params + `}}`)
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// task calls tools/call and returns the task handle it must answer with.
func (h *taskHarness) task(tool, args string) string {
	h.t.Helper()
	r := result(h.t, h.call("tools/call", `"name":"`+tool+`","arguments":`+args+`,`+taskMeta))
	if r["resultType"] != "task" || r["taskId"] == "" || r["status"] != "working" {
		h.t.Fatalf("want a task handle, got %v", r)
	}
	for _, absent := range []string{"result", "error", "inputRequests", "requestState"} {
		if _, ok := r[absent]; ok {
			h.t.Errorf("the task handle has %q: %v", absent, r)
		}
	}
	for _, ts := range []string{"createdAt", "lastUpdatedAt"} {
		if _, err := time.Parse(time.RFC3339, r[ts].(string)); err != nil {
			h.t.Errorf("%s: %v", ts, err)
		}
	}
	if r["ttlMs"] != 3600000.0 || r["pollIntervalMs"] != 1000.0 {
		h.t.Errorf("ttlMs %v, pollIntervalMs %v: want the defaults, an hour and a second", r["ttlMs"], r["pollIntervalMs"])
	}
	return r["taskId"].(string)
}

func (h *taskHarness) get(id string) map[string]any {
	h.t.Helper()
	r := result(h.t, h.call("tasks/get", `"taskId":"`+id+`",`+taskMeta))
	if r["resultType"] != "complete" || r["taskId"] != id {
		h.t.Fatalf("tasks/get: %v", r)
	}
	return r
}

// until polls tasks/get until the task's status is want.
func (h *taskHarness) until(id string, want TaskStatus) map[string]any {
	h.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		r := h.get(id)
		if r["status"] == string(want) {
			return r
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("task still %v after 5s, want %s: %v", r["status"], want, r)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func taskServer(t *testing.T, tools ...Tool) *taskHarness {
	srv := quietServer(nil)
	addForm(srv, themeFormSchema, decodeThemeForm)
	for _, tool := range tools {
		srv.AddTool(tool)
	}
	t.Cleanup(func() { srv.tasks.shutdown(context.Background()) })
	return &taskHarness{harness: start(t, srv)}
}

func TestTaskRunsAndCompletes(t *testing.T) {
	release := make(chan struct{})
	h := taskServer(t, Tool{Name: "slow", InputSchema: `{"type":"object"}`, Task: TaskOptional, Handler: func(ctx context.Context, c *ToolCall) {
		<-release
		Progress(ctx, 1, 2, "") // the status says it; no notification is sent
		c.ReturnText("done")
	}})
	id := h.task("slow", `{}`)
	if r := h.get(id); r["status"] != "working" {
		t.Fatalf("a task just created: %v", r)
	}
	close(release)
	r := h.until(id, TaskCompleted)
	if text := r["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"]; text != "done" {
		t.Errorf("result: %v", r)
	}
	if r["statusMessage"] != "Progress: 1 of 2" {
		t.Errorf("statusMessage %v", r["statusMessage"])
	}
	// A client without the extension gets a plain result, at once.
	if text := toolText(t, h.call("tools/call", `"name":"slow",`+plainMeta)); text != "done" {
		t.Errorf("plain call: %q", text)
	}
	// Tasks are there as long as their TTL, finished or not.
	if r := h.get(id); r["status"] != "completed" {
		t.Errorf("read again: %v", r)
	}
}

func TestTaskErrors(t *testing.T) {
	h := taskServer(t,
		Tool{Name: "required", InputSchema: `{"type":"object"}`, Task: TaskRequired, Handler: func(ctx context.Context, c *ToolCall) { c.ReturnText("x") }},
		Tool{Name: "failing", InputSchema: `{"type":"object"}`, Task: TaskRequired, Handler: func(ctx context.Context, c *ToolCall) { c.ReturnError(errors.New("it broke")) }},
		Tool{Name: "panics", InputSchema: `{"type":"object"}`, Task: TaskRequired, Handler: func(ctx context.Context, c *ToolCall) { panic("boom") }},
		Tool{Name: "plain", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *ToolCall) { c.ReturnText("plain") }},
	)
	m := h.call("tools/call", `"name":"required",`+plainMeta)
	if code := errorCode(t, m); code != CodeMissingRequiredClientCapability {
		t.Fatalf("required task without the extension: %v", m)
	}
	if data, _ := json.Marshal(m["error"].(map[string]any)["data"]); string(data) != `{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}` {
		t.Errorf("error data %s", data)
	}
	// A tool that never runs as a task answers plainly, extension or not.
	if r := result(t, h.call("tools/call", `"name":"plain",`+taskMeta)); r["resultType"] != "complete" {
		t.Errorf("plain tool: %v", r)
	}
	// An error result completes the task; a panic fails it with a JSON-RPC error.
	r := h.until(h.task("failing", `{}`), TaskCompleted)
	if r["result"].(map[string]any)["isError"] != true {
		t.Errorf("failing: %v", r)
	}
	r = h.until(h.task("panics", `{}`), TaskFailed)
	if e := r["error"].(map[string]any); e["code"] != -32603.0 || !strings.Contains(e["message"].(string), "panics") {
		t.Errorf("panics: %v", r)
	}
	if _, ok := r["result"]; ok {
		t.Errorf("a failed task has a result: %v", r)
	}
	for _, method := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		if code := errorCode(t, h.call(method, `"taskId":"nope","inputResponses":{},`+taskMeta)); code != -32602 {
			t.Errorf("%s of an unknown task: code %d", method, code)
		}
		if code := errorCode(t, h.call(method, `"taskId":"nope","inputResponses":{},`+plainMeta)); code != CodeMissingRequiredClientCapability {
			t.Errorf("%s without the extension: code %d", method, code)
		}
	}
	for _, method := range []string{"tasks/result", "tasks/list"} {
		if code := errorCode(t, h.call(method, `"taskId":"nope",`+taskMeta)); code != -32601 {
			t.Errorf("%s: code %d, want method not found", method, code)
		}
	}
}

func TestTaskCancel(t *testing.T) {
	stopped := make(chan error, 1)
	h := taskServer(t, Tool{Name: "forever", InputSchema: `{"type":"object"}`, Task: TaskOptional, Handler: func(ctx context.Context, c *ToolCall) {
		<-ctx.Done()
		stopped <- ctx.Err()
		c.ReturnText("too late")
	}})
	id := h.task("forever", `{}`)
	for range 2 { // a second cancel, of a task over already, is acknowledged alike
		if r := result(t, h.call("tasks/cancel", `"taskId":"`+id+`",`+taskMeta)); r["resultType"] != "complete" || len(r) != 2 {
			t.Fatalf("tasks/cancel: %v, want an empty result (resultType and _meta)", r)
		}
	}
	select {
	case err := <-stopped:
		if err != context.Canceled {
			t.Errorf("the body's context: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the body's context was not cancelled")
	}
	if r := h.get(id); r["status"] != "cancelled" {
		t.Errorf("after cancel: %v", r)
	}
	time.Sleep(20 * time.Millisecond) // the body's late result must not replace the status
	if r := h.get(id); r["status"] != "cancelled" {
		t.Errorf("after the body ended: %v", r)
	}
}

// Questions a task's body asks wait in inputRequests, all of them at once; each answer
// takes its question out at once, and the task works again when none is left.
func TestTaskInputRequests(t *testing.T) {
	h := taskServer(t, Tool{Name: "two", InputSchema: `{"type":"object"}`, Task: TaskOptional, Handler: func(ctx context.Context, c *ToolCall) {
		got := make(chan string, 2)
		for _, key := range []string{"first", "second"} {
			go func() {
				n, _, err := Elicit[themeForm](WithInputKey(ctx, key), "Your "+key+" name?")
				if err != nil {
					got <- err.Error()
					return
				}
				got <- n.Name
			}()
		}
		a, b := <-got, <-got
		c.ReturnText(min(a, b) + "+" + max(a, b))
	}})
	id := h.task("two", `{}`)
	var r map[string]any
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		r = h.until(id, TaskInputRequired)
		if len(r["inputRequests"].(map[string]any)) == 2 || time.Now().After(deadline) {
			break
		}
	}
	q := r["inputRequests"].(map[string]any)["first"].(map[string]any)
	if q["method"] != "elicitation/create" || q["params"].(map[string]any)["message"] != "Your first name?" {
		t.Fatalf("inputRequests: %v", r)
	}
	ack := result(t, h.call("tasks/update", `"taskId":"`+id+`","inputResponses":{"first":{"action":"accept","content":{"theme":"light","name":"Ada"}},"unknown":{"ignored":true}},`+taskMeta))
	if ack["resultType"] != "complete" || len(ack) != 2 {
		t.Errorf("tasks/update: %v", ack)
	}
	r = h.get(id)
	if reqs := r["inputRequests"].(map[string]any); r["status"] != "input_required" || len(reqs) != 1 || reqs["second"] == nil {
		t.Fatalf("after one of two answers: %v", r)
	}
	h.call("tasks/update", `"taskId":"`+id+`","inputResponses":{"second":{"action":"accept","content":{"theme":"dark","name":"Lovelace"}}},`+taskMeta)
	r = h.until(id, TaskCompleted)
	if text := r["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"]; text != "Ada+Lovelace" {
		t.Errorf("result %v", text)
	}
}

// A deferred task asks its client in a multi round-trip request first, then becomes a task.
func TestTaskDeferred(t *testing.T) {
	h := taskServer(t, Tool{Name: "later", InputSchema: `{"type":"object"}`, Task: TaskDeferred, Handler: func(ctx context.Context, c *ToolCall) {
		n, _, err := Elicit[themeForm](WithInputKey(ctx, "who"), "Who?")
		if err != nil {
			c.ReturnError(err)
			return
		}
		ctx, err = StartTask(ctx)
		if err != nil {
			c.ReturnError(err)
			return
		}
		Progress(ctx, 0, 0, "greeting")
		c.ReturnText("Hello, " + n.Name)
	}})
	qs, state := inputRequests(t, h.call("tools/call", `"name":"later",`+taskMeta))
	if _, ok := qs["who"]; !ok {
		t.Fatalf("round 1: %v", qs)
	}
	r := result(t, h.call("tools/call", `"name":"later","inputResponses":{"who":{"action":"accept","content":{"theme":"light","name":"Alice"}}},"requestState":"`+state+`",`+taskMeta))
	if r["resultType"] != "task" || r["taskId"] == nil || r["requestState"] != nil || r["inputRequests"] != nil {
		t.Fatalf("round 2: %v", r)
	}
	r = h.until(r["taskId"].(string), TaskCompleted)
	if text := r["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"]; text != "Hello, Alice" {
		t.Errorf("result %v", text)
	}
	// Without the extension, StartTask does nothing: the call is a plain one.
	qs, state = inputRequests(t, h.call("tools/call", `"name":"later",`+strings.Replace(taskMeta, `,"extensions":{"io.modelcontextprotocol/tasks":{}}`, "", 1)))
	if text := toolText(t, h.call("tools/call", `"name":"later","inputResponses":{"who":{"action":"accept","content":{"theme":"light","name":"Bob"}}},"requestState":"`+state+`",`+strings.Replace(taskMeta, `,"extensions":{"io.modelcontextprotocol/tasks":{}}`, "", 1))); text != "Hello, Bob" {
		t.Errorf("plain deferred call: %q (%v)", text, qs)
	}
}

func TestDiscoverDeclaresTasks(t *testing.T) {
	h := taskServer(t, Tool{Name: "slow", InputSchema: `{"type":"object"}`, Task: TaskOptional, Handler: func(ctx context.Context, c *ToolCall) {}})
	caps := result(t, h.call("server/discover", taskMeta))["capabilities"].(map[string]any)
	if ext, _ := caps["extensions"].(map[string]any); ext[ExtensionTasks] == nil {
		t.Errorf("capabilities: %v", caps)
	}
	plain := taskServer(t, Tool{Name: "quick", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *ToolCall) {}})
	if caps := result(t, plain.call("server/discover", taskMeta))["capabilities"].(map[string]any); caps["extensions"] != nil {
		t.Errorf("a server without task tools declares %v", caps["extensions"])
	}
	if code := errorCode(t, plain.call("tasks/get", `"taskId":"x",`+taskMeta)); code != -32601 {
		t.Errorf("tasks/get on a server without task tools: code %d", code)
	}
}

func TestMemoryTaskStoreExpires(t *testing.T) {
	s := NewMemoryTaskStore()
	ctx := context.Background()
	old := &TaskRecord{ID: "old", Status: TaskWorking, CreatedAt: time.Now().Add(-2 * time.Hour), TTL: time.Hour}
	s.Create(ctx, old)
	if _, err := s.Get(ctx, "old"); err != ErrTaskNotFound {
		t.Errorf("an expired task: %v", err)
	}
	s.Create(ctx, &TaskRecord{ID: "new", Status: TaskWorking, CreatedAt: time.Now(), TTL: time.Hour})
	got, err := s.Update(ctx, "new", func(r *TaskRecord) error { r.Status = TaskCompleted; return nil })
	if err != nil || got.Status != TaskCompleted {
		t.Fatalf("update: %v %v", got, err)
	}
	got.Status = TaskFailed // a copy: the store's record is its own
	if again, _ := s.Get(ctx, "new"); again.Status != TaskCompleted {
		t.Errorf("the store's record changed with a copy: %v", again.Status)
	}
}

// A subscription that lists a task hears of each change of its status, the task whole as
// tasks/get gives it.
func TestTaskNotifications(t *testing.T) {
	release := make(chan struct{})
	h := taskServer(t, Tool{Name: "slow", InputSchema: `{"type":"object"}`, Task: TaskOptional, Handler: func(ctx context.Context, c *ToolCall) {
		<-release
		c.ReturnText("done")
	}})
	id := h.task("slow", `{}`)
	if code := errorCode(t, h.call("subscriptions/listen", `"notifications":{"taskIds":["`+id+`"]},`+plainMeta)); code != CodeMissingRequiredClientCapability {
		t.Errorf("listening to tasks without the extension: code %d", code)
	}
	h.send(`{"jsonrpc":"2.0","id":"sub","method":"subscriptions/listen","params":{"notifications":{"taskIds":["` + id + `","unknown"]},` + taskMeta + `}}`)
	ack := h.recv()
	if ack["method"] != "notifications/subscriptions/acknowledged" {
		t.Fatalf("got %v, want the acknowledgement", ack)
	}
	if ids := ack["params"].(map[string]any)["notifications"].(map[string]any)["taskIds"].([]any); len(ids) != 1 || ids[0] != id {
		t.Errorf("agreed to %v, want only the task that exists", ids)
	}
	close(release)
	n := h.recv()
	p := n["params"].(map[string]any)
	if n["method"] != "notifications/tasks" || p["taskId"] != id || p["status"] != "completed" || p["result"] == nil {
		t.Fatalf("got %v, want the completed task", n)
	}
	if p["_meta"].(map[string]any)[metaSubscriptionID] != "sub" {
		t.Errorf("no subscription id: %v", p)
	}
	h.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"sub"}}`)
	// Messages are handled in order: once the ping is answered, the subscription is
	// cancelled, and no answer of it is left to write to a harness nobody reads.
	if r := h.roundTrip(`{"jsonrpc":"2.0","id":"last","method":"ping"}`); r["id"] != "last" {
		t.Errorf("after cancelling the subscription: %v", r)
	}
}

// mcpgen's client follows the tasks a server makes of its calls: the caller of CallTool gets
// the result, the task's questions go to the client's handlers, its status messages to the
// progress function, and a caller that gives up cancels the task.
func TestClientFollowsTasks(t *testing.T) {
	srv := quietServer(&ServerOptions{Tasks: TaskOptions{PollInterval: 20 * time.Millisecond}})
	addForm(srv, themeFormSchema, decodeThemeForm)
	srv.AddTool(Tool{Name: "ask", InputSchema: `{"type":"object"}`, Task: TaskRequired, Handler: func(ctx context.Context, c *ToolCall) {
		Progress(ctx, 0, 0, "asking")
		v, _, err := Elicit[themeForm](ctx, "Pick")
		if err != nil {
			c.ReturnError(err)
			return
		}
		c.ReturnText("picked " + v.Theme)
	}})
	stopped := make(chan struct{})
	srv.AddTool(Tool{Name: "forever", InputSchema: `{"type":"object"}`, Task: TaskRequired, Handler: func(ctx context.Context, c *ToolCall) {
		<-ctx.Done()
		close(stopped)
	}})
	srv.AddTool(Tool{Name: "broken", InputSchema: `{"type":"object"}`, Task: TaskRequired, Handler: func(ctx context.Context, c *ToolCall) { panic("no") }})
	t.Cleanup(func() { srv.tasks.shutdown(context.Background()) })
	for name, transport := range map[string]func() Transport{
		"memory": func() Transport { return &MemoryTransport{Server: srv} },
		"http": func() Transport {
			return &StreamableHTTPTransport{URL: serveForClient(t, srv) + "/mcp", HTTPClient: &http.Client{Transport: &http.Transport{}}}
		},
	} {
		t.Run(name, func(t *testing.T) {
			c, err := Connect(context.Background(), transport(), &ClientOptions{Logger: quietLogger(),
				Elicitation: func(ctx context.Context, req *ElicitRequest) (*ElicitResult, error) {
					return &ElicitResult{Action: Accept, Content: map[string]any{"theme": "dark"}}, nil
				}})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			var messages []string
			ctx := WithProgress(context.Background(), func(n ProgressNotice) { messages = append(messages, n.Message) })
			res, err := c.CallTool(ctx, "ask", nil)
			if err != nil {
				t.Fatal(err)
			}
			if text := res.Content[0].(Text).Text; text != "picked dark" || !slices.Contains(messages, "asking") {
				t.Errorf("result %q, status messages %q", text, messages)
			}
			var rpcErr *jsonrpc.Error
			if _, err := c.CallTool(context.Background(), "broken", nil); !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInternalError {
				t.Errorf("a failed task: %v", err)
			}
		})
	}
	c, err := Connect(context.Background(), &MemoryTransport{Server: srv}, &ClientOptions{Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := c.CallTool(ctx, "forever", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a call given up: %v", err)
	}
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Error("the task of a call given up was not cancelled")
	}
}

// An answer of the wrong shape to a task's question is said in the protocol's words: where,
// what was expected and what came, not in Go's.
func TestWrongShapeAnswers(t *testing.T) {
	ask := func(name string, question func(ctx context.Context) error) Tool {
		return Tool{Name: name, InputSchema: `{"type":"object"}`, Task: TaskOptional, Handler: func(ctx context.Context, c *ToolCall) {
			if err := question(WithInputKey(ctx, "k")); err != nil {
				c.ReturnError(err)
				return
			}
			c.ReturnText("ok")
		}}
	}
	h := taskServer(t,
		ask("elicit", func(ctx context.Context) error { _, _, err := Elicit[themeForm](ctx, "Your name?"); return err }),
		ask("sample", func(ctx context.Context) error {
			_, err := Sample(ctx, &CreateMessageRequest{Messages: []SamplingMessage{{Role: "user", Content: Text{Text: "hi"}}}, MaxTokens: 10})
			return err
		}),
		ask("roots", func(ctx context.Context) error { _, err := Roots(ctx); return err }),
	)
	for _, c := range []struct{ tool, answer, want string }{
		{"elicit", `"yes"`, "expected object, got string"},
		{"elicit", `[1]`, "expected object, got array"},
		{"elicit", `null`, "expected object, got null"},
		{"elicit", `{"action":5}`, "/action: expected string, got number"},
		{"elicit", `{"action":"maybe"}`, `/action: expected "accept", "decline" or "cancel", got "maybe"`},
		{"elicit", `{"content":{}}`, "/action: missing required property"},
		{"elicit", `{"action":"accept","content":"x"}`, "/content: expected object, got string"},
		{"elicit", `{"action":"accept","content":{"theme":3}}`, "/theme: expected string, got number"},
		{"sample", `{"role":5,"content":{"type":"text","text":"hi"},"model":"m"}`, "/role: expected string, got number"},
		{"sample", `"no"`, "expected object, got string"},
		{"roots", `{"roots":"here"}`, "/roots: expected array, got string"},
		{"roots", `{"roots":[{"uri":7}]}`, "/roots/0/uri: expected string, got number"},
	} {
		meta := strings.Replace(taskMeta, `"elicitation":{}`, `"elicitation":{},"sampling":{},"roots":{}`, 1)
		id, _ := result(t, h.call("tools/call", `"name":"`+c.tool+`","arguments":{},`+meta))["taskId"].(string)
		h.until(id, TaskInputRequired)
		h.call("tasks/update", `"taskId":"`+id+`","inputResponses":{"k":`+c.answer+`},`+taskMeta)
		r := h.until(id, TaskCompleted)
		text := r["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"].(string)
		if !strings.Contains(text, c.want) || strings.Contains(text, "Go ") || strings.Contains(text, "mcp.") || strings.Contains(text, "json:") {
			t.Errorf("%s answered %s: %q, want it to say %q, in no Go words", c.tool, c.answer, text, c.want)
		}
	}
}
