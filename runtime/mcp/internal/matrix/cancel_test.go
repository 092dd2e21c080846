package matrix_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/mcp/internal/matrix"
)

// A call its caller gives up reaches the tool as the end of its context, over every
// transport (notifications/cancelled in a session and over stdio; over stateless HTTP, the
// request's connection closed), and the server goes on serving.
func TestCancellation(t *testing.T) {
	var started, stopped chan struct{}
	matrix.Run(t, matrix.Config{Server: func(t *testing.T) *mcp.Server {
		started, stopped = make(chan struct{}), make(chan struct{})
		srv := newServer(nil)
		srv.AddTool(mcp.Tool{Name: "wait", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *mcp.ToolCall) {
			close(started)
			<-ctx.Done()
			close(stopped)
			c.ReturnError(ctx.Err())
		}})
		srv.AddTool(mcp.Tool{Name: "quick", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *mcp.ToolCall) {
			c.ReturnText("quick")
		}})
		return srv
	}}, func(t *testing.T, c *matrix.Case) {
		ctx, cancel := context.WithCancel(t.Context())
		go func() {
			select {
			case <-started:
				cancel()
			case <-time.After(wait):
			}
		}()
		if _, err := c.Client.CallTool(ctx, "wait", nil); !errors.Is(err, context.Canceled) {
			t.Errorf("a call given up: %v, want context.Canceled", err)
		}
		select {
		case <-stopped:
		case <-time.After(wait):
			t.Fatalf("the tool's context did not end within %s of its caller giving up", wait)
		}
		if res, err := c.Client.CallTool(t.Context(), "quick", nil); err != nil || mcp.TextOf(res.Content) != "quick" {
			t.Errorf("a call after the one given up: %+v, %v", res, err)
		}
	})
}
