package mcp

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestHTTPSessionLifecycle(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(echoTool("echo"))
	_, c := serveHTTPTest(t, srv, nil)
	c.initialize(`{}`)
	for _, ch := range c.session {
		if ch < 0x21 || ch > 0x7e {
			t.Fatalf("session id %q has a character outside visible ASCII", c.session)
		}
	}
	if len(c.session) < 32 {
		t.Errorf("session id %q is short", c.session)
	}
	m := jsonBody(t, c.post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`))
	if toolText := result(t, m)["content"].([]any)[0].(map[string]any)["text"]; toolText != "hi" {
		t.Fatalf("tools/call: %v", m)
	}
	if s := c.do(http.MethodDelete).StatusCode; s != http.StatusNoContent {
		t.Fatalf("DELETE: status %d, want 204", s)
	}
	if s := c.post(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`).StatusCode; s != http.StatusNotFound {
		t.Fatalf("request to a deleted session: status %d, want 404", s)
	}
	if s := c.do(http.MethodDelete).StatusCode; s != http.StatusNotFound {
		t.Fatalf("second DELETE: status %d, want 404", s)
	}
	// A new initialize starts a new session.
	old := c.session
	c.session = ""
	c.initialize(`{}`)
	if c.session == old {
		t.Fatal("the new session has the old id")
	}
}

func TestHTTPStreamsMessagesBeforeTheResponse(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(Tool{
		Name: "work", Description: "Logs and reports progress.", InputSchema: `{"type":"object"}`,
		Handler: func(ctx context.Context, c *ToolCall) {
			Log(ctx, LevelInfo, "", "starting")
			Progress(ctx, 1, 2, "")
			Progress(ctx, 2, 2, "")
			c.ReturnText("done")
		},
	})
	_, c := serveHTTPTest(t, srv, nil)
	c.initialize(`{}`)
	sse := readSSE(t, c.post(`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"work","_meta":{"progressToken":7}}}`))
	priming, _ := sse.next()
	if priming.id == "" || priming.data != "" || !priming.retry {
		t.Fatalf("first event %+v, want a priming event: an id, retry, no data", priming)
	}
	var methods []string
	for {
		m := sse.message()
		if m["id"] == "a" {
			if text := result(t, m)["content"].([]any)[0].(map[string]any)["text"]; text != "done" {
				t.Fatalf("response %v", m)
			}
			break
		}
		methods = append(methods, m["method"].(string))
		if m["method"] == "notifications/progress" && m["params"].(map[string]any)["progressToken"] != float64(7) {
			t.Errorf("progress token not echoed: %v", m)
		}
	}
	if want := "notifications/message notifications/progress notifications/progress"; strings.Join(methods, " ") != want {
		t.Errorf("messages %v, want %s", methods, want)
	}
	sse.ended() // the stream ends with its response
}

