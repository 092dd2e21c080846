package catalog_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/catalog"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/mcptest"
)

// inner is a server of 120 tools: op_000 to op_119, the even ones tagged "even"; each
// requires a string argument "x" and answers it back as structured content.
func inner(t *testing.T) (*mcp.Server, map[string][]string) {
	s := mcp.NewServer(mcp.Implementation{Name: "inner", Version: "1"}, nil)
	tags := map[string][]string{}
	for i := range 120 {
		name := fmt.Sprintf("op_%03d", i)
		if i%2 == 0 {
			tags[name] = []string{"even"}
		}
		desc := "Does thing " + name + "."
		if i == 7 {
			desc = "Finds the lucky number. Then more words."
		}
		s.AddTool(mcp.Tool{Name: name, Description: desc,
			InputSchema:  `{"type":"object","properties":{"x":{"type":"string"}},"required":["x"],"additionalProperties":false}`,
			OutputSchema: `{"type":"object","properties":{"echo":{"type":"string"}},"required":["echo"]}`,
			Handler: func(ctx context.Context, c *mcp.ToolCall) {
				var a struct{ X *string }
				if json.Unmarshal(c.RawArguments(), &a) != nil || a.X == nil {
					c.ReturnError(fmt.Errorf("/x: required"))
					return
				}
				out, _ := json.Marshal(map[string]string{"echo": name + ":" + *a.X})
				c.ReturnResult(&mcp.CallToolResult{StructuredContent: out, Content: []mcp.Content{mcp.Text{Text: string(out)}}})
			}})
	}
	return s, tags
}

func TestCatalog(t *testing.T) {
	in, tags := inner(t)
	outer := mcp.NewServer(mcp.Implementation{Name: "outer", Version: "1"}, nil)
	cat, err := catalog.Register(context.Background(), outer, in, catalog.Options{Tags: tags})
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	c := mcptest.Connect(t, outer)
	if tools := c.ListTools(); len(tools) != 3 {
		t.Fatalf("the outer server lists %d tools, want the catalog's 3", len(tools))
	}

	type page struct {
		Operations []struct{ Name, Summary string }
		Total      int
		NextCursor string `json:"next_cursor"`
	}
	list := func(args map[string]any) page {
		res := c.CallTool(catalog.ListTool, args)
		if res.IsError {
			t.Fatal(res.Text())
		}
		var p page
		if err := json.Unmarshal(res.StructuredContent, &p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := list(map[string]any{})
	if len(p.Operations) != catalog.PageSize || p.Total != 120 || p.NextCursor != "50" {
		t.Errorf("first page: %d operations of %d, next %q", len(p.Operations), p.Total, p.NextCursor)
	}
	if p = list(map[string]any{"cursor": "100"}); len(p.Operations) != 20 || p.NextCursor != "" || p.Operations[0].Name != "op_100" {
		t.Errorf("last page: %+v", p)
	}
	if p = list(map[string]any{"query": "LUCKY number"}); len(p.Operations) != 1 || p.Operations[0].Summary != "Finds the lucky number." {
		t.Errorf("by words: %+v", p)
	}
	if p = list(map[string]any{"tag": "even", "query": "op_01"}); p.Total != 5 {
		t.Errorf("by tag and words: %+v", p)
	}

	res := c.CallTool(catalog.DescribeTool, map[string]any{"name": "op_007"})
	if res.IsError || !strings.Contains(res.Text(), `"required":["x"]`) || !strings.Contains(res.Text(), `"outputSchema"`) {
		t.Errorf("describe: %s", res.Text())
	}
	res = c.CallTool(catalog.CallTool, map[string]any{"name": "op_007", "arguments": map[string]any{"x": "hi"}})
	if res.IsError || string(res.StructuredContent) != `{"echo":"op_007:hi"}` {
		t.Errorf("call: %v %s %s", res.IsError, res.Text(), res.StructuredContent)
	}
	res = c.CallTool(catalog.CallTool, map[string]any{"name": "op_007", "arguments": map[string]any{}})
	if !res.IsError || !strings.Contains(res.Text(), "/x") {
		t.Errorf("a call the operation refuses: %v %s", res.IsError, res.Text())
	}
	for _, tool := range []string{catalog.DescribeTool, catalog.CallTool} {
		res = c.CallTool(tool, map[string]any{"name": "nope"})
		if !res.IsError || !strings.Contains(res.Text(), `no operation "nope"`) {
			t.Errorf("%s of an unknown operation: %s", tool, res.Text())
		}
	}
	res = c.CallTool(catalog.ListTool, map[string]any{"cursor": "x"})
	if !res.IsError {
		t.Errorf("a cursor it did not give: %s", res.Text())
	}
}
