package mcp

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

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
