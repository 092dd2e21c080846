package mcptest_test

import (
	"encoding/json"
	"testing"

	"github.com/mcpgen/mcpgen/examples/notes"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/mcptest"
)

// A test of a tool that asks the user to confirm (examples/notes' delete_note), in both
// protocol eras: in a session, the server's elicitation/create is answered by the handler;
// in the stateless revision, the client answers the server's InputRequiredResult with the
// same handler and sends the request again. The example is a test's body: in a _test.go
// file it is func TestDeleteNote(t *testing.T), and t is the test's. (It is compiled, not
// run: an example has no *testing.T. TestDeleteNoteInBothEras below runs the same steps.)
func ExampleConnectWith() {
	var t *testing.T // the test's
	for _, version := range []string{mcp.StatefulProtocolVersion, mcp.StatelessProtocolVersion} {
		srv := mcp.NewServer(mcp.Implementation{Name: "notes", Version: "1.0.0"}, nil)
		notes.RegisterMCP(srv, notes.NewBook(nil))
		c := mcptest.ConnectWith(t, srv, mcptest.Options{ProtocolVersion: version, Handlers: map[string]mcptest.Handler{
			"elicitation/create": func(params json.RawMessage) (any, error) {
				return map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}, nil
			},
		}})
		c.CallTool("add_note", map[string]any{"title": "Old idea"})
		if res := c.CallTool("delete_note", map[string]any{"id": 1}); res.IsError || res.Text() != "deleted note 1" {
			t.Errorf("%s: delete_note: %s", version, res.Text())
		}
	}
}

// The steps of ExampleConnectWith, run, and with a user who declines: in both eras the
// handler answers the server's question, and what the user chose decides.
func TestDeleteNoteInBothEras(t *testing.T) {
	for _, version := range []string{mcp.StatefulProtocolVersion, mcp.StatelessProtocolVersion} {
		for action, want := range map[string]string{"accept": "deleted note 1", "decline": "kept note 1"} {
			srv := mcp.NewServer(mcp.Implementation{Name: "notes", Version: "1.0.0"}, nil)
			notes.RegisterMCP(srv, notes.NewBook(nil))
			asked := 0
			c := mcptest.ConnectWith(t, srv, mcptest.Options{ProtocolVersion: version, Handlers: map[string]mcptest.Handler{
				"elicitation/create": func(params json.RawMessage) (any, error) {
					asked++
					return map[string]any{"action": action, "content": map[string]any{"confirm": true}}, nil
				},
			}})
			c.CallTool("add_note", map[string]any{"title": "Old idea"})
			if res := c.CallTool("delete_note", map[string]any{"id": 1}); res.IsError || res.Text() != want || asked != 1 {
				t.Errorf("%s, the user answers %s: delete_note: %q (asked %d times), want %q", version, action, res.Text(), asked, want)
			}
			if version == mcp.StatelessProtocolVersion && c.InputRounds != 1 {
				t.Errorf("%s: %d input rounds, want 1", version, c.InputRounds)
			}
		}
	}
}
