package mcp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// The memory store keeps at most its bound: past it a new task, or an update that makes one
// larger, fails with ErrTaskStoreFull and stores nothing; an update that does not grow a
// task always lands, so a full store still ends its tasks; expired tasks make room.
func TestMemoryTaskStoreBounds(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryTaskStoreWithLimit(64 << 10)
	record := func(id string, ttl time.Duration) *TaskRecord {
		return &TaskRecord{ID: id, Status: TaskWorking, CreatedAt: time.Now(), TTL: ttl}
	}
	for i := range 15 {
		if err := s.Create(ctx, record(fmt.Sprint("task", i), time.Hour)); err != nil {
			t.Fatalf("task %d of 4 KiB in 64 KiB: %v", i, err)
		}
	}
	if err := s.Create(ctx, record("brief", 300*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if err := s.Create(ctx, record("one-too-many", time.Hour)); !errors.Is(err, ErrTaskStoreFull) {
		t.Errorf("a 17th task of 4 KiB in 64 KiB: %v", err)
	}
	_, err := s.Update(ctx, "task3", func(r *TaskRecord) error {
		r.Status, r.Result = TaskCompleted, []byte(`"`+strings.Repeat("x", 8<<10)+`"`)
		return nil
	})
	if !errors.Is(err, ErrTaskStoreFull) {
		t.Errorf("a result of 8 KiB in a full store: %v", err)
	}
	if got, _ := s.Get(ctx, "task3"); got.Status != TaskWorking {
		t.Errorf("the refused update was stored: %v", got.Status)
	}
	if _, err := s.Update(ctx, "task3", func(r *TaskRecord) error {
		r.fail("The server stopped before the task ended.", "internal error: the server stopped before the task ended")
		return nil
	}); err != nil {
		t.Errorf("failing a task, in a full store: %v", err)
	}
	time.Sleep(time.Second + 100*time.Millisecond) // "brief" expires; a full store sweeps once a second
	if err := s.Create(ctx, record("after", time.Hour)); err != nil {
		t.Errorf("a task once another expired: %v", err)
	}
}

// askTask is a task tool that asks its client who it is for, and greets them.
var askTask = Tool{Name: "ask", InputSchema: `{"type":"object"}`, Task: TaskOptional, Handler: func(ctx context.Context, c *ToolCall) {
	v, _, err := Elicit[themeForm](WithInputKey(ctx, "who"), "Who?")
	if err != nil {
		c.ReturnError(err)
		return
	}
	c.ReturnText("hello " + v.Name)
}}

// Servers of one process that share a memory store hear of each other's changes through
// its change feed (TaskChanges): a task waiting for its client wakes when the answer comes
// through another server (it waited for ever before, since waiting tasks no longer poll),
// and a third server's subscription hears of the task's changes.
func TestMemoryStoreSharedByServers(t *testing.T) {
	store := NewMemoryTaskStore()
	opts := &ServerOptions{Tasks: TaskOptions{Store: store}}
	runs, _ := taskServerWith(t, opts, askTask)
	answers, _ := taskServerWith(t, opts, askTask)
	listens, _ := taskServerWith(t, opts, askTask)
	id := runs.task("ask", `{}`)
	runs.until(id, TaskInputRequired)
	if agreed := listens.listenTo("sub", id); len(agreed) != 1 {
		t.Fatalf("a subscription through another server: agreed %v", agreed)
	}
	start := time.Now()
	if m := answers.call("tasks/update", `"taskId":"`+id+`","inputResponses":{"who":{"action":"accept","content":{"theme":"dark","name":"Ada"}}},`+taskMeta); m["error"] != nil {
		t.Fatalf("tasks/update through another server: %v", m)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		r := runs.get(id)
		if r["status"] == "completed" {
			if text := r["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"]; text != "hello Ada" {
				t.Errorf("the answered task: %v", r)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the task is still %v 5 s after its answer came through another server", r["status"])
		}
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the task took %v to complete once answered through another server", d)
	}
	for {
		m := listens.recv()
		if m["method"] != "notifications/tasks" {
			t.Fatalf("the subscription got %v", m)
		}
		if p := m["params"].(map[string]any); p["taskId"] == id && p["status"] == "completed" {
			break
		}
	}
}

// The change feed of the memory store tells each watcher of the tasks created and of the
// updates clients see (UpdatedAt), each task once however often it changed while the
// watcher was busy, and not of the updates they do not see (a lease renewal).
func TestMemoryTaskStoreChanges(t *testing.T) {
	store := NewMemoryTaskStore()
	ctx, cancel := context.WithCancel(context.Background())
	heard := make(chan string, 100)
	busy := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		first := true
		done <- store.(TaskChanges).WatchTasks(ctx, func(id string) {
			if first { // the first change keeps the watcher busy while others come
				first = false
				<-busy
			}
			heard <- id
		})
	}()
	now := time.Now()
	create := func(id string) {
		t.Helper()
		if err := store.Create(ctx, &TaskRecord{ID: id, Status: TaskWorking, CreatedAt: now, UpdatedAt: now, TTL: time.Hour}); err != nil {
			t.Fatal(err)
		}
	}
	// The watcher hears of the changes made once it is registered.
	store.(*memoryTaskStore).mu.Lock()
	for len(store.(*memoryTaskStore).watches) == 0 {
		store.(*memoryTaskStore).mu.Unlock()
		time.Sleep(time.Millisecond)
		store.(*memoryTaskStore).mu.Lock()
	}
	store.(*memoryTaskStore).mu.Unlock()
	create("a") // the watcher takes it, and waits on busy
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		w := func() *storeWatcher {
			store.(*memoryTaskStore).mu.Lock()
			defer store.(*memoryTaskStore).mu.Unlock()
			for w := range store.(*memoryTaskStore).watches {
				return w
			}
			return nil
		}()
		w.mu.Lock()
		taken := len(w.ids) == 0
		w.mu.Unlock()
		if taken {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the watcher did not take the first change")
		}
	}
	create("b")
	for i := range 10 {
		if _, err := store.Update(ctx, "b", func(r *TaskRecord) error {
			r.StatusMessage, r.UpdatedAt = fmt.Sprint("step ", i), r.UpdatedAt.Add(time.Second)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := store.Update(ctx, "a", func(r *TaskRecord) error {
		r.LeaseUntil = time.Now().Add(time.Minute) // not seen by clients
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	close(busy)
	var got []string
	for len(got) < 2 {
		select {
		case id := <-heard:
			got = append(got, id)
		case <-time.After(5 * time.Second):
			t.Fatalf("heard %v", got)
		}
	}
	select {
	case id := <-heard:
		got = append(got, id)
	case <-time.After(100 * time.Millisecond):
	}
	if !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("heard %v, want a, then b once for its creation and ten updates, and nothing of a's lease", got)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("WatchTasks returned %v when its context ended", err)
	}
}

// On a protected server one caller's tasks keep at most their share of the store (a quarter
// by default): past it the caller's results fail and new tasks are refused, saying so, while
// another caller's tasks are made and keep their results. Before, one caller filled the
// store until the TTL and then everyone's tasks failed.
func TestTaskBytesPerCallerBounded(t *testing.T) {
	srv := quietServer(&ServerOptions{Tasks: TaskOptions{Store: NewMemoryTaskStoreWithLimit(512 << 10)}})
	srv.AddTool(echoTask)
	t.Cleanup(func() { srv.tasks.shutdown(context.Background()) })
	url := serveProtected(t, srv, map[string]*AuthInfo{
		"ada": {Issuer: "https://auth.example.com", Subject: "ada", ClientID: "app"},
		"bob": {Issuer: "https://auth.example.com", Subject: "bob", ClientID: "app"},
	}) + "/mcp"
	label := strings.Repeat("x", 60<<10)
	run := func(token string) map[string]any {
		r := authPost(t, url, token, "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"label":"`+label+`"},`+taskMeta+`}}`)
		res, ok := r.body["result"].(map[string]any)
		if !ok {
			return r.body // refused
		}
		id := res["taskId"].(string)
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			g := authPost(t, url, token, "", `{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"`+id+`",`+taskMeta+`}}`)
			if task := result(t, g.body); task["status"] != "working" {
				return task
			}
			if time.Now().After(deadline) {
				t.Fatal("a task still working after 5 s")
			}
		}
	}
	completed, failed, refused := 0, 0, 0
	for range 10 {
		r := run("ada")
		e, _ := r["error"].(map[string]any)
		switch {
		case r["status"] == "completed":
			completed++
		case r["status"] == "failed" && strings.Contains(e["message"].(string), "your tasks keep as many bytes as the server keeps for one caller: no room for the tool's result (61479 bytes)"):
			failed++
		case r["status"] == nil && e != nil && e["code"] == -32603.0 && strings.Contains(e["message"].(string), "cannot make a task: your tasks keep as many bytes as the server keeps for one caller"):
			refused++
		default:
			t.Fatalf("Ada's task: %v", r)
		}
	}
	// Two results of 60 KiB fit in 128 KiB; the third task is made (4 KiB) but its result
	// does not fit, and then no task of 4 KiB more does.
	if completed != 2 || failed != 1 || refused != 7 {
		t.Errorf("Ada's ten results of 60 KiB with a share of 128 KiB: %d completed, %d failed and %d refused, want 2, 1 and 7", completed, failed, refused)
	}
	if r := run("bob"); r["status"] != "completed" {
		t.Errorf("Bob's task once Ada's are at their share: %v", r)
	}
}

// The memory store keeps at most its share of the store for each caller (a quarter of its
// bound by default): past it the caller's new task, or an update that makes one larger,
// fails with ErrTaskCallerFull (an ErrTaskStoreFull), while other callers' tasks and those
// without a caller are stored; an update that does not grow a task lands; expired tasks
// make room.
func TestMemoryTaskStoreCallerBounds(t *testing.T) {
	ctx := context.Background()
	record := func(id, caller string, ttl time.Duration) *TaskRecord {
		return &TaskRecord{ID: id, Caller: caller, Status: TaskWorking, CreatedAt: time.Now(), TTL: ttl}
	}
	for name, s := range map[string]TaskStore{
		"with limit":   NewMemoryTaskStoreWithLimit(64 << 10),
		"with options": NewMemoryTaskStoreWithOptions(MemoryTaskStoreOptions{MaxBytes: 1 << 20, MaxBytesPerCaller: 16 << 10}),
	} {
		t.Run(name, func(t *testing.T) {
			for i := range 3 {
				if err := s.Create(ctx, record(fmt.Sprint("ada", i), "ada", time.Hour)); err != nil {
					t.Fatalf("Ada's task %d of 4 KiB with a share of 16 KiB: %v", i, err)
				}
			}
			if err := s.Create(ctx, record("brief", "ada", 300*time.Millisecond)); err != nil {
				t.Fatal(err)
			}
			err := s.Create(ctx, record("one-too-many", "ada", time.Hour))
			if !errors.Is(err, ErrTaskCallerFull) || !errors.Is(err, ErrTaskStoreFull) || !strings.Contains(err.Error(), "16384 bytes of one caller's tasks") {
				t.Errorf("Ada's fifth task of 4 KiB with a share of 16 KiB: %v", err)
			}
			for i := range 4 {
				if err := s.Create(ctx, record(fmt.Sprint("bob", i), "bob", time.Hour)); err != nil {
					t.Errorf("Bob's task %d while Ada's are at their share: %v", i, err)
				}
			}
			if err := s.Create(ctx, record("anonymous", "", time.Hour)); err != nil {
				t.Errorf("a task without a caller: %v", err)
			}
			_, err = s.Update(ctx, "ada1", func(r *TaskRecord) error {
				r.Status, r.Result = TaskCompleted, []byte(`"`+strings.Repeat("x", 8<<10)+`"`)
				return nil
			})
			if !errors.Is(err, ErrTaskCallerFull) {
				t.Errorf("Ada's result of 8 KiB at her share: %v", err)
			}
			if got, _ := s.Get(ctx, "ada1"); got.Status != TaskWorking {
				t.Errorf("the refused update was stored: %v", got.Status)
			}
			if _, err := s.Update(ctx, "ada1", func(r *TaskRecord) error {
				r.fail("No room was left to keep the result.", "internal error: no room")
				return nil
			}); err != nil {
				t.Errorf("failing a task at its caller's share: %v", err)
			}
			time.Sleep(time.Second + 100*time.Millisecond) // "brief" expires; a full share sweeps once a second
			if err := s.Create(ctx, record("after", "ada", time.Hour)); err != nil {
				t.Errorf("Ada's task once one of hers expired: %v", err)
			}
		})
	}
}

// A subscription through one server hears of a change another server makes right after it
// was acknowledged, however long the watch of the memory store's changes takes to begin: its
// watcher is registered before the acknowledgement goes out. It was registered after, and on
// a goroutine of its own, and a change in between was lost (TestMemoryStoreSharedByServers
// failed 14 runs in 180 under load, waiting for a notification that never came).
func TestSubscriptionHearsTheNextChangeOfASharedStore(t *testing.T) {
	watchRegistering = func() { time.Sleep(200 * time.Millisecond) }
	defer func() { watchRegistering = nil }()
	opts := &ServerOptions{Tasks: TaskOptions{Store: NewMemoryTaskStore()}}
	runs, _ := taskServerWith(t, opts, askTask)
	listens, _ := taskServerWith(t, opts, askTask)
	id := runs.task("ask", `{}`)
	runs.until(id, TaskInputRequired)
	if agreed := listens.listenTo("sub", id); len(agreed) != 1 {
		t.Fatalf("a subscription through another server: agreed %v", agreed)
	}
	if m := runs.call("tasks/update", `"taskId":"`+id+`","inputResponses":{"who":{"action":"accept","content":{"theme":"dark","name":"Ada"}}},`+taskMeta); m["error"] != nil {
		t.Fatalf("tasks/update: %v", m)
	}
	for {
		m := listens.recv() // fails the test after its wait
		if m["method"] != "notifications/tasks" {
			t.Fatalf("the subscription got %v", m)
		}
		if p := m["params"].(map[string]any); p["taskId"] == id && p["status"] == "completed" {
			return
		}
	}
}
