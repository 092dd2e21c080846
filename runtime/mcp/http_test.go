package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
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

func runtimeGoroutines() int {
	time.Sleep(20 * time.Millisecond) // let earlier tests' connections wind down
	return runtime.NumGoroutine()
}

func mustParse(s string) *jsonrpc.Message {
	m, err := jsonrpc.Parse([]byte(s))
	if err != nil {
		panic(err)
	}
	return &m
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

// Requests that arrive while Shutdown runs are either served or refused, never lost track of
// (the race detector watches the WaitGroup).
func TestHTTPShutdownRacingRequests(t *testing.T) {
	for range 300 {
		srv := quietServer(nil)
		srv.AddTool(echoTool("echo"))
		h := srv.HTTPHandler(nil)
		hs := h.newSession()
		exchange(hs.session, hs.ctx, mustParse(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`))
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

// Shutdown returns soon after its deadline even while a tool ignores its context.
func TestHTTPShutdownKeepsItsDeadline(t *testing.T) {
	srv := quietServer(nil)
	var started atomic.Int32
	// The tool ignores its context; the test lets it go once Shutdown has returned, and waits
	// for it, so that it does not outlive the test.
	release, returned := make(chan struct{}), make(chan struct{})
	srv.AddTool(Tool{Name: "stubborn", Description: "d", InputSchema: `{"type":"object"}`,
		Handler: func(ctx context.Context, c *ToolCall) {
			defer close(returned)
			started.Add(1)
			<-release
			c.ReturnText("x")
		}})
	h, c := serveHTTPTest(t, srv, nil)
	defer func() { close(release); <-returned }()
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

// Routes serve the program's own paths beside MCP on the same server, behind MCP's guard,
// PublicRoutes without it, and a request on one of them in progress at shutdown finishes.
func TestServeHTTPListenerServesRoutes(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(echoTool("echo"))
	inSlow := make(chan struct{})
	public := http.NewServeMux()
	public.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"status":"ok"}`)
	})
	routes := http.NewServeMux()
	routes.HandleFunc("GET /slow", func(w http.ResponseWriter, r *http.Request) {
		close(inSlow)
		time.Sleep(200 * time.Millisecond)
		io.WriteString(w, "done")
	})
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	base := "http://" + ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.ServeHTTPListener(ctx, ln, &HTTPOptions{Routes: routes, PublicRoutes: public}) }()

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
		t.Errorf("GET /health, a public route: %d %q", resp.StatusCode, body)
	}
	// Routes are guarded as the MCP endpoint is: the same probe of one is refused.
	req, _ = http.NewRequest(http.MethodGet, base+"/slow", nil)
	req.Host = "lb.internal:80"
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("GET /slow from a host not allowed: %v %v, want 403 from the guard", resp.StatusCode, err)
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
