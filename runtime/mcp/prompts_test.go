package mcp

import (
	"context"
	"strings"
	"testing"
)

// A prompt's messages go out as the function wrote them, or not at all: a message the
// spec cannot carry is the server's error, not a message silently dropped or invented.
func TestPromptMessagesAreChecked(t *testing.T) {
	for _, tc := range []struct {
		name string
		msgs []PromptMessage
		want string // in the error message; "" for success
	}{
		{"ok", []PromptMessage{{Content: Text{Text: "a"}}, {Role: RoleAssistant, Content: Text{Text: "b"}}}, ""},
		{"no content", []PromptMessage{{Role: RoleUser}}, "message 0 has no content"},
		{"bad role", []PromptMessage{{Content: Text{Text: "a"}}, {Role: "system", Content: Text{Text: "b"}}}, `message 1 has role "system"`},
	} {
		srv := quietServer(nil)
		srv.AddPrompt(Prompt{Name: "p", Get: func(ctx context.Context, args *Input) (*GetPromptResult, error) {
			return &GetPromptResult{Messages: tc.msgs}, nil
		}})
		h := start(t, srv)
		h.initialize("2025-11-25")
		m := h.roundTrip(`{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"p"}}`)
		if tc.want == "" {
			msgs := result(t, m)["messages"].([]any)
			if len(msgs) != 2 || msgs[0].(map[string]any)["role"] != "user" || msgs[1].(map[string]any)["role"] != "assistant" {
				t.Errorf("%s: %v", tc.name, msgs)
			}
			continue
		}
		if code := errorCode(t, m); code != -32603 || !strings.Contains(m["error"].(map[string]any)["message"].(string), tc.want) {
			t.Errorf("%s: %v", tc.name, m)
		}
	}
}
