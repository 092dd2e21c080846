package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// lockedBuffer is a log's output, written by the server's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// records are the JSON log records written so far.
func (l *lockedBuffer) records(t *testing.T) []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(l.b.String()), "\n") {
		if line == "" {
			continue
		}
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("a log line that is not JSON: %q", line)
		}
		out = append(out, r)
	}
	return out
}

// The runtime's log lines about a request carry its method, id and session, named as the
// spans name them, and are logged with the request's context (so that a handler such as
// otelmcp.LogHandler finds its trace there): a tool's panic over an HTTP session and over
// stdio, which has no session id.
func TestLogLinesNameTheRequest(t *testing.T) {
	var buf lockedBuffer
	var seenCtx []any
	var mu sync.Mutex
	logger := slog.New(ctxHandler{slog.NewJSONHandler(&buf, nil), func(ctx context.Context) {
		mu.Lock()
		seenCtx = append(seenCtx, ctx.Value(requestKey{}))
		mu.Unlock()
	}})
	srv := NewServer(Implementation{Name: "t", Version: "1"}, &ServerOptions{Logger: logger})
	srv.AddTool(Tool{Name: "panics", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *ToolCall) { panic("boom") }})

	_, hc := serveHTTPTest(t, srv, nil)
	hc.initialize(`{}`)
	hc.post(`{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"panics"}}`).Body.Close()

	h := start(t, srv)
	h.initialize("2025-11-25")
	h.roundTrip(`{"jsonrpc":"2.0","id":"x7","method":"tools/call","params":{"name":"panics"}}`)

	var got []map[string]any
	for _, r := range buf.records(t) {
		if r["msg"] == "mcp: tool panicked" {
			got = append(got, r)
		}
	}
	if len(got) != 2 {
		t.Fatalf("%d tool panics logged, want 2: %v", len(got), buf.records(t))
	}
	overHTTP, overStdio := got[0], got[1]
	if overHTTP["mcp.method.name"] != "tools/call" || overHTTP["jsonrpc.request.id"] != "41" || overHTTP["mcp.session.id"] != hc.session || overHTTP["tool"] != "panics" || overHTTP["panic"] != "boom" {
		t.Errorf("over HTTP: %v (session %s)", overHTTP, hc.session)
	}
	if overStdio["mcp.method.name"] != "tools/call" || overStdio["jsonrpc.request.id"] != `"x7"` || overStdio["mcp.session.id"] != nil {
		t.Errorf("over stdio: %v", overStdio)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, v := range seenCtx {
		if v == nil {
			t.Error("a line about a request was logged without the request's context")
		}
	}
}

// ctxHandler tells seen of the context each record is logged with.
type ctxHandler struct {
	slog.Handler
	seen func(context.Context)
}

func (h ctxHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == "mcp: tool panicked" {
		h.seen(ctx)
	}
	return h.Handler.Handle(ctx, r)
}
