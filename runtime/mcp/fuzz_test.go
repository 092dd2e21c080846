package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// collector is an outbox that keeps what the server sends.
type collector struct {
	mu   sync.Mutex
	msgs [][]byte
}

func (c *collector) send(msg []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.msgs = append(c.msgs, append([]byte(nil), msg...))
	return nil
}

// all returns the messages so far.
func (c *collector) all() [][]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([][]byte(nil), c.msgs...)
}

// Write is send, for a collector that is a messageWriter, which never blocks.
func (c *collector) Write(_ context.Context, msg []byte) error { return c.send(msg) }

// panicSpotter counts the panics the server recovers from: each is a bug.
type panicSpotter struct{ panics atomic.Int32 }

func (p *panicSpotter) Enabled(context.Context, slog.Level) bool { return true }
func (p *panicSpotter) Handle(_ context.Context, r slog.Record) error {
	if strings.Contains(r.Message, "panic") {
		p.panics.Add(1)
	}
	return nil
}
func (p *panicSpotter) WithAttrs([]slog.Attr) slog.Handler { return p }
func (p *panicSpotter) WithGroup(string) slog.Handler      { return p }

// fuzzServer has one of each feature, implemented as generated code would.
func fuzzServer(spotter *panicSpotter) *Server {
	srv := NewServer(Implementation{Name: "fuzz", Version: "0"}, &ServerOptions{Logger: slog.New(spotter), PageSize: 2})
	for _, name := range []string{"a", "b", "c"} {
		srv.AddTool(echoTool(name))
	}
	// roots asks the client, the stateful way or the multi round-trip way.
	srv.AddTool(Tool{Name: "roots", Description: "Lists roots.", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *ToolCall) {
		roots, err := Roots(WithInputKey(ctx, "r"))
		if err != nil {
			c.ReturnError(err)
			return
		}
		c.ReturnText(fmt.Sprint(roots))
	}})
	srv.AddResource(Resource{URI: "test://r", Name: "r", Read: func(ctx context.Context, uri string) ([]ResourceContents, error) {
		return textContents(uri, "text"), nil
	}})
	srv.AddResourceTemplate(ResourceTemplate{URITemplate: "test://items/{id}/{+rest}", Name: "item", Read: func(ctx context.Context, uri string, vars map[string]string) ([]ResourceContents, error) {
		in := templateInput(uri, vars, []string{"id"})
		d := in.decoder()
		for key := range d.Members {
			if string(key) == "id" {
				d.Int()
			} else {
				d.String()
			}
		}
		if err := in.Err(); err != nil {
			return nil, err
		}
		return blobContents(uri, []byte(vars["rest"])), nil
	}})
	srv.AddPrompt(Prompt{Name: "p", Arguments: []PromptArgument{{Name: "x", Required: true}}, Get: func(ctx context.Context, args *Input) (*GetPromptResult, error) {
		var x string
		d := args.decoder()
		for key := range d.Members {
			if string(key) == "x" {
				x, _ = d.String()
			} else {
				d.Report("unknown property")
				d.Skip()
			}
		}
		if err := args.Err(); err != nil {
			return nil, err
		}
		return &GetPromptResult{Messages: []PromptMessage{{Role: RoleUser, Content: Text{Text: x}}}}, nil
	}})
	srv.AddCompletion(Completion{Prompt: "p", Argument: "x", Complete: func(ctx context.Context, req CompletionRequest) ([]string, error) {
		return []string{req.Value + "1", req.Value + "2"}, nil
	}})
	return srv
}

// FuzzSessionMessage sends one arbitrary message to an initialized session: whatever it is,
// the server answers with valid JSON (or says nothing) and never panics.
func FuzzSessionMessage(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"text":"hi"}}}`,
		`{"jsonrpc":"2.0","id":"x","method":"tools/list","params":{"cursor":"YWZ0ZXI6YQ"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"test://items/12/a/b"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"resources/templates/list"}`,
		`{"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"p","arguments":{"x":"y"}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"x","value":"a"}}}`,
		`{"jsonrpc":"2.0","id":6,"method":"resources/subscribe","params":{"uri":"test://r"}}`,
		`{"jsonrpc":"2.0","id":7,"method":"logging/setLevel","params":{"level":"error"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`{"jsonrpc":"2.0","id":8,"result":{}}`,
		`{"jsonrpc":"2.0","id":9,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`,
		`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"a","arguments":[],"_meta":{"progressToken":"t"}}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
		`{`,
		// Revision 2026-07-28.
		`{"jsonrpc":"2.0","id":11,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"roots","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{}},"io.modelcontextprotocol/logLevel":"debug"}}}`,
		`{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"roots","inputResponses":{"r":{"roots":[{"uri":"file:///x"}]}},"requestState":"AAAA","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{}}}}}`,
		`{"jsonrpc":"2.0","id":14,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true,"resourceSubscriptions":["test://r"]},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		`{"jsonrpc":"2.0","id":15,"method":"prompts/get","params":{"name":"p","arguments":{"x":"y"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01"}}}`,
		`{"jsonrpc":"2.0","id":16,"method":"resources/read","params":{"uri":"test://nope","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{"context":{}},"elicitation":{"url":{}}}}}}`,
	} {
		f.Add([]byte(seed))
	}
	spotter := &panicSpotter{}
	srv := fuzzServer(spotter)
	f.Fuzz(func(t *testing.T, msg []byte) {
		out := &collector{}
		// A subscription lasts until its context ends: the deadline ends it.
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		notes := newNotifier(ctx, out, srv.logger, true)
		defer notes.close()
		ss := newSession(srv, out, notes)
		ss.concurrent = true
		ss.receive(ctx, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}}}}`), 0)
		ss.receive(ctx, msg, 0)
		ss.wait()
		ss.close()
		if n := spotter.panics.Swap(0); n > 0 {
			t.Fatalf("the server recovered from %d panics serving %q", n, msg)
		}
		for _, m := range out.msgs {
			if !json.Valid(m) {
				t.Fatalf("invalid JSON sent in answer to %q: %q", msg, m)
			}
		}
	})
}
