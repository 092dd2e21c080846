package matrix_test

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/mcp/internal/matrix"
	"github.com/mcpgen/mcpgen/runtime/mcp/ws"
)

// newServer is a server with the test's options and a quiet logger (the tests provoke
// warnings on purpose).
func newServer(opts *mcp.ServerOptions) *mcp.Server {
	if opts == nil {
		opts = &mcp.ServerOptions{}
	}
	if opts.Logger == nil {
		opts.Logger = matrix.Quiet()
	}
	return mcp.NewServer(mcp.Implementation{Name: "matrix", Version: "1"}, opts)
}

// seen records what the server saw of each tools/call, through a middleware: the transport
// and revision a request came by, so that a test knows the harness reached the server the
// way the case says.
func seen(opts *mcp.ServerOptions, saw func(m *mcp.Message)) *mcp.ServerOptions {
	opts.Middleware = append(opts.Middleware, func(next mcp.Handler) mcp.Handler {
		return func(ctx context.Context, m *mcp.Message) ([]byte, error) {
			if !m.Outgoing && m.Method == "tools/call" {
				saw(m)
			}
			return next(ctx, m)
		}
	})
	return opts
}

// wantTransport is what Message.Transport says of each of the matrix's transports.
var wantTransport = map[string]string{
	matrix.Memory: mcp.TransportMemory, matrix.Stdio: mcp.TransportStdio, matrix.HTTP: mcp.TransportHTTP,
	matrix.SSE: mcp.TransportSSE, matrix.WebSocket: ws.TransportName,
}

// A tool call and its failures come back alike over every transport: the result with its
// structured content, checked against the output schema; a failure the tool reports, as an
// error result; a tool that panics, as an error result, after which the server goes on; an
// unknown tool, as invalid params. The tool sees the client's name and the revision spoken,
// and the server the transport the case names.
func TestToolCall(t *testing.T) {
	type saw struct{ transport, version string }
	calls := make(chan saw, 64)
	matrix.Run(t, matrix.Config{
		Client: &mcp.ClientOptions{Info: mcp.Implementation{Name: "matrix-client", Version: "7"}},
		Server: func(t *testing.T) *mcp.Server {
			srv := newServer(seen(&mcp.ServerOptions{}, func(m *mcp.Message) { calls <- saw{m.Transport, m.ProtocolVersion} }))
			srv.AddTool(mcp.Tool{Name: "add",
				InputSchema:  `{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`,
				OutputSchema: `{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"]}`,
				Handler: func(ctx context.Context, c *mcp.ToolCall) {
					var in struct{ A, B float64 }
					if err := json.Unmarshal(c.RawArguments(), &in); err != nil {
						c.ReturnError(err)
						return
					}
					r := mcp.RequestFrom(ctx)
					sum := strconv.FormatFloat(in.A+in.B, 'g', -1, 64)
					c.ReturnResult(&mcp.CallToolResult{
						Content:           []mcp.Content{mcp.Text{Text: sum + " for " + r.ClientInfo().Name + " at " + r.ProtocolVersion()}},
						StructuredContent: []byte(`{"sum":` + sum + `}`),
					})
				}})
			srv.AddTool(mcp.Tool{Name: "fail", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *mcp.ToolCall) {
				c.ReturnError(errors.New("the disk is full"))
			}})
			srv.AddTool(mcp.Tool{Name: "panic", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *mcp.ToolCall) {
				panic("a bug")
			}})
			return srv
		},
	}, func(t *testing.T, c *matrix.Case) {
		ctx := t.Context()
		res, err := c.Client.CallTool(ctx, "add", map[string]any{"a": 2, "b": 3.5})
		if err != nil || res.IsError {
			t.Fatalf("add: %+v, %v", res, err)
		}
		if text, want := mcp.TextOf(res.Content), "5.5 for matrix-client at "+c.Version; text != want {
			t.Errorf("add's text: %q, want %q", text, want)
		}
		if string(res.StructuredContent) != `{"sum":5.5}` {
			t.Errorf("add's structured content: %s", res.StructuredContent)
		}
		if s := <-calls; s.transport != wantTransport[c.Name] || s.version != c.Version {
			t.Errorf("the server saw the call over %s at %s, want %s at %s", s.transport, s.version, wantTransport[c.Name], c.Version)
		}

		res, err = c.Client.CallTool(ctx, "fail", nil)
		var te *mcp.ToolError
		if err != nil || !res.IsError || !errors.As(res.Err(), &te) || te.Text != "the disk is full" {
			t.Errorf("a tool's failure: %+v, %v (want an error result saying the disk is full)", res, err)
		}
		res, err = c.Client.CallTool(ctx, "panic", nil)
		if err != nil || !res.IsError {
			t.Errorf("a tool that panics: %+v, %v (want an error result)", res, err)
		}
		var re *jsonrpc.Error
		if _, err := c.Client.CallTool(ctx, "nope", nil); !errors.As(err, &re) || re.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("an unknown tool: %v, want invalid params (%d)", err, jsonrpc.CodeInvalidParams)
		}
		if res, err := c.Client.CallTool(ctx, "add", map[string]any{"a": 1, "b": 1}); err != nil || res.IsError {
			t.Errorf("a call after the failures: %+v, %v", res, err)
		}
		for len(calls) > 0 { // the other calls', for the next case
			<-calls
		}
	})
}