func TestHTTPRequestsToTheClientRideTheRequestStream(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(Tool{
		Name: "ask", Description: "Samples.", InputSchema: `{"type":"object"}`,
		Handler: func(ctx context.Context, c *ToolCall) {
			res, err := Sample(ctx, &CreateMessageRequest{Messages: []SamplingMessage{{Role: RoleUser, Content: Text{Text: "hi"}}}, MaxTokens: 5})
			if err != nil {
				c.ReturnError(err)
				return
			}
			c.ReturnText("model said " + res.Content.(Text).Text)
		},
	})
	_, c := serveHTTPTest(t, srv, nil)
	c.initialize(`{"sampling":{}}`)
	sse := readSSE(t, c.post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask"}}`))
	req := sse.message()
	if req["method"] != "sampling/createMessage" {
		t.Fatalf("want sampling/createMessage, got %v", req)
	}
	id, _ := json.Marshal(req["id"])
	answer := `{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"role":"assistant","content":{"type":"text","text":"hello"},"model":"m"}}`
	if s := c.post(answer).StatusCode; s != http.StatusAccepted {
		t.Fatalf("posting the answer: status %d, want 202", s)
	}
	if text := result(t, sse.message())["content"].([]any)[0].(map[string]any)["text"]; text != "model said hello" {
		t.Fatalf("result text %q", text)
	}
}

func TestHTTPStandaloneStreamCarriesSessionMessages(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(echoTool("echo"))
	srv.AddResource(Resource{URI: "test://r", Name: "r", Read: func(ctx context.Context, uri string) ([]ResourceContents, error) {
		return textContents(uri, "x"), nil
	}})
	_, c := serveHTTPTest(t, srv, nil)
	c.initialize(`{}`)
	// A notification sent before the client opens the stream waits for it.
	srv.AddTool(echoTool("echo2"))
	jsonBody(t, c.post(`{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"test://r"}}`))
	sse := readSSE(t, c.do(http.MethodGet, "Accept", "text/event-stream"))
	if m := sse.message(); m["method"] != "notifications/tools/list_changed" {
		t.Fatalf("got %v, want the list_changed sent before the stream opened", m)
	}
	srv.NotifyResourceUpdated("test://r")
	srv.NotifyResourceUpdated("test://other") // not subscribed
	m := sse.message()
	if m["method"] != "notifications/resources/updated" || m["params"].(map[string]any)["uri"] != "test://r" {
		t.Fatalf("got %v, want resources/updated for test://r", m)
	}
	// A second GET takes the stream over; the first connection ends.
	sse2 := readSSE(t, c.do(http.MethodGet, "Accept", "text/event-stream"))
	sse.ended()
	srv.AddTool(echoTool("echo3"))
	if m := sse2.message(); m["method"] != "notifications/tools/list_changed" {
		t.Fatalf("got %v on the new stream", m)
	}
}

func TestHTTPCancelledRequestGetsNoResponse(t *testing.T) {
	var started, ended atomic.Int32
	srv := quietServer(nil)
	srv.AddTool(blockingTool(&started, &ended))
	_, c := serveHTTPTest(t, srv, nil)
	c.initialize(`{}`)
	done := make(chan *http.Response, 1)
	go func() { done <- c.post(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"block"}}`) }()
	for started.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	if s := c.post(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"changed my mind"}}`).StatusCode; s != 202 {
		t.Fatalf("cancel notification: status %d", s)
	}
	resp := <-done
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusAccepted || len(body) != 0 {
		t.Fatalf("cancelled request answered %d %q, want 202 and nothing", resp.StatusCode, body)
	}
	if ended.Load() != 1 {
		t.Fatal("the tool's context was not cancelled")
	}
}

func TestHTTPIdleSessionsEnd(t *testing.T) {
	srv := quietServer(&ServerOptions{IdleTimeout: 300 * time.Millisecond})
	srv.AddTool(echoTool("echo"))
	_, c := serveHTTPTest(t, srv, nil)
	c.initialize(`{}`)
	// A session in use does not idle out: a standalone stream is open past the timeout.
	sse := readSSE(t, c.do(http.MethodGet, "Accept", "text/event-stream"))
	sse.next() // the priming event
	time.Sleep(600 * time.Millisecond)
	if s := c.post(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`).StatusCode; s != 200 {
		t.Fatalf("a session with an open stream ended: status %d", s)
	}
	c.closeAll() // the stream closes: from now on the session is idle
	time.Sleep(900 * time.Millisecond)
	if s := c.post(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`).StatusCode; s != http.StatusNotFound {
		t.Fatalf("an idle session is still there: status %d, want 404", s)
	}
}

// HTTP sessions are known to the server, so list_changed and resources/updated reach them.
func TestHTTPSessionsHearServerNotifications(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(echoTool("echo"))
	h, c := serveHTTPTest(t, srv, nil)
	c.initialize(`{}`)
	srv.mu.RLock()
	n := len(srv.sessions)
	srv.mu.RUnlock()
	if n == 0 {
		t.Errorf("Server.sessions is empty with one live HTTP session: notifications cannot reach it")
	}
	srv.AddTool(echoTool("echo2"))
	hs := h.sessions[c.session]
	evs, _, _ := hs.standalone.pending(nil, 0, false) // no connection writes it yet: nil is its owner
	if len(evs) == 0 {
		t.Errorf("no list_changed queued on the standalone stream after AddTool")
	}
}

