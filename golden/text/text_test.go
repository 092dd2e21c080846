package text

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/mcptest"
)

func connect(t *testing.T, version string) *mcptest.Client {
	srv := mcp.NewServer(mcp.Implementation{Name: "text", Version: "0"}, nil)
	RegisterMCP(srv)
	if version == "" {
		return mcptest.Connect(t, srv)
	}
	return mcptest.ConnectVersion(t, srv, version)
}

// TestOwnText checks that a result type with AppendMCPText or MCPText gives the text block,
// while structuredContent keeps the JSON, and that one without gives its JSON.
func TestOwnText(t *testing.T) {
	c := connect(t, "")
	for _, tt := range []struct {
		tool, args, text, structured string
	}{
		{"search", `{"pattern":"x"}`, "a.go:3:func x()\nb.go:10:x := 1\n", `{"hits":[{"path":"a.go","line":3,"text":"func x()"},{"path":"b.go","line":10,"text":"x := 1"}]}`},
		{"count", `{}`, "42 files", `{"n":42}`},
		{"raise", `{"value":1}`, "level 2", `{"value":2}`},
		{"ping", `{}`, `{"ok":true}`, `{"ok":true}`},
	} {
		for range 2 { // the second call reuses the first one's buffer
			res := c.CallTool(tt.tool, json.RawMessage(tt.args))
			if res.IsError || len(res.Content) != 1 || res.Text() != tt.text || string(res.StructuredContent) != tt.structured {
				t.Errorf("%s: text %q, structured %s (error %v); want %q and %s", tt.tool, res.Text(), res.StructuredContent, res.IsError, tt.text, tt.structured)
			}
		}
	}
}

// TestOwnTextBeforeStructuredContent: before 2025-06-18 a result has no structuredContent,
// and its text is the type's own.
func TestOwnTextBeforeStructuredContent(t *testing.T) {
	c := connect(t, "2025-03-26")
	res := c.CallTool("count", json.RawMessage(`{}`))
	if res.IsError || res.Text() != "42 files" || res.StructuredContent != nil {
		t.Errorf("text %q, structured %s; want the type's text alone", res.Text(), res.StructuredContent)
	}
}

// TestOwnTextOfABrokenResult: a result that breaks its output schema is an error result,
// whose text is the error, not the type's text.
func TestOwnTextOfABrokenResult(t *testing.T) {
	c := connect(t, "")
	res := c.CallTool("raise", json.RawMessage(`{"value":10}`))
	if !res.IsError || !strings.Contains(res.Text(), "/value: must be <= 10") || res.StructuredContent != nil {
		t.Errorf("error %v, text %q, structured %s; want an error result", res.IsError, res.Text(), res.StructuredContent)
	}
}
