package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Tasks are bounded (issue 24): the bytes each keeps and all keep together, how many run at
// once, how they wait for their clients, and the subscriptions that hear of them.

// taskServerWith is taskServer with options.
func taskServerWith(t *testing.T, opts *ServerOptions, tools ...Tool) (*taskHarness, *Server) {
	srv := quietServer(opts)
	addForm(srv, themeFormSchema, decodeThemeForm)
	for _, tool := range tools {
		srv.AddTool(tool)
	}
	t.Cleanup(func() { srv.tasks.shutdown(context.Background()) })
	return &taskHarness{harness: start(t, srv)}, srv
}

// echoTask is a task tool whose result is its input's label.
var echoTask = Tool{Name: "echo", InputSchema: `{"type":"object"}`, Task: TaskOptional, Handler: func(ctx context.Context, c *ToolCall) {
	label := ""
	d := c.Arguments().decoder()
	for key := range d.Members {
		if string(key) == "label" {
			label, _ = d.String()
		} else {
			d.Skip()
		}
	}
	c.ReturnText(label)
}}

// heapInUse is the heap in use after a collection.
func heapInUse() uint64 {
	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// A result larger than a task may keep fails the task with a JSON-RPC error that says so,
// rather than being kept (or silently dropped); a result that fits completes it.
func TestTaskResultTooLarge(t *testing.T) {
	h, _ := taskServerWith(t, &ServerOptions{Tasks: TaskOptions{MaxTaskBytes: 64 << 10}}, echoTask)
	r := h.until(h.task("echo", `{"label":"`+strings.Repeat("x", 100<<10)+`"}`), TaskFailed)
	e, _ := r["error"].(map[string]any)
	if e == nil || e["code"] != -32603.0 || !strings.Contains(e["message"].(string), "more than the 65536 this server keeps for a task") {
		t.Errorf("a task whose result is 100 KiB, with MaxTaskBytes 64 KiB: %v", r)
	}
	if _, ok := r["result"]; ok || r["statusMessage"] != "The result was too large to keep." {
		t.Errorf("the failed task: %v", r)
	}
	r = h.until(h.task("echo", `{"label":"`+strings.Repeat("x", 40<<10)+`"}`), TaskCompleted)
	if text := r["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"].(string); len(text) != 40<<10 {
		t.Errorf("a result that fits: %d bytes", len(text))
	}
}

// What all tasks keep is bounded by the store (the 30 tasks whose input carried an
// 8 MB label held 1.6-1.8 GB for an hour): past it a task's result fails it, saying why,
// and the heap holds the store's bound, not every result.
func TestTaskStoreBytesBounded(t *testing.T) {
	const label = 4 << 20
	h, _ := taskServerWith(t, &ServerOptions{Tasks: TaskOptions{Store: NewMemoryTaskStoreWithLimit(24 << 20)}}, echoTask)
	args := `{"label":"` + strings.Repeat("x", label) + `"}`
	before := heapInUse()
	completed, full := 0, 0
	for range 20 {
		r := h.get(h.task("echo", args))
		for r["status"] == "working" {
			time.Sleep(5 * time.Millisecond)
			r = h.get(r["taskId"].(string))
		}
		switch e, _ := r["error"].(map[string]any); {
		case r["status"] == "completed":
			completed++
		case e != nil && strings.Contains(e["message"].(string), "task store is full"):
			full++
		default:
			t.Fatalf("a task: %v", r)
		}
	}
	grown := int64(heapInUse()) - int64(before)
	t.Logf("%d tasks completed, %d failed for want of room; the heap grew by %d MB", completed, full, grown>>20)
	if completed != 5 || full != 15 {
		t.Errorf("%d completed and %d failed for want of room, want 5 (4 MiB each, in 24 MiB) and 15", completed, full)
	}
	if grown > 40<<20 {
		t.Errorf("the heap grew by %d MB for 20 results of 4 MiB with a store of 24 MiB", grown>>20)
	}
}

// foreverTask is a task tool that runs until it is cancelled.
var foreverTask = Tool{Name: "forever", InputSchema: `{"type":"object"}`, Task: TaskOptional, Handler: func(ctx context.Context, c *ToolCall) {
	<-ctx.Done()
	c.ReturnText("cancelled")
}}

// A server runs MaxTasks tasks at once (the 20,000 hour-long tasks took 20,000
// goroutines): past it, tools/call is refused with -32603 saying so, no goroutine is held
// for it, and once a task ends there is room again.
func TestTasksAtOnceBounded(t *testing.T) {
	h, srv := taskServerWith(t, &ServerOptions{Tasks: TaskOptions{MaxTasks: 20}}, foreverTask)
	before := runtime.NumGoroutine()
	var ids []string
	refused := 0
	for range 200 {
		m := h.call("tools/call", `"name":"forever","arguments":{},`+taskMeta)
		if r, ok := m["result"].(map[string]any); ok && r["resultType"] == "task" {
			ids = append(ids, r["taskId"].(string))
			continue
		}
		e, _ := m["error"].(map[string]any)
		if e == nil || e["code"] != -32603.0 || !strings.Contains(e["message"].(string), "it runs 20 tasks at once") {
			t.Fatalf("a task past MaxTasks: %v", m)
		}
		refused++
	}
	if len(ids) != 20 || refused != 180 {
		t.Errorf("%d tasks made and %d refused, want 20 and 180", len(ids), refused)
	}
	if n := runtime.NumGoroutine(); n > before+20+10 {
		t.Errorf("%d goroutines with 20 tasks running (%d before)", n, before)
	}
	h.call("tasks/cancel", `"taskId":"`+ids[0]+`",`+taskMeta)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		srv.tasks.mu.Lock()
		live := srv.tasks.live
		srv.tasks.mu.Unlock()
		if live == 19 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d tasks counted 5s after one of 20 was cancelled", live)
		}
	}
	h.task("forever", `{}`) // room for one more
}

