package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// A session over the in-memory connection: requests are answered, the server's own requests
// reach the client, a cancellation reaches the tool, and closing the client's end lets the
// requests in progress finish before the server stops, leaving no goroutine behind.
func TestServeMemory(t *testing.T) {
	before := runtimeGoroutines()
	srv := quietServer(nil)
	srv.AddTool(echoTool("echo"))
	var started, ended atomic.Int32
	srv.AddTool(blockingTool(&started, &ended))
	srv.AddTool(Tool{Name: "roots", Description: "Asks for the roots.", InputSchema: `{"type":"object"}`,
		Handler: func(ctx context.Context, c *ToolCall) {
			roots, err := Roots(ctx)
			if err != nil {
				c.ReturnError(err)
				return
			}
			c.ReturnText(roots[0].URI)
		}})
	conn := srv.ServeMemory(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	recv := func() map[string]any {
		t.Helper()
		msg, err := conn.Receive(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(msg, &m); err != nil {
			t.Fatalf("%q: %v", msg, err)
		}
		return m
	}
	send := func(msg string) {
		t.Helper()
		if err := conn.Send([]byte(msg)); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}}}}`)
	if m := recv(); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`)
	if m := recv(); !strings.Contains(toJSON(m), `"text":"hi"`) {
		t.Fatalf("echo: %v", m)
	}

	// The server asks the client for its roots, and gets them.
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"roots"}}`)
	ask := recv()
	if ask["method"] != "roots/list" {
		t.Fatalf("want roots/list, got %v", ask)
	}
	send(`{"jsonrpc":"2.0","id":` + toJSON(ask["id"]) + `,"result":{"roots":[{"uri":"file:///w"}]}}`)
	if m := recv(); !strings.Contains(toJSON(m), `file:///w`) || m["id"] != 3.0 {
		t.Fatalf("roots tool: %v", m)
	}

	// A call cancelled by the client ends, and gets no response.
	send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"block"}}`)
	for started.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}`)
	for ended.Load() == 0 {
		time.Sleep(time.Millisecond)
	}

	// Closing the client's end: the server answers what was asked, then stops.
	send(`{"jsonrpc":"2.0","id":5,"method":"ping"}`)
	conn.Close()
	if m := recv(); m["id"] != 5.0 {
		t.Fatalf("ping: %v", m)
	}
	if _, err := conn.Receive(ctx); err != io.EOF {
		t.Fatalf("after the server stopped: %v, want io.EOF", err)
	}
	if err := conn.Err(); err != nil {
		t.Errorf("Err: %v", err)
	}
	if err := conn.Send([]byte(`{}`)); !errors.Is(err, errConnClosed) {
		t.Errorf("Send after Close: %v", err)
	}
	waitForGoroutines(t, before)
}

// The server's end ends with its context, cancelling what runs.
func TestServeMemoryStopsWithItsContext(t *testing.T) {
	srv := quietServer(nil)
	var started, ended atomic.Int32
	srv.AddTool(blockingTool(&started, &ended))
	ctx, cancel := context.WithCancel(context.Background())
	conn := srv.ServeMemory(ctx)
	conn.Send([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`))
	conn.Send([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"block"}}`))
	for started.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	select {
	case <-conn.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the server did not stop with its context")
	}
	if ended.Load() != 1 || !errors.Is(conn.Err(), context.Canceled) {
		t.Errorf("tool ended %d times; Err %v", ended.Load(), conn.Err())
	}
	if err := conn.Send(make([]byte, 65<<20)); err == nil || !strings.Contains(err.Error(), "larger than the server takes") {
		t.Errorf("a message over MaxMessageSize: %v", err)
	}
}

// The peer carries the progress of its own calls to their callbacks, and tells the other
// side when a call is given up.
func TestPeerCallProgressAndCancel(t *testing.T) {
	out := &collector{}
	var notified []string
	p := newPeer(sideFunc(func(m *jsonrpc.Message) { notified = append(notified, m.Method) }), out, nil, quietServer(nil).logger)
	var progress []string
	var wg sync.WaitGroup
	wg.Add(1)
	var result []byte
	var callErr error
	go func() {
		defer wg.Done()
		result, callErr = p.roundTrip(context.Background(), p.newID(), "things/do", []byte(`{"_meta":{"progressToken":"t1"}}`), []byte(`"t1"`),
			func(params []byte) { progress = append(progress, string(params)) }, testSender{out.send})
	}()
	for len(out.all()) == 0 {
		time.Sleep(time.Millisecond)
	}
	p.receive(context.Background(), []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t1","progress":1}}`), 0)
	p.receive(context.Background(), []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"other","progress":1}}`), 0)
	p.receive(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"result":{"done":true}}`), 0)
	wg.Wait()
	if callErr != nil || string(result) != `{"done":true}` {
		t.Fatalf("call: %s, %v", result, callErr)
	}
	if len(progress) != 1 || !strings.Contains(progress[0], `"t1"`) || len(notified) != 1 || notified[0] != notificationProgress {
		t.Errorf("progress %v; notified %v (the other token's progress goes to the side)", progress, notified)
	}

	// An error response is a *jsonrpc.Error; a call whose context ends is cancelled.
	sent := len(out.all())
	go func() {
		for len(out.all()) == sent { // the request has gone out: answer it
			time.Sleep(time.Millisecond)
		}
		p.receive(context.Background(), []byte(`{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"no"}}`), 0)
	}()
	var rpcErr *jsonrpc.Error
	if _, err := p.call(context.Background(), "things/fail", nil); !errors.As(err, &rpcErr) || rpcErr.Code != -32000 {
		t.Errorf("error response: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := p.call(ctx, "things/slow", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("call past its deadline: %v", err)
	}
	msgs := out.all()
	if last := string(msgs[len(msgs)-1]); !strings.Contains(last, `"notifications/cancelled"`) || !strings.Contains(last, `"requestId":3`) {
		t.Errorf("the other side was not told: %s", last)
	}
	p.close()
	if _, err := p.call(context.Background(), "things/late", nil); !errors.Is(err, ErrSessionClosed) {
		t.Errorf("call after close: %v", err)
	}
}

// sideFunc is a peerSide that serves nothing and hands notifications to a function.
type sideFunc func(m *jsonrpc.Message)

func (f sideFunc) admit(_ context.Context, m *jsonrpc.Message) admission {
	return admission{refuse: jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "no")}
}
func (f sideFunc) serve(context.Context, *inflight) []byte { return nil }
func (f sideFunc) notified(m *jsonrpc.Message)             { f(m) }

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// A last request without a newline is answered: the end of the input flushes the answers
// served with it.
func TestLastLineWithoutNewline(t *testing.T) {
	srv := quietServer(nil)
	var out bytes.Buffer
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if err := srv.Serve(context.Background(), in, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"id":2,"result"`) {
		t.Errorf("no answer to the last line:\n%s", out.String())
	}
}

// testSender sends a request with a function, and its cancellation nowhere.
type testSender struct{ write func([]byte) error }

func (s testSender) send(_ context.Context, msg []byte) error { return s.write(msg) }
func (s testSender) cancel(context.Context, []byte) error     { return nil }
