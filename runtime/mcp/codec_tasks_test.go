package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/scripted"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// A task that failed with an error carrying data (a JSON-RPC error object, whose data is any
// JSON value) reaches the caller as that error, its data as it came: the client reads the
// task with its codec (encoding/json read data as base64 text, and the poll failed).
func TestFailedTaskErrorKeepsItsData(t *testing.T) {
	srv := serveScript(t, scripted.Script{Name: "fails", Era: scripted.Modern, Tools: []string{"slow"},
		TaskSupport: map[string]string{"slow": "required"},
		Answer: func(method string, _ json.RawMessage) json.RawMessage {
			if method != "tasks/get" {
				return nil
			}
			return json.RawMessage(`{"resultType":"complete","taskId":"t1","status":"failed","statusMessage":"no",
				"lastUpdatedAt":"2999-01-01T00:00:00Z","pollIntervalMs":null,"extra":[1],
				"error":{"code":-32000,"message":"quota","data":{"retryAfter":3}}}`)
		}})
	c := connect(t, srv.transport, &ClientOptions{Logger: quietLogger()})
	_, err := c.CallTool(context.Background(), "slow", nil)
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) {
		t.Fatalf("want the task's *jsonrpc.Error, got %v", err)
	}
	if rpcErr.Code != -32000 || rpcErr.Message != "quota" || string(rpcErr.Data) != `{"retryAfter":3}` {
		t.Errorf("the task's error: %d %q %s", rpcErr.Code, rpcErr.Message, rpcErr.Data)
	}
}

// What the server writes of a task (writeTask, as tasks/get answers) reads back as the task
// it was, in each status that carries something.
func TestTaskRoundTrip(t *testing.T) {
	created := time.Date(2026, 7, 28, 10, 0, 0, 0, time.UTC)
	ask := []byte(`{"method":"elicitation/create","params":{"message":"Who?","requestedSchema":{"type":"object"}}}`)
	for _, rec := range []TaskRecord{
		{ID: "a", Status: TaskInputRequired, StatusMessage: "asking", CreatedAt: created, UpdatedAt: created.Add(time.Second),
			TTL: time.Minute, PollInterval: 250 * time.Millisecond, InputRequests: map[string]json.RawMessage{"who": ask}},
		{ID: "b", Status: TaskCompleted, CreatedAt: created, UpdatedAt: created, Result: []byte(`{"content":[{"type":"text","text":"hi"}]}`)},
		{ID: "c", Status: TaskFailed, CreatedAt: created, UpdatedAt: created, Error: []byte(`{"code":-32603,"message":"boom","data":[1]}`)},
	} {
		var e jsonwire.Encoder
		e.ObjectStart()
		writeTask(&e, &rec, true)
		e.ObjectEnd()
		var got taskState
		d := jsonwire.NewDecoder(e.Bytes())
		got.decode(d)
		if d.Finish(); d.Failed() {
			t.Fatalf("%s: %s\n%s", rec.ID, d.Summary(), e.Bytes())
		}
		want := taskState{TaskID: rec.ID, Status: rec.Status, StatusMessage: rec.StatusMessage,
			LastUpdatedAt: rec.UpdatedAt.Format(time.RFC3339Nano), Result: rec.Result}
		if rec.PollInterval > 0 {
			ms := rec.PollInterval.Milliseconds()
			want.PollIntervalMs = &ms
		}
		if rec.Error != nil {
			want.Error = &jsonrpc.Error{Code: -32603, Message: "boom", Data: []byte(`[1]`)}
		}
		if rec.InputRequests != nil {
			want.InputRequests = inputRequestList{{key: "who", method: "elicitation/create", params: []byte(`{"message":"Who?","requestedSchema":{"type":"object"}}`)}}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s came back as\n%+v\nwant\n%+v", rec.ID, got, want)
		}
	}
}

// The server reads the params of tasks/update (and tasks/get, tasks/cancel) with jsonwire:
// what is wrong is invalid params at its JSON Pointer.
func TestTaskUpdateNamesWhatIsWrong(t *testing.T) {
	h := taskServer(t, Tool{Name: "t", InputSchema: `{"type":"object"}`, Task: TaskOptional, Handler: func(ctx context.Context, c *ToolCall) { c.ReturnText("x") }})
	for params, want := range map[string]string{
		`"taskId":7,`:          "invalid params: tasks/update: /taskId: expected string, got number",
		`"inputResponses":{},`: "invalid params: tasks/update: taskId is required",
	} {
		m := h.call("tasks/update", params+taskMeta)
		e, _ := m["error"].(map[string]any)
		if msg, _ := e["message"].(string); msg != want {
			t.Errorf("%s: got %v, want %q", params, m, want)
		}
	}
}
