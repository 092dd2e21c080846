package matrix_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/mcp/internal/matrix"
)

// A message larger than ServerOptions.MaxMessageSize is refused whatever carries it: the
// call fails at once (not by its caller's timeout), the tool never runs, and the server goes
// on serving.
func TestOversizedMessage(t *testing.T) {
	const limit = 64 << 10
	var ran atomic.Int32
	matrix.Run(t, matrix.Config{Server: func(t *testing.T) *mcp.Server {
		ran.Store(0)
		srv := newServer(&mcp.ServerOptions{MaxMessageSize: limit})
		srv.AddTool(mcp.Tool{Name: "echo", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *mcp.ToolCall) {
			ran.Add(1)
			c.ReturnText(string(c.RawArguments()[:10]))
		}})
		return srv
	}}, func(t *testing.T, c *matrix.Case) {
		ctx, cancel := context.WithTimeout(t.Context(), wait)
		defer cancel()
		res, err := c.Client.CallTool(ctx, "echo", map[string]any{"pad": strings.Repeat("x", 2*limit)})
		switch {
		case err == nil:
			t.Errorf("a call of %d bytes to a server that takes %d was served: %+v", 2*limit, limit, res)
		case errors.Is(err, context.DeadlineExceeded):
			t.Errorf("a call of %d bytes to a server that takes %d was not answered within %s: %v", 2*limit, limit, wait, err)
		}
		if n := ran.Load(); n != 0 {
			t.Errorf("the tool ran %d times for a message larger than the server takes", n)
		}
		cl := c.Connect(t, "", nil) // a new conversation: the one refused may have ended
		if res, err := cl.CallTool(t.Context(), "echo", map[string]any{"pad": "small"}); err != nil || res.IsError {
			t.Errorf("a small call after the large one: %+v, %v", res, err)
		}
	})
}
