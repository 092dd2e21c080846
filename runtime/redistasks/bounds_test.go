package redistasks_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/mcp/mcpgen"
	"github.com/mcpgen/mcpgen/runtime/redistasks"
	"github.com/redis/go-redis/v9"
)

// The store keeps at most MaxBytes of tasks, all replicas together: past it a new task, or
// an update that makes one larger, fails with mcp.ErrTaskStoreFull and stores nothing; an
// update that does not grow a task always lands; expired tasks make room.
func TestStoreBoundsBytes(t *testing.T) {
	ctx := context.Background()
	rdb := startRedis(t)
	a := redistasks.NewWithOptions(rdb, redistasks.Options{MaxBytes: 64 << 10})
	b := redistasks.NewWithOptions(rdb, redistasks.Options{MaxBytes: 64 << 10}) // another replica
	for i := range 14 {
		if err := a.Create(ctx, record(fmt.Sprint("task", i), time.Hour)); err != nil {
			t.Fatalf("task %d of 4 KiB in 64 KiB: %v", i, err)
		}
	}
	if err := b.Create(ctx, record("brief", 500*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if err := b.Create(ctx, record("last", time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := a.Create(ctx, record("one-too-many", time.Hour)); !errors.Is(err, mcp.ErrTaskStoreFull) {
		t.Errorf("a 17th task of 4 KiB in 64 KiB: %v", err)
	}
	if _, err := a.Get(ctx, "one-too-many"); !errors.Is(err, mcp.ErrTaskNotFound) {
		t.Errorf("the task refused was stored: %v", err)
	}
	_, err := b.Update(ctx, "task3", func(r *mcp.TaskRecord) error {
		r.Status, r.Result = mcp.TaskCompleted, json.RawMessage(`{"content":[{"type":"text","text":"`+strings.Repeat("x", 8<<10)+`"}]}`)
		return nil
	})
	if !errors.Is(err, mcp.ErrTaskStoreFull) {
		t.Errorf("a result of 8 KiB in a full store: %v", err)
	}
	if got, _ := a.Get(ctx, "task3"); got.Status != mcp.TaskWorking || got.Result != nil {
		t.Errorf("the refused update was stored: %v", got.Status)
	}
	if _, err := a.Update(ctx, "task3", func(r *mcp.TaskRecord) error {
		r.Status, r.StatusMessage = mcp.TaskCancelled, "Cancelled by the client."
		return nil
	}); err != nil {
		t.Errorf("an update that does not grow a task, in a full store: %v", err)
	}
	time.Sleep(time.Second) // "brief" expires
	if err := a.Create(ctx, record("after", time.Hour)); err != nil {
		t.Errorf("a task once another expired: %v", err)
	}
	if err := b.Create(ctx, record("again", time.Hour)); !errors.Is(err, mcp.ErrTaskStoreFull) {
		t.Errorf("a task in the full store, through the other replica: %v", err)
	}
}

// One caller's tasks keep at most MaxBytesPerCaller (a quarter of MaxBytes by default), all
// replicas together: past it the caller's new task, or an update that makes one larger,
// fails with mcp.ErrTaskCallerFull (an mcp.ErrTaskStoreFull) and stores nothing, while
// other callers' tasks and those without a caller are stored; an update that does not grow
// a task lands; expired tasks make room, and a caller whose tasks all expired leaves the
// count.
func TestStoreBoundsBytesPerCaller(t *testing.T) {
	ctx := context.Background()
	rdb := startRedis(t)
	a := redistasks.NewWithOptions(rdb, redistasks.Options{MaxBytes: 64 << 10})
	b := redistasks.NewWithOptions(rdb, redistasks.Options{MaxBytes: 64 << 10}) // another replica
	const ada, bob = `"https://auth.example.com""ada""app"`, `"https://auth.example.com""bob""app"`
	task := func(id, caller string, ttl time.Duration) *mcp.TaskRecord {
		r := record(id, ttl)
		r.Caller = caller
		return r
	}
	for i := range 2 {
		if err := a.Create(ctx, task(fmt.Sprint("ada", i), ada, time.Hour)); err != nil {
			t.Fatalf("Ada's task %d of 4 KiB with a share of 16 KiB: %v", i, err)
		}
	}
	for i := range 2 {
		if err := b.Create(ctx, task(fmt.Sprint("brief", i), ada, 500*time.Millisecond)); err != nil {
			t.Fatal(err)
		}
	}
	err := a.Create(ctx, task("one-too-many", ada, time.Hour))
	if !errors.Is(err, mcp.ErrTaskCallerFull) || !errors.Is(err, mcp.ErrTaskStoreFull) || !strings.Contains(err.Error(), "16384 bytes of one caller's tasks") {
		t.Errorf("Ada's fifth task of 4 KiB with a share of 16 KiB: %v", err)
	}
	if _, err := a.Get(ctx, "one-too-many"); !errors.Is(err, mcp.ErrTaskNotFound) {
		t.Errorf("the task refused was stored: %v", err)
	}
	for i := range 4 {
		if err := b.Create(ctx, task(fmt.Sprint("bob", i), bob, time.Hour)); err != nil {
			t.Errorf("Bob's task %d while Ada's are at their share: %v", i, err)
		}
	}
	if err := a.Create(ctx, record("anonymous", time.Hour)); err != nil {
		t.Errorf("a task without a caller: %v", err)
	}
	_, err = b.Update(ctx, "ada1", func(r *mcp.TaskRecord) error {
		r.Status, r.Result = mcp.TaskCompleted, json.RawMessage(`{"content":[{"type":"text","text":"`+strings.Repeat("x", 8<<10)+`"}]}`)
		return nil
	})
	if !errors.Is(err, mcp.ErrTaskCallerFull) {
		t.Errorf("Ada's result of 8 KiB at her share: %v", err)
	}
	if got, _ := a.Get(ctx, "ada1"); got.Status != mcp.TaskWorking || got.Result != nil {
		t.Errorf("the refused update was stored: %v", got.Status)
	}
	if _, err := a.Update(ctx, "ada1", func(r *mcp.TaskRecord) error {
		r.Status, r.StatusMessage = mcp.TaskCancelled, "Cancelled by the client."
		return nil
	}); err != nil {
		t.Errorf("an update that does not grow a task, at its caller's share: %v", err)
	}
	if n, err := rdb.HGet(ctx, redistasks.DefaultPrefix+".callerbytes", ada).Int(); err != nil || n != 16<<10 {
		t.Errorf("Ada's tasks are counted as %d bytes (%v), want 16384", n, err)
	}
	time.Sleep(time.Second) // Ada's brief tasks expire
	if err := b.Create(ctx, task("after", ada, 200*time.Millisecond)); err != nil {
		t.Errorf("Ada's task once two of hers expired: %v", err)
	}
	if n, _ := rdb.HGet(ctx, redistasks.DefaultPrefix+".callerbytes", ada).Int(); n != 12<<10 {
		t.Errorf("Ada's tasks are counted as %d bytes once two expired and one came, want 12288", n)
	}

	// A caller whose tasks all expired leaves the count.
	c := redistasks.NewWithOptions(rdb, redistasks.Options{Prefix: "brief:"})
	if err := c.Create(ctx, task("t", ada, 100*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if err := c.Create(ctx, task("u", bob, time.Hour)); err != nil {
		t.Fatal(err)
	}
	if callers, _ := rdb.HKeys(ctx, "brief:.callerbytes").Result(); !slices.Equal(callers, []string{bob}) {
		t.Errorf("the callers counted once Ada's only task expired: %q", callers)
	}
}

// commandCalls returns how many times Redis has run each command.
func commandCalls(t *testing.T, rdb *redis.Client) map[string]int {
	t.Helper()
	info, err := rdb.Info(context.Background(), "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]int{}
	for line := range strings.SplitSeq(info, "\n") {
		name, rest, ok := strings.Cut(strings.TrimPrefix(line, "cmdstat_"), ":calls=")
		if ok {
			n, _, _ := strings.Cut(rest, ",")
			calls[name], _ = strconv.Atoi(n)
		}
	}
	return calls
}

// Tasks waiting for their client do not poll the store: each costs its lease's renewal, a
// read and a write a second, and tells no other replica of it; the answer, through another
// replica, wakes the task at once through the store's change feed.
func TestWaitingTasksDoNotPollRedis(t *testing.T) {
	rdb := startRedis(t)
	replica := func() *httptest.Server {
		srv := mcp.NewServer(mcp.Implementation{Name: "replica", Version: "1"}, &mcp.ServerOptions{
			Tasks:  mcp.TaskOptions{Store: redistasks.New(rdb)},
			Logger: quietLogger(),
		})
		mcpgen.AddForm(srv, `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`, decodeName)
		srv.AddTool(mcp.Tool{Name: "greet", InputSchema: `{"type":"object"}`, Task: mcp.TaskOptional, Handler: func(ctx context.Context, c *mcp.ToolCall) {
			n, _, err := mcp.Elicit[nameForm](mcp.WithInputKey(ctx, "name"), "Your name?")
			if err != nil {
				c.ReturnError(err)
				return
			}
			c.ReturnText("Hello, " + n.Name)
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
	const waiting = 20
	var ids []string
	for range waiting {
		ids = append(ids, call(t, a.URL, "tools/call", map[string]any{"name": "greet"})["taskId"].(string))
	}
	for _, id := range ids {
		waitFor(t, b.URL, id, "input_required")
	}
	time.Sleep(200 * time.Millisecond)
	before := commandCalls(t, rdb)
	time.Sleep(2 * time.Second)
	after := commandCalls(t, rdb)
	gets, publishes := after["get"]-before["get"], after["publish"]-before["publish"]
	t.Logf("%d tasks waiting for 2s: %d GET, %d PUBLISH", waiting, gets, publishes)
	if publishes > 0 {
		t.Errorf("%d tasks waiting for 2s announced %d changes", waiting, publishes)
	}
	// A renewal reads the task and the store's total: 2 a second, 4 in 2s, a few more for
	// the renewals the 2s cut in two.
	if gets > waiting*6 {
		t.Errorf("%d tasks waiting for 2s read Redis %d times", waiting, gets)
	}
	start := time.Now()
	call(t, b.URL, "tasks/update", map[string]any{"taskId": ids[3], "inputResponses": map[string]any{"name": map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}}})
	waitFor(t, b.URL, ids[3], "completed")
	if d := time.Since(start); d > 900*time.Millisecond {
		t.Errorf("the answer through the other replica took %v to reach the task", d)
	}
}
