package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// httpClient talks to an HTTPHandler the way a Streamable HTTP client does.
type httpClient struct {
	t       *testing.T
	url     string
	session string
	hc      http.Client
	mu      sync.Mutex
	open    []*http.Response
}

func serveHTTPTest(t *testing.T, srv *Server, opts *HTTPOptions) (*HTTPHandler, *httpClient) {
	t.Helper()
	h := srv.HTTPHandler(opts)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		h.Close()
		ts.Close()
	})
	return h, newHTTPClient(t, ts.URL)
}

func newHTTPClient(t *testing.T, url string) *httpClient {
	c := &httpClient{t: t, url: url}
	c.hc.Transport = &http.Transport{DisableKeepAlives: true}
	t.Cleanup(c.closeAll)
	return c
}

// closeAll closes every response body, which ends the client's connections.
func (c *httpClient) closeAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range c.open {
		r.Body.Close()
	}
	c.open = nil
}

func (c *httpClient) send(req *http.Request, header []string) *http.Response {
	c.t.Helper()
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			req.Host = header[i+1]
		} else {
			req.Header.Set(header[i], header[i+1])
		}
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		// Fatal must not be called from another goroutine than the test's: a request sent
		// in the background (go c.post(...)) reports its failure with Error instead.
		c.t.Error(err)
		runtime.Goexit()
	}
	c.mu.Lock()
	c.open = append(c.open, resp)
	c.mu.Unlock()
	return resp
}

// post sends one message and returns the response, whose body the caller reads.
func (c *httpClient) post(body string, header ...string) *http.Response {
	c.t.Helper()
	req, err := http.NewRequest(http.MethodPost, c.url, strings.NewReader(body))
	if err != nil {
		c.t.Error(err) // not Fatal: post may run in a goroutine of its own (see send)
		runtime.Goexit()
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	return c.send(req, header)
}

func (c *httpClient) do(method string, header ...string) *http.Response {
	c.t.Helper()
	req, err := http.NewRequest(method, c.url, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	return c.send(req, header)
}

// initialize starts a session with the given client capabilities.
func (c *httpClient) initialize(caps string) {
	c.t.Helper()
	c.initializeVersion("2025-11-25", caps)
}

// initializeVersion starts a session of a protocol version.
func (c *httpClient) initializeVersion(version, caps string) {
	c.t.Helper()
	resp := c.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":` + caps + `,"clientInfo":{"name":"t","version":"1"}}}`)
	if resp.StatusCode != http.StatusOK {
		c.t.Fatalf("initialize: status %d", resp.StatusCode)
	}
	c.session = resp.Header.Get("Mcp-Session-Id")
	if c.session == "" {
		c.t.Fatal("initialize: no Mcp-Session-Id")
	}
	if s := c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`).StatusCode; s != http.StatusAccepted {
		c.t.Fatalf("notifications/initialized: status %d, want 202", s)
	}
}

// jsonBody decodes a plain JSON answer.
func jsonBody(t *testing.T, resp *http.Response) map[string]any {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type %q, want application/json", ct)
	}
	var m map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

type sseEvent struct {
	id, data string
	retry    bool
}

// sseReader reads the events of an SSE response.
type sseReader struct {
	t  *testing.T
	r  *bufio.Reader
	ch chan sseEvent
}

func readSSE(t *testing.T, resp *http.Response) *sseReader {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q, want text/event-stream", ct)
	}
	s := &sseReader{t: t, r: bufio.NewReader(resp.Body), ch: make(chan sseEvent, 64)}
	go func() {
		defer close(s.ch)
		var ev sseEvent
		for {
			line, err := s.r.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimSuffix(line, "\n")
			switch {
			case line == "":
				s.ch <- ev
				ev = sseEvent{}
			case strings.HasPrefix(line, "id: "):
				ev.id = line[4:]
			case strings.HasPrefix(line, "retry: "):
				ev.retry = true
			case strings.HasPrefix(line, "data: "):
				ev.data += line[6:]
			}
		}
	}()
	return s
}

// next returns the next event, or fails; ok is false when the stream has ended.
func (s *sseReader) next() (ev sseEvent, ok bool) {
	s.t.Helper()
	select {
	case ev, ok = <-s.ch:
		return ev, ok
	case <-time.After(5 * time.Second):
		s.t.Fatal("no SSE event within 5s")
		return ev, false
	}
}

// message returns the next event with data, decoded.
func (s *sseReader) message() map[string]any {
	s.t.Helper()
	for {
		ev, ok := s.next()
		if !ok {
			s.t.Fatal("the stream ended")
		}
		if ev.data == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(ev.data), &m); err != nil {
			s.t.Fatalf("event data is not JSON: %v: %q", err, ev.data)
		}
		return m
	}
}

func (s *sseReader) ended() {
	s.t.Helper()
	if ev, ok := s.next(); ok {
		s.t.Fatalf("the stream goes on: %+v", ev)
	}
}

// blockingTool blocks until its context ends, counting the calls that started and ended.
func blockingTool(started, ended *atomic.Int32) Tool {
	return Tool{
		Name: "block", Description: "Blocks until cancelled.", InputSchema: `{"type":"object"}`,
		Handler: func(ctx context.Context, c *ToolCall) {
			started.Add(1)
			<-ctx.Done()
			ended.Add(1)
			c.ReturnText("cancelled")
		},
	}
}

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

func TestHTTPResumesAStreamWithLastEventID(t *testing.T) {
	srv := quietServer(nil)
	release := make(chan struct{})
	srv.AddTool(Tool{
		Name: "poll", Description: "Closes its connection, then answers.", InputSchema: `{"type":"object"}`,
		Handler: func(ctx context.Context, c *ToolCall) {
			Log(ctx, LevelInfo, "", "before")
			CloseSSEStream(ctx)
			<-release
			Log(ctx, LevelInfo, "", "after")
			c.ReturnText("finished")
		},
	})
	_, c := serveHTTPTest(t, srv, nil)
	c.initialize(`{}`)
	sse := readSSE(t, c.post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"poll"}}`))
	var last string
	for {
		ev, ok := sse.next()
		if !ok {
			break // the server closed the connection mid-call
		}
		last = ev.id
	}
	if last == "" {
		t.Fatal("no event id to resume from")
	}
	close(release)
	resumed := readSSE(t, c.do(http.MethodGet, "Accept", "text/event-stream", "Last-Event-Id", last))
	if m := resumed.message(); m["method"] != "notifications/message" || m["params"].(map[string]any)["data"] != "after" {
		t.Fatalf("first resumed message %v, want the log message sent after the disconnect", m)
	}
	if text := result(t, resumed.message())["content"].([]any)[0].(map[string]any)["text"]; text != "finished" {
		t.Fatalf("resumed result %q", text)
	}
	resumed.ended()
}

