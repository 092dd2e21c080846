package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// Every endpoint a POST reaches (initialize, a session's message, a stateless request, a
// message of HTTP+SSE) goes through the one preamble and guard: a request that fails a
// check gets the same answer from each, whatever endpoint it was meant for.
func TestEveryPOSTGoesThroughThePreamble(t *testing.T) {
	const maxBody = 4096
	srv := quietServer(nil)
	srv.AddTool(Tool{Name: "delete_file", InputSchema: `{"type":"object"}`, Scopes: []string{"files:write"}, Handler: func(ctx context.Context, c *ToolCall) {
		c.ReturnText("deleted")
	}})
	h := srv.HTTPHandler(&HTTPOptions{MaxBodySize: maxBody, Auth: &AuthOptions{
		Verifier: TokenVerifierFunc(func(ctx context.Context, token string) (*AuthInfo, error) {
			if a := testTokens[token]; a != nil {
				return a, nil
			}
			return nil, errors.New("unknown token")
		}),
		AuthorizationServers: []string{"https://auth.example.com"},
	}})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	mux.Handle("/sse", h)
	mux.Handle("/sse/message", h)
	ts := httptest.NewServer(mux)
	hc := &http.Client{Transport: &http.Transport{}}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); h.Close(); ts.Close(); hc.CloseIdleConnections() })

	// A session of each transport, for the endpoints that need one.
	session := authPost(t, ts.URL+"/mcp", "ada-read", "", initBody).session
	if session == "" {
		t.Fatal("initialize: no session")
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/sse", nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer ada-read")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := bufio.NewReader(resp.Body)
	var endpoint string
	for endpoint == "" {
		line, err := events.ReadString('\n')
		if err != nil {
			t.Fatalf("the HTTP+SSE stream: %v", err)
		}
		if data, ok := strings.CutPrefix(strings.TrimSpace(line), "data: "); ok {
			endpoint = data
		}
	}

	const call = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"delete_file","arguments":{}}}`
	const statelessCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"delete_file","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	type endpointCase struct {
		name   string
		url    string
		header map[string]string
		call   string // a tools/call of a tool whose scope the tokens lack, as this endpoint takes it
	}
	endpoints := []endpointCase{
		{"initialize", "/mcp", nil, call},
		{"session", "/mcp", map[string]string{"Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-11-25"}, call},
		{"stateless", "/mcp", map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "delete_file"}, statelessCall},
		{"HTTP+SSE", endpoint, nil, call},
	}
	type want struct {
		status    int
		code      float64 // of the JSON-RPC error
		challenge string  // in WWW-Authenticate; "" for none
	}
	checks := []struct {
		name   string
		body   func(e endpointCase) string
		header map[string]string
		want   want
	}{
		{"oversized body", func(e endpointCase) string { return e.call[:len(e.call)-1] + strings.Repeat(" ", maxBody) + "}" }, nil,
			want{http.StatusRequestEntityTooLarge, -32600, ""}},
		{"not JSON", func(endpointCase) string { return `{"jsonrpc":"2.0","id":7,` }, nil,
			want{http.StatusBadRequest, -32700, ""}},
		{"not JSON-RPC", func(endpointCase) string { return `{"id":7,"method":7}` }, nil,
			want{http.StatusBadRequest, -32600, ""}},
		{"no token", func(e endpointCase) string { return e.call }, map[string]string{"Authorization": ""},
			want{http.StatusUnauthorized, -32600, "Bearer "}},
		{"unknown token", func(e endpointCase) string { return e.call }, map[string]string{"Authorization": "Bearer forged"},
			want{http.StatusUnauthorized, -32600, `error="invalid_token"`}},
		{"scope missing", func(e endpointCase) string { return e.call }, nil,
			want{http.StatusForbidden, -32600, `error="insufficient_scope", scope="files:write"`}},
		{"foreign origin", func(e endpointCase) string { return e.call }, map[string]string{"Origin": "https://evil.example"},
			want{http.StatusForbidden, -32600, ""}},
		{"foreign host", func(e endpointCase) string { return e.call }, map[string]string{"Host": "evil.example"},
			want{http.StatusForbidden, -32600, ""}},
		{"not JSON content", func(e endpointCase) string { return e.call }, map[string]string{"Content-Type": "text/plain"},
			want{http.StatusUnsupportedMediaType, -32600, ""}},
	}
	for _, c := range checks {
		for _, e := range endpoints {
			req, err := http.NewRequest(http.MethodPost, ts.URL+e.url, strings.NewReader(c.body(e)))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Authorization", "Bearer ada-read")
			for k, v := range e.header {
				req.Header.Set(k, v)
			}
			for k, v := range c.header {
				switch {
				case k == "Host":
					req.Host = v
				case v == "":
					req.Header.Del(k)
				default:
					req.Header.Set(k, v)
				}
			}
			resp, err := hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var msg struct {
				Error struct{ Code float64 }
			}
			json.Unmarshal(data, &msg)
			challenge := resp.Header.Get("WWW-Authenticate")
			w := c.want
			if c.name == "scope missing" && e.name == "initialize" {
				// A call without a session is served by no one: the door never sees it.
				w = want{http.StatusBadRequest, -32600, ""}
			}
			if resp.StatusCode != w.status || msg.Error.Code != w.code ||
				(w.challenge == "") != (challenge == "") || !strings.Contains(challenge, w.challenge) {
				t.Errorf("%s to %s: %d %s, challenge %q; want %d, code %v, challenge %q",
					c.name, e.name, resp.StatusCode, data, challenge, w.status, w.code, w.challenge)
			}
		}
	}
	// Nothing that was refused was served: the tool never ran, and each endpoint still
	// serves what passes.
	if r := authPost(t, ts.URL+"/mcp", "ada-write", session, call); r.status != http.StatusOK {
		t.Errorf("the session after the refusals: %d %v", r.status, r.body)
	}
}

// GuardHTTP puts HTTPHandler's checks in front of another handler: the host and origin,
// the token (its caller reaches the handler), the resource metadata, CORS.
func TestGuardHTTP(t *testing.T) {
	var reached []*AuthInfo
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached = append(reached, AuthInfoFrom(r.Context()))
		w.WriteHeader(http.StatusTeapot)
	})
	opts := &HTTPOptions{AllowedOrigins: []string{"https://app.example"}, Auth: &AuthOptions{
		Verifier: TokenVerifierFunc(func(ctx context.Context, token string) (*AuthInfo, error) {
			if a := testTokens[token]; a != nil {
				return a, nil
			}
			return nil, errors.New("unknown token")
		}),
		AuthorizationServers: []string{"https://auth.example.com"},
		ScopesSupported:      []string{"read"},
	}}
	mux := http.NewServeMux()
	guarded := GuardHTTP(opts, next)
	mux.Handle("/ws", guarded)
	mux.Handle("/.well-known/oauth-protected-resource/", guarded)
	ts := httptest.NewServer(mux)
	defer ts.Close()

	do := func(method, path string, header ...string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(method, ts.URL+path, nil)
		for i := 0; i+1 < len(header); i += 2 {
			if header[i] == "Host" {
				req.Host = header[i+1]
			} else {
				req.Header.Set(header[i], header[i+1])
			}
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	if r := do("GET", "/ws"); r.StatusCode != http.StatusUnauthorized ||
		r.Header.Get("WWW-Authenticate") != `Bearer resource_metadata="`+ts.URL+`/.well-known/oauth-protected-resource/ws", scope="read", error_description="the request carries no access token"` {
		t.Errorf("no token: %d %q", r.StatusCode, r.Header.Get("WWW-Authenticate"))
	}
	if r := do("GET", "/ws", "Authorization", "Bearer forged"); r.StatusCode != http.StatusUnauthorized {
		t.Errorf("a token the verifier refuses: %d", r.StatusCode)
	}
	if r := do("GET", "/ws", "Authorization", "Bearer ada-read", "Host", "evil.example"); r.StatusCode != http.StatusForbidden {
		t.Errorf("a foreign host: %d", r.StatusCode)
	}
	if r := do("GET", "/ws", "Authorization", "Bearer ada-read", "Origin", "https://evil.example"); r.StatusCode != http.StatusForbidden {
		t.Errorf("a foreign origin: %d", r.StatusCode)
	}
	if len(reached) != 0 {
		t.Fatalf("refused requests reached the handler: %v", reached)
	}
	r := do("GET", "/ws", "Authorization", "Bearer ada-read", "Origin", "https://app.example")
	if r.StatusCode != http.StatusTeapot || len(reached) != 1 || reached[0] == nil || reached[0].Subject != "ada" {
		t.Errorf("a good token: %d, the handler saw %v", r.StatusCode, reached)
	}
	if r.Header.Get("Access-Control-Allow-Origin") != "https://app.example" {
		t.Errorf("CORS for an allowed origin: %v", r.Header)
	}
	// A preflight carries no token.
	if r := do("OPTIONS", "/ws", "Origin", "https://app.example"); r.StatusCode != http.StatusTeapot || r.Header.Get("Access-Control-Allow-Methods") == "" {
		t.Errorf("a preflight: %d %v", r.StatusCode, r.Header)
	}
	resp, err := http.Get(ts.URL + "/.well-known/oauth-protected-resource/ws")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	json.NewDecoder(resp.Body).Decode(&doc)
	resp.Body.Close()
	if doc["resource"] != ts.URL+"/ws" || doc["scopes_supported"].([]any)[0] != "read" {
		t.Errorf("protected resource metadata: %v", doc)
	}

	defer func() {
		if recover() == nil {
			t.Error("GuardHTTP took Auth options without a Verifier")
		}
	}()
	GuardHTTP(&HTTPOptions{Auth: &AuthOptions{}}, next)
}

func TestHTTPRejectsBadRequests(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(echoTool("echo"))
	_, c := serveHTTPTest(t, srv, &HTTPOptions{MaxBodySize: 1 << 10, AllowedHosts: []string{"mcp.example.com"}, AllowedOrigins: []string{"https://app.example.com"}})
	noSession := newHTTPClient(t, c.url)
	c.initialize(`{}`)
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	for _, tc := range []struct {
		name   string
		resp   func() *http.Response
		status int
	}{
		{"no session id", func() *http.Response { return noSession.post(list) }, 400},
		{"unknown session id", func() *http.Response { return c.post(list, "Mcp-Session-Id", "nope") }, 404},
		{"GET without a session", func() *http.Response { return noSession.do(http.MethodGet, "Accept", "text/event-stream") }, 400},
		{"DNS rebinding host", func() *http.Response { return c.post(list, "Host", "evil.example.com") }, 403},
		{"unspecified address as host", func() *http.Response { return c.post(list, "Host", "0.0.0.0:9") }, 403},
		{"foreign origin", func() *http.Response { return c.post(list, "Origin", "http://evil.example.com") }, 403},
		{"PUT", func() *http.Response { return c.do(http.MethodPut) }, 405},
		{"not JSON", func() *http.Response { return c.post(list, "Content-Type", "text/plain") }, 415},
		{"accepts neither JSON nor SSE", func() *http.Response { return c.post(list, "Accept", "text/html") }, 406},
		{"GET that does not accept SSE", func() *http.Response { return c.do(http.MethodGet, "Accept", "application/json") }, 406},
		{"body too large", func() *http.Response {
			return c.post(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"` + strings.Repeat("a", 2000) + `"}}`)
		}, 413},
		{"malformed JSON", func() *http.Response { return c.post(`{"jsonrpc":`) }, 400},
		{"resume an unknown stream", func() *http.Response {
			return c.do(http.MethodGet, "Accept", "text/event-stream", "Last-Event-Id", "99-3")
		}, 400},
		{"resume with a malformed event id", func() *http.Response {
			return c.do(http.MethodGet, "Accept", "text/event-stream", "Last-Event-Id", "x")
		}, 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := tc.resp()
			if resp.StatusCode != tc.status {
				body, _ := io.ReadAll(resp.Body)
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, body)
			}
			if tc.status == 405 && resp.Header.Get("Allow") == "" {
				t.Error("405 without Allow")
			}
			// Errors carry a JSON-RPC error without an id.
			m := jsonBody(t, resp)
			if _, hasID := m["id"]; hasID || m["error"] == nil {
				t.Errorf("body %v, want an error without id", m)
			}
		})
	}
	for _, tc := range []struct{ name, key, value string }{
		{"allowed host", "Host", "mcp.example.com"},
		{"loopback host with a port", "Host", "localhost:9"},
		{"IPv6 loopback host", "Host", "[::1]:9"},
		{"another IPv4 loopback address", "Host", "127.0.0.2:9"},
		{"allowed origin", "Origin", "https://app.example.com"},
		{"loopback origin", "Origin", "http://127.0.0.1:5173"},
		{"supported older protocol version", "Mcp-Protocol-Version", "2025-03-26"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if s := c.post(list, tc.key, tc.value).StatusCode; s != 200 {
				t.Fatalf("status %d, want 200", s)
			}
		})
	}
}

