package mcp

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// The HTTP+SSE transport of revision 2024-11-05: GET /sse opens a session's stream, whose
// endpoint event names where to POST; answers come on the stream; the session ends with the
// stream, and the checks of the MCP endpoint apply.
func TestHTTPPlusSSETransport(t *testing.T) {
	before := runtimeGoroutines()
	srv := quietServer(&ServerOptions{MaxConversations: 1})
	srv.AddTool(echoTool("echo"))
	h := srv.HTTPHandler(nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	mux.Handle("/sse", h)
	mux.Handle("/sse/message", h)
	ts := httptest.NewServer(mux)
	defer ts.Close()
	defer h.Close()
	hc := &http.Client{Transport: &http.Transport{}}

	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/sse", nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET /sse: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	events := bufio.NewReader(resp.Body)
	next := func() (name, data string) {
		t.Helper()
		for {
			line, err := events.ReadString('\n')
			if err != nil {
				t.Fatalf("reading the stream: %v", err)
			}
			line = strings.TrimRight(line, "\n")
			switch {
			case strings.HasPrefix(line, "event: "):
				name = line[len("event: "):]
			case strings.HasPrefix(line, "data: "):
				data = line[len("data: "):]
			case line == "" && data != "":
				return name, data
			}
		}
	}
	name, endpoint := next()
	if name != "endpoint" || !strings.HasPrefix(endpoint, "/sse/message?sessionId=") {
		t.Fatalf("first event %s %q, want the endpoint", name, endpoint)
	}
	post := func(body string, header ...string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, ts.URL+endpoint, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	if s := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"old","version":"1"}}}`).StatusCode; s != 202 {
		t.Fatalf("POST initialize: %d, want 202", s)
	}
	if _, data := next(); !strings.Contains(data, `"protocolVersion":"2024-11-05"`) {
		t.Fatalf("initialize answered %s", data)
	}
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`)
	if name, data := next(); name != "message" || !strings.Contains(data, `"text":"hi"`) {
		t.Fatalf("tools/call answered %s %s", name, data)
	}
	// A change to the tools reaches the session's stream.
	srv.AddTool(echoTool("echo2"))
	if _, data := next(); !strings.Contains(data, "notifications/tools/list_changed") {
		t.Fatalf("want list_changed, got %s", data)
	}

	// The checks of the MCP endpoint: another host, a body too large, an unknown session, the
	// session bound.
	if s := post(`{"jsonrpc":"2.0","id":3,"method":"ping"}`, "Origin", "http://evil.example").StatusCode; s != 403 {
		t.Errorf("a foreign origin: %d, want 403", s)
	}
	if s := post(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + strings.Repeat("x", 17<<20) + `"}}}`).StatusCode; s != 413 {
		t.Errorf("a body over the limit: %d, want 413", s)
	}
	req2, _ := http.NewRequest(http.MethodPost, ts.URL+"/sse/message?sessionId=nope", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req2.Header.Set("Content-Type", "application/json")
	if resp, _ := hc.Do(req2); resp.StatusCode != 404 {
		t.Errorf("an unknown session: %d, want 404", resp.StatusCode)
	} else {
		resp.Body.Close()
	}
	req3, _ := http.NewRequest(http.MethodGet, ts.URL+"/sse", nil)
	if resp, _ := hc.Do(req3); resp.StatusCode != 503 {
		t.Errorf("a second session beyond MaxConversations 1: %d, want 503", resp.StatusCode)
	} else {
		resp.Body.Close()
	}

	// The session ends with its stream.
	cancel()
	resp.Body.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if s := post(`{"jsonrpc":"2.0","id":4,"method":"ping"}`).StatusCode; s == 404 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the session outlived its stream")
		}
		time.Sleep(10 * time.Millisecond)
	}
	ts.Close()
	h.Close()
	hc.CloseIdleConnections()
	waitForGoroutines(t, before)
}
