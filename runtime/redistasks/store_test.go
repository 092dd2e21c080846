package redistasks_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/redistest"
	"github.com/mcpgen/mcpgen/runtime/jsonwire"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/redistasks"
	"github.com/redis/go-redis/v9"
)

// startRedis starts a redis-server of the test's own and returns a client of it.
func startRedis(t *testing.T) *redis.Client {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Network: "unix", Addr: redistest.Start(t)})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

func record(id string, ttl time.Duration) *mcp.TaskRecord {
	now := time.Now().UTC()
	return &mcp.TaskRecord{ID: id, Tool: "t", Status: mcp.TaskWorking, CreatedAt: now, UpdatedAt: now, TTL: ttl, PollInterval: time.Second}
}

func TestStore(t *testing.T) {
	ctx := context.Background()
	s := redistasks.New(startRedis(t))
	if _, err := s.Get(ctx, "missing"); !errors.Is(err, mcp.ErrTaskNotFound) {
		t.Errorf("Get of a missing task: %v", err)
	}
	if _, err := s.Update(ctx, "missing", func(*mcp.TaskRecord) error { return nil }); !errors.Is(err, mcp.ErrTaskNotFound) {
		t.Errorf("Update of a missing task: %v", err)
	}
	if err := s.Create(ctx, record("a", time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := s.Create(ctx, record("a", time.Hour)); err == nil {
		t.Error("a second task with the same id was stored")
	}
	got, err := s.Update(ctx, "a", func(r *mcp.TaskRecord) error {
		r.Status, r.Result = mcp.TaskCompleted, json.RawMessage(`{"content":[]}`)
		return nil
	})
	if err != nil || got.Status != mcp.TaskCompleted {
		t.Fatalf("Update: %v %v", got, err)
	}
	again, err := s.Get(ctx, "a")
	if err != nil || again.Status != mcp.TaskCompleted || string(again.Result) != `{"content":[]}` || again.TTL != time.Hour {
		t.Errorf("Get after Update: %+v %v", again, err)
	}
	// An update whose change fails stores nothing.
	refused := errors.New("no")
	if _, err := s.Update(ctx, "a", func(r *mcp.TaskRecord) error { r.Status = mcp.TaskFailed; return refused }); !errors.Is(err, refused) {
		t.Errorf("failed change: %v", err)
	}
	if again, _ := s.Get(ctx, "a"); again.Status != mcp.TaskCompleted {
		t.Errorf("a failed change was stored: %v", again.Status)
	}
}

// Updates that race from many goroutines (as from many replicas) all land.
func TestConcurrentUpdatesLoseNothing(t *testing.T) {
	ctx := context.Background()
	rdb := startRedis(t)
	if err := redistasks.New(rdb).Create(ctx, record("busy", time.Hour)); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		s := redistasks.New(rdb)
		wg.Go(func() {
			for i := range 25 {
				if _, err := s.Update(ctx, "busy", func(r *mcp.TaskRecord) error {
					if r.Answers == nil {
						r.Answers = map[string]json.RawMessage{}
					}
					r.Answers[fmt.Sprintf("%d-%d", g, i)] = json.RawMessage(`{}`)
					return nil
				}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	got, err := redistasks.New(rdb).Get(ctx, "busy")
	if err != nil || len(got.Answers) != 200 {
		t.Fatalf("%d answers, want 200 (%v)", len(got.Answers), err)
	}
}

// A task is let go when its TTL has passed, updated or not.
func TestTasksExpire(t *testing.T) {
	ctx := context.Background()
	s := redistasks.New(startRedis(t))
	if err := s.Create(ctx, record("brief", 400*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(ctx, "brief", func(r *mcp.TaskRecord) error { r.StatusMessage = "still here"; return nil }); err != nil {
		t.Fatal(err)
	}
	time.Sleep(800 * time.Millisecond)
	if _, err := s.Get(ctx, "brief"); !errors.Is(err, mcp.ErrTaskNotFound) {
		t.Errorf("an expired task: %v", err)
	}
}

// Two servers that share the store are two replicas: a task created through one is
// answered, read and cancelled through the other.
func TestReplicasShareTasks(t *testing.T) {
	rdb := startRedis(t)
	stopped := make(chan error, 1)
	replica := func() *httptest.Server {
		srv := mcp.NewServer(mcp.Implementation{Name: "replica", Version: "1"}, &mcp.ServerOptions{
			StateKey: []byte("0123456789abcdef0123456789abcdef"),
			Tasks:    mcp.TaskOptions{Store: redistasks.New(rdb), PollInterval: 50 * time.Millisecond},
			Logger:   quietLogger(),
		})
		mcp.AddForm(srv, `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`, decodeName)
		srv.AddTool(mcp.Tool{Name: "greet", InputSchema: `{"type":"object"}`, Task: mcp.TaskOptional, Handler: func(ctx context.Context, c *mcp.ToolCall) {
			n, _, err := mcp.Elicit[nameForm](ctx, "Your name?")
			if err != nil {
				c.ReturnError(err)
				return
			}
			c.ReturnText("Hello, " + n.Name)
		}})
		srv.AddTool(mcp.Tool{Name: "forever", InputSchema: `{"type":"object"}`, Task: mcp.TaskOptional, Handler: func(ctx context.Context, c *mcp.ToolCall) {
			<-ctx.Done()
			stopped <- ctx.Err()
		}})
		h := srv.HTTPHandler(nil)
		ts := httptest.NewServer(h)
		t.Cleanup(func() {
			h.Shutdown(context.Background())
			ts.Close()
		})
		return ts
	}
	a, b := replica(), replica()

	id := call(t, a.URL, "tools/call", map[string]any{"name": "greet"})["taskId"].(string)
	// A subscription on b hears of the changes a makes to the task (through the store).
	heard := listen(t, b.URL, id)
	task := waitFor(t, b.URL, id, "input_required")
	var key string
	for k := range task["inputRequests"].(map[string]any) {
		key = k
	}
	call(t, b.URL, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{key: map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}}})
	task = waitFor(t, b.URL, id, "completed")
	if text := task["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"]; text != "Hello, Ada" {
		t.Errorf("result %v", text)
	}
	// b's own change (the answer made the task work again) and a's (it completed) both
	// reach the subscription on b.
	var got []string
	for deadline := time.After(10 * time.Second); len(got) == 0 || got[len(got)-1] != "completed"; {
		select {
		case status := <-heard:
			got = append(got, status)
		case <-deadline:
			t.Fatalf("the subscription on b heard %v, and not the completion a made", got)
		}
	}
	if !slices.Contains(got, "working") {
		t.Errorf("the subscription on b heard %v", got)
	}

	// Cancelled through b, the body running on a stops.
	id = call(t, a.URL, "tools/call", map[string]any{"name": "forever"})["taskId"].(string)
	call(t, b.URL, "tasks/cancel", map[string]any{"taskId": id})
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("the body on the other replica was not cancelled within 5s")
	}
	if task := waitFor(t, a.URL, id, "cancelled"); task["status"] != "cancelled" {
		t.Errorf("after cancel: %v", task)
	}
}

type nameForm struct{ Name string }

func decodeName(d *jsonwire.Decoder, v *nameForm) {
	for key := range d.Members {
		if string(key) == "name" {
			v.Name, _ = d.String()
		} else {
			d.Skip()
		}
	}
}

func quietLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

const metaJSON = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}}`

// call posts a request of revision 2026-07-28 and returns its result.
func call(t *testing.T, url, method string, params map[string]any) map[string]any {
	t.Helper()
	params["_meta"] = json.RawMessage(metaJSON)
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name, ok := params["name"].(string); ok {
		req.Header.Set("Mcp-Name", name)
	}
	if id, ok := params["taskId"].(string); ok {
		req.Header.Set("Mcp-Name", id)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var m struct {
		Result map[string]any `json:"result"`
		Error  any            `json:"error"`
	}
	if err := json.Unmarshal(data, &m); err != nil || m.Result == nil {
		t.Fatalf("%s: %s %v", method, strings.TrimSpace(string(data)), err)
	}
	return m.Result
}

// waitFor polls tasks/get until the task has the status.
func waitFor(t *testing.T, url, id, status string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		task := call(t, url, "tasks/get", map[string]any{"taskId": id})
		if task["status"] == status {
			return task
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s still %v after 10s, want %s", id, task["status"], status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// listen opens a subscriptions/listen for a task on a server and sends the statuses of the
// notifications/tasks it gets, until the test ends.
func listen(t *testing.T, url, id string) <-chan string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "sub", "method": "subscriptions/listen",
		"params": map[string]any{"notifications": map[string]any{"taskIds": []string{id}}, "_meta": json.RawMessage(metaJSON)}})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	statuses := make(chan string, 16)
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			var m struct {
				Method string `json:"method"`
				Params struct {
					Status string `json:"status"`
				} `json:"params"`
			}
			if json.Unmarshal([]byte(data), &m) == nil && m.Method == "notifications/tasks" {
				statuses <- m.Params.Status
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		resp.Body.Close()
		<-done
	})
	// The answer's headers come with the acknowledgement: the subscription is in place.
	return statuses
}
