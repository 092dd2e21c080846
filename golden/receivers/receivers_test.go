package receivers

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/mcptest"
)

func TestReceivers(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "receivers", Version: "0"}, nil)
	RegisterMCP(srv, Args{Greeting: "Hello"}, Context{}, McpgenCallTrueYes{}, Req{}, String{}, True{}, URI{}, Vars{})
	c := mcptest.Connect(t, srv)
	for tool, want := range map[string]string{"deadline": "no deadline", "yes": "yes", "no": "no"} {
		if res := c.CallTool(tool, nil); res.IsError || res.Text() != want {
			t.Errorf("%s: %s", tool, res.Text())
		}
	}
	msgs, rpcErr := c.GetPrompt("hello", map[string]string{"name": "Ada"})
	if got, _ := json.Marshal(msgs); rpcErr != nil || !strings.Contains(string(got), `"text":"Hello, Ada"`) {
		t.Errorf("hello: %s %v", got, rpcErr)
	}
	if got, rpcErr := c.Complete("prompt:hello", "name", "A"); rpcErr != nil || strings.Join(got, ",") != "Ada,Alan" {
		t.Errorf("complete: %v %v", got, rpcErr)
	}
	for uri, want := range map[string]string{"info://server": "receivers", "items://3": "***", "upper://abc": "ABC"} {
		contents, rpcErr := c.ReadResource(uri)
		if rpcErr != nil || len(contents) != 1 || contents[0]["text"] != want {
			t.Errorf("%s: %v %v", uri, contents, rpcErr)
		}
	}
}
