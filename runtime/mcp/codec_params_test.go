package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
)

// paramsServer has a tool, a prompt with a completion, and two of each on pages of one.
func paramsServer() *Server {
	srv := quietServer(&ServerOptions{PageSize: 1})
	srv.AddTool(echoTool("echo"))
	srv.AddTool(echoTool("other"))
	srv.AddPrompt(Prompt{Name: "p", Get: func(ctx context.Context, args *Input) (*GetPromptResult, error) {
		return &GetPromptResult{Messages: []PromptMessage{{Role: RoleUser, Content: Text{Text: "hi"}}}}, nil
	}})
	srv.AddCompletion(Completion{Prompt: "p", Argument: "a", Complete: func(ctx context.Context, req CompletionRequest) ([]string, error) {
		return []string{req.Value + "!", req.Context["b"]}, nil
	}})
	return srv
}

// The server reads the params of tools/call, prompts/get, completion/complete and a list's
// cursor with their codecs: what is wrong is invalid params at its JSON Pointer, and a null
// is what is absent.
func TestServerReadsParams(t *testing.T) {
	h := start(t, paramsServer())
	h.initialize("2025-11-25")
	for _, c := range []struct{ method, params, want string }{
		{"tools/call", `{"name":7}`, "invalid params: tools/call: /name: expected string, got number"},
		{"tools/call", `{"name":"echo","arguments":[1]}`, "invalid params: tools/call: /arguments: expected object, got array"},
		{"tools/call", `{"arguments":{}}`, "invalid params: tools/call: a tool name is required"},
		{"prompts/get", `{"name":"p","arguments":"a=1"}`, "invalid params: prompts/get: /arguments: expected object, got string"},
		{"completion/complete", `{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":3}}`,
			"invalid params: completion/complete: /argument/value: expected string, got number"},
		{"completion/complete", `{"ref":{"type":"ref/prompt","name":"p"},"argument":{"value":"x"}}`,
			"invalid params: completion/complete: argument.name is required"},
		{"tools/list", `{"cursor":5}`, "invalid params: tools/list: /cursor: expected string, got number"},
		{"tools/list", `{"cursor":"nope"}`, "invalid params: tools/list: invalid cursor"},
	} {
		m := h.roundTrip(`{"jsonrpc":"2.0","id":1,"method":"` + c.method + `","params":` + c.params + `}`)
		e, _ := m["error"].(map[string]any)
		if msg, _ := e["message"].(string); msg != c.want || errorCode(t, m) != -32602 {
			t.Errorf("%s %s: got %v, want invalid params %q", c.method, c.params, m, c.want)
		}
	}
	for _, c := range []struct{ method, params, want string }{
		{"tools/call", `{"name":"echo","arguments":{"text":"hi"},"_meta":null}`, `"text":"hi"`},
		{"tools/call", `{"name":"\u0065cho","arguments":{"text":"escaped"}}`, `"text":"escaped"`},
		{"prompts/get", `{"name":"p","arguments":null}`, `"text":"hi"`},
		{"completion/complete", `{"ref":{"type":"ref/prompt","name":"p","extra":1},"argument":{"name":"a","value":"x"},"context":null}`, `"values":["x!",""]`},
		{"completion/complete", `{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":"x"},"context":{"arguments":{"b":"B"}}}`, `"values":["x!","B"]`},
		{"tools/list", `{"cursor":null}`, `"name":"echo"`},
	} {
		h.send(`{"jsonrpc":"2.0","id":2,"method":"` + c.method + `","params":` + c.params + `}`)
		if line := h.recvLine(); !strings.Contains(line, c.want) {
			t.Errorf("%s %s: got %s, want a result with %s", c.method, c.params, line, c.want)
		}
	}
}

// The client writes a completion's context only to a server whose revision has it
// (2025-06-18 and later): what a revision lacks, its codec leaves out.
func TestCompleteContextOnlyWhereTheRevisionHasIt(t *testing.T) {
	for version, hasContext := range map[string]bool{"2025-03-26": false, "2025-06-18": true, "2026-07-28": true} {
		var mu sync.Mutex
		var sent json.RawMessage
		c := connect(t, &MemoryTransport{Server: paramsServer()}, &ClientOptions{ProtocolVersion: version, Logger: quietLogger(),
			Trace: func(fromServer bool, msg []byte) {
				if m, _ := stringParam(msg, "method"); !fromServer && m == methodComplete {
					mu.Lock()
					sent = rawParam(msg, "params")
					mu.Unlock()
				}
			}})
		res, err := c.Complete(context.Background(), CompletionRef{Prompt: "p"}, "a", "x", map[string]string{"b": "B"})
		if err != nil {
			t.Fatalf("%s: %v", version, err)
		}
		mu.Lock()
		got := rawParam(sent, "context") != nil
		mu.Unlock()
		if got != hasContext {
			t.Errorf("%s: the params carry context: %v, want %v (%s)", version, got, hasContext, sent)
		}
		want := "x!"
		if hasContext {
			want += ",B"
		} else {
			want += ","
		}
		if strings.Join(res.Values, ",") != want {
			t.Errorf("%s: completion values %q, want %q", version, res.Values, want)
		}
	}
}
