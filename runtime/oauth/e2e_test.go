package oauth

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// mcpgen's client, through Transport, against an mcpgen server protected with
// HTTPOptions.Auth, whose tokens come from the test's authorization server: the whole flow,
// a scope step-up, and the caller reaching the tool's body.
func TestClientAgainstProtectedServer(t *testing.T) {
	w := newWorld(t) // the authorization server (its own /mcp is not used)
	srv := mcp.NewServer(mcp.Implementation{Name: "protected", Version: "1"}, nil)
	srv.AddTool(mcp.Tool{Name: "whoami", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *mcp.ToolCall) {
		c.ReturnText("scopes: " + strings.Join(mcp.AuthInfoFrom(ctx).Scopes, " "))
	}})
	srv.AddTool(mcp.Tool{Name: "write", InputSchema: `{"type":"object"}`, Scopes: []string{"files:write"}, Handler: func(ctx context.Context, c *mcp.ToolCall) {
		c.ReturnText("written")
	}})
	h := srv.HTTPHandler(&mcp.HTTPOptions{Auth: &mcp.AuthOptions{
		Verifier: mcp.TokenVerifierFunc(func(ctx context.Context, token string) (*mcp.AuthInfo, error) {
			w.mu.Lock()
			defer w.mu.Unlock()
			scopes, ok := w.tokens[token]
			if !ok {
				return nil, errors.New("not a token of ours")
			}
			return &mcp.AuthInfo{Subject: "user", Scopes: scopes}, nil
		}),
		AuthorizationServers: []string{w.srv.URL + "/as"},
		ScopesSupported:      []string{"read"},
	}})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	mux.Handle("/.well-known/oauth-protected-resource/", h)
	ts := httptest.NewServer(mux)
	defer ts.Close()
	defer h.Close()

	for _, version := range []string{"2025-11-25", ""} { // a session, and the stateless revision
		rt := &Transport{Config: &Config{RedirectURL: "http://127.0.0.1:9/callback", Authorize: FollowRedirect(nil)}}
		c, err := mcp.Connect(context.Background(), &mcp.StreamableHTTPTransport{URL: ts.URL + "/mcp", HTTPClient: &http.Client{Transport: rt}},
			&mcp.ClientOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatalf("%q: connect: %v", version, err)
		}
		res, err := c.CallTool(context.Background(), "whoami", nil)
		if err != nil || res.Content[0].(mcp.Text).Text != "scopes: read" {
			t.Errorf("%q: whoami: %v %v", version, res, err)
		}
		// The tool needs a scope the token lacks: the client steps up and the call goes through.
		res, err = c.CallTool(context.Background(), "write", nil)
		if err != nil || res.Content[0].(mcp.Text).Text != "written" {
			t.Errorf("%q: write: %v %v", version, res, err)
		}
		c.Close()
	}
}