// On a protected server each caller runs at most MaxTasksPerCaller tasks at once: one who
// has as many is refused, another is not; a deferred task refused answers its request with
// the same error, whatever its body does then.
func TestTasksPerCallerBounded(t *testing.T) {
	srv := quietServer(&ServerOptions{Tasks: TaskOptions{MaxTasksPerCaller: 3}})
	srv.AddTool(foreverTask)
	srv.AddTool(Tool{Name: "later", InputSchema: `{"type":"object"}`, Task: TaskDeferred, Handler: func(ctx context.Context, c *ToolCall) {
		ctx, err := StartTask(ctx)
		if err != nil {
			c.ReturnText("went on without a task: " + err.Error())
			return
		}
		<-ctx.Done()
	}})
	t.Cleanup(func() { srv.tasks.shutdown(context.Background()) })
	url := serveProtected(t, srv, map[string]*AuthInfo{
		"ada": {Issuer: "https://auth.example.com", Subject: "ada", ClientID: "app"},
		"bob": {Issuer: "https://auth.example.com", Subject: "bob", ClientID: "app"},
	}) + "/mcp"
	call := func(token, tool string) authReply {
		return authPost(t, url, token, "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+tool+`","arguments":{},`+taskMeta+`}}`)
	}
	for i := range 3 {
		if r := call("ada", "forever"); r.status != 200 || result(t, r.body)["resultType"] != "task" {
			t.Fatalf("Ada's task %d: %d %v", i+1, r.status, r.body)
		}
	}
	for _, tool := range []string{"forever", "later"} {
		r := call("ada", tool)
		e, _ := r.body["error"].(map[string]any)
		if e == nil || e["code"] != -32603.0 || !strings.Contains(e["message"].(string), "3 tasks of yours are running") {
			t.Errorf("Ada's fourth task (%s): %d %v", tool, r.status, r.body)
		}
	}
	if r := call("bob", "later"); r.status != 200 || result(t, r.body)["resultType"] != "task" {
		t.Errorf("Bob's task while Ada has three: %d %v", r.status, r.body)
	}
}

// countingStore counts the reads of a store.
type countingStore struct {
	TaskStore
	gets atomic.Int64
}

func (c *countingStore) Get(ctx context.Context, id string) (*TaskRecord, error) {
	c.gets.Add(1)
	return c.TaskStore.Get(ctx, id)
}

// Tasks waiting for their client cost nothing while they wait (the 6,000 waiting
// tasks took a quarter of a core, each reading the store every 250 ms): they wake when an
// answer comes, at once.
func TestWaitingTasksDoNotPoll(t *testing.T) {
	h, srv := taskServerWith(t, nil, Tool{Name: "ask", InputSchema: `{"type":"object"}`, Task: TaskOptional, Handler: func(ctx context.Context, c *ToolCall) {
		v, _, err := Elicit[themeForm](WithInputKey(ctx, "who"), "Who?")
		if err != nil {
			c.ReturnError(err)
			return
		}
		c.ReturnText("hello " + v.Name)
	}})
	store := &countingStore{TaskStore: srv.tasks.store} // still this process's alone
	srv.tasks.store = store
	var ids []string
	for range 50 {
		ids = append(ids, h.task("ask", `{}`))
	}
	for _, id := range ids {
		h.until(id, TaskInputRequired)
	}
	time.Sleep(100 * time.Millisecond) // every body is waiting
	read := store.gets.Load()
	time.Sleep(time.Second)
	if n := store.gets.Load() - read; n > 0 {
		t.Errorf("50 tasks waiting for their client read the store %d times in a second", n)
	}
	start := time.Now()
	h.call("tasks/update", `"taskId":"`+ids[7]+`","inputResponses":{"who":{"action":"accept","content":{"theme":"dark","name":"Ada"}}},`+taskMeta)
	r := h.until(ids[7], TaskCompleted)
	if text := r["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"]; text != "hello Ada" {
		t.Errorf("the answered task: %v", r)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the answered task took %v to complete", d)
	}
}

// Answers larger than a task may keep are refused with -32602; the question stays.
func TestTaskAnswersTooLarge(t *testing.T) {
	h, _ := taskServerWith(t, &ServerOptions{Tasks: TaskOptions{MaxTaskBytes: 16 << 10}}, Tool{Name: "ask", InputSchema: `{"type":"object"}`, Task: TaskOptional, Handler: func(ctx context.Context, c *ToolCall) {
		v, _, err := Elicit[themeForm](WithInputKey(ctx, "who"), "Who?")
		if err != nil {
			c.ReturnError(err)
			return
		}
		c.ReturnText("hello " + v.Name)
	}})
	id := h.task("ask", `{}`)
	h.until(id, TaskInputRequired)
	m := h.call("tasks/update", `"taskId":"`+id+`","inputResponses":{"who":{"action":"accept","content":{"theme":"dark","name":"`+strings.Repeat("A", 32<<10)+`"}}},`+taskMeta)
	if code := errorCode(t, m); code != -32602 || !strings.Contains(m["error"].(map[string]any)["message"].(string), "more than the 16384 it may keep") {
		t.Errorf("answers of 32 KiB to a task that keeps 16 KiB: %v", m)
	}
	if r := h.get(id); r["status"] != "input_required" || r["inputRequests"].(map[string]any)["who"] == nil {
		t.Errorf("the task after its answer was refused: %v", r)
	}
	h.call("tasks/update", `"taskId":"`+id+`","inputResponses":{"who":{"action":"accept","content":{"theme":"dark","name":"Ada"}}},`+taskMeta)
	h.until(id, TaskCompleted)
}

// listenTo opens a subscriptions/listen to tasks on the harness and returns the ids its
// acknowledgement agreed to.
func (h *taskHarness) listenTo(sub string, ids ...string) []any {
	h.t.Helper()
	list, _ := json.Marshal(ids)
	h.send(`{"jsonrpc":"2.0","id":"` + sub + `","method":"subscriptions/listen","params":{"notifications":{"taskIds":` + string(list) + `},` + taskMeta + `}}`)
	ack := h.recv()
	if ack["method"] != "notifications/subscriptions/acknowledged" {
		h.t.Fatalf("got %v, want the acknowledgement", ack)
	}
	return ackedTasks(ack["params"].(map[string]any))
}

// A task has at most MaxListenersPerTask subscriptions: the others are acknowledged without
// it, and poll; a caller of a protected server has at most MaxListenersPerCaller
// subscriptions to tasks.
func TestTaskListenersBounded(t *testing.T) {
	h, _ := taskServerWith(t, &ServerOptions{Tasks: TaskOptions{MaxListenersPerTask: 3}}, foreverTask)
	id, other := h.task("forever", `{}`), h.task("forever", `{}`)
	for i := range 5 {
		agreed := h.listenTo(fmt.Sprint("sub", i), id, other)
		if want := 2; i >= 3 {
			want = 0
			if len(agreed) != want {
				t.Errorf("subscription %d of 3 allowed per task was agreed %v", i+1, agreed)
			}
		} else if len(agreed) != want {
			t.Errorf("subscription %d: agreed %v", i+1, agreed)
		}
	}

	srv := quietServer(&ServerOptions{Tasks: TaskOptions{MaxListenersPerCaller: 2}})
	srv.AddTool(foreverTask)
	t.Cleanup(func() { srv.tasks.shutdown(context.Background()) })
	url := serveProtected(t, srv, map[string]*AuthInfo{
		"ada": {Issuer: "https://auth.example.com", Subject: "ada", ClientID: "app"},
		"bob": {Issuer: "https://auth.example.com", Subject: "bob", ClientID: "app"},
	}) + "/mcp"
	newTask := func(token string) string {
		r := authPost(t, url, token, "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"forever","arguments":{},`+taskMeta+`}}`)
		return result(t, r.body)["taskId"].(string)
	}
	for i := range 3 {
		agreed := ackedTasks(authListen(t, url, "ada", `{"taskIds":["`+newTask("ada")+`"]}`).ack)
		if want := min(1, 2-i); len(agreed) != max(want, 0) {
			t.Errorf("Ada's subscription %d of 2 allowed: agreed %v", i+1, agreed)
		}
	}
	if agreed := ackedTasks(authListen(t, url, "bob", `{"taskIds":["`+newTask("bob")+`"]}`).ack); len(agreed) != 1 {
		t.Errorf("Bob's subscription while Ada has two: agreed %v", agreed)
	}
}

