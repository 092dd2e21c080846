package mcp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A stdio client that sends more requests than the session serves at once gets "server
// busy" for the excess, at once, and the server holds no goroutine for them.
func TestStdioMaxConcurrentRequests(t *testing.T) {
	release := make(chan struct{})
	srv := quietServer(&ServerOptions{MaxConcurrentRequests: 20})
	srv.AddTool(Tool{Name: "block", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *ToolCall) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		c.ReturnText("done")
	}})
	h := start(t, srv)
	h.initialize("2025-11-25")
	before := runtime.NumGoroutine()
	go func() { // refusals are written as requests are read: read them meanwhile
		for i := range 200 {
			fmt.Fprintf(h.in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"block","arguments":{}}}`+"\n", i+10)
		}
	}()
	busy := 0
	for range 180 {
		m := h.recv()
		e, _ := m["error"].(map[string]any)
		if e == nil || e["code"] != float64(codeServerBusy) {
			t.Fatalf("while 20 run, another request got %v, want error %d", m, codeServerBusy)
		}
		busy++
	}
	if n := runtime.NumGoroutine(); n > before+20+10 {
		t.Errorf("%d goroutines with 20 requests running (%d before)", n, before)
	}
	close(release)
	for range 20 {
		if m := h.recv(); m["result"] == nil {
			t.Fatalf("a running request ended with %v", m)
		}
	}
	// With the session's requests answered, it serves as many again.
	h.send(`{"jsonrpc":"2.0","id":1000,"method":"tools/call","params":{"name":"block","arguments":{}}}`)
	if m := h.recv(); m["result"] == nil {
		t.Fatalf("after the others finished: %v", m)
	}
	if busy != 180 {
		t.Errorf("%d refused, want 180", busy)
	}
}

// A stdio client that writes requests and never reads: the server stops reading it once
// its answers back up, and its goroutines stay bounded.
func TestStdioClientThatNeverReads(t *testing.T) {
	srv := quietServer(&ServerOptions{MaxConcurrentRequests: 50})
	h := start(t, srv) // its output is never read after initialize
	h.initialize("2025-11-25")
	before := runtime.NumGoroutine()
	sent := make(chan int, 1)
	go func() {
		n := 0
		defer func() { sent <- n }()
		for i := range 200000 {
			if _, err := fmt.Fprintf(h.in, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", i+10); err != nil {
				return
			}
			n++
		}
	}()
	time.Sleep(500 * time.Millisecond)
	if n := runtime.NumGoroutine(); n > before+50+10 {
		t.Errorf("%d goroutines for a client that does not read (%d before)", n, before)
	}
	select {
	case n := <-sent:
		t.Errorf("the server read all %d requests of a client that reads nothing", n)
	default:
	}
	h.discard() // now read, so that the server can answer and stop
	h.in.Close()
}

// rawRequest opens a connection to the test server at url and writes head (the request line
// and headers, and whatever body), nothing more.
func rawRequest(t *testing.T, url, head string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	return conn
}

// closedWithin reads conn until the server closes it, and says whether that took less
// than d. What was read is returned.
func closedWithin(conn net.Conn, d time.Duration) (string, bool) {
	conn.SetReadDeadline(time.Now().Add(d))
	data, err := io.ReadAll(conn)
	var ne net.Error
	return string(data), !(errors.As(err, &ne) && ne.Timeout())
}

// A client that announces a body and never sends it loses its connection after
// BodyTimeout on every path, including those answered before the body is read.
func TestHTTPBodyNeverSent(t *testing.T) {
	srv := quietServer(nil)
	_, c := serveHTTPTest(t, srv, &HTTPOptions{BodyTimeout: 300 * time.Millisecond})
	c.initialize(`{}`)
	for name, head := range map[string]string{
		"an unknown session": "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json\r\nMcp-Session-Id: bogus\r\nContent-Length: 1000\r\n\r\n",
		"a wrong media type": "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\n",
		"a GET with a body":  "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nMcp-Session-Id: " + c.session + "\r\nContent-Length: 1000\r\n\r\n",
		"a DELETE":           "DELETE / HTTP/1.1\r\nHost: 127.0.0.1\r\nMcp-Session-Id: bogus\r\nContent-Length: 1000\r\n\r\n",
		"the body read":      "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json\r\nMcp-Session-Id: " + c.session + "\r\nMcp-Protocol-Version: 2025-11-25\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\"",
		"a chunked body":     "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json\r\nMcp-Session-Id: " + c.session + "\r\nMcp-Protocol-Version: 2025-11-25\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"jso\r\n",
	} {
		start := time.Now()
		conn := rawRequest(t, c.url, head)
		if _, closed := closedWithin(conn, 5*time.Second); !closed {
			t.Errorf("%s: the connection was still open after 5s", name)
		} else if d := time.Since(start); d < 250*time.Millisecond {
			t.Errorf("%s: closed after %v, before BodyTimeout", name, d)
		}
	}
}

// A call that takes longer than BodyTimeout is answered: the deadline of the body ends
// once the body is read.
func TestHTTPLongCallOutlivesBodyTimeout(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(Tool{Name: "slow", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *ToolCall) {
		select {
		case <-time.After(800 * time.Millisecond):
			c.ReturnText("finally")
		case <-ctx.Done():
			c.ReturnError(ctx.Err())
		}
	}})
	_, c := serveHTTPTest(t, srv, &HTTPOptions{BodyTimeout: 200 * time.Millisecond})
	c.initialize(`{}`)
	resp := c.post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{}}}`, "Accept", "application/json")
	m := jsonBody(t, resp)
	if r, _ := m["result"].(map[string]any); r == nil || r["isError"] == true || !strings.Contains(fmt.Sprint(r["content"]), "finally") {
		t.Errorf("a call of 800ms with BodyTimeout 200ms: %d %v", resp.StatusCode, m)
	}
}

