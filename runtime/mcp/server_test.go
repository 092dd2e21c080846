package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// harness runs a server session over pipes, as a client process would see it.
type harness struct {
	t      *testing.T
	in     *io.PipeWriter
	out    *bufio.Reader
	done   chan error
	cancel context.CancelFunc
	drain  sync.Once
	// reading is held by whoever reads out: a recv whose read outlived its timeout still
	// owns the reader, and discard waits for it rather than read beside it.
	reading sync.Mutex
}

// discard reads and drops whatever the server writes from now on.
func (h *harness) discard() {
	h.drain.Do(func() {
		go func() {
			h.reading.Lock()
			defer h.reading.Unlock()
			io.Copy(io.Discard, h.out)
		}()
	})
}

func quietServer(opts *ServerOptions) *Server {
	if opts == nil {
		opts = &ServerOptions{}
	}
	opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	return NewServer(Implementation{Name: "test", Title: "Test Server", Version: "0.1"}, opts)
}

func start(t *testing.T, srv *Server) *harness {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	h := &harness{t: t, in: inW, out: bufio.NewReaderSize(outR, 1<<20), done: make(chan error, 1), cancel: cancel}
	go func() {
		err := srv.Serve(ctx, inR, outW)
		outW.Close()
		h.done <- err
	}()
	t.Cleanup(func() {
		// What the server still writes (the answer of a subscription that ends with the
		// session, say) is read and dropped: a write to a pipe nobody reads would block.
		h.discard()
		inW.Close()
		cancel()
		select {
		case <-h.done:
		case <-time.After(5 * time.Second):
			t.Error("server did not stop")
		}
	})
	return h
}

func (h *harness) send(msg string) {
	h.t.Helper()
	if _, err := io.WriteString(h.in, msg+"\n"); err != nil {
		h.t.Fatalf("send: %v", err)
	}
}

// recv reads the next message the server writes.
func (h *harness) recv() map[string]any {
	h.t.Helper()
	line := h.recvLine()
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		h.t.Fatalf("server wrote invalid JSON %q: %v", line, err)
	}
	return m
}

// recvLine reads the next line the server writes, as it is.
func (h *harness) recvLine() string {
	h.t.Helper()
	type result struct {
		line string
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		h.reading.Lock()
		defer h.reading.Unlock()
		line, err := h.out.ReadString('\n')
		ch <- result{line, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			h.t.Fatalf("recv: %v", r.err)
		}
		return r.line
	case <-time.After(30 * time.Second):
		// A hang detector, not a speed test: a 16 MB echo takes over 10 s under -race on
		// a loaded machine.
		h.t.Fatal("no message from server within 30s")
		return ""
	}
}

func (h *harness) roundTrip(msg string) map[string]any {
	h.t.Helper()
	h.send(msg)
	return h.recv()
}

