package matrix_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/mcp/internal/matrix"
)

// greeting is a prompt's arguments, read as a hand-written handler reads them.
type greeting struct{ Name string }

func (g *greeting) UnmarshalJSON(b []byte) error {
	var v struct {
		Name string `json:"name"`
	}
	err := json.Unmarshal(b, &v)
	g.Name = v.Name
	return err
}

// What a client reads of a server comes back alike over every transport: the lists, whole
// across pages; a resource, one of a template (its variables matched), and an unknown one
// as resource not found; a prompt rendered with its arguments; an argument completed.
func TestReadsAndPrompts(t *testing.T) {
	matrix.Run(t, matrix.Config{Server: func(t *testing.T) *mcp.Server {
		srv := newServer(&mcp.ServerOptions{PageSize: 2})
		for i := range 5 {
			srv.AddTool(mcp.Tool{Name: "tool_" + strconv.Itoa(i), InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *mcp.ToolCall) { c.ReturnText("") }})
		}
		srv.AddResource(mcp.Resource{URI: "file:///readme", Name: "readme", MIMEType: "text/plain", Read: func(ctx context.Context, uri string) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: "read me"}}, nil
		}})
		srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "notes://{day}/{+path}", Name: "notes", Read: func(ctx context.Context, uri string, vars map[string]string) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{URI: uri, Text: vars["day"] + ": " + vars["path"]}}, nil
		}})
		srv.AddPrompt(mcp.Prompt{Name: "greet", Arguments: []mcp.PromptArgument{{Name: "name", Required: true}}, Get: func(ctx context.Context, args *mcp.Input) (*mcp.GetPromptResult, error) {
			var g greeting
			args.Unmarshal(&g)
			if err := args.Err(); err != nil {
				return nil, err
			}
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: mcp.RoleUser, Content: mcp.Text{Text: "Say hello to " + g.Name}}}}, nil
		}})
		srv.AddCompletion(mcp.Completion{Prompt: "greet", Argument: "name", Complete: func(ctx context.Context, req mcp.CompletionRequest) ([]string, error) {
			var out []string
			for _, n := range []string{"ada", "alan", "bob"} {
				if strings.HasPrefix(n, req.Value) {
					out = append(out, n)
				}
			}
			return out, nil
		}})
		return srv
	}}, func(t *testing.T, c *matrix.Case) {
		ctx := t.Context()
		tools, err := c.Client.ListTools(ctx)
		if err != nil || len(tools) != 5 {
			t.Errorf("tools over pages of 2: %d, %v", len(tools), err)
		}
		contents, err := c.Client.ReadResource(ctx, "file:///readme")
		if err != nil || len(contents) != 1 || contents[0].Text != "read me" || contents[0].MIMEType != "text/plain" {
			t.Errorf("a resource: %+v, %v", contents, err)
		}
		contents, err = c.Client.ReadResource(ctx, "notes://monday/a/b.txt")
		if err != nil || len(contents) != 1 || contents[0].Text != "monday: a/b.txt" {
			t.Errorf("a template's resource: %+v, %v", contents, err)
		}
		var re *jsonrpc.Error
		notFound := mcp.CodeResourceNotFound
		if c.Stateless() {
			notFound = jsonrpc.CodeInvalidParams // 2026-07-28 changed it
		}
		if _, err := c.Client.ReadResource(ctx, "file:///nowhere"); !errors.As(err, &re) || re.Code != notFound {
			t.Errorf("an unknown resource: %v, want error %d", err, notFound)
		}
		p, err := c.Client.GetPrompt(ctx, "greet", map[string]string{"name": "Ada"})
		if err != nil || len(p.Messages) != 1 || mcp.TextOf([]mcp.Content{p.Messages[0].Content}) != "Say hello to Ada" {
			t.Errorf("a prompt: %+v, %v", p, err)
		}
		done, err := c.Client.Complete(ctx, mcp.CompletionRef{Prompt: "greet"}, "name", "a", nil)
		if err != nil || !slices.Equal(done.Values, []string{"ada", "alan"}) {
			t.Errorf("a completion: %+v, %v", done, err)
		}
	})
}
