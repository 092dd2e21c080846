package mcp

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// serveListenerTest serves srv with ServeHTTPListener on a loopback port until the test
// ends, and returns the server's base URL.
func serveListenerTest(t *testing.T, srv *Server, opts *HTTPOptions) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.ServeHTTPListener(ctx, ln, opts) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeHTTPListener: %v", err)
		}
	})
	return "http://" + ln.Addr().String()
}

// A body announced and never sent loses its connection after BodyTimeout on every path the
// listener answers, MCP's or not: the 404 of a server without routes, the program's routes,
// the mux's redirect.
func TestHTTPBodyNeverSentOnAnyPath(t *testing.T) {
	routes := http.NewServeMux()
	routes.HandleFunc("/hello", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello") }) // never reads the body
	for name, opts := range map[string]*HTTPOptions{
		"no routes":   {BodyTimeout: 300 * time.Millisecond},
		"with routes": {BodyTimeout: 300 * time.Millisecond, Routes: routes},
	} {
		base := serveListenerTest(t, quietServer(nil), opts)
		for _, path := range []string{"/other", "/hello", "/a/../mcp"} {
			start := time.Now()
			conn := rawRequest(t, base, "POST "+path+" HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n")
			if out, closed := closedWithin(conn, 5*time.Second); !closed {
				t.Errorf("%s, POST %s: the connection was still open after 5s; read %.100q", name, path, out)
			} else if d := time.Since(start); d < 250*time.Millisecond {
				t.Errorf("%s, POST %s: closed after %v, before BodyTimeout", name, path, d)
			}
		}
	}
}

// Past MaxConns, a new connection sheds the one idle for longest; when none is idle, the new
// one is closed, and the connections in the middle of a request go on.
func TestServeHTTPListenerMaxConns(t *testing.T) {
	srv := quietServer(nil)
	base := serveListenerTest(t, srv, &HTTPOptions{MaxConns: 4, BodyTimeout: 2 * time.Second})
	ping := "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" // 404, quickly
	answered := func(conn net.Conn) bool {
		conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		buf := make([]byte, 4096)
		n, _ := conn.Read(buf)
		return strings.HasPrefix(string(buf[:n]), "HTTP/1.1 ")
	}
	// Four connections that send nothing, then one with a request: the oldest goes.
	var quiet []net.Conn
	for range 4 {
		quiet = append(quiet, rawRequest(t, base, ""))
		time.Sleep(20 * time.Millisecond)
	}
	if c := rawRequest(t, base, ping); !answered(c) {
		t.Fatal("a fifth connection with a request was not answered")
	} else {
		c.Close()
	}
	if _, closed := closedWithin(quiet[0], 2*time.Second); !closed {
		t.Error("the connection idle for longest was kept past MaxConns")
	}
	for i, c := range quiet[1:] {
		if _, closed := closedWithin(c, 100*time.Millisecond); closed {
			t.Errorf("idle connection %d was shed too", i+2)
		}
	}
	for _, c := range quiet {
		c.Close()
	}
	time.Sleep(100 * time.Millisecond)

	// Four connections each in the middle of a request (a body announced, not sent): a fifth
	// is closed at once, not answered; they end at BodyTimeout, and there is room again.
	var busy []net.Conn
	for range 4 {
		busy = append(busy, rawRequest(t, base, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n"))
	}
	time.Sleep(100 * time.Millisecond)
	fifth := rawRequest(t, base, ping)
	if out, closed := closedWithin(fifth, time.Second); !closed || out != "" {
		t.Errorf("a fifth connection with four in use: closed %v, answered %.100q; want closed unanswered", closed, out)
	}
	for _, c := range busy {
		closedWithin(c, 5*time.Second)
	}
	time.Sleep(100 * time.Millisecond)
	if c := rawRequest(t, base, ping); !answered(c) {
		t.Error("no room once the connections in use ended")
	}
}

// sseTestClient is a client of the HTTP+SSE transport, for tests: its session's stream and
// its endpoint.
type sseTestClient struct {
	t        *testing.T
	base     string
	endpoint string
	hc       *http.Client
	events   *bufio.Reader
	cancel   context.CancelFunc
	body     io.Closer
}

// openSSETest serves h on a test server and opens an initialized HTTP+SSE session.
func openSSETest(t *testing.T, h *HTTPHandler) *sseTestClient {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/sse", h)
	mux.Handle("/sse/message", h)
	ts := httptest.NewServer(mux)
	hc := &http.Client{Transport: &http.Transport{}}
	ctx, cancel := context.WithCancel(context.Background())
	c := &sseTestClient{t: t, base: ts.URL, hc: hc, cancel: cancel}
	t.Cleanup(func() {
		cancel()
		h.Close()
		ts.Close()
		hc.CloseIdleConnections()
	})
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/sse", nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	c.body = resp.Body
	c.events = bufio.NewReader(resp.Body)
	if name, data := c.next(); name != "endpoint" {
		t.Fatalf("first event %s %s", name, data)
	} else {
		c.endpoint = data
	}
	c.post(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	c.next()
	c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c
}

// next reads the next event of the session's stream, for 10 seconds at most.
func (c *sseTestClient) next() (name, data string) {
	c.t.Helper()
	watchdog := time.AfterFunc(10*time.Second, c.cancel)
	defer watchdog.Stop()
	for {
		line, err := c.events.ReadString('\n')
		if err != nil {
			c.t.Fatalf("reading the stream (for 10s at most): %v", err)
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

// post POSTs a message to the session and returns the status.
func (c *sseTestClient) post(body string) int {
	c.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, c.base+c.endpoint, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// The message endpoint of the HTTP+SSE transport counts bodies against
// the server's MaxBytesInFlight as the Streamable HTTP endpoint does: while being read, and while
// their requests run after the 202.
func TestSSEBodyBytesInFlight(t *testing.T) {
	release := make(chan struct{})
	srv := quietServer(&ServerOptions{MaxBytesInFlight: 1 << 20})
	srv.AddTool(Tool{Name: "hold", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *ToolCall) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		c.ReturnText("done")
	}})
	h := srv.HTTPHandler(&HTTPOptions{BodyTimeout: 500 * time.Millisecond})
	c := openSSETest(t, h)
	path := c.endpoint

	// A body being read holds its bytes.
	head := "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 600000\r\n\r\n"
	slow := rawRequest(t, c.base, head) // announces 600 kB, sends nothing
	time.Sleep(100 * time.Millisecond)
	if out, _ := closedWithin(rawRequest(t, c.base, head), 2*time.Second); !strings.HasPrefix(out, "HTTP/1.1 503") || !strings.Contains(out, "Retry-After: 1") {
		t.Errorf("a second 600 kB body with 1 MiB in flight: %.200q, want 503 with Retry-After", out)
	}
	closedWithin(slow, 3*time.Second) // gone at BodyTimeout

	// So does a request served after its 202, until it is answered.
	pad := strings.Repeat("p", 600000)
	if s := c.post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hold","arguments":{"pad":"` + pad + `"}}}`); s != http.StatusAccepted {
		t.Fatalf("a 600 kB call: %d, want 202", s)
	}
	if s := c.post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hold","arguments":{"pad":"` + pad + `"}}}`); s != http.StatusServiceUnavailable {
		t.Errorf("a second 600 kB call while the first runs, with 1 MiB in flight: %d, want 503", s)
	}
	close(release)
	if _, data := c.next(); !strings.Contains(data, `"id":1`) || !strings.Contains(data, "done") {
		t.Fatalf("the first call answered %s", data)
	}
	time.Sleep(50 * time.Millisecond)
	if s := c.post(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"hold","arguments":{"pad":"` + pad + `"}}}`); s != http.StatusAccepted {
		t.Errorf("a 600 kB call once the first was answered: %d, want 202", s)
	}
	if _, data := c.next(); !strings.Contains(data, `"id":3`) {
		t.Errorf("the third call answered %s", data)
	}
}

// One HTTP+SSE session serves at most MaxConcurrentRequests at once; past it a request is
// refused at once on the stream ("server busy"), and holds no goroutine.
func TestSSEMaxConcurrentRequests(t *testing.T) {
	release := make(chan struct{})
	srv := quietServer(&ServerOptions{MaxConcurrentRequests: 20})
	srv.AddTool(Tool{Name: "hold", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *ToolCall) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		c.ReturnText("done")
	}})
	c := openSSETest(t, srv.HTTPHandler(nil))
	before := runtime.NumGoroutine()
	for i := range 200 {
		if s := c.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"hold","arguments":{}}}`, i+10)); s != http.StatusAccepted {
			t.Fatalf("POST %d: %d", i, s)
		}
	}
	for range 180 {
		if _, data := c.next(); !strings.Contains(data, `"code":-32000`) || !strings.Contains(data, "server busy: 20 requests") {
			t.Fatalf("while 20 run, another request got %s", data)
		}
	}
	if n := runtime.NumGoroutine(); n > before+20+10 {
		t.Errorf("%d goroutines with 20 requests running (%d before)", n, before)
	}
	close(release)
	for range 20 {
		if _, data := c.next(); !strings.Contains(data, "done") {
			t.Fatalf("a running request ended with %s", data)
		}
	}
	// With the session's requests answered, it serves as many again.
	c.post(`{"jsonrpc":"2.0","id":1000,"method":"tools/call","params":{"name":"hold","arguments":{}}}`)
	if _, data := c.next(); !strings.Contains(data, `"id":1000`) || !strings.Contains(data, "done") {
		t.Errorf("after the others finished: %s", data)
	}
}