func (h *harness) initialize(version string) map[string]any {
	h.t.Helper()
	r := h.roundTrip(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	h.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return r
}

func errorCode(t *testing.T, m map[string]any) int {
	t.Helper()
	e, ok := m["error"].(map[string]any)
	if !ok {
		t.Fatalf("expected an error response, got %v", m)
	}
	return int(e["code"].(float64))
}

func result(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	r, ok := m["result"].(map[string]any)
	if !ok {
		t.Fatalf("expected a result, got %v", m)
	}
	return r
}

// echoTool stands in for generated code: it reads {"text": string} and returns it.
func echoTool(name string) Tool {
	return Tool{
		Name:        name,
		Title:       "Echo " + name,
		Description: "Echoes its text.",
		InputSchema: `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}`,
		Annotations: ToolAnnotations{ReadOnlyHint: Ptr(true)},
		Handler: func(ctx context.Context, c *ToolCall) {
			args := c.Arguments()
			d := args.decoder()
			var text string
			seen := false
			for key := range d.Members {
				switch string(key) {
				case "text":
					text, seen = d.String()
				default:
					d.Report("unknown property")
					d.Skip()
				}
			}
			if !seen {
				d.ReportMissing("text")
			}
			if err := args.Err(); err != nil {
				c.ReturnError(err)
				return
			}
			c.ReturnText(text)
		},
	}
}

func TestInitializeNegotiatesVersion(t *testing.T) {
	for requested, want := range map[string]string{
		"2024-11-05": "2024-11-05", "2025-03-26": "2025-03-26", "2025-06-18": "2025-06-18",
		"2025-11-25": "2025-11-25", "1999-01-01": StatefulProtocolVersion, "2099-01-01": StatefulProtocolVersion,
	} {
		h := start(t, quietServer(&ServerOptions{Instructions: "Be nice."}))
		r := result(t, h.initialize(requested))
		if r["protocolVersion"] != want {
			t.Errorf("requested %s: got %v, want %s", requested, r["protocolVersion"], want)
		}
		info := r["serverInfo"].(map[string]any)
		if info["name"] != "test" || info["version"] != "0.1" || r["instructions"] != "Be nice." {
			t.Errorf("initialize result %v", r)
		}
		if _, hasTitle := info["title"]; hasTitle != (want >= "2025-06-18") {
			t.Errorf("version %s: serverInfo.title present=%v", want, hasTitle)
		}
		if _, ok := r["capabilities"].(map[string]any)["tools"]; !ok {
			t.Errorf("tools capability missing: %v", r)
		}
	}
}

func TestRequestBeforeInitializeIsRejectedInReadOrder(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(echoTool("echo"))
	// Both lines arrive at once: the call must be judged before initialize is handled.
	for range 20 {
		in := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}` + "\n" +
			`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}` + "\n"
		var out strings.Builder
		if err := srv.Serve(context.Background(), strings.NewReader(in), &out); err != nil {
			t.Fatal(err)
		}
		first := strings.SplitN(out.String(), "\n", 2)[0]
		if !strings.Contains(first, `"id":1,"error":{"code":-32600`) {
			t.Fatalf("a call before initialize was served: %s", out.String())
		}
	}
}

func TestLifecycleErrors(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(echoTool("echo"))
	h := start(t, srv)
	if r := h.roundTrip(`{"jsonrpc":"2.0","id":1,"method":"ping"}`); len(result(t, r)) != 0 {
		t.Fatalf("ping before initialize: %v", r)
	}
	if code := errorCode(t, h.roundTrip(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)); code != -32600 {
		t.Fatalf("tools/list before initialize: code %d", code)
	}
	if code := errorCode(t, h.roundTrip(`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{}}`)); code != -32602 {
		t.Fatalf("initialize without protocolVersion: code %d", code)
	}
	h.initialize("2025-11-25")
	if code := errorCode(t, h.roundTrip(`{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`)); code != -32600 {
		t.Fatalf("second initialize: code %d", code)
	}
	tests := []struct {
		msg  string
		code int
		id   any
	}{
		{`{"jsonrpc":"2.0","id":5,"method":"nope"}`, -32601, 5.0},
		{`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"missing"}}`, -32602, 6.0},
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{}}}`, -32602, 7.0},
		{`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo","arguments":[1]}}`, -32602, 8.0},
		{`{"jsonrpc":"2.0","id":9,"method":"tools/call"}`, -32602, 9.0},
		{`{"jsonrpc":"2.0","id":"x","method":"tools/list","params":{"cursor":"!!"}}`, -32602, "x"},
		{`{"jsonrpc":"2.0","id":10,"method":"tools/list","params":{"cursor":5}}`, -32602, 10.0},
		{`{"jsonrpc":"2.0","id":11,`, -32700, nil},
		{`{"jsonrpc":"2.0","id":12}`, -32600, 12.0},
		{`[1,2]`, -32600, nil},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600, nil},
	}
	for _, tt := range tests {
		r := h.roundTrip(tt.msg)
		if code := errorCode(t, r); code != tt.code || r["id"] != tt.id {
			t.Errorf("%s: code %d id %v, want %d id %v", tt.msg, code, r["id"], tt.code, tt.id)
		}
	}
	// The session still works after all of that.
	if r := h.roundTrip(`{"jsonrpc":"2.0","id":13,"method":"ping"}`); r["id"] != 13.0 {
		t.Fatalf("ping after errors: %v", r)
	}
}