// Clients that never read large JSON answers lose their connections after WriteTimeout,
// and what the answers held is let go.
func TestHTTPClientThatNeverReadsAnswers(t *testing.T) {
	big := strings.Repeat("x", 8<<20)
	srv := quietServer(nil)
	srv.AddTool(Tool{Name: "big", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *ToolCall) { c.ReturnText(big) }})
	_, c := serveHTTPTest(t, srv, &HTTPOptions{WriteTimeout: 300 * time.Millisecond})
	c.initialize(`{}`)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"big","arguments":{}}}`
	var conns []net.Conn
	for range 10 {
		conn := rawRequest(t, c.url, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json\r\nMcp-Session-Id: "+c.session+
			"\r\nMcp-Protocol-Version: 2025-11-25\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"+body)
		conn.(*net.TCPConn).SetReadBuffer(4096)
		conns = append(conns, conn)
	}
	// Until WriteTimeout, the handlers are writing; after it, none is.
	time.Sleep(100 * time.Millisecond)
	if n := handlersRunning(); n == 0 {
		t.Fatal("no handler is writing to the clients that do not read: the test does not test")
	}
	deadline := time.Now().Add(5 * time.Second)
	for handlersRunning() > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := handlersRunning(); n > 0 {
		t.Errorf("%d handlers still writing 5s after 10 clients stopped reading, with WriteTimeout 300ms", n)
	}
	// The session is unharmed: a client that reads gets its answer.
	resp := c.post(`{"jsonrpc":"2.0","id":2,"method":"ping"}`, "Accept", "application/json")
	if m := jsonBody(t, resp); m["result"] == nil {
		t.Errorf("ping after: %v", m)
	}
	for _, conn := range conns {
		conn.Close()
	}
}

// handlersRunning counts the goroutines serving a request in an HTTPHandler.
func handlersRunning() int {
	buf := make([]byte, 8<<20)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for g := range strings.SplitSeq(string(buf), "\n\n") {
		if strings.Contains(g, "mcp.(*HTTPHandler).ServeHTTP") {
			n++
		}
	}
	return n
}

// A session whose client never opens its GET stream holds one pending list change, however
// many changes there were.
func TestHTTPListChangesCoalesce(t *testing.T) {
	srv := quietServer(nil)
	h, c := serveHTTPTest(t, srv, nil)
	c.initialize(`{}`)
	for i := range 4096 {
		srv.AddTool(echoTool(fmt.Sprintf("tool%d", i)))
		if i%2 == 0 {
			srv.AddPrompt(Prompt{Name: fmt.Sprintf("p%d", i), Get: func(ctx context.Context, args *Input) (*GetPromptResult, error) { return &GetPromptResult{}, nil }})
		}
	}
	h.mu.Lock()
	st := h.sessions[c.session].standalone
	h.mu.Unlock()
	st.mu.Lock()
	var methods []string
	for _, ev := range st.events {
		methods = append(methods, string(ev.data))
	}
	st.mu.Unlock()
	if len(methods) != 2 || !strings.Contains(methods[0], "notifications/tools/list_changed") || !strings.Contains(methods[1], "notifications/prompts/list_changed") {
		t.Errorf("pending on the standalone stream after 4096 tool and 2048 prompt changes: %d\n%s", len(methods), strings.Join(methods, "\n"))
	}
}

// A malformed response from the client gets no reply (JSON-RPC answers no response); a
// request whose id is not valid UTF-8 is answered with a null id.
func TestStdioMalformedResponseAndID(t *testing.T) {
	h := start(t, quietServer(nil))
	h.initialize("2025-11-25")
	h.send(`{"jsonrpc":"2.0","id":5,"error":{"code":"x"}}`)
	h.send(`{"jsonrpc":"1.0","id":6,"result":{}}`)
	if m := h.roundTrip(`{"jsonrpc":"2.0","id":7,"method":"ping"}`); m["id"] != float64(7) || m["result"] == nil {
		t.Errorf("after two malformed responses, the next message is %v, want the answer to ping 7", m)
	}
	h.send("{\"jsonrpc\":\"2.0\",\"id\":\"a\xffb\",\"method\":\"ping\"}")
	if m := h.recv(); m["id"] != nil || m["error"] == nil {
		t.Errorf("an id that is not UTF-8: %v", m)
	}
}

// The answers of SSE calls whose clients went away are kept for ResumeTimeout, for the
// clients to resume, and then let go, not kept until the session ends.
func TestHTTPUnreadAnswersAreLetGo(t *testing.T) {
	big := strings.Repeat("y", 1<<20)
	srv := quietServer(nil)
	srv.AddTool(Tool{Name: "big", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *ToolCall) {
		Progress(ctx, 1, 2, "half") // the answer becomes an SSE stream
		time.Sleep(100 * time.Millisecond)
		c.ReturnText(big)
	}})
	// ResumeTimeout is long enough that the five calls start and end within it on a loaded
	// machine (at 400 ms the first stream was let go before the fifth had begun, in a full test run).
	h, c := serveHTTPTest(t, srv, &HTTPOptions{ResumeTimeout: 1500 * time.Millisecond})
	c.initialize(`{}`)
	for i := range 5 {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"big","arguments":{},"_meta":{"progressToken":%d}}}`, i+1, i+1)
		conn := rawRequest(t, c.url, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: "+c.session+
			"\r\nMcp-Protocol-Version: 2025-11-25\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"+body)
		buf := make([]byte, 512)
		conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		if n, err := conn.Read(buf); err != nil || !strings.Contains(string(buf[:n]), "text/event-stream") {
			t.Fatalf("the call did not start a stream: %q, %v", buf[:n], err)
		}
		conn.Close() // gone before the answer
	}
	streams := func() int {
		h.mu.Lock()
		hs := h.sessions[c.session]
		h.mu.Unlock()
		hs.mu.Lock()
		defer hs.mu.Unlock()
		return len(hs.streams) - 1 // the standalone stream stays
	}
	time.Sleep(200 * time.Millisecond)
	if n := streams(); n != 5 {
		t.Fatalf("%d request streams kept within ResumeTimeout, want 5 (for resumption)", n)
	}
	deadline := time.Now().Add(6 * time.Second)
	for streams() > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := streams(); n > 0 {
		t.Errorf("%d finished, unread streams still kept after ResumeTimeout", n)
	}
}

