package mcp

import (
	"context"
	"strings"
	"testing"
	"time"
)

// otherProcesses is a store other processes share, as Redis is: the runner holds leases
// on its tasks, and a client may poll them through another replica once this one stops.
type otherProcesses struct{ TaskStore }

// A task running when the server stops, with a store other processes share, gets
// ShutdownTimeout to end by itself (issue 35, item 5): one that ends 0.3 s later completes,
// with its result, and Shutdown waits for it; one that does not end in time is failed then,
// and Shutdown keeps its bound. Before, both were failed at once ("The server stopped
// before the task ended.", Shutdown returned in 1 ms) although the first was 0.3 s from its
// result.
func TestShutdownLetsSharedTasksFinish(t *testing.T) {
	release := make(chan struct{})
	finishes := Tool{Name: "finishes", InputSchema: `{"type":"object"}`, Task: TaskOptional, Handler: func(ctx context.Context, c *ToolCall) {
		<-release
		time.Sleep(300 * time.Millisecond)
		c.ReturnText("done")
	}}
	never := Tool{Name: "never", InputSchema: `{"type":"object"}`, Task: TaskOptional, Handler: func(ctx context.Context, c *ToolCall) {
		<-ctx.Done()
		c.ReturnError(ctx.Err())
	}}
	store := otherProcesses{NewMemoryTaskStore()}
	get := func(id string) *TaskRecord {
		rec, err := store.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		return rec
	}

	h, srv := taskServerWith(t, &ServerOptions{ShutdownTimeout: 5 * time.Second, Tasks: TaskOptions{Store: store}}, finishes)
	id := h.task("finishes", `{}`)
	close(release)
	start := time.Now()
	srv.Shutdown(context.Background())
	took := time.Since(start)
	if rec := get(id); rec.Status != TaskCompleted || !strings.Contains(string(rec.Result), "done") {
		t.Errorf("a task 0.3 s from its end when the server stopped: %s %s %s", rec.Status, rec.StatusMessage, rec.Result)
	}
	if took < 250*time.Millisecond || took > 3*time.Second {
		t.Errorf("Shutdown took %v, want about the 0.3 s the task needed", took)
	}

	h, srv = taskServerWith(t, &ServerOptions{ShutdownTimeout: 300 * time.Millisecond, Tasks: TaskOptions{Store: store}}, never)
	id = h.task("never", `{}`)
	start = time.Now()
	srv.Shutdown(context.Background())
	took = time.Since(start)
	if rec := get(id); rec.Status != TaskFailed || rec.StatusMessage != "The server stopped before the task ended." {
		t.Errorf("a task that does not end within ShutdownTimeout: %s %q", rec.Status, rec.StatusMessage)
	}
	if took < 250*time.Millisecond || took > 3*time.Second {
		t.Errorf("Shutdown took %v, want about its ShutdownTimeout, 0.3 s", took)
	}

	// A deadline sooner than ShutdownTimeout bounds the wait, leaving time to fail the task.
	h, srv = taskServerWith(t, &ServerOptions{ShutdownTimeout: time.Minute, Tasks: TaskOptions{Store: store}}, never)
	id = h.task("never", `{}`)
	ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
	defer cancel()
	start = time.Now()
	srv.Shutdown(ctx)
	took = time.Since(start)
	if rec := get(id); rec.Status != TaskFailed {
		t.Errorf("a task that does not end by Shutdown's deadline: %s %q", rec.Status, rec.StatusMessage)
	}
	if took > 3*time.Second {
		t.Errorf("Shutdown took %v with a deadline of 0.4 s", took)
	}
}

// With the server's own store, which nobody reads once the process stops, a running task
// is failed at once: there is nobody to wait for.
func TestShutdownFailsOwnTasksAtOnce(t *testing.T) {
	never := Tool{Name: "never", InputSchema: `{"type":"object"}`, Task: TaskOptional, Handler: func(ctx context.Context, c *ToolCall) {
		<-ctx.Done()
		c.ReturnError(ctx.Err())
	}}
	h, srv := taskServerWith(t, &ServerOptions{ShutdownTimeout: 5 * time.Second}, never)
	id := h.task("never", `{}`)
	start := time.Now()
	srv.Shutdown(context.Background())
	if took := time.Since(start); took > time.Second {
		t.Errorf("Shutdown took %v with the server's own store", took)
	}
	if rec, err := srv.tasks.store.Get(context.Background(), id); err != nil || rec.Status != TaskFailed {
		t.Errorf("the task: %+v %v", rec, err)
	}
}
