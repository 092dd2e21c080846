package results

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/mcptest"
)

// TestResultsBreakingTheirSchema calls each tool with a result its output schema allows and
// with results it does not: those must be error results naming every problem, with no
// structured content.
func TestResultsBreakingTheirSchema(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "results", Version: "0"}, nil)
	RegisterMCP(srv)
	c := mcptest.Connect(t, srv)
	for _, tt := range []struct {
		tool, args string
		problems   []string // none: the result is sent
	}{
		{"return_flags", `{"sure":true}`, nil},
		{"return_flags", `{"sure":false}`, []string{"/sure: must be one of true"}},
		{"return_pair", `{}`, nil},
		{"return_pair", `{"names":["a","b"]}`, nil},
		{"return_pair", `{"names":["a","a"]}`, []string{"/names: must not contain duplicates"}},
		{"return_bounded", `{"code":"AB","count":9,"step":1.5}`, nil},
		{"return_bounded", `{"code":"abcd","count":0,"step":0.3}`, []string{
			"/code: must be at most 3 characters long", "/code: must match the pattern ^[A-Z]+$", "/count: must be >= 1", "/step: must be a multiple of 0.5"}},
	} {
		res := c.CallTool(tt.tool, json.RawMessage(tt.args))
		text := res.Text()
		if len(tt.problems) == 0 {
			if res.IsError || len(res.StructuredContent) == 0 {
				t.Errorf("%s %s: error result %q, want the result sent", tt.tool, tt.args, text)
			}
			continue
		}
		if !res.IsError || len(res.StructuredContent) != 0 {
			t.Errorf("%s %s: sent %s, want an error result", tt.tool, tt.args, res.StructuredContent)
			continue
		}
		if !strings.Contains(text, "breaks its output schema") {
			t.Errorf("%s %s: error %q does not say the result breaks the output schema", tt.tool, tt.args, text)
		}
		for _, p := range tt.problems {
			if !strings.Contains(text, p) {
				t.Errorf("%s %s: error %q does not name %q", tt.tool, tt.args, text, p)
			}
		}
	}
}
