package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/mcp/ws"
)

// mcpgen call --ws reaches a server over WebSocket; a URL of another scheme, or --ws with
// another server, is a usage error.
func TestCallOverWebSocket(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "ws-echo", Version: "1"}, nil)
	srv.AddTool(mcp.Tool{Name: "echo", InputSchema: `{"type":"object","properties":{"text":{"type":"string"}}}`,
		Handler: func(ctx context.Context, c *mcp.ToolCall) {
			var in struct{ Text string }
			if err := json.Unmarshal(c.RawArguments(), &in); err != nil {
				c.ReturnError(err)
				return
			}
			c.ReturnText("echo: " + in.Text)
		}})
	h := ws.NewHandler(srv, nil)
	s := httptest.NewServer(h)
	defer s.Close()
	defer h.Shutdown(context.Background())
	url := "ws" + strings.TrimPrefix(s.URL, "http")

	code, out, errOut := mcpgen(t, "call", "--ws", url, "echo", "text=hi")
	if code != 0 || strings.TrimSpace(out) != "echo: hi" {
		t.Fatalf("call --ws: exit %d\n%s%s", code, out, errOut)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"call", "--ws", s.URL, "echo"}, `--ws: "` + s.URL + `" is not a ws:// or wss:// URL`},
		{[]string{"call", "--ws", url, "--url", s.URL, "echo"}, "give one of --stdio, --url, --sse and --ws"},
	} {
		code, _, errOut := mcpgen(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, %s; want exit 2 saying %q", tc.args, code, errOut, tc.want)
		}
	}
}
