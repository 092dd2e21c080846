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
	"github.com/mcpgen/mcpgen/runtime/mcp/mcpgen"
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
	a := record("a", time.Hour)
	a.Caller = `"https://auth.example.com""ada""app"`
	if err := s.Create(ctx, a); err != nil {
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
	if err != nil || again.Status != mcp.TaskCompleted || string(again.Result) != `{"content":[]}` || again.TTL != time.Hour || again.Caller != a.Caller {
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
		mcpgen.AddForm(srv, `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`, decodeName)
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
	_, heard := listen(t, b.URL, "", id)
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

// Across replicas too, a task is its caller's: a second user (another sub, no scopes) can
// neither read, answer, cancel nor listen to another's task through either replica; to
// them it is an unknown id. Its caller reaches it through both.
func TestReplicasKeepTasksToTheirCaller(t *testing.T) {
	rdb := startRedis(t)
	tokens := map[string]*mcp.AuthInfo{
		"ada": {Issuer: "https://auth.example.com", Subject: "ada", ClientID: "app", Scopes: []string{"reports"}},
		"bob": {Issuer: "https://auth.example.com", Subject: "bob", ClientID: "app"},
	}
	replica := func() string {
		srv := mcp.NewServer(mcp.Implementation{Name: "replica", Version: "1"}, &mcp.ServerOptions{
			StateKey: []byte("0123456789abcdef0123456789abcdef"),
			Tasks:    mcp.TaskOptions{Store: redistasks.New(rdb), PollInterval: 50 * time.Millisecond},
			Logger:   quietLogger(),
		})
		mcpgen.AddForm(srv, `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`, decodeName)
		srv.AddTool(mcp.Tool{Name: "report", InputSchema: `{"type":"object"}`, Scopes: []string{"reports"}, Task: mcp.TaskRequired, Handler: func(ctx context.Context, c *mcp.ToolCall) {
			n, _, err := mcp.Elicit[nameForm](ctx, "For whom?")
			if err != nil {
				c.ReturnError(err)
				return
			}
			c.ReturnText("the secret report, for " + n.Name)
		}})
		h := srv.HTTPHandler(&mcp.HTTPOptions{Auth: &mcp.AuthOptions{
			Verifier: mcp.TokenVerifierFunc(func(ctx context.Context, token string) (*mcp.AuthInfo, error) {
				if a := tokens[token]; a != nil {
					return a, nil
				}
				return nil, errors.New("unknown token")
			}),
			AuthorizationServers: []string{"https://auth.example.com"},
		}})
		ts := httptest.NewServer(h)
		t.Cleanup(func() {
			h.Shutdown(context.Background())
			ts.Close()
		})
		return ts.URL
	}
	a, b := replica(), replica()

	id := callAs(t, a, "ada", "tools/call", map[string]any{"name": "report"})["taskId"].(string)
	var task map[string]any
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if task = callAs(t, b, "ada", "tasks/get", map[string]any{"taskId": id}); task["status"] == "input_required" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the task did not ask within 10s: %v", task)
		}
	}
	var key string
	for k := range task["inputRequests"].(map[string]any) {
		key = k
	}
	answer := func(name string) map[string]any {
		return map[string]any{key: map[string]any{"action": "accept", "content": map[string]any{"name": name}}}
	}
	for _, url := range []string{a, b} {
		for _, method := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
			params := func(id string) map[string]any {
				return map[string]any{"taskId": id, "inputResponses": answer("Mallory")}
			}
			us, unknown := post(t, url, "bob", method, params("an-id-nobody-made"))
			ts, theirs := post(t, url, "bob", method, params(id))
			// The same request id: the answers are the same bytes.
			if us != http.StatusBadRequest || ts != us || !bytes.Equal(theirs, unknown) {
				t.Errorf("bob: %s of Ada's task: %d %s; want what an unknown id gets: %d %s", method, ts, theirs, us, unknown)
			}
		}
		if ids, _ := listen(t, url, "bob", id); len(ids) != 0 {
			t.Errorf("bob listening to Ada's task: agreed to %v", ids)
		}
	}
	// Ada's task is as it was; she listens on b, answers on a, and hears the completion a
	// makes on b.
	if task := callAs(t, a, "ada", "tasks/get", map[string]any{"taskId": id}); task["status"] != "input_required" || task["inputRequests"].(map[string]any)[key] == nil {
		t.Fatalf("Ada's task after Bob tried: %v", task)
	}
	ids, heard := listen(t, b, "ada", id)
	if len(ids) != 1 || ids[0] != id {
		t.Fatalf("Ada listening to her task: agreed to %v", ids)
	}
	callAs(t, a, "ada", "tasks/update", map[string]any{"taskId": id, "inputResponses": answer("Ada")})
	for deadline := time.After(10 * time.Second); ; {
		select {
		case status := <-heard:
			if status != "completed" {
				continue
			}
		case <-deadline:
			t.Fatal("Ada's subscription on b did not hear her task complete")
		}
		break
	}
	task = waitForAs(t, b, "ada", id, "completed")
	if text := task["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"]; text != "the secret report, for Ada" {
		t.Errorf("Ada's result: %v", text)
	}
	for _, url := range []string{a, b} {
		if status, body := post(t, url, "bob", "tasks/get", map[string]any{"taskId": id}); status != http.StatusBadRequest || bytes.Contains(body, []byte("secret")) {
			t.Errorf("bob reads Ada's finished task: %d %s", status, body)
		}
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
	return callAs(t, url, "", method, params)
}

