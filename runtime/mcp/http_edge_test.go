package mcp

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

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

// A call whose client disconnects, resumes, and disconnects again for good is cancelled
// once the resume timeout passes after the last disconnect.
func TestHTTPResumedThenAbandonedCallIsCancelled(t *testing.T) {
	var started, ended atomic.Int32
	srv := quietServer(nil)
	srv.AddTool(Tool{
		Name: "block", Description: "d", InputSchema: `{"type":"object"}`,
		Handler: func(ctx context.Context, c *ToolCall) {
			Log(ctx, LevelInfo, "", "working") // forces SSE
			started.Add(1)
			<-ctx.Done()
			ended.Add(1)
		},
	})
	// The resume timeout leaves room for a loaded machine (go test -race ./... with the
	// other packages) between the disconnect and the resumption.
	const resumeTimeout = 400 * time.Millisecond
	h := srv.HTTPHandler(&HTTPOptions{ResumeTimeout: resumeTimeout})
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Close()
	c := newHTTPClient(t, ts.URL)
	c.initialize(`{}`)

	open := func(method, body string, hdr ...string) (*http.Response, context.CancelFunc) {
		ctx, cancel := context.WithCancel(context.Background())
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		req, _ := http.NewRequestWithContext(ctx, method, ts.URL, rd)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", c.session)
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp, cancel
	}
	resp, cancel1 := open("POST", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"block"}}`)
	br := bufio.NewReader(resp.Body)
	var last string
	for started.Load() == 0 || last == "" || !strings.HasSuffix(last, "-1") {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(line, "id: ") {
			last = strings.TrimSpace(line[4:])
		}
	}
	defer resp.Body.Close()
	cancel1() // disconnect #1: resume timer armed
	time.Sleep(20 * time.Millisecond)
	resp2, cancel2 := open("GET", "", "Accept", "text/event-stream", "Last-Event-Id", last)
	defer resp2.Body.Close()
	if resp2.StatusCode != 200 {
		t.Fatalf("resume: %d", resp2.StatusCode)
	}
	time.Sleep(2 * resumeTimeout) // longer than the timeout, but the client is back
	if ended.Load() != 0 {
		t.Fatal("the call was cancelled while its client was reading it")
	}
	cancel2() // disconnect #2, for good
	deadline := time.Now().Add(10 * resumeTimeout)
	for ended.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if ended.Load() == 0 {
		t.Errorf("tool still running %v after the client left for good (ResumeTimeout %v)", 10*resumeTimeout, resumeTimeout)
	}
}

// Cancelling ServeHTTPListener's context lets a running request finish and answers it.
func TestServeHTTPListenerShutdownAnswersRunningRequests(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(Tool{
		Name: "slow", Description: "d", InputSchema: `{"type":"object"}`,
		Handler: func(ctx context.Context, c *ToolCall) {
			select {
			case <-time.After(300 * time.Millisecond):
				c.ReturnText("finished")
			case <-ctx.Done():
				c.ReturnText("cancelled")
			}
		},
	})
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.ServeHTTPListener(ctx, ln, nil) }()
	c := newHTTPClient(t, "http://"+ln.Addr().String()+"/mcp")
	c.initialize(`{}`)
	go func() { time.Sleep(100 * time.Millisecond); cancel() }()
	resp := c.post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}`)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"finished"`) {
		t.Errorf("running request answered %d %q, want its result", resp.StatusCode, body)
	}
	<-done
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

// blockingWriter is a ResponseWriter whose writes can be held (a slow connection).
type blockingWriter struct {
	mu     sync.Mutex
	h      http.Header
	buf    strings.Builder
	hold   chan struct{} // if non-nil, Write waits for it
	inside chan struct{}
}

func (w *blockingWriter) Header() http.Header { return w.h }
func (w *blockingWriter) WriteHeader(int)     {}
func (w *blockingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	hold := w.hold
	w.mu.Unlock()
	if hold != nil {
		select {
		case w.inside <- struct{}{}:
		default:
		}
		<-hold
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.WriteString(string(p))
	return len(p), nil
}
func (w *blockingWriter) Flush() {}
func (w *blockingWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// When a client resumes a stream on a new connection while the old one is stuck writing,
// the response goes out on the new connection only, and that connection ends.
func TestHTTPStreamTakeoverNeitherLosesNorDuplicates(t *testing.T) {
	lost, dup := 0, 0
	outcomes := map[[3]bool]int{}
	defer func() { t.Logf("outcomes [respOnOldConn respOnNewConn newConnHung]: %v", outcomes) }()
	for range 200 {
		srv := quietServer(nil)
		h := srv.HTTPHandler(nil)
		hs := h.newSession()
		st := hs.newRequestStream(func() {})
		st.send([]byte(`{"n":1}`))
		wa := &blockingWriter{h: http.Header{}, inside: make(chan struct{}, 1)}
		ra := httptest.NewRequest("GET", "/", nil)
		aDone := make(chan writeResult, 1)
		go func() { aDone <- h.writeStream(wa, ra, st, 0, false, true, hs.ctx.Done()) }()
		for !strings.Contains(wa.String(), `{"n":1}`) {
			time.Sleep(time.Millisecond)
		}
		// A's connection becomes slow: its next write blocks.
		hold := make(chan struct{})
		wa.mu.Lock()
		wa.hold = hold
		wa.mu.Unlock()
		st.send([]byte(`{"n":2}`))
		<-wa.inside // A is stuck writing event 2
		// The client gives up on A and resumes from event 2 on a new connection B.
		wb := &blockingWriter{h: http.Header{}}
		ctxB, cancelB := context.WithCancel(context.Background())
		rb := httptest.NewRequest("GET", "/", nil).WithContext(ctxB)
		bDone := make(chan writeResult, 1)
		go func() { bDone <- h.writeStream(wb, rb, st, 2, false, true, hs.ctx.Done()) }()
		for !strings.Contains(wb.String(), "retry: ") {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(2 * time.Millisecond) // B waits on wake
		st.reply([]byte(`{"resp":true}`))
		st.finish()
		close(hold) // A's write completes
		<-aDone
		hung := false
		select {
		case <-bDone:
		case <-time.After(200 * time.Millisecond):
			hung = true
			lost++
			cancelB()
			<-bDone
		}
		cancelB()
		inA, inB := strings.Contains(wa.String(), "resp"), strings.Contains(wb.String(), "resp")
		if inA && inB {
			dup++
		}
		outcomes[[3]bool{inA, inB, hung}]++
		hs.end()
	}
	t.Logf("of 200 takeovers: B never got the response %d times; response written on both connections %d times", lost, dup)
	if lost+dup > 0 {
		t.Errorf("takeover race: lost=%d dup=%d", lost, dup)
	}
}

// Requests that arrive while Shutdown runs are either served or refused, never lost track of
// (the race detector watches the WaitGroup).
func TestHTTPShutdownRacingRequests(t *testing.T) {
	for range 300 {
		srv := quietServer(nil)
		srv.AddTool(echoTool("echo"))
		h := srv.HTTPHandler(nil)
		hs := h.newSession()
		hs.handle(hs.ctx, mustParse(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`), &captured{})
		h.sessions[hs.id] = hs
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			req := httptest.NewRequest("POST", "/", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Mcp-Session-Id", hs.id)
			h.ServeHTTP(httptest.NewRecorder(), req)
		}()
		go func() {
			defer wg.Done()
			h.Shutdown(context.Background())
		}()
		wg.Wait()
	}
}

