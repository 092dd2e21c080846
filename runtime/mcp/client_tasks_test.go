package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/scripted"
)

// sent counts the requests a client sent, by method (ClientOptions.Trace).
type sent struct {
	mu sync.Mutex
	n  map[string]int
	// params of the last request of each method
	last map[string]json.RawMessage
}

func (s *sent) trace(fromServer bool, msg []byte) {
	if fromServer {
		return
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(msg, &m) != nil || m.ID == nil || m.Method == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n == nil {
		s.n, s.last = map[string]int{}, map[string]json.RawMessage{}
	}
	s.n[m.Method]++
	s.last[m.Method] = append(json.RawMessage(nil), m.Params...)
}

func (s *sent) count(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n[method]
}

func (s *sent) params(method string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return string(s.last[method])
}

// A client of revision 2026-07-28 subscribes to the changes of a task the server made of
// its call, and learns of each at once (notifications/tasks): the task's end reaches
// CallTool within milliseconds of the tool's return, not at the next poll of a server that
// asks for one every two seconds, and it polls no more than once (when the subscription
// began); each status message reaches the progress function as it is set, as a message
// without numbers (issue 25, item 10).
func TestClientHearsOfTaskChanges(t *testing.T) {
	srv := quietServer(&ServerOptions{Tasks: TaskOptions{PollInterval: 2 * time.Second}})
	var mu sync.Mutex
	var finished time.Time
	srv.AddTool(Tool{Name: "compute", InputSchema: `{"type":"object"}`, Task: TaskRequired, Handler: func(ctx context.Context, c *ToolCall) {
		for i := range 3 {
			Progress(ctx, float64(i), 3, fmt.Sprintf("Step %d of 3.", i+1))
			time.Sleep(150 * time.Millisecond)
		}
		mu.Lock()
		finished = time.Now()
		mu.Unlock()
		c.ReturnText("computed")
	}})
	t.Cleanup(func() { srv.tasks.shutdown(context.Background()) })
	url := serveForClient(t, srv)
	transports := map[string]func() Transport{
		"memory": func() Transport { return &MemoryTransport{Server: srv} },
		"stdio":  func() Transport { return servePipes(t, srv) },
		"http": func() Transport {
			return &StreamableHTTPTransport{URL: url + "/mcp", HTTPClient: &http.Client{Transport: &http.Transport{}}}
		},
	}
	for name, transport := range transports {
		t.Run(name, func(t *testing.T) {
			var requests sent
			c, err := Connect(context.Background(), transport(), &ClientOptions{Logger: quietLogger(), Trace: requests.trace})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			var notices []ProgressNotice
			var nmu sync.Mutex
			ctx := WithProgress(context.Background(), func(n ProgressNotice) {
				nmu.Lock()
				notices = append(notices, n)
				nmu.Unlock()
			})
			res, err := c.CallTool(ctx, "compute", nil)
			returned := time.Now()
			if err != nil || res.Content[0].(Text).Text != "computed" {
				t.Fatalf("CallTool: %+v, %v", res, err)
			}
			mu.Lock()
			late := returned.Sub(finished)
			mu.Unlock()
			t.Logf("CallTool returned %s after the tool did", late)
			if late > 150*time.Millisecond {
				t.Errorf("CallTool returned %s after the tool did; want within 150 ms, not at the next poll", late)
			}
			if n := requests.count(methodTasksGet); n > 1 {
				t.Errorf("%d tasks/get while the client listened to the task; want at most the one when the subscription began", n)
			}
			if !strings.Contains(requests.params(methodListen), `"taskIds":["`) {
				t.Errorf("no subscriptions/listen for the task: %s", requests.params(methodListen))
			}
			nmu.Lock()
			defer nmu.Unlock()
			var messages []string
			for _, n := range notices {
				if n.Status != TaskWorking || n.Progress != 0 || n.Total != 0 {
					t.Errorf("a task's status notice: %+v", n)
				}
				messages = append(messages, n.Message)
			}
			// The first may be set before the subscription begins, and be missed; each after
			// is heard of as it is set.
			if !slices.Contains(messages, "Step 2 of 3.") || !slices.Contains(messages, "Step 3 of 3.") || !slices.IsSorted(messages) {
				t.Errorf("status messages %q", messages)
			}
		})
	}
}

// A server that refuses the subscription to a task's changes is polled as it asks, and the
// call still gets the task's result.
func TestClientPollsATaskWhenListenIsRefused(t *testing.T) {
	var requests sent
	srv := serveScript(t, scripted.Script{Name: "stingy", Era: scripted.Modern, Tools: []string{"job"},
		TaskSupport: map[string]string{"job": "required"}, RefuseListen: "Subscription limit reached"})
	c := connect(t, srv.transport, &ClientOptions{Logger: quietLogger(), Trace: requests.trace})
	if !c.Server().Capabilities.Tasks {
		t.Fatalf("the server declares the tasks extension: %s", c.Server().Capabilities.Raw)
	}
	res, err := c.CallTool(context.Background(), "job", nil)
	if err != nil || res.Content[0].(Text).Text != "called as a task" {
		t.Fatalf("CallTool: %+v, %v", res, err)
	}
	if requests.count(methodListen) != 1 || requests.count(methodTasksGet) == 0 {
		t.Errorf("subscriptions/listen %d, tasks/get %d; want the refused subscription, then polls",
			requests.count(methodListen), requests.count(methodTasksGet))
	}
}

// A server of revision 2025-11-25 whose tool requires a task (execution.taskSupport
// "required") is called with a task-augmented tools/call, and CallTool returns the task's
// result from tasks/result, with the call's progress and the task's status messages on the
// way; a tool that allows a task runs as one when the context asks (AsTask), and a plain
// tool is called plainly (issue 25, item 17: the task tool was refused with -32601).
func TestClientCallsTasksOf20251125(t *testing.T) {
	var requests sent
	srv := serveScript(t, scripted.Script{Name: "legacy", Tools: []string{"job", "maybe", "plain"},
		TaskSupport: map[string]string{"job": "required", "maybe": "optional"}})
	c := connect(t, srv.transport, &ClientOptions{Logger: quietLogger(), Trace: requests.trace})
	if info := c.Server(); info.ProtocolVersion != "2025-11-25" || !info.Capabilities.Tasks || !info.Capabilities.TasksCancel {
		t.Fatalf("the server: %s, capabilities %s", info.ProtocolVersion, info.Capabilities.Raw)
	}
	var notices []ProgressNotice
	ctx := WithProgress(context.Background(), func(n ProgressNotice) { notices = append(notices, n) })
	res, err := c.CallTool(ctx, "job", map[string]any{"x": 1})
	if err != nil || res.Content[0].(Text).Text != "called as a task" {
		t.Fatalf("CallTool of a tool that requires a task: %+v, %v", res, err)
	}
	if p := requests.params(methodToolsCall); !strings.Contains(p, `"task":{}`) || !strings.Contains(p, `"arguments":{"x":1}`) {
		t.Errorf("the task-augmented call: %s", p)
	}
	if p := requests.params(methodTasksResult); p != `{"taskId":"task-1"}` {
		t.Errorf("tasks/result: %s", p)
	}
	want := []ProgressNotice{{Message: "Started.", Status: TaskWorking}, {Message: "Halfway there.", Status: TaskWorking}, {Progress: 1, Total: 2, Message: "one of two"}}
	if len(notices) != 3 || !slices.Contains(notices, want[0]) || !slices.Contains(notices, want[1]) || !slices.Contains(notices, want[2]) {
		t.Errorf("progress notices %+v, want %+v", notices, want)
	}

	tools, err := c.ListTools(context.Background())
	if err != nil || len(tools) != 3 || tools[0].Task != TaskRequired || tools[1].Task != TaskOptional || tools[2].Task != TaskNever {
		t.Errorf("the tools' task support: %+v, %v", tools, err)
	}
	for _, tc := range []struct {
		tool   string
		ctx    context.Context
		result string
		task   bool
	}{
		{"maybe", context.Background(), "called", false},
		{"maybe", AsTask(context.Background()), "called as a task", true},
		{"plain", AsTask(context.Background()), "called", false},
	} {
		res, err := c.CallTool(tc.ctx, tc.tool, nil)
		if err != nil || res.Content[0].(Text).Text != tc.result {
			t.Errorf("%s: %+v, %v; want %q", tc.tool, res, err, tc.result)
		}
		if p := requests.params(methodToolsCall); strings.Contains(p, `"task"`) != tc.task {
			t.Errorf("%s: the call %s; a task asked for: %v", tc.tool, p, tc.task)
		}
	}
}

// mcpgen's server does not offer 2025-11-25's experimental tasks (docs/tasks.md): at that
// revision it declares no tasks capability, lists no execution.taskSupport, runs a tool that
// requires a task as a plain call, task param or not, and does not know tasks/result.
func TestServerOf20251125RunsTaskToolsPlainly(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(Tool{Name: "job", InputSchema: `{"type":"object"}`, Task: TaskRequired, Handler: func(ctx context.Context, c *ToolCall) { c.ReturnText("done") }})
	h := start(t, srv)
	init := result(t, h.initialize("2025-11-25"))
	if caps := init["capabilities"].(map[string]any); caps["tasks"] != nil || caps["extensions"] != nil {
		t.Errorf("capabilities at 2025-11-25: %v", caps)
	}
	tools := result(t, h.roundTrip(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))["tools"].([]any)
	if _, ok := tools[0].(map[string]any)["execution"]; ok {
		t.Errorf("a tool listed at 2025-11-25 with execution: %v", tools[0])
	}
	res := result(t, h.roundTrip(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"job","arguments":{},"task":{"ttl":60000}}}`))
	if res["task"] != nil || res["content"].([]any)[0].(map[string]any)["text"] != "done" {
		t.Errorf("a task-augmented call at 2025-11-25: %v", res)
	}
	if code := errorCode(t, h.roundTrip(`{"jsonrpc":"2.0","id":3,"method":"tasks/result","params":{"taskId":"x"}}`)); code != -32601 {
		t.Errorf("tasks/result: %d", code)
	}
}
