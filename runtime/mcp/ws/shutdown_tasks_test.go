package ws

import (
	"context"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// Shutdown ends the tasks the server runs, as HTTPHandler.Shutdown does: a body waiting for
// its client is cancelled, and nothing of the tasks' (the watch of the task store's changes
// that a question starts) outlives it. It fails on main: ws.Handler.Shutdown leaves the
// server's tasks running, and nothing exported lets it end them.
func TestShutdownEndsTasks(t *testing.T) {
	ended := make(chan error, 1)
	srv := mcp.NewServer(mcp.Implementation{Name: "ws-test", Version: "1"}, &mcp.ServerOptions{Logger: quiet()})
	srv.AddTool(mcp.Tool{Name: "ask", InputSchema: `{"type":"object"}`, Task: mcp.TaskRequired, Handler: func(ctx context.Context, c *mcp.ToolCall) {
		_, err := mcp.Roots(ctx)
		ended <- err
		c.ReturnError(err)
	}})
	s, h := serve(t, srv, nil)
	c := dial(t, wsURL(s), "")
	id, _ := result(t, c.call(t, "tools/call", `"name":"ask"`))["taskId"].(string)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if task := result(t, c.call(t, "tasks/get", `"taskId":"`+id+`"`)); task["status"] == "input_required" {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("the task did not ask within 10s: %v", task)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	select {
	case err := <-ended:
		if err == nil {
			t.Error("the task's question was answered")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the task's body still waits for its client 10s after Shutdown")
	}
	// The store's watch, if left, is what TestMain's goleak finds.
}
