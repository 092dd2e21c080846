package failures

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/mcptest"
)

func connect(t *testing.T, version string) *mcptest.Client {
	srv := mcp.NewServer(mcp.Implementation{Name: "failures", Version: "0"}, nil)
	RegisterMCP(srv)
	if version == "" {
		return mcptest.Connect(t, srv)
	}
	return mcptest.ConnectVersion(t, srv, version)
}

// TestStructuredFailure: a result whose MCPIsError says true is an error result that keeps
// its structured content and its text; one that says false is not, even on the call after
// a failure (the call's state is reused).
func TestStructuredFailure(t *testing.T) {
	c := connect(t, "")
	for _, tt := range []struct {
		tool, args       string
		isError          bool
		text, structured string
	}{
		{"compile", `{"target":"broken"}`, true, `{"target":"broken","errors":["main.go:3:1: undefined: x"]}`, `{"target":"broken","errors":["main.go:3:1: undefined: x"]}`},
		{"compile", `{"target":"ok"}`, false, `{"target":"ok"}`, `{"target":"ok"}`},
		{"measure", `{"target":"small"}`, true, "40% covered", `{"percent":40}`},
		{"measure", `{"target":"all"}`, false, "90% covered", `{"percent":90}`},
	} {
		res := c.CallTool(tt.tool, json.RawMessage(tt.args))
		if res.IsError != tt.isError || res.Text() != tt.text || string(res.StructuredContent) != tt.structured {
			t.Errorf("%s(%s): error %v, text %q, structured %s; want error %v, %q and %s",
				tt.tool, tt.args, res.IsError, res.Text(), res.StructuredContent, tt.isError, tt.text, tt.structured)
		}
	}
}

// A client's Err carries the failure's data, which a typed client's caller reads from the
// *mcp.ToolError it returns.
func TestStructuredFailureReachesTheClient(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "failures", Version: "0"}, nil)
	RegisterMCP(srv)
	c, err := mcp.Connect(t.Context(), &mcp.MemoryTransport{Server: srv}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.CallTool(t.Context(), "compile", map[string]string{"target": "broken"})
	if err != nil {
		t.Fatal(err)
	}
	var te *mcp.ToolError
	if !errors.As(res.Err(), &te) || string(te.StructuredContent) != `{"target":"broken","errors":["main.go:3:1: undefined: x"]}` {
		t.Errorf("Err = %#v, want a *mcp.ToolError with the build's data", res.Err())
	}
}

// TestStructuredFailureBeforeStructuredContent: before 2025-06-18 a result has no
// structuredContent; the failure is still an error result, with the text.
func TestStructuredFailureBeforeStructuredContent(t *testing.T) {
	c := connect(t, "2025-03-26")
	res := c.CallTool("measure", json.RawMessage(`{"target":"small"}`))
	if !res.IsError || res.Text() != "40% covered" || res.StructuredContent != nil {
		t.Errorf("error %v, text %q, structured %s; want an error result with the type's text", res.IsError, res.Text(), res.StructuredContent)
	}
}