// Subscriptions whose clients do not read are ended, not fed (the 50 unread
// subscriptions to a task whose 2 MB status changed every second held 1.65 GB): each keeps
// at most MaxSubscriptionBacklog unread, then its stream ends.
func TestUnreadTaskListenersDropped(t *testing.T) {
	const listeners, changes, size = 10, 20, 1 << 20
	begin := make(chan struct{})
	srv := quietServer(nil)
	srv.AddTool(Tool{Name: "chatty", InputSchema: `{"type":"object"}`, Task: TaskOptional, Handler: func(ctx context.Context, c *ToolCall) {
		select {
		case <-begin:
		case <-ctx.Done():
			return
		}
		for i := range changes {
			Progress(ctx, float64(i), changes, strings.Repeat(string(rune('a'+i)), size))
			time.Sleep(10 * time.Millisecond)
		}
		<-ctx.Done()
	}})
	t.Cleanup(func() { srv.tasks.shutdown(context.Background()) })
	base := serveForClient(t, srv)
	url := base + "/mcp"
	r := authPost(t, url, "", "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"chatty","arguments":{},`+taskMeta+`}}`)
	id := result(t, r.body)["taskId"].(string)
	body := `{"jsonrpc":"2.0","id":"sub","method":"subscriptions/listen","params":{"notifications":{"taskIds":["` + id + `"]},` + taskMeta + `}}`
	for range listeners {
		conn := rawRequest(t, base, fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"+
			"MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: subscriptions/listen\r\nContent-Length: %d\r\n\r\n%s", len(body), body))
		conn.(*net.TCPConn).SetReadBuffer(4096)
		buf := make([]byte, 4096)
		conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		if n, err := conn.Read(buf); err != nil || !strings.Contains(string(buf[:n]), "text/event-stream") {
			t.Fatalf("subscriptions/listen: %q %v", buf[:n], err)
		}
		// and then reads no more
	}
	for deadline := time.Now().Add(10 * time.Second); !srv.listensTo(id); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no subscription to the task")
		}
	}
	before := heapInUse()
	close(begin)
	subscribed := func() int {
		srv.mu.RLock()
		defer srv.mu.RUnlock()
		return len(srv.taskListeners[id])
	}
	deadline := time.Now().Add(20 * time.Second)
	for subscribed() > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	grown := int64(heapInUse()) - int64(before)
	t.Logf("%d changes of %d MB to %d subscriptions that do not read: the heap grew by %d MB", changes, size>>20, listeners, grown>>20)
	if n := subscribed(); n > 0 {
		t.Errorf("%d of %d subscriptions that do not read still fed after %d changes", n, listeners, changes)
	}
	if grown > 60<<20 {
		t.Errorf("the heap grew by %d MB", grown>>20)
	}
}