func mustParse(s string) *jsonrpc.Message {
	m, err := jsonrpc.Parse([]byte(s))
	if err != nil {
		panic(err)
	}
	return &m
}

// Shutdown returns soon after its deadline even while a tool ignores its context.
func TestHTTPShutdownKeepsItsDeadline(t *testing.T) {
	srv := quietServer(nil)
	var started atomic.Int32
	srv.AddTool(Tool{Name: "stubborn", Description: "d", InputSchema: `{"type":"object"}`,
		Handler: func(ctx context.Context, c *ToolCall) { started.Add(1); time.Sleep(2 * time.Second); c.ReturnText("x") }})
	h, c := serveHTTPTest(t, srv, nil)
	c.initialize(`{}`)
	go c.post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"stubborn"}}`)
	for started.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	if err := h.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown: %v, want the deadline exceeded", err)
	}
	if d := time.Since(t0); d > 1500*time.Millisecond {
		t.Errorf("Shutdown with a 100ms context took %v", d)
	}
}

// Past MaxSessions, with every session in use (its GET stream open), initialize gets 503;
// a session idle again is shed for a new one, and deleting one makes room.
func TestHTTPMaxSessions(t *testing.T) {
	srv := quietServer(nil)
	_, c := serveHTTPTest(t, srv, &HTTPOptions{MaxSessions: 2})
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
		t.Fatalf("a third session beyond MaxSessions 2, both in use: %d %v, want 503 with Retry-After", resp.StatusCode, m)
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

// A tool that closes its stream at once, before the POST's connection even attached to it,
// still gets its connection closed after the priming event, and the client resumes.
func TestHTTPCloseSSEStreamAtOnce(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(Tool{
		Name: "poll", Description: "Closes its connection first thing.", InputSchema: `{"type":"object"}`,
		Handler: func(ctx context.Context, c *ToolCall) {
			CloseSSEStream(ctx)
			time.Sleep(50 * time.Millisecond)
			c.ReturnText("done")
		},
	})
	_, c := serveHTTPTest(t, srv, nil)
	c.initialize(`{}`)
	sse := readSSE(t, c.post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"poll"}}`))
	var last string
	for {
		ev, ok := sse.next()
		if !ok {
			break
		}
		if ev.data != "" {
			t.Fatalf("the connection carried %q; it should have closed after the priming event", ev.data)
		}
		last = ev.id
	}
	resumed := readSSE(t, c.do(http.MethodGet, "Accept", "text/event-stream", "Last-Event-Id", last))
	if text := result(t, resumed.message())["content"].([]any)[0].(map[string]any)["text"]; text != "done" {
		t.Fatalf("resumed result %q", text)
	}
}

