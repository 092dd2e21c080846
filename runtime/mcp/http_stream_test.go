package mcp

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

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

// blockingWriter is a ResponseWriter whose writes can be held (a slow connection).
type blockingWriter struct {
	mu     sync.Mutex
	h      http.Header
	buf    strings.Builder
	hold   chan struct{} // if non-nil, Write waits for it
	inside chan struct{}
}

func (w *blockingWriter) Header() http.Header { return w.h }

func (w *blockingWriter) WriteHeader(int) {}

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
		st := hs.newRequestStream()
		st.abandon = func() {}
		st.Write(context.Background(), []byte(`{"n":1}`))
		wa := &blockingWriter{h: http.Header{}, inside: make(chan struct{}, 1)}
		ra := httptest.NewRequest("GET", "/", nil)
		aDone := make(chan writeResult, 1)
		go func() { aDone <- h.writeStream(wa, ra, st, 0, false, false, true, hs.ctx.Done()) }()
		for !strings.Contains(wa.String(), `{"n":1}`) {
			time.Sleep(time.Millisecond)
		}
		// A's connection becomes slow: its next write blocks.
		hold := make(chan struct{})
		wa.mu.Lock()
		wa.hold = hold
		wa.mu.Unlock()
		st.Write(context.Background(), []byte(`{"n":2}`))
		<-wa.inside // A is stuck writing event 2
		// The client gives up on A and resumes from event 2 on a new connection B.
		wb := &blockingWriter{h: http.Header{}}
		ctxB, cancelB := context.WithCancel(context.Background())
		rb := httptest.NewRequest("GET", "/", nil).WithContext(ctxB)
		bDone := make(chan writeResult, 1)
		go func() { bDone <- h.writeStream(wb, rb, st, 2, true, false, true, hs.ctx.Done()) }()
		for !strings.Contains(wb.String(), "retry: ") {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(2 * time.Millisecond) // B waits on wake
		st.respond([]byte(`{"resp":true}`), http.StatusOK)
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

// When one wake-up stands for several events, the last of which ends the stream, the
// connection writes them all and ends: it does not wait for another wake-up.
func TestHTTPPumpEndsACompleteStream(t *testing.T) {
	srv := quietServer(nil)
	h := srv.HTTPHandler(nil)
	hs := h.newSession()
	defer hs.end()
	st := hs.newRequestStream()
	st.abandon = func() {}
	st.Write(context.Background(), []byte(`{"n":1}`))
	// The connection is slow: its first write (the priming event) waits.
	hold := make(chan struct{})
	w := &blockingWriter{h: http.Header{}, hold: hold, inside: make(chan struct{}, 1)}
	done := make(chan writeResult, 1)
	go func() {
		done <- h.writeStream(w, httptest.NewRequest("POST", "/", nil), st, 0, false, false, true, hs.ctx.Done())
	}()
	<-w.inside
	// Meanwhile the response comes and the stream ends; the wake-up pending from the
	// connection's start stands for all of it.
	st.respond([]byte(`{"resp":true}`), http.StatusOK)
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