// Deleting a session while a JSON-mode POST waits answers that POST with an error.
func TestHTTPDeleteAnswersWaitingRequests(t *testing.T) {
	var started, ended atomic.Int32
	srv := quietServer(nil)
	srv.AddTool(blockingTool(&started, &ended))
	_, c := serveHTTPTest(t, srv, nil)
	c.initialize(`{}`)
	got := make(chan *http.Response, 1)
	go func() {
		got <- c.post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"block"}}`, "Accept", "application/json")
	}()
	for started.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	c.do(http.MethodDelete)
	resp := <-got
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), `"error"`) {
		t.Errorf("POST whose session was deleted: %d %q, want 404 with an error", resp.StatusCode, body)
	}
}

// initialize sent as a notification starts no session.
func TestHTTPInitializeAsANotificationIsRejected(t *testing.T) {
	srv := quietServer(nil)
	_, c := serveHTTPTest(t, srv, nil)
	resp := c.post(`{"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-11-25"}}`)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Mcp-Session-Id") != "" {
		t.Errorf("initialize notification: %d %q, want 400 and no session", resp.StatusCode, body)
	}
}

// Past MaxConversations, with every session in use (its GET stream open), initialize gets 503;
// a session idle again is shed for a new one, and deleting one makes room.
func TestHTTPMaxSessions(t *testing.T) {
	srv := quietServer(&ServerOptions{MaxConversations: 2})
	_, c := serveHTTPTest(t, srv, nil)
	c.initialize(`{}`)
	second := newHTTPClient(t, c.url)
	second.initialize(`{}`)
	c.do(http.MethodGet, "Accept", "text/event-stream")
	secondStream := second.do(http.MethodGet, "Accept", "text/event-stream")
	third := newHTTPClient(t, c.url)
	initialize := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	resp := third.post(initialize)
	m := jsonBody(t, resp)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Mcp-Session-Id") != "" || m["error"] == nil || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("a third session beyond MaxConversations 2, both in use: %d %v, want 503 with Retry-After", resp.StatusCode, m)
	}
	// The second's stream closes: idle, it is shed for the third.
	secondStream.Body.Close()
	deadline := time.Now().Add(5 * time.Second)
	for resp = third.post(initialize); resp.StatusCode != http.StatusOK && time.Now().Before(deadline); resp = third.post(initialize) {
		time.Sleep(20 * time.Millisecond)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("initialize with an idle session to shed: %d", resp.StatusCode)
	}
	if s := second.post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`).StatusCode; s != http.StatusNotFound {
		t.Errorf("the idle session shed: ping %d, want 404", s)
	}
	if m := jsonBody(t, c.post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`, "Accept", "application/json")); m["result"] == nil {
		t.Errorf("the session in use: %v", m)
	}
	// Deleting one makes room.
	c.do(http.MethodDelete)
	newHTTPClient(t, c.url).initialize(`{}`)
}

func TestSubscribeNeedsAResource(t *testing.T) {
	srv := quietServer(nil)
	srv.AddResource(Resource{URI: "test://r", Name: "r", Read: func(ctx context.Context, uri string) ([]ResourceContents, error) {
		return textContents(uri, "x"), nil
	}})
	srv.AddResourceTemplate(ResourceTemplate{URITemplate: "test://items/{id}", Name: "item", Read: func(ctx context.Context, uri string, vars map[string]string) ([]ResourceContents, error) {
		return textContents(uri, vars["id"]), nil
	}})
	h := start(t, srv)
	h.initialize("2025-11-25")
	for uri, code := range map[string]int{"test://r": 0, "test://items/7": 0, "test://nothing": CodeResourceNotFound} {
		m := h.roundTrip(`{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"` + uri + `"}}`)
		if code == 0 {
			result(t, m)
		} else if got := errorCode(t, m); got != code {
			t.Errorf("subscribe %s: error %d, want %d", uri, got, code)
		}
	}
}
