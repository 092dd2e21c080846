package shapes

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/mcptest"
)

func TestGeneratedShapes(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "shapes", Version: "0"}, nil)
	RegisterMCP(srv)
	c := mcptest.Connect(t, srv)

	tools := map[string]mcptest.Tool{}
	for _, tool := range c.ListTools() {
		tools[tool.Name] = tool
	}
	if len(tools) != 8 {
		t.Fatalf("%d tools listed", len(tools))
	}
	var noArgs map[string]any
	json.Unmarshal(tools["health"].InputSchema, &noArgs)
	if noArgs["type"] != "object" || noArgs["additionalProperties"] != false {
		t.Fatalf("no-argument input schema: %v", noArgs)
	}
	if tools["add"].Title != "Add two numbers" || tools["add"].OutputSchema == nil || tools["readme"].OutputSchema != nil {
		t.Fatalf("titles or output schemas wrong: %+v", tools)
	}
	if tools["reset"].Annotations["destructiveHint"] != true {
		t.Fatalf("reset annotations: %v", tools["reset"].Annotations)
	}

	var st Status
	if err := c.CallTool("health", nil).Structured(&st); err != nil || !st.OK || st.Version != "1.2.3" {
		t.Fatalf("health: %+v %v", st, err)
	}
	if res := c.CallTool("readme", map[string]any{}); res.Text() != "# Shapes\n" || res.StructuredContent != nil {
		t.Fatalf("readme: %+v", res)
	}
	if res := c.CallTool("reset", nil); !res.IsError || res.Text() != "reset is disabled" {
		t.Fatalf("reset: %+v", res)
	}
	if res := c.CallTool("touch", nil); res.IsError || len(res.Content) != 0 {
		t.Fatalf("touch: %+v", res)
	}
	var sum Sum
	if err := c.CallTool("add", map[string]any{"a": 1.5, "b": 2}).Structured(&sum); err != nil || sum.Sum != 3.5 {
		t.Fatalf("add: %+v %v", sum, err)
	}
	if res := c.CallTool("add", map[string]any{"a": 0, "b": 0}); !res.IsError || !strings.Contains(res.Text(), "no result") {
		t.Fatalf("add returning nil: %+v", res)
	}
	if res := c.CallTool("add", map[string]any{"a": "1"}); !res.IsError || !strings.Contains(res.Text(), "/a: expected number, got string") || !strings.Contains(res.Text(), "/b: missing required property") {
		t.Fatalf("add with bad arguments: %s", res.Text())
	}
	pic := c.CallTool("picture", nil)
	if len(pic.Content) != 1 || pic.Content[0]["type"] != "image" || pic.Content[0]["data"] != base64.StdEncoding.EncodeToString(Dot) {
		t.Fatalf("picture: %+v", pic)
	}
	rep := c.CallTool("report", nil)
	if len(rep.Content) != 3 || rep.Content[1]["type"] != "resource" || rep.Content[2]["type"] != "resource_link" {
		t.Fatalf("report: %+v", rep)
	}
	custom := c.CallTool("custom", nil)
	if !custom.IsError || custom.Text() != "custom failure" || string(custom.StructuredContent) != `{"code":42}` {
		t.Fatalf("custom: %+v", custom)
	}
}