// A change reaches every subscription for the cost of encoding it once: one allocation per
// subscription, its message, however large the task.
func TestNotificationsEncodedOnce(t *testing.T) {
	srv := quietServer(&ServerOptions{Tasks: TaskOptions{MaxListenersPerTask: -1}})
	out := &countingOut{}
	var notes []*notifier
	for i := range 1000 {
		n := newNotifier(context.Background(), out, srv.logger, true) // each its own, as over HTTP
		notes = append(notes, n)
		srv.register(&listener{id: []byte(fmt.Sprint(i)), w: out, notes: n, tools: true, tasks: map[string]bool{"t": true}, taskOrder: []string{"t"}})
	}
	task := &TaskRecord{ID: "t", Status: TaskWorking, StatusMessage: strings.Repeat("é", 10000), CreatedAt: time.Now()}
	allocs := testing.AllocsPerRun(5, func() {
		task.UpdatedAt = task.UpdatedAt.Add(time.Second)
		srv.notifyTask(task)
	})
	if allocs > 1000+50 {
		t.Errorf("a task's change to 1000 subscriptions: %.0f allocations", allocs)
	}
	allocs = testing.AllocsPerRun(5, func() { srv.notifyListeners(notificationToolsListChanged, "") })
	if allocs > 1000+50 {
		t.Errorf("a list change to 1000 subscriptions: %.0f allocations", allocs)
	}
	for _, n := range notes {
		n.close()
	}
	if out.n.Load() != 1000*(5+1)*2 {
		t.Errorf("%d messages, want %d", out.n.Load(), 1000*6*2)
	}
}

