package matrix_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/mcp/internal/matrix"
)

// taskServer has a tool that runs as a task, reporting its status, and one that runs as a
// task until it is cancelled.
func taskServer(stopped chan struct{}) *mcp.Server {
	srv := newServer(&mcp.ServerOptions{Tasks: mcp.TaskOptions{PollInterval: 20 * time.Millisecond}})
	srv.AddTool(mcp.Tool{Name: "long", InputSchema: `{"type":"object"}`, Task: mcp.TaskRequired, Handler: func(ctx context.Context, c *mcp.ToolCall) {
		mcp.Progress(ctx, 0, 0, "halfway")
		c.ReturnText("finished")
	}})
	srv.AddTool(mcp.Tool{Name: "forever", InputSchema: `{"type":"object"}`, Task: mcp.TaskRequired, Handler: func(ctx context.Context, c *mcp.ToolCall) {
		<-ctx.Done()
		close(stopped)
	}})
	return srv
}

// sent records the methods a client sends (ClientOptions.Trace).
func sent(methods *record[string]) func(bool, []byte) {
	return func(fromServer bool, msg []byte) {
		if fromServer {
			return
		}
		if _, rest, ok := bytes.Cut(msg, []byte(`"method":"`)); ok {
			if m, _, ok := bytes.Cut(rest, []byte(`"`)); ok {
				methods.add(string(m))
			}
		}
	}
}

// A tool that runs as a task (the tasks extension of 2026-07-28; mcpgen's server offers
// tasks in no other revision) is followed by the client to its result over every transport,
// its status message heard on the way; a task whose caller gives up is cancelled.
func TestTasks(t *testing.T) {
	var stopped chan struct{}
	matrix.Run(t, matrix.Config{NoClient: true, Only: matrix.Transport.Stateless, Server: func(t *testing.T) *mcp.Server {
		stopped = make(chan struct{})
		return taskServer(stopped)
	}}, func(t *testing.T, c *matrix.Case) {
		methods := newRecord[string]()
		cl := c.Connect(t, "", &mcp.ClientOptions{Trace: sent(methods)})
		notices := newRecord[mcp.ProgressNotice]()
		res, err := cl.CallTool(mcp.WithProgress(t.Context(), notices.add), "long", nil)
		if err != nil || mcp.TextOf(res.Content) != "finished" {
			t.Fatalf("long: %+v, %v", res, err)
		}
		if got := methods.all(); !slices.ContainsFunc(got, func(m string) bool { return m == "tasks/get" || m == "tasks/result" || m == "subscriptions/listen" }) {
			t.Errorf("the client sent %q: the call did not run as a task", got)
		}
		if got, ok := notices.await(func(got []mcp.ProgressNotice) bool {
			return slices.ContainsFunc(got, func(n mcp.ProgressNotice) bool { return n.Message == "halfway" })
		}); !ok {
			t.Errorf("the task's status message was not heard: %+v", got)
		}

		ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
		defer cancel()
		if _, err := cl.CallTool(ctx, "forever", nil); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("a task given up: %v", err)
		}
		select {
		case <-stopped:
		case <-time.After(wait):
			t.Errorf("the task of a call given up was not cancelled within %s", wait)
		}
	})
}
