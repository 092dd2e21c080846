package oauth_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/oauth"
)

// A client that acts on its own behalf (a service, a batch job) gets its tokens with the
// client credentials grant. The Transport answers the protected server's 401: it finds the
// server's metadata, then its authorization server's, asks that server for a token for this
// resource, and sends the request again with it. A person's client leaves Grant empty and
// sets Authorize instead, for the authorization code flow.
func ExampleTransport() {
	// An authorization server that gives client "reporter" a token.
	var issuer string
	as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/oauth-authorization-server":
			json.NewEncoder(w).Encode(map[string]any{"issuer": issuer, "token_endpoint": issuer + "/token"})
		case "/token":
			if id, secret, _ := r.BasicAuth(); id != "reporter" || secret != "s3cret" {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			json.NewEncoder(w).Encode(map[string]any{"access_token": "token-of-reporter", "token_type": "Bearer", "expires_in": 3600})
		}
	}))
	defer as.Close()
	issuer = as.URL

	// A protected MCP server that takes that token (a real one verifies JWTs or asks the
	// authorization server: see package protect).
	srv := mcp.NewServer(mcp.Implementation{Name: "reports", Version: "1.0.0"}, nil)
	srv.AddTool(mcp.Tool{Name: "whoami", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *mcp.ToolCall) {
		c.ReturnText("you are " + mcp.AuthInfoFrom(ctx).ClientID)
	}})
	mux := http.NewServeMux()
	web := httptest.NewServer(mux)
	defer web.Close()
	handler := srv.HTTPHandler(&mcp.HTTPOptions{Auth: &mcp.AuthOptions{
		Verifier: mcp.TokenVerifierFunc(func(ctx context.Context, token string) (*mcp.AuthInfo, error) {
			if token != "token-of-reporter" {
				return nil, errors.New("unknown token")
			}
			return &mcp.AuthInfo{Issuer: issuer, Subject: "reporter", ClientID: "reporter"}, nil
		}),
		Resource:             web.URL + "/mcp",
		AuthorizationServers: []string{issuer},
	}})
	defer handler.Close()
	mux.Handle("/mcp", handler)
	mux.Handle("/.well-known/oauth-protected-resource/", handler)

	// The client.
	rt := &oauth.Transport{Config: &oauth.Config{
		Grant: oauth.GrantClientCredentials,
		// The client's credentials go to its own authorization server only, for tokens for
		// the servers it names only.
		Clients: []oauth.Client{{Issuer: issuer, ID: "reporter", Secret: "s3cret", Resources: []string{web.URL + "/mcp"}}},
	}}
	ctx := context.Background()
	c, err := mcp.Connect(ctx, &mcp.StreamableHTTPTransport{URL: web.URL + "/mcp", HTTPClient: &http.Client{Transport: rt}}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	res, err := c.CallTool(ctx, "whoami", nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(mcp.Text).Text)
	// Output:
	// you are reporter
}

// A protected server's challenge names its metadata and the scopes it wants.
func ExampleParseChallenge() {
	h := http.Header{}
	h.Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="https://files.example.com/.well-known/oauth-protected-resource/mcp"`)
	c, ok := oauth.ParseChallenge(h)
	fmt.Printf("%t %s %s: %q, at %s\n", ok, c.Scheme, c.Error, c.Scope, c.ResourceMetadata)
	// Output:
	// true Bearer insufficient_scope: "files:read files:write", at https://files.example.com/.well-known/oauth-protected-resource/mcp
}