// callAs is call with a bearer token.
func callAs(t *testing.T, url, token, method string, params map[string]any) map[string]any {
	t.Helper()
	status, data := post(t, url, token, method, params)
	var m struct {
		Result map[string]any `json:"result"`
		Error  any            `json:"error"`
	}
	if err := json.Unmarshal(data, &m); err != nil || m.Result == nil {
		t.Fatalf("%s: HTTP %d: %s %v", method, status, strings.TrimSpace(string(data)), err)
	}
	return m.Result
}

// post posts a request of revision 2026-07-28, with the token if not "", and returns the
// answer's status and body.
func post(t *testing.T, url, token, method string, params map[string]any) (int, []byte) {
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
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, data
}

// waitFor polls tasks/get until the task has the status.
func waitFor(t *testing.T, url, id, status string) map[string]any {
	t.Helper()
	return waitForAs(t, url, "", id, status)
}

// waitForAs is waitFor with a bearer token.
func waitForAs(t *testing.T, url, token, id, status string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		task := callAs(t, url, token, "tasks/get", map[string]any{"taskId": id})
		if task["status"] == status {
			return task
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s still %v after 10s, want %s", id, task["status"], status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// listen opens a subscriptions/listen for a task on a server, with the token if not "", and
// returns the task ids the acknowledgement agreed to and a channel of the statuses of the
// notifications/tasks it gets, until the test ends.
func listen(t *testing.T, url, token, id string) ([]string, <-chan string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "sub", "method": "subscriptions/listen",
		"params": map[string]any{"notifications": map[string]any{"taskIds": []string{id}}, "_meta": json.RawMessage(metaJSON)}})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		cancel()
		resp.Body.Close()
		t.Fatalf("subscriptions/listen: HTTP %d", resp.StatusCode)
	}
	statuses := make(chan string, 16)
	acked := make(chan []string, 1)
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
					Status        string `json:"status"`
					Notifications struct {
						TaskIDs []string `json:"taskIds"`
					} `json:"notifications"`
				} `json:"params"`
			}
			switch json.Unmarshal([]byte(data), &m); m.Method {
			case "notifications/subscriptions/acknowledged":
				acked <- m.Params.Notifications.TaskIDs
			case "notifications/tasks":
				statuses <- m.Params.Status
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		resp.Body.Close()
		<-done
	})
	select {
	case ids := <-acked:
		return ids, statuses
	case <-time.After(10 * time.Second):
		t.Fatal("subscriptions/listen: no acknowledgement within 10s")
		return nil, nil
	}
}