// Bodies in flight are bounded across clients: beyond MaxBytesInFlight a POST gets 503
// at once, and the room comes back as bodies are served.
func TestHTTPBodyBytesInFlight(t *testing.T) {
	srv := quietServer(&ServerOptions{MaxBytesInFlight: 1 << 20})
	_, c := serveHTTPTest(t, srv, &HTTPOptions{BodyTimeout: 500 * time.Millisecond})
	c.initialize(`{}`)
	head := "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json\r\nMcp-Session-Id: " + c.session +
		"\r\nMcp-Protocol-Version: 2025-11-25\r\nContent-Length: 600000\r\n\r\n"
	slow := rawRequest(t, c.url, head) // announces 600 kB, sends nothing
	time.Sleep(100 * time.Millisecond)
	second := rawRequest(t, c.url, head)
	out, _ := closedWithin(second, 2*time.Second)
	if !strings.HasPrefix(out, "HTTP/1.1 503") || !strings.Contains(out, "Retry-After: 1") || !strings.Contains(out, "too many bytes of requests in flight") {
		t.Errorf("a second 600 kB body with 1 MiB in flight allowed: %.200q", out)
	}
	// Once the first is gone (BodyTimeout), a body fits again.
	closedWithin(slow, 3*time.Second)
	time.Sleep(100 * time.Millisecond)
	if m := jsonBody(t, c.post(`{"jsonrpc":"2.0","id":3,"method":"ping"}`, "Accept", "application/json")); m["result"] == nil {
		t.Errorf("a small POST afterwards: %v", m)
	}
}