// One Streamable HTTP session serves at most MaxConcurrentRequests at once; past it a
// request gets 503 with Retry-After and "server busy" for its id, at once.
func TestHTTPSessionMaxConcurrentRequests(t *testing.T) {
	release := make(chan struct{})
	var started sync.WaitGroup
	srv := quietServer(&ServerOptions{MaxConcurrentRequests: 10})
	srv.AddTool(Tool{Name: "hold", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *ToolCall) {
		started.Done()
		select {
		case <-release:
		case <-ctx.Done():
		}
		c.ReturnText("done")
	}})
	_, c := serveHTTPTest(t, srv, nil)
	c.initialize(`{}`)
	call := func(id int) *http.Response {
		return c.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"hold","arguments":{}}}`, id), "Accept", "application/json")
	}
	started.Add(10)
	answers := make(chan *http.Response, 10)
	for i := range 10 {
		go func() { answers <- call(i + 1) }()
	}
	started.Wait()
	before := runtime.NumGoroutine()
	for i := range 50 {
		resp := call(100 + i)
		m := jsonBody(t, resp)
		e, _ := m["error"].(map[string]any)
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || e == nil || e["code"] != float64(codeServerBusy) || m["id"] != float64(100+i) {
			t.Fatalf("while 10 run, another request got %d %v", resp.StatusCode, m)
		}
	}
	if n := runtime.NumGoroutine(); n > before+10 {
		t.Errorf("%d goroutines after 50 refused requests (%d before)", n, before)
	}
	close(release)
	for range 10 {
		if m := jsonBody(t, <-answers); m["result"] == nil {
			t.Errorf("a running request ended with %v", m)
		}
	}
	started.Add(1)
	if m := jsonBody(t, call(1000)); m["result"] == nil {
		t.Errorf("after the others finished: %v", m)
	}
}

// ping pings the session of c and returns the status.
func (c *httpClient) ping() int {
	c.t.Helper()
	resp := c.post(`{"jsonrpc":"2.0","id":"ping","method":"ping"}`, "Accept", "application/json")
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// Past MaxConversations, a new session sheds the one used least recently.
func TestHTTPMaxSessionsShedsLeastRecentlyUsed(t *testing.T) {
	_, a := serveHTTPTest(t, quietServer(&ServerOptions{MaxConversations: 3}), nil)
	clients := map[string]*httpClient{"a": a}
	for _, name := range []string{"b", "c", "d", "e"} {
		clients[name] = newHTTPClient(t, a.url)
	}
	for _, name := range []string{"a", "b", "c"} {
		clients[name].initialize(`{}`)
	}
	a.ping()                      // used least recently: b, c, a
	clients["d"].initialize(`{}`) // sheds b: c, a, d
	clients["c"].ping()           // a, d, c
	clients["e"].initialize(`{}`) // sheds a: d, c, e
	for name, want := range map[string]int{"a": 404, "b": 404, "c": 200, "d": 200, "e": 200} {
		if got := clients[name].ping(); got != want {
			t.Errorf("session %s: ping %d, want %d", name, got, want)
		}
	}
}

// A flood of ten times MaxConversations new sessions, never used, neither sheds a session in use
// (its GET stream open, as clients keep it), even one that sends nothing, nor fails the
// requests of one that does; the flood's own
// sessions make room for each other, and what they held is let go.
func TestHTTPActiveSessionSurvivesASessionFlood(t *testing.T) {
	srv := quietServer(&ServerOptions{MaxConversations: 10})
	h, active := serveHTTPTest(t, srv, nil)
	active.initialize(`{}`)
	active.do(http.MethodGet, "Accept", "text/event-stream")
	// A session that only listens on its GET stream, used least recently of all.
	listening := newHTTPClient(t, active.url)
	listening.initialize(`{}`)
	listening.do(http.MethodGet, "Accept", "text/event-stream")
	before := runtime.NumGoroutine()
	stop := make(chan struct{})
	failed := make(chan string, 1000)
	used := make(chan int, 1)
	go func() {
		n := 0
		defer func() { used <- n }()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if s := active.ping(); s != http.StatusOK {
				failed <- fmt.Sprintf("ping %d", s)
			}
			n++
		}
	}()
	initialize := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"flood","version":"1"}}}`
	refused := 0
	for range 100 {
		flood := newHTTPClient(t, active.url)
		resp := flood.post(initialize, "Accept", "application/json")
		io.Copy(io.Discard, resp.Body)
		if resp.StatusCode != http.StatusOK {
			refused++
		}
	}
	close(stop)
	if n := <-used; n == 0 {
		t.Error("the active session made no request during the flood: the test does not test")
	}
	close(failed)
	for f := range failed {
		t.Errorf("the active session's request failed during the flood: %s", f)
	}
	if refused > 0 {
		t.Errorf("%d of 100 new sessions refused, with idle sessions to shed", refused)
	}
	if s := active.ping(); s != http.StatusOK {
		t.Errorf("the active session after the flood: ping %d", s)
	}
	if s := listening.ping(); s != http.StatusOK {
		t.Errorf("the listening session after the flood: ping %d", s)
	}
	h.mu.Lock()
	open := len(h.sessions)
	h.mu.Unlock()
	if open > 10 {
		t.Errorf("%d sessions open, MaxConversations 10", open)
	}
	if n := runtime.NumGoroutine(); n > before+20 {
		t.Errorf("%d goroutines after a flood of 100 sessions (%d before)", n, before)
	}
}