func TestSubscribeNeedsAResource(t *testing.T) {
	srv := quietServer(nil)
	srv.AddResource(Resource{URI: "test://r", Name: "r", Read: func(ctx context.Context, uri string) ([]ResourceContents, error) {
		return TextContents(uri, "x"), nil
	}})
	srv.AddResourceTemplate(ResourceTemplate{URITemplate: "test://items/{id}", Name: "item", Read: func(ctx context.Context, uri string, vars map[string]string) ([]ResourceContents, error) {
		return TextContents(uri, vars["id"]), nil
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

// When one wake-up stands for several events, the last of which ends the stream, the
// connection writes them all and ends: it does not wait for another wake-up.
func TestHTTPPumpEndsACompleteStream(t *testing.T) {
	srv := quietServer(nil)
	h := srv.HTTPHandler(nil)
	hs := h.newSession()
	defer hs.end()
	st := hs.newRequestStream(func() {})
	st.send([]byte(`{"n":1}`))
	// The connection is slow: its first write (the priming event) waits.
	hold := make(chan struct{})
	w := &blockingWriter{h: http.Header{}, hold: hold, inside: make(chan struct{}, 1)}
	done := make(chan writeResult, 1)
	go func() {
		done <- h.writeStream(w, httptest.NewRequest("POST", "/", nil), st, 0, false, true, hs.ctx.Done())
	}()
	<-w.inside
	// Meanwhile the response comes and the stream ends; the wake-up pending from the
	// connection's start stands for all of it.
	st.reply([]byte(`{"resp":true}`))
	st.finish()
	w.mu.Lock()
	w.hold = nil
	w.mu.Unlock()
	close(hold)
	select {
	case r := <-done:
		if r != writeComplete || !strings.Contains(w.String(), `{"n":1}`) || !strings.Contains(w.String(), `{"resp":true}`) {
			t.Fatalf("pump: %v, wrote %q", r, w.String())
		}
	case <-time.After(2 * time.Second):
		t.Fatal("the connection waits for a wake-up after writing a complete stream")
	}
}

// Routes serve the program's own paths beside MCP on the same server, without MCP's host
// check, and a request on one of them in progress at shutdown finishes.
func TestServeHTTPListenerServesRoutes(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(echoTool("echo"))
	inSlow := make(chan struct{})
	routes := http.NewServeMux()
	routes.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"status":"ok"}`)
	})
	routes.HandleFunc("GET /slow", func(w http.ResponseWriter, r *http.Request) {
		close(inSlow)
		time.Sleep(200 * time.Millisecond)
		io.WriteString(w, "done")
	})
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	base := "http://" + ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.ServeHTTPListener(ctx, ln, &HTTPOptions{Routes: routes}) }()

	c := newHTTPClient(t, base+"/mcp")
	c.initialize(`{}`) // MCP is still at its path
	req, _ := http.NewRequest(http.MethodGet, base+"/health", nil)
	req.Host = "lb.internal:80" // a load balancer's probe names no allowed host
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(body) != `{"status":"ok"}` {
		t.Errorf("GET /health: %d %q", resp.StatusCode, body)
	}
	if resp, err := http.Get(base + "/nothing"); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /nothing: %v %v, want 404 from the routes", resp.StatusCode, err)
	}

	slow := make(chan string, 1)
	go func() {
		resp, err := http.Get(base + "/slow")
		if err != nil {
			slow <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		slow <- string(b)
	}()
	<-inSlow
	cancel()
	if got := <-slow; got != "done" {
		t.Errorf("a route's request in progress at shutdown got %q, want its answer", got)
	}
	if err := <-done; err != nil {
		t.Errorf("ServeHTTPListener: %v", err)
	}
}

func TestLocalURL(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1:8080": "http://127.0.0.1:8080/mcp",
		"0.0.0.0:9":      "http://127.0.0.1:9/mcp",
		"[::]:9":         "http://127.0.0.1:9/mcp",
		"[::1]:9":        "http://[::1]:9/mcp",
		"10.1.2.3:443":   "http://10.1.2.3:443/mcp",
	} {
		a, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := LocalURL(a, "/mcp"); got != want {
			t.Errorf("LocalURL(%s) = %s, want %s", addr, got, want)
		}
	}
}

// The HTTP+SSE transport of revision 2024-11-05: GET /sse opens a session's stream, whose
// endpoint event names where to POST; answers come on the stream; the session ends with the
// stream, and the checks of the MCP endpoint apply.
func TestHTTPPlusSSETransport(t *testing.T) {
	before := runtimeGoroutines()
	srv := quietServer(nil)
	srv.AddTool(echoTool("echo"))
	h := srv.HTTPHandler(&HTTPOptions{MaxSessions: 1})
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
		t.Errorf("a second session beyond MaxSessions 1: %d, want 503", resp.StatusCode)
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
