package mcp

import (
	"context"
	"sync"
	"testing"
)

// Message.Known tells a middleware whether what a message received names is this side's: a
// method of MCP's, and a tool or prompt the server has. A client makes the names up as it
// likes; telemetry labels the unknown ones as one value (issue 35, item 2).
func TestMessageKnown(t *testing.T) {
	var mu sync.Mutex
	known := map[string]bool{}
	srv := quietServer(&ServerOptions{Middleware: []Middleware{func(next Handler) Handler {
		return func(ctx context.Context, m *Message) ([]byte, error) {
			mu.Lock()
			known[m.Method+" "+m.Name()] = m.Known()
			mu.Unlock()
			return next(ctx, m)
		}
	}}})
	srv.AddTool(Tool{Name: "get_weather", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *ToolCall) { c.ReturnText("sunny") }})
	srv.AddPrompt(Prompt{Name: "greet", Get: func(context.Context, *Input) (*GetPromptResult, error) {
		return &GetPromptResult{Messages: []PromptMessage{{Role: RoleUser, Content: Text{Text: "hi"}}}}, nil
	}})
	h := start(t, srv)
	h.initialize("2025-11-25")
	h.roundTrip(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_weather","arguments":{}}}`)
	h.roundTrip(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"made_up","arguments":{}}}`)
	h.roundTrip(`{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"greet"}}`)
	h.roundTrip(`{"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"made_up"}}`)
	h.send(`{"jsonrpc":"2.0","method":"notifications/made_up","params":{}}`)
	h.roundTrip(`{"jsonrpc":"2.0","id":5,"method":"ping"}`) // the notification before it is handled
	want := map[string]bool{
		"tools/call get_weather": true, "tools/call made_up": false, "prompts/get greet": true, "prompts/get made_up": false,
		"notifications/made_up ": false, "ping ": true, "notifications/initialized ": true,
	}
	mu.Lock()
	defer mu.Unlock()
	for k, v := range want {
		if got, ok := known[k]; !ok || got != v {
			t.Errorf("%s: Known %v (seen %v), want %v", k, got, ok, v)
		}
	}
	if (&Message{Method: "made/up", Outgoing: true}).Known() != true {
		t.Error("a message this side sends is not known")
	}
}
