package matrix_test

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/mcp/internal/matrix"
)

// The tokens of the protected server: Ada's, with and without the admin scope, from the
// same issuer and client (so the same caller to the task store), and Bob's.
var tokens = map[string]*mcp.AuthInfo{
	"ada-admin": {Issuer: "https://auth.example.com", Subject: "ada", ClientID: "app", Scopes: []string{"mcp", "admin"}},
	"ada":       {Issuer: "https://auth.example.com", Subject: "ada", ClientID: "app", Scopes: []string{"mcp"}},
	"bob":       {Issuer: "https://auth.example.com", Subject: "bob", ClientID: "app", Scopes: []string{"mcp"}},
}

// protected are the HTTP options of a server that takes the tokens above.
func protected() *mcp.HTTPOptions {
	return &mcp.HTTPOptions{Auth: &mcp.AuthOptions{
		Verifier: mcp.TokenVerifierFunc(func(ctx context.Context, token string) (*mcp.AuthInfo, error) {
			if a := tokens[token]; a != nil {
				return a, nil
			}
			return nil, errors.New("unknown token")
		}),
		ScopesSupported: []string{"mcp"},
	}}
}

// caller is who the request's token says its caller is.
func caller(ctx context.Context) string {
	if a := mcp.AuthInfoFrom(ctx); a != nil {
		return a.Subject
	}
	return "nobody (no token)"
}

// A protected server refuses a tool whose scope the caller's token lacks, over every
// transport: over HTTP the caller is its bearer token; in process, what the verifier says
// of the same token serves the conversation. A remote caller without a token, or with one
// the verifier refuses, is refused before any tool runs. (Issue 40, finding 1: the
// WebSocket handler in Routes, as examples/everything mounts it, took no token at all.)
func TestProtectedServer(t *testing.T) {
	var adminRan atomic.Int32
	matrix.Run(t, matrix.Config{HTTP: protected(), NoClient: true, Server: func(t *testing.T) *mcp.Server {
		srv := newServer(nil)
		srv.AddTool(mcp.Tool{Name: "whoami", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *mcp.ToolCall) {
			c.ReturnText(caller(ctx))
		}})
		srv.AddTool(mcp.Tool{Name: "drop_tables", InputSchema: `{"type":"object"}`, Scopes: []string{"admin"}, Handler: func(ctx context.Context, c *mcp.ToolCall) {
			adminRan.Add(1)
			c.ReturnText("dropped by " + caller(ctx))
		}})
		return srv
	}}, func(t *testing.T, c *matrix.Case) {
		adminRan.Store(0)
		admin := c.Connect(t, "ada-admin", nil)
		if res, err := admin.CallTool(t.Context(), "drop_tables", nil); err != nil || mcp.TextOf(res.Content) != "dropped by ada" {
			t.Errorf("the tool, with its scope: %+v, %v", res, err)
		}

		ada := c.Connect(t, "ada", nil)
		if res, err := ada.CallTool(t.Context(), "whoami", nil); err != nil || mcp.TextOf(res.Content) != "ada" {
			t.Errorf("a tool that needs no scope: %+v, %v", res, err)
		}
		res, err := ada.CallTool(t.Context(), "drop_tables", nil)
		if err == nil {
			t.Errorf("the tool, without its scope: served: %+v", res)
		} else if !strings.Contains(err.Error(), "insufficient_scope") && !strings.Contains(err.Error(), "403") {
			t.Errorf("the tool, without its scope: %v; want it refused for insufficient_scope", err)
		}
		if n := adminRan.Load(); n != 1 {
			t.Errorf("the tool that needs admin ran %d times, want once (for the token with the scope)", n)
		}

		if !c.Remote() {
			return // in process the caller is the serving context's: there is no anonymous one
		}
		for _, token := range []string{"", "forged"} {
			cl, err := c.Dial(t, token, nil)
			if err != nil {
				continue // refused at the door, as it should be
			}
			res, err := cl.CallTool(t.Context(), "drop_tables", nil)
			t.Errorf("a caller with token %q was let in; the tool that needs admin answered %+v, %v", token, res, err)
		}
		if n := adminRan.Load(); n != 1 {
			t.Errorf("the tool that needs admin ran %d times, want once (for the token with the scope)", n)
		}
	})
}

// A task belongs to its caller and to the scopes of its tool: a token of the same caller
// (issuer, subject, client) without the tool's scope can neither read the task nor cancel
// it, running or finished. (Issue 40, finding 5.) Tasks exist in the stateless revision.
func TestTaskOfAScopedTool(t *testing.T) {
	var release chan struct{}
	taskID := regexp.MustCompile(`"taskId":"([^"]+)"`)
	matrix.Run(t, matrix.Config{HTTP: protected(), NoClient: true, Only: matrix.Transport.Stateless, Server: func(t *testing.T) *mcp.Server {
		release = make(chan struct{})
		srv := newServer(&mcp.ServerOptions{Tasks: mcp.TaskOptions{PollInterval: 20 * time.Millisecond}})
		srv.AddTool(mcp.Tool{Name: "report", InputSchema: `{"type":"object"}`, Scopes: []string{"admin"}, Task: mcp.TaskRequired, Handler: func(ctx context.Context, c *mcp.ToolCall) {
			select {
			case <-release:
				c.ReturnText("the secret report")
			case <-ctx.Done():
			}
		}})
		return srv
	}}, func(t *testing.T, c *matrix.Case) {
		ids := make(chan string, 1)
		admin := c.Connect(t, "ada-admin", &mcp.ClientOptions{Trace: func(fromServer bool, msg []byte) {
			if m := taskID.FindSubmatch(msg); fromServer && m != nil {
				select {
				case ids <- string(m[1]):
				default:
				}
			}
		}})
		done := make(chan string, 1)
		go func() {
			res, err := admin.CallTool(t.Context(), "report", nil)
			if err != nil {
				done <- err.Error()
				return
			}
			done <- mcp.TextOf(res.Content)
		}()
		var id string
		select {
		case id = <-ids:
		case <-time.After(wait):
			t.Fatalf("no task id within %s", wait)
		}
		ada := c.Connect(t, "ada", nil)
		peek := func(when string) {
			t.Helper()
			for _, method := range []string{"tasks/get", "tasks/result"} {
				ctx, cancel := context.WithTimeout(t.Context(), time.Second)
				res, err := ada.Request(ctx, method, map[string]any{"taskId": id})
				cancel()
				if err == nil || strings.Contains(string(res), "secret") {
					t.Errorf("%s: %s of a task of a tool whose scope the token lacks: %s, %v; want it refused", when, method, res, err)
				}
			}
		}
		peek("running")
		if res, err := ada.Request(t.Context(), "tasks/cancel", map[string]any{"taskId": id}); err == nil {
			t.Errorf("tasks/cancel of a task of a tool whose scope the token lacks: %s; want it refused", res)
		}
		close(release)
		select {
		case got := <-done:
			if got != "the secret report" {
				t.Errorf("the caller with the scope got %q", got)
			}
		case <-time.After(wait):
			t.Fatalf("the task did not end within %s", wait)
		}
		peek("finished")
	})
}
