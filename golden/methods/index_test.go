package methods

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/mcptest"
)

func TestGeneratedMethods(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "methods", Version: "0"}, nil)
	index := NewIndex()
	RegisterMCP(srv, Clock{Zone: time.UTC}, index)
	c := mcptest.Connect(t, srv)

	var names []string
	for _, tool := range c.ListTools() {
		names = append(names, tool.Name)
	}
	if got := strings.Join(names, ","); got != "add_document,now,search" {
		t.Fatalf("tools: %s", got)
	}

	for _, doc := range []map[string]any{{"id": "a", "text": "Go is fun"}, {"id": "b", "text": "so is MCP"}, {"id": "c", "text": "go go go"}} {
		if res := c.CallTool("add_document", doc); res.IsError {
			t.Fatalf("add_document: %s", res.Text())
		}
	}
	if res := c.CallTool("add_document", map[string]any{"id": "Bad ID", "text": "x"}); !res.IsError || !strings.Contains(res.Text(), "/id: must match the pattern") {
		t.Fatalf("pattern not enforced: %s", res.Text())
	}
	if res := c.CallTool("add_document", map[string]any{"id": "d", "text": " "}); !res.IsError || res.Text() != "the document is empty" {
		t.Fatalf("error not returned: %s", res.Text())
	}

	var hits Hits
	res := c.CallTool("search", map[string]any{"text": "GO"})
	if err := res.Structured(&hits); err != nil || hits.Total != 2 || strings.Join(hits.IDs, ",") != "a,c" {
		t.Fatalf("search: %+v %v (%s)", hits, err, res.Text())
	}
	res = c.CallTool("search", map[string]any{"text": "go", "limit": 1})
	if err := res.Structured(&hits); err != nil || len(hits.IDs) != 1 || hits.Total != 2 {
		t.Fatalf("search with limit: %+v %v", hits, err)
	}
	if res := c.CallTool("search", map[string]any{"text": "go", "limit": 0}); !res.IsError || !strings.Contains(res.Text(), "/limit: must be >= 1") {
		t.Fatalf("minimum not enforced: %s", res.Text())
	}

	now := c.CallTool("now", nil)
	if _, err := time.Parse(time.RFC3339, now.Text()); err != nil || now.IsError {
		t.Fatalf("now: %q %v", now.Text(), err)
	}
	if res := c.CallTool("now", map[string]any{"zone": "x"}); !res.IsError || !strings.Contains(res.Text(), "/zone: unknown property") {
		t.Fatalf("no-argument tool accepted an argument: %s", res.Text())
	}
}
