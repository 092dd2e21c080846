package e2e

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/oauth"
)

// examples/protected and mcpgen's client against a real, independent OpenID provider
// (zitadel/oidc's example OP, e2e/oidcop): the client gets a token through the whole flow
// (discovery, authorization code with PKCE and the resource indicator, the user's login
// driven as a browser would) and calls a tool; the server checks the JWT against the OP's
// keys, and refuses a token for another audience, an expired one, and one without the
// tool's scope, each with the right status and challenge.
func TestOAuthAgainstARealOpenIDProvider(t *testing.T) {
	t.Parallel()
	issuer := startOpenIDProvider(t, "3s")

	// Two processes of examples/protected: tokens for one are not for the other.
	protected := func() *httpTransport {
		return startHTTP(t, protectedBin, "-issuer", issuer, "-scopes", "openid profile", "-leeway", "1ms")
	}
	serverA, serverB := protected(), protected()
	a, b := serverA.url, serverB.url

	store := &oauth.MemoryStore{}
	rt := &oauth.Transport{Config: &oauth.Config{
		// The OP has no dynamic registration: a client registered there, for both servers.
		Clients:     []oauth.Client{{Issuer: issuer, ID: "native", Resources: []string{a, b}}},
		RedirectURL: "http://127.0.0.1:8976/callback",
		Authorize:   loginAs("test-user@localhost", "verysecure"),
		Store:       store,
	}}
	c, err := mcp.Connect(context.Background(), &mcp.StreamableHTTPTransport{URL: a, HTTPClient: &http.Client{Transport: rt}}, nil)
	if err != nil {
		t.Fatalf("connect through the OP: %v", err)
	}
	defer c.Close()
	res, err := c.CallTool(context.Background(), "whoami", nil)
	// The scopes the metadata names, and offline_access, which the OP offers: a refresh token.
	if err != nil || res.Content[0].(mcp.Text).Text != "id1 openid profile offline_access" {
		t.Fatalf("whoami: %v %v", res, err)
	}
	tok, _ := store.Token(context.Background(), a)
	if tok == nil {
		t.Fatal("no token kept")
	}

	post := func(url, token string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_file","arguments":{"path":"/tmp/x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "delete_file")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode, resp.Header.Get("WWW-Authenticate")
	}
	// The token lacks the tool's scope: 403 insufficient_scope naming it.
	if status, ch := post(a, tok.AccessToken); status != 403 || !strings.Contains(ch, `error="insufficient_scope"`) || !strings.Contains(ch, `scope="files:write"`) {
		t.Errorf("a token without the tool's scope: %d %q", status, ch)
	}
	// The OP does not grant files:write: the client asks again (step-up), then gives up with the 403.
	if _, err := c.CallTool(context.Background(), "delete_file", map[string]any{"path": "/tmp/x"}); err == nil || !strings.Contains(err.Error(), "403") {
		t.Errorf("a scope the OP does not grant: %v", err)
	}
	// A token for server a is not one for server b: 401 invalid_token. Why is in b's log,
	// not in the answer.
	if status, ch := post(b, tok.AccessToken); status != 401 || !strings.Contains(ch, `error="invalid_token"`) || !logged(serverB, "audience") {
		t.Errorf("a token for another audience: %d %q; the server's log:\n%s", status, ch, serverB.stderr)
	}
	// The OP's tokens live 3 s here: once expired, 401 invalid_token. (expires_in is whole
	// seconds, rounded down: the token lives up to a second past tok.Expiry.)
	time.Sleep(time.Until(tok.Expiry) + 1500*time.Millisecond)
	if status, ch := post(a, tok.AccessToken); status != 401 || !strings.Contains(ch, `error="invalid_token"`) || !logged(serverA, "expired") {
		t.Errorf("an expired token: %d %q; the server's log:\n%s", status, ch, serverA.stderr)
	}
	// The client refreshes it (the OP gave a refresh token, as offline_access was asked).
	if res, err := c.CallTool(context.Background(), "whoami", nil); err != nil || !strings.HasPrefix(res.Content[0].(mcp.Text).Text, "id1") {
		t.Errorf("after expiry: %v %v", res, err)
	}
}

// logged reports whether the server's log says what, within a few seconds (its stderr is
// read on a goroutine of its own).
func logged(server *httpTransport, what string) bool {
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if strings.Contains(server.stderr.String(), what) {
			return true
		}
	}
	return false
}

// startOpenIDProvider builds and starts e2e/oidcop, whose access tokens live for lifetime,
// and returns its issuer.
func startOpenIDProvider(t *testing.T, lifetime string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "oidcop")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = "oidcop"
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building e2e/oidcop: %v\n%s", err, out)
	}
	cmd := exec.Command(bin)
	cmd.Env = append(cmd.Environ(), "PORT=0", "REDIRECT_URI=http://127.0.0.1/callback", "JWT_CLIENTS=native", "ACCESS_TOKEN_LIFETIME="+lifetime)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	issuer, ok := strings.CutPrefix(strings.TrimSpace(line), "ISSUER=")
	if err != nil || !ok {
		t.Fatalf("the OP did not say its issuer: %q %v\n%s", line, err, stderr)
	}
	return issuer
}

// loginAs is an Authorize that logs the user in at the example OP as a browser would: the
// authorization request redirects to the login page, the form is posted, and the OP
// redirects back with the code, which is returned without going there.
func loginAs(user, password string) func(ctx context.Context, authURL string) (*url.URL, error) {
	return func(ctx context.Context, authURL string) (*url.URL, error) {
		hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		step := func(method, u string, form url.Values) (*url.URL, error) {
			var body io.Reader
			if form != nil {
				body = strings.NewReader(form.Encode())
			}
			req, err := http.NewRequestWithContext(ctx, method, u, body)
			if err != nil {
				return nil, err
			}
			if form != nil {
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			}
			resp, err := hc.Do(req)
			if err != nil {
				return nil, err
			}
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode/100 != 3 {
				return nil, fmt.Errorf("%s %s: HTTP %d: %.300s", method, u, resp.StatusCode, data)
			}
			return resp.Request.URL.Parse(resp.Header.Get("Location"))
		}
		login, err := step(http.MethodGet, authURL, nil)
		if err != nil {
			return nil, err
		}
		id := login.Query().Get("authRequestID")
		if id == "" {
			return nil, errors.New("the OP did not send the user to its login page: " + login.String())
		}
		callback, err := step(http.MethodPost, login.ResolveReference(&url.URL{Path: "/login/username"}).String(),
			url.Values{"id": {id}, "username": {user}, "password": {password}})
		if err != nil {
			return nil, err
		}
		return step(http.MethodGet, callback.String(), nil)
	}
}