func TestRequestsRunConcurrently(t *testing.T) {
	release := make(chan struct{})
	srv := quietServer(nil)
	srv.AddTool(Tool{Name: "slow", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *ToolCall) {
		<-release
		c.ReturnText("slow done")
	}})
	srv.AddTool(echoTool("echo"))
	h := start(t, srv)
	h.initialize("2025-11-25")
	h.send(`{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"slow"}}`)
	if r := h.roundTrip(`{"jsonrpc":"2.0","id":"fast","method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`); r["id"] != "fast" {
		t.Fatalf("fast call blocked behind slow one: %v", r)
	}
	close(release)
	if r := h.recv(); r["id"] != "slow" {
		t.Fatalf("slow call: %v", r)
	}
}

func TestCancelledRequestGetsNoResponse(t *testing.T) {
	started := make(chan struct{})
	stopped := make(chan error, 1)
	srv := quietServer(nil)
	srv.AddTool(Tool{Name: "wait", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *ToolCall) {
		close(started)
		<-ctx.Done()
		stopped <- ctx.Err()
		c.ReturnText("too late")
	}})
	h := start(t, srv)
	h.initialize("2025-11-25")
	h.send(`{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"wait"}}`)
	<-started
	h.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":41,"reason":"user"}}`)
	if err := <-stopped; !errors.Is(err, context.Canceled) {
		t.Fatalf("tool context: %v", err)
	}
	// The next message must be the ping's answer, not the cancelled call's.
	if r := h.roundTrip(`{"jsonrpc":"2.0","id":42,"method":"ping"}`); r["id"] != 42.0 {
		t.Fatalf("got %v after cancellation", r)
	}
}

func TestLargeMessages(t *testing.T) {
	srv := quietServer(&ServerOptions{MaxMessageSize: 20 << 20})
	srv.AddTool(echoTool("echo"))
	h := start(t, srv)
	h.initialize("2025-11-25")
	big := strings.Repeat("a", 16<<20)
	r := result(t, h.roundTrip(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`+big+`"}}}`))
	if got := r["content"].([]any)[0].(map[string]any)["text"].(string); len(got) != len(big) {
		t.Fatalf("echoed %d bytes, want %d", len(got), len(big))
	}
	huge := strings.Repeat("b", 21<<20)
	if code := errorCode(t, h.roundTrip(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`+huge+`"}}}`)); code != -32600 {
		t.Fatalf("oversized message: code %d", code)
	}
	if r := h.roundTrip(`{"jsonrpc":"2.0","id":3,"method":"ping"}`); r["id"] != 3.0 {
		t.Fatalf("after oversized message: %v", r)
	}
}

func TestEOFAnswersRequestsInFlight(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(Tool{Name: "slow", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *ToolCall) {
		time.Sleep(50 * time.Millisecond)
		c.ReturnText("done")
	}})
	in := strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}` + "\n" +
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}` + "\n")
	var out strings.Builder
	if err := srv.Serve(context.Background(), in, &out); err != nil {
		t.Fatalf("Serve at EOF: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[1], `"done"`) {
		t.Fatalf("output:\n%s", out.String())
	}
}

func TestCancelStopsServeWithoutLeaks(t *testing.T) {
	before := runtime.NumGoroutine()
	srv := quietServer(nil)
	entered := make(chan struct{})
	srv.AddTool(Tool{Name: "block", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *ToolCall) {
		close(entered)
		<-ctx.Done()
	}})
	inR, inW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, inR, io.Discard) }()
	io.WriteString(inW, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`+"\n")
	io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"block"}}`+"\n")
	<-entered
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Serve returned %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after cancel")
	}
	waitForGoroutines(t, before)
}

func TestWriteFailureStopsServe(t *testing.T) {
	srv := quietServer(nil)
	inR, inW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(context.Background(), inR, failingWriter{}) }()
	io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n")
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "pipe gone") {
			t.Fatalf("Serve returned %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not stop after a write failure")
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("pipe gone") }