func TestHTTPStandaloneStreamCarriesSessionMessages(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(echoTool("echo"))
	srv.AddResource(Resource{URI: "test://r", Name: "r", Read: func(ctx context.Context, uri string) ([]ResourceContents, error) {
		return TextContents(uri, "x"), nil
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

// A client that goes away mid-call leaves nothing running: at once when it could not
// resume (it took JSON only), after the resume timeout when it could (SSE).
func TestHTTPDisconnectMidCallLeavesNoGoroutines(t *testing.T) {
	for _, tc := range []struct {
		name, accept string
	}{{"JSON", "application/json"}, {"SSE", "text/event-stream"}} {
		t.Run(tc.name, func(t *testing.T) {
			before := runtimeGoroutines()
			var started, ended atomic.Int32
			srv := quietServer(nil)
			srv.AddTool(Tool{
				Name: "block", Description: "Logs, then blocks until cancelled.", InputSchema: `{"type":"object"}`,
				Handler: func(ctx context.Context, c *ToolCall) {
					Log(ctx, LevelInfo, "", "working") // makes an SSE stream start
					started.Add(1)
					<-ctx.Done()
					ended.Add(1)
				},
			})
			h := srv.HTTPHandler(&HTTPOptions{ResumeTimeout: 50 * time.Millisecond})
			ts := httptest.NewServer(h)
			c := newHTTPClient(t, ts.URL)
			c.initialize(`{}`)

			ctx, cancel := context.WithCancel(context.Background())
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"block"}}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", tc.accept)
			req.Header.Set("Mcp-Session-Id", c.session)
			errc := make(chan error, 1)
			go func() {
				resp, err := c.hc.Do(req)
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				errc <- err
			}()
			for started.Load() == 0 {
				time.Sleep(time.Millisecond)
			}
			cancel() // the client disconnects
			if err := <-errc; !errors.Is(err, context.Canceled) {
				t.Fatalf("request ended with %v, want it cancelled", err)
			}
			deadline := time.Now().Add(5 * time.Second)
			for ended.Load() == 0 {
				if time.Now().After(deadline) {
					t.Fatal("the tool was not cancelled after its client disconnected")
				}
				time.Sleep(time.Millisecond)
			}
			// The session itself lives on until deleted; then nothing is left.
			if s := c.do(http.MethodDelete).StatusCode; s != http.StatusNoContent {
				t.Fatalf("DELETE: %d", s)
			}
			c.closeAll()
			ts.Close()
			h.Close()
			waitForGoroutines(t, before)
		})
	}
}

func runtimeGoroutines() int {
	time.Sleep(20 * time.Millisecond) // let earlier tests' connections wind down
	return runtime.NumGoroutine()
}

func TestHTTPShutdownLetsRunningCallsFinish(t *testing.T) {
	srv := quietServer(nil)
	var slowStarted atomic.Int32
	srv.AddTool(Tool{
		Name: "slow", Description: "Takes 200 ms.", InputSchema: `{"type":"object"}`,
		Handler: func(ctx context.Context, c *ToolCall) {
			slowStarted.Add(1)
			select {
			case <-time.After(200 * time.Millisecond):
				c.ReturnText("finished")
			case <-ctx.Done():
				c.ReturnText("cancelled")
			}
		},
	})
	var started, ended atomic.Int32
	srv.AddTool(blockingTool(&started, &ended))
	h, c := serveHTTPTest(t, srv, nil)
	c.initialize(`{}`)

	slow := make(chan map[string]any, 1)
	go func() {
		slow <- jsonBody(t, c.post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}`))
	}()
	blocked := make(chan *http.Response, 1)
	go func() { blocked <- c.post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"block"}}`) }()
	for started.Load() == 0 || slowStarted.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	t0 := time.Now()
	err := h.Shutdown(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown: %v, want the deadline exceeded (one call never ends by itself)", err)
	}
	if d := time.Since(t0); d < time.Second || d > 3*time.Second {
		t.Errorf("Shutdown took %v, want about its 1s deadline", d)
	}
	if text := result(t, <-slow)["content"].([]any)[0].(map[string]any)["text"]; text != "finished" {
		t.Fatalf("the running call was not let finish: %q", text)
	}
	if ended.Load() != 1 {
		t.Fatal("the call that outlived the deadline was not cancelled")
	}
	<-blocked
	if s := c.post(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`).StatusCode; s != http.StatusServiceUnavailable {
		t.Fatalf("request after shutdown: status %d, want 503", s)
	}
}

func TestHTTPIdleSessionsEnd(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(echoTool("echo"))
	_, c := serveHTTPTest(t, srv, &HTTPOptions{SessionIdleTimeout: 300 * time.Millisecond})
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

func TestListenAndServeHTTPStopsWithItsContext(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(echoTool("echo"))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.ListenAndServeHTTP(ctx, "127.0.0.1:0", nil) }()
	time.Sleep(50 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ListenAndServeHTTP: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ListenAndServeHTTP did not return after its context was cancelled")
	}
}

// Clients before 2025-11-25 get no priming event (an event with empty data, which their
// SDKs take for a message that is not JSON), and their streams are not closed early for
// polling, which they would not resume: the result comes on the POST's own connection.
func TestHTTPNoPrimingOrPollingBefore20251125(t *testing.T) {
	for _, version := range []string{"2025-03-26", "2025-06-18"} {
		t.Run(version, func(t *testing.T) {
			srv := quietServer(nil)
			srv.AddTool(Tool{
				Name: "poll", Description: "Asks to close its connection, then answers.", InputSchema: `{"type":"object"}`,
				Handler: func(ctx context.Context, c *ToolCall) {
					Log(ctx, LevelInfo, "", "before")
					CloseSSEStream(ctx)
					Log(ctx, LevelInfo, "", "after")
					c.ReturnText("finished")
				},
			})
			_, c := serveHTTPTest(t, srv, nil)
			c.initializeVersion(version, `{}`)
			sse := readSSE(t, c.post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"poll"}}`, "Mcp-Protocol-Version", version))
			var datas []string
			for {
				ev, ok := sse.next()
				if !ok {
					break
				}
				if ev.retry && ev.id == "" && ev.data == "" {
					continue // the retry interval alone: no event
				}
				if ev.data == "" {
					t.Errorf("an event with empty data (id %q) went to a %s client", ev.id, version)
				}
				datas = append(datas, ev.data)
			}
			if len(datas) != 3 || !strings.Contains(datas[2], "finished") {
				t.Errorf("the stream carried %q, want both log messages and the result", datas)
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
