package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// tokens of the protected test server: token -> who and what scopes.
var testTokens = map[string]*AuthInfo{
	"ada-read":  {Subject: "ada", Scopes: []string{"read"}},
	"ada-write": {Subject: "ada", Scopes: []string{"read", "files:write"}},
	"bob-write": {Subject: "bob", Scopes: []string{"read", "files:write"}},
}

func protectedServer(t *testing.T) *httptest.Server {
	srv := quietServer(nil)
	srv.AddTool(Tool{Name: "whoami", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *ToolCall) {
		c.ReturnText(AuthInfoFrom(ctx).Subject)
	}})
	srv.AddTool(Tool{Name: "delete_file", InputSchema: `{"type":"object"}`, Scopes: []string{"files:write"}, Handler: func(ctx context.Context, c *ToolCall) {
		c.ReturnText("deleted by " + AuthInfoFrom(ctx).Subject)
	}})
	srv.AddPrompt(Prompt{Name: "secret", Scopes: []string{"files:write"}, Get: func(ctx context.Context, args *Input) (*GetPromptResult, error) {
		return &GetPromptResult{Messages: []PromptMessage{{Role: RoleUser, Content: Text{Text: "s"}}}}, nil
	}})
	srv.AddResourceTemplate(ResourceTemplate{URITemplate: "files://{name}", Name: "files", Scopes: []string{"files:write"}, Read: func(ctx context.Context, uri string, vars map[string]string) ([]ResourceContents, error) {
		return []ResourceContents{{Text: vars["name"]}}, nil
	}})
	srv.AddCompletion(Completion{Prompt: "secret", Argument: "who", Complete: func(ctx context.Context, req CompletionRequest) ([]string, error) {
		return []string{"the-secret-prompt-value"}, nil
	}})
	srv.AddCompletion(Completion{ResourceTemplate: "files://{name}", Argument: "name", Complete: func(ctx context.Context, req CompletionRequest) ([]string, error) {
		return []string{"the-secret-file-name"}, nil
	}})
	addForm(srv, themeFormSchema, decodeThemeForm)
	srv.AddTool(elicitTool())
	h := srv.HTTPHandler(&HTTPOptions{Auth: &AuthOptions{
		Verifier: TokenVerifierFunc(func(ctx context.Context, token string) (*AuthInfo, error) {
			if a := testTokens[token]; a != nil {
				return a, nil
			}
			return nil, errors.New("unknown token")
		}),
		AuthorizationServers: []string{"https://auth.example.com"},
		ScopesSupported:      []string{"read"},
	}})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	mux.Handle("/sse", h)
	mux.Handle("/sse/message", h)
	mux.Handle("/.well-known/oauth-protected-resource/", h)
	ts := httptest.NewServer(mux)
	t.Cleanup(func() { h.Close(); ts.Close() })
	return ts
}

type authReply struct {
	status    int
	challenge string
	session   string
	body      map[string]any
}

