package matrix_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/mcp/internal/matrix"
)

// ServerOptions.MaxConcurrentRequests bounds the requests one conversation has served at
// once, over every transport that has conversations: past it a request is refused at once
// ("server busy"), and once one ends the next is served. Stateless Streamable HTTP has no
// conversation to bound (each POST stands alone; MaxConns and the bodies' budget bound
// them), and is left out.
func TestMaxConcurrentRequests(t *testing.T) {
	const limit = 2
	var running atomic.Int32
	var release chan struct{}
	conversations := func(tr matrix.Transport) bool { return tr.Name != matrix.HTTP || !tr.Stateless() }
	matrix.Run(t, matrix.Config{Only: conversations, Server: func(t *testing.T) *mcp.Server {
		release = make(chan struct{})
		srv := newServer(&mcp.ServerOptions{MaxConcurrentRequests: limit})
		srv.AddTool(mcp.Tool{Name: "hold", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *mcp.ToolCall) {
			running.Add(1)
			defer running.Add(-1)
			select {
			case <-release:
			case <-ctx.Done():
			}
			c.ReturnText("released")
		}})
		return srv
	}}, func(t *testing.T, c *matrix.Case) {
		held := make(chan error, limit)
		for range limit {
			go func() {
				_, err := c.Client.CallTool(t.Context(), "hold", nil)
				held <- err
			}()
		}
		deadline := time.Now().Add(wait)
		for running.Load() < limit && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if n := running.Load(); n != limit {
			t.Fatalf("%d calls running, want %d", n, limit)
		}
		ctx, cancel := context.WithTimeout(t.Context(), wait)
		defer cancel()
		_, err := c.Client.CallTool(ctx, "hold", nil)
		var re *jsonrpc.Error
		var he *mcp.HTTPError
		if !errors.As(err, &re) && !errors.As(err, &he) {
			t.Errorf("a call past %d at once: %v, want it refused", limit, err)
		}
		close(release)
		for range limit {
			if err := <-held; err != nil {
				t.Errorf("a call within the bound: %v", err)
			}
		}
		if res, err := c.Client.CallTool(t.Context(), "hold", nil); err != nil || res.IsError {
			t.Errorf("a call once the others ended: %+v, %v", res, err)
		}
	})
}
