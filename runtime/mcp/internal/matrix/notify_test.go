package matrix_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/mcp/internal/matrix"
)

// wait is how long a test waits for a notification that should come at once.
const wait = 5 * time.Second

// record gathers what a client's callbacks hear, in order.
type record[T any] struct {
	mu   sync.Mutex
	got  []T
	more chan struct{}
}

func newRecord[T any]() *record[T] { return &record[T]{more: make(chan struct{}, 1)} }

func (r *record[T]) add(v T) {
	r.mu.Lock()
	r.got = append(r.got, v)
	r.mu.Unlock()
	select {
	case r.more <- struct{}{}:
	default:
	}
}

func (r *record[T]) all() []T {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}

// await waits until ok holds of what was heard, or wait has passed; it returns what was.
func (r *record[T]) await(ok func([]T) bool) ([]T, bool) {
	deadline := time.After(wait)
	for {
		got := r.all()
		if ok(got) {
			return got, true
		}
		select {
		case <-r.more:
		case <-deadline:
			return r.all(), false
		}
	}
}

// A tool's progress reaches the caller's progress function, in order, before the call
// returns, over every transport.
func TestProgress(t *testing.T) {
	matrix.Run(t, matrix.Config{Server: func(t *testing.T) *mcp.Server {
		srv := newServer(nil)
		srv.AddTool(mcp.Tool{Name: "steps", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *mcp.ToolCall) {
			mcp.Progress(ctx, 1, 3, "one")
			mcp.Progress(ctx, 2, 3, "two")
			c.ReturnText("done")
		}})
		return srv
	}}, func(t *testing.T, c *matrix.Case) {
		notices := newRecord[mcp.ProgressNotice]()
		res, err := c.Client.CallTool(mcp.WithProgress(t.Context(), notices.add), "steps", nil)
		if err != nil || mcp.TextOf(res.Content) != "done" {
			t.Fatalf("steps: %+v, %v", res, err)
		}
		want := []mcp.ProgressNotice{{Progress: 1, Total: 3, Message: "one"}, {Progress: 2, Total: 3, Message: "two"}}
		if got := notices.all(); !slices.Equal(got, want) {
			t.Errorf("progress heard by the time the call returned: %+v, want %+v", got, want)
		}
		// A call whose caller asks for no progress is sent none (and fails nothing).
		if res, err := c.Client.CallTool(t.Context(), "steps", nil); err != nil || res.IsError {
			t.Errorf("steps without a progress function: %+v, %v", res, err)
		}
	})
}

// A tool's log messages at or above the level the client set reach its Log callback before
// the call returns; those below it are not sent.
func TestLogMessages(t *testing.T) {
	matrix.Run(t, matrix.Config{NoClient: true, Server: func(t *testing.T) *mcp.Server {
		srv := newServer(nil)
		srv.AddTool(mcp.Tool{Name: "chatty", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *mcp.ToolCall) {
			mcp.Log(ctx, mcp.LevelDebug, "matrix", "too fine to send")
			mcp.Log(ctx, mcp.LevelWarning, "matrix", map[string]any{"disk": "almost full"})
			mcp.Log(ctx, mcp.LevelInfo, "matrix", "started")
			c.ReturnText("done")
		}})
		return srv
	}}, func(t *testing.T, c *matrix.Case) {
		logs := newRecord[mcp.LogMessage]()
		cl := c.Connect(t, "", &mcp.ClientOptions{Log: logs.add})
		if err := cl.SetLogLevel(t.Context(), mcp.LevelInfo); err != nil {
			t.Fatal(err)
		}
		if res, err := cl.CallTool(t.Context(), "chatty", nil); err != nil || res.IsError {
			t.Fatalf("chatty: %+v, %v", res, err)
		}
		var got []string
		for _, m := range logs.all() {
			got = append(got, string(m.Level)+" "+m.Logger+" "+string(m.Data))
		}
		want := []string{`warning matrix {"disk":"almost full"}`, `info matrix "started"`}
		if !slices.Equal(got, want) {
			t.Errorf("log messages heard by the time the call returned: %q, want %q", got, want)
		}
	})
}

// A change of the server's tools and resources is told to a client that listens for it,
// and a resource's update to a client subscribed to that resource only.
func TestChangesAreTold(t *testing.T) {
	read := func(ctx context.Context, uri string) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{{URI: uri, Text: "contents"}}, nil
	}
	matrix.Run(t, matrix.Config{NoClient: true, Server: func(t *testing.T) *mcp.Server {
		srv := newServer(nil)
		srv.AddTool(mcp.Tool{Name: "first", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *mcp.ToolCall) { c.ReturnText("1") }})
		srv.AddResource(mcp.Resource{URI: "file:///watched", Name: "watched", Read: read})
		srv.AddResource(mcp.Resource{URI: "file:///other", Name: "other", Read: read})
		return srv
	}}, func(t *testing.T, c *matrix.Case) {
		tools, resources, updated := newRecord[bool](), newRecord[bool](), newRecord[string]()
		cl := c.Connect(t, "", &mcp.ClientOptions{
			ToolsChanged:     func() { tools.add(true) },
			ResourcesChanged: func() { resources.add(true) },
			ResourceUpdated:  updated.add,
		})
		if _, err := cl.ListTools(t.Context()); err != nil {
			t.Fatal(err)
		}
		if err := cl.Subscribe(t.Context(), "file:///watched"); err != nil {
			t.Fatalf("subscribing: %v", err)
		}

		c.Server.AddTool(mcp.Tool{Name: "second", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *mcp.ToolCall) { c.ReturnText("2") }})
		if _, ok := tools.await(func(got []bool) bool { return len(got) > 0 }); !ok {
			t.Errorf("no tools/list_changed within %s of AddTool", wait)
		}
		list, err := cl.ListTools(t.Context())
		if err != nil || len(list) != 2 {
			t.Errorf("the tools after the change: %d, %v", len(list), err)
		}
		c.Server.AddResource(mcp.Resource{URI: "file:///new", Name: "new", Read: read})
		if _, ok := resources.await(func(got []bool) bool { return len(got) > 0 }); !ok {
			t.Errorf("no resources/list_changed within %s of AddResource", wait)
		}

		c.Server.NotifyResourceUpdated("file:///other") // not subscribed to: not told
		c.Server.NotifyResourceUpdated("file:///watched")
		got, ok := updated.await(func(got []string) bool { return len(got) > 0 })
		if !ok || got[0] != "file:///watched" {
			t.Errorf("resource updates heard: %q, want file:///watched only", got)
		}
		if err := cl.Unsubscribe(t.Context(), "file:///watched"); err != nil {
			t.Fatalf("unsubscribing: %v", err)
		}
		c.Server.NotifyResourceUpdated("file:///watched")
		c.Server.NotifyResourceUpdated("file:///other")
		// The updates after it are not told (a moment for them to come, if they were to).
		if err := cl.Ping(t.Context()); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
		if got := updated.all(); len(got) != 1 {
			t.Errorf("resource updates heard after unsubscribing: %q", got[1:])
		}
	})
}
