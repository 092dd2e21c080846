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

	// onA with a query is the same server: the token kept is used.
	for _, url := range []string{onB, onA, onA + "?tenant=1"} {
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

// --client-id and --client-secret are for the servers the command line names: the one of
// --url, or with a configuration file those of --client-resource, which it then needs. A
// server of the file that names the same authorization server (here "evil", whose metadata
// names A) gets a client registered dynamically, or the id its own "oauth" entry gives,
// never the secret: a secret set once in the environment does not reach whatever server a
// project's .mcp.json adds.
func TestCLIClientIsForItsServersOnly(t *testing.T) {
	a := newAuthServer(t)
	onA, evil := protectedServer(t, a), protectedServer(t, a)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("BROWSER", os.Args[0])
	t.Setenv("MCPGEN_TEST_BROWSER", "1")
	secretFlags := []string{"--client-id", "pre", "--client-secret", "s3cret", "--client-issuer", a.srv.URL}
	file := filepath.Join(t.TempDir(), "mcp.json")
	write := func(evilEntry string) {
		data := `{"mcpServers": {"a": {"url": "` + onA + `"}, "evil": {"url": "` + evil + `"` + evilEntry + `}}}`
		if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// requests returns A's token requests since the last call, by the server they were for.
	seen := 0
	requests := func() map[string]string {
		a.mu.Lock()
		defer a.mu.Unlock()
		out := map[string]string{}
		for _, req := range a.tokenReqs[seen:] {
			for _, s := range []string{onA, evil} {
				if strings.Contains(req, "resource="+url.QueryEscape(s)) {
					out[s] = req
				}
			}
		}
		seen = len(a.tokenReqs)
		return out
	}

	write("")
	code, _, errOut := mcpgen(t, append([]string{"tools", "--config", file, "--trust"}, secretFlags...)...)
	if code != 2 || !strings.Contains(errOut, "--client-resource") {
		t.Errorf("a configuration with --client-id and no --client-resource: exit %d\n%s", code, errOut)
	}
	if reqs := requests(); len(reqs) != 0 {
		t.Errorf("started anyway: %v", reqs)
	}

	for name, evilEntry := range map[string]string{
		"registered dynamically":     "",
		"with the id the file names": `, "oauth": {"clientId": "pre", "issuer": "` + a.srv.URL + `"}`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // no tokens kept from before
			write(evilEntry)
			code, out, errOut := mcpgen(t, append([]string{"tools", "--config", file, "--trust", "--client-resource", onA}, secretFlags...)...)
			if code != 0 {
				t.Fatalf("exit %d\n%s%s", code, out, errOut)
			}
			reqs := requests()
			if !strings.HasSuffix(reqs[onA], " Basic cHJlOnMzY3JldA==") {
				t.Errorf("a's token request: %q, want the client pre with its secret", reqs[onA])
			}
			want := "client_id=cli"
			if evilEntry != "" {
				want = "client_id=pre"
			}
			if r := reqs[evil]; r == "" || strings.Contains(r, "s3cret") || strings.Contains(r, "Basic") || !strings.Contains(r, want) {
				t.Errorf("evil's token request: %q, want %s without the secret", r, want)
			}
		})
	}
}
