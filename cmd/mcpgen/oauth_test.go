package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcpgen/mcpgen/internal/scripted"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// TestMain lets the test binary stand in for the user's browser ($BROWSER) in the OAuth
// test: it follows the authorization URL through the authorization server's redirect to
// the command's loopback address, as a person approving would.
func TestMain(m *testing.M) {
	scripted.Main() // the test binary as a scripted server, for forgive_test.go
	childProcess()  // the test binary as mcpgen or as a server, for trust_test.go
	if os.Getenv("MCPGEN_TEST_BROWSER") == "1" {
		resp, err := http.Get(os.Args[len(os.Args)-1])
		if err != nil {
			fmt.Fprintln(os.Stderr, "test browser:", err)
			os.Exit(1)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// authServer is a small OAuth authorization server that approves every request at once.
type authServer struct {
	srv        *httptest.Server
	mu         sync.Mutex
	authorized int
	registered int
	tokens     map[string]bool
	codes      map[string]string // code -> redirect URI
	tokenReqs  []string          // each token request's form and Authorization header
}

func newAuthServer(t *testing.T) *authServer {
	as := &authServer{tokens: map[string]bool{}, codes: map[string]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"issuer": as.srv.URL, "authorization_endpoint": as.srv.URL + "/authorize",
			"token_endpoint": as.srv.URL + "/token", "registration_endpoint": as.srv.URL + "/register",
			"code_challenge_methods_supported": []string{"S256"}})
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		as.mu.Lock()
		as.registered++
		as.mu.Unlock()
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(map[string]any{"client_id": "cli"})
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		as.mu.Lock()
		as.authorized++
		code := fmt.Sprint("code-", as.authorized)
		as.codes[code] = q.Get("redirect_uri")
		as.mu.Unlock()
		http.Redirect(w, r, q.Get("redirect_uri")+"?"+url.Values{"code": {code}, "state": {q.Get("state")}, "iss": {as.srv.URL}}.Encode(), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		as.mu.Lock()
		defer as.mu.Unlock()
		as.tokenReqs = append(as.tokenReqs, r.PostForm.Encode()+" "+r.Header.Get("Authorization"))
		if _, ok := as.codes[r.PostForm.Get("code")]; !ok {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		tok := "tok-" + r.PostForm.Get("code")
		as.tokens[tok] = true
		json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": 3600})
	})
	as.srv = httptest.NewServer(mux)
	t.Cleanup(as.srv.Close)
	return as
}

// protectedServer is an MCP server whose tokens come from as; its URL.
func protectedServer(t *testing.T, as *authServer) string {
	srv := mcp.NewServer(mcp.Implementation{Name: "protected", Version: "1"}, nil)
	srv.AddTool(mcp.Tool{Name: "whoami", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *mcp.ToolCall) {
		c.ReturnText("you are " + mcp.AuthInfoFrom(ctx).Subject)
	}})
	h := srv.HTTPHandler(&mcp.HTTPOptions{Auth: &mcp.AuthOptions{
		Verifier: mcp.TokenVerifierFunc(func(ctx context.Context, token string) (*mcp.AuthInfo, error) {
			as.mu.Lock()
			defer as.mu.Unlock()
			if !as.tokens[token] {
				return nil, errors.New("unknown token")
			}
			return &mcp.AuthInfo{Subject: "ada"}, nil
		}),
		AuthorizationServers: []string{as.srv.URL},
	}})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	mux.Handle("/.well-known/oauth-protected-resource/", h)
	ts := httptest.NewServer(mux)
	t.Cleanup(func() { ts.Close(); h.Close() })
	return ts.URL + "/mcp"
}

// mcpgen call reaches a protected server: it sends the user (here, the test binary as
// browser) to the authorization server, gets the code on its loopback address, calls the
// tool, and keeps the token for the next run in a file only the user can read.
func TestCallAProtectedServer(t *testing.T) {
	as := newAuthServer(t)
	url := protectedServer(t, as)

	config := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", config)
	t.Setenv("BROWSER", os.Args[0])
	t.Setenv("MCPGEN_TEST_BROWSER", "1")
	for run := 1; run <= 2; run++ {
		code, out, errOut := mcpgen(t, "call", "--url", url, "whoami")
		if code != 0 || strings.TrimSpace(out) != "you are ada" {
			t.Fatalf("run %d: exit %d\n%s%s", run, code, out, errOut)
		}
		if run == 1 && !strings.Contains(errOut, "To authorize, open this address in a browser") {
			t.Errorf("run 1 did not tell the user where to authorize:\n%s", errOut)
		}
	}
	as.mu.Lock()
	authorized := as.authorized
	as.mu.Unlock()
	if authorized != 1 {
		t.Errorf("%d authorizations in two runs, want 1: the token is kept", authorized)
	}
	fi, err := os.Stat(filepath.Join(config, "mcpgen", "tokens.json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the token file: %v %v", fi, err)
	}
}

// --client-id and --client-secret belong to --client-issuer: that authorization server gets
// them; a server whose authorization server is another gets a client registered
// dynamically, and not the secret. A secret without an issuer starts nothing.
func TestCLIClientSecretGoesToItsIssuerOnly(t *testing.T) {
	a, b := newAuthServer(t), newAuthServer(t)
	onA, onB := protectedServer(t, a), protectedServer(t, b)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("BROWSER", os.Args[0])
	t.Setenv("MCPGEN_TEST_BROWSER", "1")

	code, _, errOut := mcpgen(t, "call", "--url", onB, "--client-id", "pre", "--client-secret", "s3cret", "whoami")
	if code != 2 || !strings.Contains(errOut, "--client-secret (or MCPGEN_CLIENT_SECRET) needs --client-issuer") {
		t.Errorf("a secret without an issuer: exit %d\n%s", code, errOut)
	}
	if b.authorized+b.registered+len(b.tokenReqs) != 0 {
		t.Errorf("B was reached without an issuer for the secret")
	}

	for _, url := range []string{onB, onA} {
		code, out, errOut := mcpgen(t, "call", "--url", url, "--client-id", "pre", "--client-secret", "s3cret", "--client-issuer", a.srv.URL, "whoami")
		if code != 0 || strings.TrimSpace(out) != "you are ada" {
			t.Fatalf("%s: exit %d\n%s%s", url, code, out, errOut)
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.registered != 1 || len(b.tokenReqs) != 1 || strings.Contains(b.tokenReqs[0], "s3cret") || strings.Contains(b.tokenReqs[0], "Basic") || !strings.Contains(b.tokenReqs[0], "client_id=cli") {
		t.Errorf("B: %d registrations, token requests %q", b.registered, b.tokenReqs)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.registered != 0 || len(a.tokenReqs) != 1 || !strings.HasSuffix(a.tokenReqs[0], " Basic cHJlOnMzY3JldA==") {
		t.Errorf("A: %d registrations, token requests %q", a.registered, a.tokenReqs)
	}
}