// The Accept header as RFC 9110 has it: media ranges, wildcards, any case, q=0 refuses.
func TestAccepts(t *testing.T) {
	for _, tc := range []struct {
		header []string
		json   bool
		sse    bool
	}{
		{nil, true, true},
		{[]string{"application/json, text/event-stream"}, true, true},
		{[]string{"application/json", "text/event-stream"}, true, true},
		{[]string{"*/*"}, true, true},
		{[]string{"text/*"}, false, true},
		{[]string{"Application/JSON"}, true, false},
		{[]string{"application/json; charset=utf-8"}, true, false},
		{[]string{"application/json;q=0, text/event-stream;q=0.5"}, false, true},
		{[]string{"application/json; q=0.0"}, false, false},
		{[]string{"text/event-stream;q=0, application/*"}, true, false},
		{[]string{"garbage, /json, text/"}, false, false},
		{[]string{""}, false, false},
	} {
		if got := accepts(tc.header, "application/json"); got != tc.json {
			t.Errorf("Accept %q admits application/json: %v", tc.header, got)
		}
		if got := accepts(tc.header, "text/event-stream"); got != tc.sse {
			t.Errorf("Accept %q admits text/event-stream: %v", tc.header, got)
		}
	}
	if n := testing.AllocsPerRun(100, func() { accepts([]string{"application/json, text/event-stream"}, "text/event-stream") }); n != 0 {
		t.Errorf("accepts allocates %v times", n)
	}
}
