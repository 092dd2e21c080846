package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// samplingTool asks the client's model, with a deadline, and reports the error it gets.
func samplingTool(timeout time.Duration) Tool {
	return Tool{
		Name: "ask", Description: "Samples.", InputSchema: `{"type":"object"}`,
		Handler: func(ctx context.Context, c *ToolCall) {
			ctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			res, err := Sample(ctx, &CreateMessageRequest{Messages: []SamplingMessage{{Role: RoleUser, Content: Text{Text: "hi"}}}, MaxTokens: 10})
			var capErr *ErrCapability
			var clientErr *ClientError
			switch {
			case errors.As(err, &capErr):
				c.ReturnText("capability: " + capErr.Capability)
			case errors.As(err, &clientErr):
				c.ReturnText("client error: " + clientErr.Message)
			case errors.Is(err, context.DeadlineExceeded):
				c.ReturnText("deadline")
			case err != nil:
				c.ReturnError(err)
			default:
				c.ReturnText(res.Content.(Text).Text)
			}
		},
	}
}

func initializeWith(h *harness, caps string) {
	h.t.Helper()
	result(h.t, h.roundTrip(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":`+caps+`,"clientInfo":{"name":"t","version":"1"}}}`))
	h.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

func toolText(t *testing.T, m map[string]any) string {
	t.Helper()
	return result(t, m)["content"].([]any)[0].(map[string]any)["text"].(string)
}

func TestRequestsToTheClientNeedItsCapability(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(samplingTool(time.Minute))
	h := start(t, srv)
	initializeWith(h, `{"elicitation":{}}`)
	if got := toolText(t, h.roundTrip(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask"}}`)); got != "capability: sampling" {
		t.Fatalf("sampling without the capability: %q", got)
	}
}

func TestRequestToTheClientKeepsTheDeadline(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(samplingTool(200 * time.Millisecond))
	h := start(t, srv)
	initializeWith(h, `{"sampling":{}}`)
	h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask"}}`)
	req := h.recv()
	if req["method"] != "sampling/createMessage" {
		t.Fatalf("want the sampling request, got %v", req)
	}
	// The client never answers: at the deadline the server gives up and says so.
	cancelled := h.recv()
	if cancelled["method"] != "notifications/cancelled" || cancelled["params"].(map[string]any)["requestId"] != req["id"] {
		t.Fatalf("want notifications/cancelled for request %v, got %v", req["id"], cancelled)
	}
	if got := toolText(t, h.recv()); got != "deadline" {
		t.Fatalf("tool saw %q, want the deadline", got)
	}
	// An answer that comes too late is dropped, and the server goes on.
	id, _ := json.Marshal(req["id"])
	h.send(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"role":"assistant","content":{"type":"text","text":"late"},"model":"m"}}`)
	result(t, h.roundTrip(`{"jsonrpc":"2.0","id":2,"method":"ping"}`))
}

func TestClientErrorAnswers(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(samplingTool(time.Minute))
	h := start(t, srv)
	initializeWith(h, `{"sampling":{}}`)
	h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask"}}`)
	req := h.recv()
	id, _ := json.Marshal(req["id"])
	h.send(`{"jsonrpc":"2.0","id":` + string(id) + `,"error":{"code":-1,"message":"user rejected sampling"}}`)
	if got := toolText(t, h.recv()); got != "client error: user rejected sampling" {
		t.Fatalf("tool saw %q", got)
	}
}

func TestEOFReleasesRequestsToTheClient(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(samplingTool(time.Minute))
	h := start(t, srv)
	initializeWith(h, `{"sampling":{}}`)
	h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask"}}`)
	h.recv() // the sampling request, never answered
	h.in.Close()
	res := h.recv()
	if r := result(t, res); r["isError"] != true || !strings.Contains(toolText(t, res), "session has ended") {
		t.Fatalf("the tool waiting on a client that left got %v", res)
	}
}

func TestHTTPOlderClients(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(echoTool("echo"))
	for _, version := range []string{"2025-03-26", "2025-06-18"} {
		t.Run(version, func(t *testing.T) {
			_, c := serveHTTPTest(t, srv, nil)
			m := jsonBody(t, c.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"old","version":"1"}}}`))
			if result(t, m)["protocolVersion"] != version {
				t.Fatalf("negotiated %v", m)
			}
			c.session = c.open[0].Header.Get("Mcp-Session-Id")
			// 2025-03-26 clients send no MCP-Protocol-Version header; 2025-06-18 ones do.
			header := []string{}
			if version >= "2025-06-18" {
				header = []string{"Mcp-Protocol-Version", version}
			}
			if s := c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, header...).StatusCode; s != 202 {
				t.Fatalf("initialized: %d", s)
			}
			m = jsonBody(t, c.post(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, header...))
			tool := result(t, m)["tools"].([]any)[0].(map[string]any)
			if _, hasTitle := tool["title"]; hasTitle != (version >= "2025-06-18") {
				t.Errorf("%s client got a tool %v", version, tool)
			}
		})
	}
}