func authPost(t *testing.T, url, token, session, body string) authReply {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	if strings.Contains(body, "2026-07-28") {
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		var m struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		json.Unmarshal([]byte(body), &m)
		req.Header.Set("Mcp-Method", m.Method)
		if row := methods[m.Method]; row != nil && row.nameParam != "" {
			name, _ := stringParam(m.Params, row.nameParam)
			req.Header.Set("Mcp-Name", name)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var m map[string]any
	json.Unmarshal(data, &m)
	return authReply{resp.StatusCode, resp.Header.Get("WWW-Authenticate"), resp.Header.Get("Mcp-Session-Id"), m}
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

func TestProtectedServer(t *testing.T) {
	ts := protectedServer(t)
	url := ts.URL + "/mcp"
	meta := ts.URL + "/.well-known/oauth-protected-resource/mcp"

	r := authPost(t, url, "", "", initBody)
	if r.status != 401 || r.challenge != `Bearer resource_metadata="`+meta+`", scope="read", error_description="the request carries no access token"` {
		t.Errorf("no token: %d %q", r.status, r.challenge)
	}
	r = authPost(t, url, "forged", "", initBody)
	if r.status != 401 || !strings.Contains(r.challenge, `error="invalid_token"`) {
		t.Errorf("a token the verifier refuses: %d %q", r.status, r.challenge)
	}

	resp, err := http.Get(meta)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	json.NewDecoder(resp.Body).Decode(&doc)
	resp.Body.Close()
	if doc["resource"] != url || doc["authorization_servers"].([]any)[0] != "https://auth.example.com" || doc["scopes_supported"].([]any)[0] != "read" {
		t.Errorf("protected resource metadata: %v", doc)
	}

	// A session of Ada's: her calls see her; a tool that needs a scope she lacks is a 403.
	r = authPost(t, url, "ada-read", "", initBody)
	session := r.session
	if r.status != 200 || session == "" {
		t.Fatalf("initialize: %d %v", r.status, r.body)
	}
	r = authPost(t, url, "ada-read", session, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whoami"}}`)
	if text := toolText(t, r.body); text != "ada" {
		t.Errorf("whoami: %q", text)
	}
	r = authPost(t, url, "ada-read", session, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"delete_file"}}`)
	if r.status != 403 || !strings.Contains(r.challenge, `error="insufficient_scope"`) || !strings.Contains(r.challenge, `scope="files:write"`) || !strings.Contains(r.challenge, `resource_metadata="`+meta+`"`) {
		t.Errorf("a tool whose scope the token lacks: %d %q", r.status, r.challenge)
	}
	for _, req := range []string{
		`{"jsonrpc":"2.0","id":31,"method":"prompts/get","params":{"name":"secret"}}`,
		`{"jsonrpc":"2.0","id":32,"method":"resources/read","params":{"uri":"files://a"}}`,
	} {
		if r = authPost(t, url, "ada-read", session, req); r.status != 403 || !strings.Contains(r.challenge, `scope="files:write"`) {
			t.Errorf("%s without the scope: %d %q", req, r.status, r.challenge)
		}
		if r = authPost(t, url, "ada-write", session, req); r.status != 200 || r.body["result"] == nil {
			t.Errorf("%s with the scope: %d %v", req, r.status, r.body)
		}
	}
	r = authPost(t, url, "ada-write", session, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"delete_file"}}`)
	if text := toolText(t, r.body); text != "deleted by ada" {
		t.Errorf("with the scope: %q", text)
	}
	// Bob's token finds no session of Ada's.
	if r = authPost(t, url, "bob-write", session, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"whoami"}}`); r.status != 404 {
		t.Errorf("another user's session: %d %v", r.status, r.body)
	}

	// Revision 2026-07-28: the sealed state of Ada's multi round-trip request opens for
	// her only; to Bob it is a state the server never issued.
	ask := `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"ask","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`
	r = authPost(t, url, "ada-read", "", ask+`}}`)
	res, _ := r.body["result"].(map[string]any)
	state, _ := res["requestState"].(string)
	var key string
	for k := range res["inputRequests"].(map[string]any) {
		key = k
	}
	retry := ask + `,"inputResponses":{"` + key + `":{"action":"accept","content":{"theme":"dark"}}},"requestState":"` + state + `"}}`
	first := "A"
	if state[0] == 'A' {
		first = "B"
	}
	forged := authPost(t, url, "bob-write", "", strings.Replace(retry, state, first+state[1:], 1))
	if r = authPost(t, url, "bob-write", "", retry); r.status != 400 || r.body["error"] == nil || !reflect.DeepEqual(r.body, forged.body) {
		t.Errorf("Ada's state retried by Bob: %d %v, want what a forged state gets: %v", r.status, r.body, forged.body)
	}
	if r = authPost(t, url, "ada-read", "", retry); r.status != 200 || r.body["result"] == nil {
		t.Errorf("Ada's state retried by Ada: %d %v", r.status, r.body)
	}
}

// The HTTP+SSE transport of 2024-11-05 is protected alike: the caller reaches the body, and
// a tool whose scope the token lacks is refused.
func TestProtectedSSE(t *testing.T) {
	ts := protectedServer(t)
	c, err := Connect(context.Background(), &SSETransport{URL: ts.URL + "/sse", Header: http.Header{"Authorization": {"Bearer ada-read"}},
		HTTPClient: &http.Client{Transport: &http.Transport{}}}, &ClientOptions{Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.CallTool(context.Background(), "whoami", nil)
	if err != nil || res.Content[0].(Text).Text != "ada" {
		t.Errorf("whoami over SSE: %v %v", res, err)
	}
	if _, err := c.CallTool(context.Background(), "delete_file", nil); err == nil || !strings.Contains(err.Error(), "403") {
		t.Errorf("a tool whose scope the token lacks, over SSE: %v", err)
	}
}

// The scopes of a prompt or template guard its completions too (their values may tell what
// the body would), and those of a resource the subscriptions to it, in either revision.
func TestScopesOfCompletionsAndSubscriptions(t *testing.T) {
	ts := protectedServer(t)
	url := ts.URL + "/mcp"
	session := authPost(t, url, "ada-read", "", initBody).session
	for ref, argument := range map[string]string{`{"type":"ref/prompt","name":"secret"}`: "who", `{"type":"ref/resource","uri":"files://{name}"}`: "name"} {
		req := `{"jsonrpc":"2.0","id":2,"method":"completion/complete","params":{"ref":` + ref + `,"argument":{"name":"` + argument + `","value":""}}}`
		if r := authPost(t, url, "ada-read", session, req); r.status != 403 || !strings.Contains(r.challenge, `scope="files:write"`) || strings.Contains(r.raw(), "the-secret") {
			t.Errorf("completion of %s without the scope: %d %q %v", ref, r.status, r.challenge, r.body)
		}
		if r := authPost(t, url, "ada-write", session, req); r.status != 200 || !strings.Contains(r.raw(), "the-secret") {
			t.Errorf("completion of %s with the scope: %d %v", ref, r.status, r.body)
		}
	}
	subscribe := `{"jsonrpc":"2.0","id":3,"method":"resources/subscribe","params":{"uri":"files://a"}}`
	if r := authPost(t, url, "ada-read", session, subscribe); r.status != 403 || !strings.Contains(r.challenge, `scope="files:write"`) {
		t.Errorf("resources/subscribe without the scope: %d %q %v", r.status, r.challenge, r.body)
	}
	if r := authPost(t, url, "ada-write", session, subscribe); r.status != 200 || r.body["result"] == nil {
		t.Errorf("resources/subscribe with the scope: %d %v", r.status, r.body)
	}
	// Revision 2026-07-28: subscriptions/listen, however the resources are listed.
	for _, uris := range []string{`["files://a"]`, `["other://b","files://a"]`, `["files://a",1]`} {
		l := authListen(t, url, "ada-read", `{"resourceSubscriptions":`+uris+`}`)
		if l.ack != nil || l.status != 403 && !strings.Contains(uris, "1]") {
			t.Errorf("listening to %s without the scope: %d %v %v", uris, l.status, l.ack, l.body)
		}
	}
	l := authListen(t, url, "ada-write", `{"resourceSubscriptions":["files://a"]}`)
	if uris, _ := l.ack["notifications"].(map[string]any)["resourceSubscriptions"].([]any); len(uris) != 1 || uris[0] != "files://a" {
		t.Errorf("listening with the scope: %d %v %v", l.status, l.ack, l.body)
	}
	if l := authListen(t, url, "ada-read", `{"toolsListChanged":true}`); l.ack == nil {
		t.Errorf("listening to what needs no scope: %d %v", l.status, l.body)
	}
}

// lockedLog is a log a test reads while the server writes it.
type lockedLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A caller without a valid token learns nothing of the server's insides (its issuer's
// internal URLs, their failures): the detail goes to the server's log. A verifier that
// cannot decide is a 503 to try again, not an invalid token to throw away.
func TestRefusedTokensLearnNothingInternal(t *testing.T) {
	log := &lockedLog{}
	srv := NewServer(Implementation{Name: "t", Version: "1"}, &ServerOptions{Logger: slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	srv.AddTool(Tool{Name: "whoami", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *ToolCall) { c.ReturnText("x") }})
	h := srv.HTTPHandler(&HTTPOptions{Auth: &AuthOptions{
		Verifier: TokenVerifierFunc(func(ctx context.Context, token string) (*AuthInfo, error) {
			if token == "outage" {
				return nil, fmt.Errorf("%w: GET http://10.0.0.7/jwks: connection refused", ErrVerifierUnavailable)
			}
			return nil, errors.New("fetching the issuer's keys: GET http://10.0.0.7/jwks: HTTP 500")
		}),
		AuthorizationServers: []string{"https://auth.example.com"},
	}})
	ts := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); ts.Close() })

	post := func(token string) (*http.Response, string) {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(initBody))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, string(body)
	}
	resp, body := post("bad")
	challenge := resp.Header.Get("WWW-Authenticate")
	if resp.StatusCode != 401 || !strings.Contains(challenge, `error="invalid_token", error_description="the bearer token is not valid"`) ||
		strings.Contains(challenge+body, "10.0.0.7") {
		t.Errorf("a token the verifier refuses: %d %q %s", resp.StatusCode, challenge, body)
	}
	if !strings.Contains(log.String(), "HTTP 500") {
		t.Errorf("the refusal's detail is not in the log: %q", log.String())
	}
	resp, body = post("outage")
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" || resp.Header.Get("WWW-Authenticate") != "" || strings.Contains(body, "10.0.0.7") {
		t.Errorf("the verifier unavailable: %d Retry-After %q WWW-Authenticate %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), resp.Header.Get("WWW-Authenticate"), body)
	}
	if !strings.Contains(log.String(), "connection refused") {
		t.Errorf("the outage is not in the log: %q", log.String())
	}
}

