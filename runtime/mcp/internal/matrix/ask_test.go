package matrix_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/jsonwire"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/mcp/internal/matrix"
	"github.com/mcpgen/mcpgen/runtime/mcp/mcpgen"
)

// pick is a form a tool elicits: a select and a text field.
type pick struct{ Color, Note string }

const pickSchema = `{"type":"object","properties":{"color":{"type":"string","enum":["red","green"]},"note":{"type":"string"}},"required":["color"]}`

func decodePick(d *jsonwire.Decoder, v *pick) {
	for key := range d.Members {
		switch string(key) {
		case "color":
			v.Color, _ = d.String()
		case "note":
			v.Note, _ = d.String()
		default:
			d.Skip()
		}
	}
}

// askingServer has a tool for each thing a tool may ask of the client: its model
// (sampling), its user (elicitation), its roots.
func askingServer(t *testing.T) *mcp.Server {
	srv := newServer(nil)
	mcpgen.AddForm(srv, pickSchema, decodePick)
	srv.AddTool(mcp.Tool{Name: "sample", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *mcp.ToolCall) {
		res, err := mcp.Sample(ctx, &mcp.CreateMessageRequest{Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.Text{Text: "a haiku"}}}, MaxTokens: 50})
		if err != nil {
			c.ReturnError(err)
			return
		}
		c.ReturnText(res.Model + ": " + mcp.TextOf([]mcp.Content{res.Content}))
	}})
	srv.AddTool(mcp.Tool{Name: "elicit", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *mcp.ToolCall) {
		v, action, err := mcp.Elicit[pick](ctx, "Pick a color")
		if err != nil {
			c.ReturnError(err)
			return
		}
		c.ReturnText(string(action) + " " + v.Color + " " + v.Note)
	}})
	srv.AddTool(mcp.Tool{Name: "roots", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *mcp.ToolCall) {
		roots, err := mcp.Roots(ctx)
		if err != nil {
			c.ReturnError(err)
			return
		}
		var uris []string
		for _, r := range roots {
			uris = append(uris, r.URI+" "+r.Name)
		}
		c.ReturnText(strings.Join(uris, ", "))
	}})
	return srv
}

// What a tool asks of the client (sampling, elicitation, roots) reaches the client's
// handlers, and their answers the tool, over every transport: in a session as requests of
// the server's, in the stateless revision as the call's input_required rounds. Asking a
// client that declared none of them fails: in a session with ErrCapability, which the tool
// reports as an error result, in the stateless revision with error -32021 (missing required
// client capability), as the revision says.
func TestAskingTheClient(t *testing.T) {
	matrix.Run(t, matrix.Config{
		Server: askingServer,
		Client: &mcp.ClientOptions{
			Sampling: func(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
				if len(req.Messages) != 1 || mcp.TextOf([]mcp.Content{req.Messages[0].Content}) != "a haiku" || req.MaxTokens != 50 {
					return nil, errors.New("not the request the tool made")
				}
				return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Content: mcp.Text{Text: "old pond, a frog"}, Model: "matrix-model"}, nil
			},
			Elicitation: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				if req.Message != "Pick a color" {
					return nil, errors.New("not the form the tool asked")
				}
				return &mcp.ElicitResult{Action: mcp.Accept, Content: map[string]any{"color": "green", "note": "fresh"}}, nil
			},
			Roots: []mcp.Root{{URI: "file:///work", Name: "work"}, {URI: "file:///tmp", Name: "scratch"}},
		},
	}, func(t *testing.T, c *matrix.Case) {
		for tool, want := range map[string]string{
			"sample": "matrix-model: old pond, a frog",
			"elicit": "accept green fresh",
			"roots":  "file:///work work, file:///tmp scratch",
		} {
			res, err := c.Client.CallTool(t.Context(), tool, nil)
			if err != nil || res.IsError || mcp.TextOf(res.Content) != want {
				t.Errorf("%s: %+v, %v; want %q", tool, res, err, want)
			}
		}

		// A client that declares none of them.
		bare := c.Connect(t, "", nil)
		for tool, capability := range map[string]string{"sample": "sampling", "elicit": "elicitation", "roots": "roots"} {
			res, err := bare.CallTool(t.Context(), tool, nil)
			var re *jsonrpc.Error
			switch {
			case c.Stateless():
				if !errors.As(err, &re) || re.Code != mcp.CodeMissingRequiredClientCapability || !strings.Contains(re.Message, capability) {
					t.Errorf("%s of a client that did not declare it: %+v, %v; want error %d naming %s", tool, res, err, mcp.CodeMissingRequiredClientCapability, capability)
				}
			case err != nil || !res.IsError || !strings.Contains(mcp.TextOf(res.Content), capability):
				t.Errorf("%s of a client that did not declare it: %+v, %v; want an error result naming %s", tool, res, err, capability)
			}
		}
	})
}