// A stdio server whose client does not read stops within ShutdownTimeout of its context's
// end: the answers it cannot write are abandoned.
func TestStdioShutdownWithAClientThatDoesNotRead(t *testing.T) {
	srv := quietServer(&ServerOptions{ShutdownTimeout: 300 * time.Millisecond})
	srv.AddTool(echoTool("echo"))
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe() // nobody reads outR
	if err != nil {
		t.Fatal(err)
	}
	defer outR.Close()
	defer inW.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() {
		served <- srv.Serve(ctx, inR, outW)
		inR.Close()
		outW.Close()
	}()
	// Answers of 64 kB each, far more than the pipe holds. The server stops reading them
	// once its answers back up: they are written meanwhile.
	text := strings.Repeat("z", 64<<10)
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		io.WriteString(inW, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
		for i := range 40 {
			if _, err := fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"%s"}}}`+"\n", i+1, text); err != nil {
				return
			}
		}
	}()
	defer func() { inW.Close(); <-sent }()
	time.Sleep(300 * time.Millisecond) // the server writes until the pipe is full
	stopped := time.Now()
	cancel()
	select {
	case err := <-served:
		if d := time.Since(stopped); d < 250*time.Millisecond {
			t.Errorf("Serve returned %v after the cancellation, before ShutdownTimeout", d)
		}
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Serve returned %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve still writes to a client that does not read, 5s after its context ended (ShutdownTimeout 300ms)")
	}
}

// A stdio server whose client has said all it will (EOF) but does not read what is queued
// for it (a tool added after the session began: notifications/tools/list_changed, many
// times over a pipe's room) returns within ShutdownTimeout: the notifications it cannot
// write are abandoned, as ServeConn does for any connection.
func TestStdioEOFWithNotificationsUnread(t *testing.T) {
	srv := quietServer(&ServerOptions{ShutdownTimeout: 300 * time.Millisecond})
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer outR.Close()
	served := make(chan error, 1)
	go func() {
		served <- srv.Serve(context.Background(), inR, outW)
		inR.Close()
		outW.Close()
	}()
	io.WriteString(inW, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n"+
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	// The answer to initialize, read; then nothing more is.
	if _, err := bufio.NewReader(outR).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // the server has read notifications/initialized
	for i := range 4000 {             // about 300 kB of notifications, over a pipe's 64 kB
		srv.AddTool(echoTool(fmt.Sprint("echo", i)))
	}
	inW.Close()
	ended := time.Now()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve returned %v after EOF, want nil", err)
		}
		if d := time.Since(ended); d < 250*time.Millisecond {
			t.Errorf("Serve returned %v after EOF, before ShutdownTimeout: the notifications were not waited for", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve still writes to a client that does not read, 5s after EOF (ShutdownTimeout 300ms)")
	}
}