// countingOut counts the messages written to it, and keeps none.
type countingOut struct{ n atomic.Int64 }

func (c *countingOut) Write(context.Context, []byte) error { c.n.Add(1); return nil }

// A running task's arguments count in the server's one budget of bytes in flight for as
// long as its body runs (issue 40, finding 4: 100 tasks of 8 MB arguments held 6.6 GB,
// outside every bound, once their requests were answered): past the budget a call is
// refused with "server busy", and once the task ends there is room again.
func TestTaskArgumentsInTheBudget(t *testing.T) {
	h, srv := taskServerWith(t, &ServerOptions{MaxBytesInFlight: 1 << 20}, foreverTask)
	args := `{"pad":"` + strings.Repeat("a", 600<<10) + `"}`
	first := h.task("forever", args)
	if used := srv.budget.used.Load(); used < 600<<10 {
		t.Errorf("%d bytes in flight while a task holds 600 KiB of arguments", used)
	}
	m := h.call("tools/call", `"name":"forever","arguments":`+args+`,`+taskMeta)
	if e, _ := m["error"].(map[string]any); e == nil || e["code"] != -32000.0 || !strings.Contains(e["message"].(string), "server busy") {
		t.Fatalf("a second task past the budget: %v; want -32000 server busy", m)
	}
	h.call("tasks/cancel", `"taskId":"`+first+`",`+taskMeta)
	for deadline := time.Now().Add(5 * time.Second); srv.budget.used.Load() > 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes still in flight 5s after the task was cancelled", srv.budget.used.Load())
		}
	}
	h.call("tasks/cancel", `"taskId":"`+h.task("forever", args)+`",`+taskMeta) // room again
}
