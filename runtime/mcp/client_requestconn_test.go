package mcp_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// What a client's connection may do beyond Read and Write is exported (mcp.RequestConn,
// mcp.OutgoingRequest), and the client asserts no concrete transport type: a transport of
// another package that carries each request on its own (here one that wraps Streamable
// HTTP's connection, as instrumentation would) gets what Streamable HTTP gets.

// wrappedHTTP is a Transport of another package: Streamable HTTP's connection, wrapped.
type wrappedHTTP struct {
	url  string
	conn *recordingConn
}

func (w *wrappedHTTP) Connect(ctx context.Context) (mcp.Connection, error) {
	inner, err := (&mcp.StreamableHTTPTransport{URL: w.url}).Connect(ctx)
	if err != nil {
		return nil, err
	}
	rc, ok := inner.(mcp.RequestConn)
	if !ok {
		return nil, errors.New("Streamable HTTP's connection is not a RequestConn")
	}
	w.conn = &recordingConn{RequestConn: rc}
	return w.conn, nil
}

// recordingConn records what the client tells its connection, and fails the next request
// written when told to.
type recordingConn struct {
	mcp.RequestConn

	mu         sync.Mutex
	negotiated []string
	requests   []string // method, version, stateless, name, param headers
	failNext   bool
}

func (c *recordingConn) Negotiated(version string, stateless bool) {
	c.mu.Lock()
	c.negotiated = append(c.negotiated, fmt.Sprint(version, " ", stateless))
	c.mu.Unlock()
	c.RequestConn.Negotiated(version, stateless)
}

func (c *recordingConn) WriteRequest(ctx context.Context, msg []byte, rq *mcp.OutgoingRequest) error {
	c.mu.Lock()
	c.requests = append(c.requests, fmt.Sprint(rq.Method(), " ", rq.ProtocolVersion(), " ", rq.Stateless(), " ", rq.Name(), " ", rq.ParamHeaders()))
	fail := c.failNext
	c.failNext = false
	c.mu.Unlock()
	if fail {
		return fmt.Errorf("the network is down: %w", mcp.ErrTransport)
	}
	return c.RequestConn.WriteRequest(ctx, msg, rq)
}

func (c *recordingConn) record() (negotiated, requests []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.negotiated), slices.Clone(c.requests)
}

func regionServer(t *testing.T) string {
	srv := mcp.NewServer(mcp.Implementation{Name: "regions", Version: "1"}, &mcp.ServerOptions{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	srv.AddTool(mcp.Tool{Name: "where",
		InputSchema: `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`,
		Handler:     func(ctx context.Context, c *mcp.ToolCall) { c.ReturnText("here") }})
	h := srv.HTTPHandler(nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		ts.Close()
		h.Close()
	})
	return ts.URL
}

// Stateless: every request is described (its Mcp-Param headers too, which the server
// checks), and a request whose write fails fails at once, the connection going on.
func TestARequestConnOfAnotherPackageStateless(t *testing.T) {
	tr := &wrappedHTTP{url: regionServer(t)}
	c, err := mcp.Connect(context.Background(), tr, &mcp.ClientOptions{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.CallTool(context.Background(), "where", map[string]any{"region": "eu"})
	if err != nil || res.IsError {
		t.Fatalf("CallTool: %v %+v", err, res)
	}
	negotiated, requests := tr.conn.record()
	v := mcp.StatelessProtocolVersion
	if want := []string{v + " true"}; !slices.Equal(negotiated, want) {
		t.Errorf("negotiated %q, want %q", negotiated, want)
	}
	want := []string{
		"server/discover " + v + " true  []",
		"tools/list " + v + " true  []",
		"tools/call " + v + " true where [[Mcp-Param-Region eu]]",
	}
	if !slices.Equal(requests, want) {
		t.Errorf("requests:\n got %q\nwant %q", requests, want)
	}

	tr.conn.mu.Lock()
	tr.conn.failNext = true
	tr.conn.mu.Unlock()
	start := time.Now()
	_, err = c.CallTool(context.Background(), "where", map[string]any{"region": "eu"})
	if !errors.Is(err, mcp.ErrTransport) {
		t.Errorf("a call whose write failed: %v", err)
	}
	// A Connection of one stream is gone when a write fails, and the client waits (up to a
	// second) to hear why; a RequestConn's failed write fails that request only.
	if took := time.Since(start); took > 500*time.Millisecond {
		t.Errorf("the failed call took %v: the client waited for the connection's end", took)
	}
	select {
	case <-c.Done():
		t.Fatalf("the client gave up on the connection: %v", c.Err())
	default:
	}
	if res, err := c.CallTool(context.Background(), "where", map[string]any{"region": "eu"}); err != nil || res.IsError {
		t.Errorf("the call after: %v %+v", err, res)
	}
}

// In a session: the connection is told the revision initialize settled, and its session id
// is the client's (SessionEnd.ID).
func TestARequestConnOfAnotherPackageInASession(t *testing.T) {
	tr := &wrappedHTTP{url: regionServer(t)}
	ended := make(chan mcp.SessionEnd, 1)
	c, err := mcp.Connect(context.Background(), tr, &mcp.ClientOptions{ProtocolVersion: "2025-11-25",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), SessionEnded: func(e mcp.SessionEnd) { ended <- e }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListTools(context.Background()); err != nil {
		t.Fatal(err)
	}
	c.Close()
	negotiated, requests := tr.conn.record()
	if want := []string{"2025-11-25 false"}; !slices.Equal(negotiated, want) {
		t.Errorf("negotiated %q, want %q", negotiated, want)
	}
	want := []string{"initialize 2025-11-25 false  []", "tools/list 2025-11-25 false  []"}
	if !slices.Equal(requests, want) {
		t.Errorf("requests:\n got %q\nwant %q", requests, want)
	}
	if e := <-ended; e.ID == "" || e.ID != tr.conn.SessionID() {
		t.Errorf("SessionEnd's id %q, the connection's %q", e.ID, tr.conn.SessionID())
	}
}