// Without AuthOptions.Resource a protected server names itself after the Host header, which
// the client picks: it does so for the local machine's names only, and a server that takes
// other hosts must be told its URL.
func TestResourceNotFromAForeignHost(t *testing.T) {
	ts := protectedServer(t)
	for _, path := range []string{"/.well-known/oauth-protected-resource/mcp", "/mcp"} {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+path, strings.NewReader(initBody))
		if strings.HasPrefix(path, "/.well-known") {
			req.Method = http.MethodGet
		}
		req.Header.Set("Content-Type", "application/json")
		req.Host = "evil.example"
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 403 || strings.Contains(resp.Header.Get("WWW-Authenticate"), "evil") || strings.Contains(string(body), `"resource"`) {
			t.Errorf("%s %s with Host evil.example: %d %q %s", req.Method, path, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
		}
	}

	verifier := TokenVerifierFunc(func(context.Context, string) (*AuthInfo, error) { return nil, errors.New("no") })
	public := &HTTPOptions{AllowedHosts: []string{"mcp.example.com"}, Auth: &AuthOptions{Verifier: verifier}}
	func() {
		defer func() {
			if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "needs a Resource") {
				t.Errorf("HTTPHandler taking other hosts without a Resource: %v", r)
			}
		}()
		quietServer(nil).HTTPHandler(public)
	}()
	// (A server that wrongly starts stops at once: its context is over.)
	stopped, stop := context.WithCancel(context.Background())
	stop()
	serve := func(opts *HTTPOptions) (err error) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("panicked: %v", r)
			}
		}()
		return quietServer(nil).ServeHTTPListener(stopped, ln, opts)
	}
	if err := serve(public); err == nil || !strings.HasPrefix(err.Error(), "mcp: HTTPOptions.Auth needs a Resource") {
		t.Errorf("ServeHTTPListener taking other hosts without a Resource: %v", err)
	}
	bad := &HTTPOptions{Auth: &AuthOptions{Verifier: verifier, Resource: "mcp.example.com/mcp"}}
	if err := serve(bad); err == nil || !strings.Contains(err.Error(), "not the server's URL") {
		t.Errorf("a Resource that is no URL: %v", err)
	}

	// With its Resource, the server names itself by it, whatever the Host.
	public.Auth.Resource = "https://mcp.example.com/mcp"
	h := quietServer(nil).HTTPHandler(public)
	defer h.Close()
	w := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "http://mcp.example.com/mcp", strings.NewReader(initBody))
	h.ServeHTTP(w, req)
	if got := w.Header().Get("WWW-Authenticate"); w.Code != 401 || !strings.HasPrefix(got, `Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"`) {
		t.Errorf("the challenge of a server with its Resource: %d %q", w.Code, got)
	}
}