func waitForGoroutines(t *testing.T, want int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > want {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines left, want %d:\n%s", runtime.NumGoroutine(), want, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestAddToolRejectsMistakes(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(echoTool("x"))
	for name, tool := range map[string]Tool{
		"duplicate":  echoTool("x"),
		"no name":    {InputSchema: `{}`, Handler: echoTool("y").Handler},
		"no handler": {Name: "z", InputSchema: `{}`},
		"bad schema": {Name: "w", InputSchema: `{`, Handler: echoTool("y").Handler},
		"non-object": {Name: "v", InputSchema: `[]`, Handler: echoTool("y").Handler},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: AddTool did not panic", name)
				}
			}()
			srv.AddTool(tool)
		}()
	}
}

func TestConcurrentSessionsShareServer(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(echoTool("echo"))
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var out strings.Builder
			var in strings.Builder
			in.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}` + "\n")
			for j := range 50 {
				fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"s%d-%d"}}}`+"\n", j+1, i, j)
			}
			if err := srv.Serve(context.Background(), strings.NewReader(in.String()), &out); err != nil {
				t.Error(err)
			}
			if n := strings.Count(out.String(), "\n"); n != 51 {
				t.Errorf("session %d: %d responses", i, n)
			}
		}()
	}
	wg.Wait()
}

func TestCallToolInProcess(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(echoTool("echo"))
	res, err := srv.CallTool(context.Background(), "echo", []byte(`{"text":"hi"}`))
	if err != nil || string(res) != `{"content":[{"type":"text","text":"hi"}]}` {
		t.Fatalf("CallTool = %s, %v", res, err)
	}
	res, err = srv.CallTool(context.Background(), "echo", []byte(`{}`))
	if err != nil || !strings.Contains(string(res), `"isError":true`) || !strings.Contains(string(res), "/text: missing required property") {
		t.Fatalf("CallTool with bad arguments = %s, %v", res, err)
	}
	var rpcErr *jsonrpc.Error
	if _, err := srv.CallTool(context.Background(), "nope", nil); !errors.As(err, &rpcErr) || rpcErr.Code != -32602 {
		t.Fatalf("unknown tool: %v", err)
	}
	if _, err := srv.CallTool(context.Background(), "echo", []byte(`[1]`)); !errors.As(err, &rpcErr) || rpcErr.Code != -32602 {
		t.Fatalf("arguments not an object: %v", err)
	}
}

// Older revisions get only the content they know: audio (2025-03-26) and resource links
// (2025-06-18) reach earlier sessions as text blocks that say what they were.
func TestContentOlderRevisionsKnow(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(Tool{Name: "media", Description: "Audio and a link.", InputSchema: `{"type":"object"}`,
		Handler: func(ctx context.Context, c *ToolCall) {
			c.ReturnContent(Audio{Data: []byte{1}, MIMEType: "audio/wav"}, ResourceLink{URI: "test://r", Name: "r"})
		}})
	for version, want := range map[string][2]string{
		"2024-11-05": {`{"type":"text","text":"[audio/wav audio, not sent: this client's protocol revision has no audio content]"}`, `{"type":"text","text":"Resource test://r (r)"}`},
		"2025-03-26": {`{"type":"audio","data":"AQ==","mimeType":"audio/wav"}`, `{"type":"text","text":"Resource test://r (r)"}`},
		"2025-06-18": {`{"type":"audio","data":"AQ==","mimeType":"audio/wav"}`, `{"type":"resource_link","uri":"test://r","name":"r"}`},
	} {
		h := start(t, srv)
		h.initialize(version)
		m := h.roundTrip(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"media"}}`)
		got, _ := json.Marshal(result(t, m)["content"])
		var wantJSON any
		json.Unmarshal([]byte("["+want[0]+","+want[1]+"]"), &wantJSON)
		norm, _ := json.Marshal(wantJSON)
		if string(got) != string(norm) {
			t.Errorf("%s: content %s\nwant %s", version, got, norm)
		}
	}
}
