package mcp

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// legacySession opens a session of the HTTP+SSE transport on srv and returns how to POST
// a message to it and read the next message of its stream.
func legacySession(t *testing.T, srv *Server) (post func(body string) int, next func() string) {
	t.Helper()
	h := srv.HTTPHandler(nil)
	mux := http.NewServeMux()
	mux.Handle("/sse", h)
	mux.Handle("/sse/message", h)
	ts := httptest.NewServer(mux)
	hc := &http.Client{Transport: &http.Transport{}}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); h.Close(); ts.Close() })
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/sse", nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	events := bufio.NewReader(resp.Body)
	next = func() string {
		t.Helper()
		data := ""
		for {
			line, err := events.ReadString('\n')
			if err != nil {
				t.Fatalf("reading the stream: %v", err)
			}
			line = strings.TrimRight(line, "\n")
			switch {
			case strings.HasPrefix(line, "data: "):
				data = line[len("data: "):]
			case line == "" && data != "":
				return data
			}
		}
	}
	endpoint := next()
	post = func(body string) int {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, ts.URL+endpoint, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	return post, next
}

// Over HTTP+SSE the server speaks the revisions with sessions only (issue 35, item 6):
// revision 2026-07-28 defines its messages over stdio and Streamable HTTP alone. A request
// with the stateless revision's _meta is the session's: before initialize it is refused as
// any request is, a non-modern error after which a client falls back to initialize;
// server/discover is not found in a session; initialize asking for 2026-07-28 gets
// 2025-11-25. Before, server/discover answered with 2026-07-28 first among its supported
// versions and a stateless tools/call was served, over a transport that revision does not
// define.
func TestHTTPPlusSSEOffersNoStatelessRevision(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(echoTool("echo"))
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},` + meta + `}}`,
	} {
		post, next := legacySession(t, srv)
		if code := post(body); code != http.StatusAccepted {
			t.Errorf("POST: %d", code)
		}
		if answer := next(); !strings.Contains(answer, `"error":{"code":-32600,`) || strings.Contains(answer, "2026-07-28") {
			t.Errorf("%s\nanswered %s, want the session's refusal of a request before initialize", body, answer)
		}
	}
	post, next := legacySession(t, srv)
	post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2026-07-28","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	if answer := next(); !strings.Contains(answer, `"protocolVersion":"2025-11-25"`) {
		t.Errorf("initialize asking for 2026-07-28: %s", answer)
	}
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	post(`{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{` + meta + `}}`)
	if answer := next(); !strings.Contains(answer, `"code":-32601`) {
		t.Errorf("server/discover in a session: %s, want method not found", answer)
	}
}
