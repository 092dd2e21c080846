package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// seen is what a recording middleware saw of one message.
type seen struct {
	dir, method, id, name, session, version, transport, peer string
	meta                                                     string // _meta.trace, as the handler got it
	errorType                                                string
	auth                                                     bool
}

func (s seen) String() string { return s.dir + " " + s.method }

// recorder is a middleware that records every message, and stamps what it sends with a
// trace member in _meta, as a tracing middleware does.
type recorder struct {
	mu    sync.Mutex
	side  string
	seen  []seen
	stamp int
}

func (r *recorder) middleware(next Handler) Handler {
	return func(ctx context.Context, m *Message) ([]byte, error) {
		dir := "in"
		if m.Outgoing {
			dir = "out"
			r.mu.Lock()
			r.stamp++
			m.SetMeta("trace", fmt.Sprintf("%s-%d", r.side, r.stamp))
			r.mu.Unlock()
		}
		res, err := next(ctx, m)
		r.mu.Lock()
		r.seen = append(r.seen, seen{dir: dir, method: m.Method, id: m.ID, name: m.Name(), session: m.SessionID, version: m.ProtocolVersion,
			transport: m.Transport, peer: m.Peer, meta: m.Meta("trace"), errorType: m.ErrorType(res, err), auth: m.Auth != nil})
		r.mu.Unlock()
		return res, err
	}
}

func (r *recorder) all() []seen {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.seen)
}

// find returns what was seen of a method in a direction, the first time.
func (r *recorder) find(t *testing.T, dir, method string) seen {
	t.Helper()
	for _, s := range r.all() {
		if s.dir == dir && s.method == method {
			return s
		}
	}
	t.Fatalf("%s middleware did not see %s %s; it saw %v", r.side, dir, method, r.all())
	return seen{}
}

// middlewareServer has a tool that sends progress and a log message and asks the client's
// model, a tool whose arguments are checked as generated code checks them, and one that
// fails.
func middlewareServer(rec *recorder, more ...Middleware) *Server {
	srv := NewServer(Implementation{Name: "mw", Version: "1"}, &ServerOptions{
		Logger:     slog.New(slog.NewTextHandler(io.Discard, nil)),
		Middleware: append([]Middleware{rec.middleware}, more...),
	})
	srv.AddTool(Tool{Name: "ask", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *ToolCall) {
		Progress(ctx, 1, 2, "")
		Log(ctx, LevelInfo, "", "asking")
		res, err := Sample(ctx, &CreateMessageRequest{Messages: []SamplingMessage{{Role: RoleUser, Content: Text{Text: "hi"}}}, MaxTokens: 10})
		if err != nil {
			c.ReturnError(err)
			return
		}
		c.ReturnText(res.Content.(Text).Text)
	}})
	srv.AddTool(Tool{Name: "strict", InputSchema: `{"type":"object","required":["city"]}`, Handler: func(ctx context.Context, c *ToolCall) {
		args := c.Arguments()
		args.decoder().ReportMissing("city") // as generated code reports a missing property
		if err := args.Err(); err != nil {
			c.ReturnError(err)
			return
		}
		c.ReturnText("ok")
	}})
	srv.AddTool(Tool{Name: "fails", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *ToolCall) {
		c.ReturnError(errors.New("no"))
	}})
	return srv
}

func middlewareClientOptions(rec *recorder, version string) *ClientOptions {
	return &ClientOptions{
		ProtocolVersion: version,
		Logger:          slog.New(slog.NewTextHandler(io.Discard, nil)),
		Middleware:      []Middleware{rec.middleware},
		Sampling: func(ctx context.Context, req *CreateMessageRequest) (*CreateMessageResult, error) {
			return &CreateMessageResult{Content: Text{Text: "hello"}, Model: "m"}, nil
		},
		Log: func(LogMessage) {},
	}
}

// Each side's middleware sees every request and notification it receives and sends, over
// Streamable HTTP (a session of 2025-11-25, and the stateless 2026-07-28) and in memory:
// the method, the id of a request, the tool a call names, the session id (over HTTP in a
// session), the revision, the transport and the other side's address. What a middleware
// adds to _meta reaches the other side's middleware, both ways: the client's tools/call
// carries it to the server, and the server's sampling/createMessage (asked while serving
// the call) back to the client. Outcomes are classified: a tool error result, arguments
// that broke the input schema, an unknown tool.
func TestMiddlewareSeesEveryMessage(t *testing.T) {
	for _, c := range []struct {
		name, version, transport string
	}{
		{"http session", "2025-11-25", TransportHTTP},
		{"http stateless", StatelessProtocolVersion, TransportHTTP},
		{"memory session", "2025-11-25", TransportMemory},
		{"memory stateless", StatelessProtocolVersion, TransportMemory},
	} {
		t.Run(c.name, func(t *testing.T) {
			srvRec, cliRec := &recorder{side: "server"}, &recorder{side: "client"}
			srv := middlewareServer(srvRec)
			var tr Transport = &MemoryTransport{Server: srv}
			if c.transport == TransportHTTP {
				h := srv.HTTPHandler(nil)
				ts := httptest.NewServer(h)
				defer func() {
					h.Close()
					ts.Close()
				}()
				tr = &StreamableHTTPTransport{URL: ts.URL}
			}
			ctx := context.Background()
			cl, err := Connect(ctx, tr, middlewareClientOptions(cliRec, c.version))
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			res, err := cl.CallTool(WithProgress(ctx, func(ProgressNotice) {}), "ask", map[string]any{})
			if err != nil || res.IsError {
				t.Fatalf("ask: %+v %v", res, err)
			}
			cl.CallTool(ctx, "strict", map[string]any{})
			cl.CallTool(ctx, "fails", map[string]any{})
			cl.CallTool(ctx, "nope", map[string]any{})

			stateful := c.version != StatelessProtocolVersion
			call := srvRec.find(t, "in", "tools/call")
			wantSession := stateful && c.transport == TransportHTTP
			if call.name != "ask" || call.id == "" || call.version != c.version || call.transport != c.transport ||
				(call.session != "") != wantSession || (c.transport == TransportHTTP) != strings.HasPrefix(call.peer, "127.0.0.1:") {
				t.Errorf("the server saw the call as %+v", call)
			}
			clientCall := cliRec.find(t, "out", "tools/call")
			if clientCall.name != "ask" || clientCall.id != call.id || clientCall.session != call.session || clientCall.version != c.version || clientCall.transport != c.transport {
				t.Errorf("the client saw its call as %+v; the server %+v", clientCall, call)
			}
			if call.meta != clientCall.meta || !strings.HasPrefix(call.meta, "client-") {
				t.Errorf("the client's _meta did not reach the server: sent %q, got %q", clientCall.meta, call.meta)
			}
			// The server's request to the client, asked while it served the call.
			sampling := cliRec.find(t, "in", "sampling/createMessage")
			if stateful {
				asked := srvRec.find(t, "out", "sampling/createMessage")
				if asked.id == "" || sampling.id != asked.id || sampling.meta != asked.meta || !strings.HasPrefix(asked.meta, "server-") {
					t.Errorf("the server asked %+v, the client answered %+v", asked, sampling)
				}
				srvRec.find(t, "out", "notifications/progress")
				srvRec.find(t, "out", "notifications/message")
				cliRec.find(t, "in", "notifications/progress")
				cliRec.find(t, "in", "notifications/message")
				srvRec.find(t, "in", "initialize")
				srvRec.find(t, "in", "notifications/initialized")
				cliRec.find(t, "out", "notifications/initialized")
			} else if sampling.id != "" {
				// In the stateless revision the question comes in the call's result.
				t.Errorf("an input request has no id: %+v", sampling)
			}
			for method, want := range map[string]string{"ask": "", "strict": ErrorInvalidArguments, "fails": ErrorTool, "nope": "-32602"} {
				var got []string
				for _, s := range srvRec.all() {
					if s.method == "tools/call" && s.name == method {
						got = append(got, s.errorType)
					}
				}
				if len(got) == 0 || got[len(got)-1] != want {
					t.Errorf("the server's error types of %s: %q, want %q last", method, got, want)
				}
			}
			var failed string
			for _, s := range cliRec.all() {
				if s.dir == "out" && s.name == "fails" {
					failed = s.errorType
				}
			}
			if failed != ErrorTool {
				t.Errorf("the client's error type of a tool's error result: %q", failed)
			}
		})
	}
}

// A middleware that returns an error without calling next stops the message: a request to
// a server is answered with it, as it is for a *jsonrpc.Error and as an internal error with
// its text otherwise, and the tool never runs; a client's request is never sent; a
// notification is dropped. A panic in a middleware is contained on both sides: the request
// fails with an internal error, and the conversation goes on.
func TestMiddlewareRejectsAndPanics(t *testing.T) {
	srvRec, cliRec := &recorder{side: "server"}, &recorder{side: "client"}
	var ran int
	var mu sync.Mutex
	guard := func(next Handler) Handler {
		return func(ctx context.Context, m *Message) ([]byte, error) {
			switch {
			case m.Method == "tools/call" && m.Name() == "fails":
				return nil, jsonrpc.NewError(-32001, "not allowed: fails")
			case m.Method == "tools/call" && m.Name() == "strict":
				return nil, errors.New("quota exceeded")
			case m.Method == "tools/call" && m.Name() == "ask" && strings.Contains(string(m.Params), `"boom"`):
				panic("middleware bug")
			}
			return next(ctx, m)
		}
	}
	srv := middlewareServer(srvRec, guard, func(next Handler) Handler {
		return func(ctx context.Context, m *Message) ([]byte, error) {
			if m.Method == "tools/call" {
				mu.Lock()
				ran++
				mu.Unlock()
			}
			return next(ctx, m)
		}
	})
	opts := middlewareClientOptions(cliRec, "2025-11-25")
	opts.Middleware = append(opts.Middleware, func(next Handler) Handler {
		return func(ctx context.Context, m *Message) ([]byte, error) {
			switch {
			case m.Outgoing && m.Name() == "local":
				return nil, errors.New("refused by the client")
			case m.Outgoing && m.Name() == "crash":
				panic("client middleware bug")
			case m.Outgoing && m.Method == "notifications/roots/list_changed":
				return nil, errors.New("dropped")
			}
			return next(ctx, m)
		}
	})
	opts.Roots = []Root{}
	ctx := context.Background()
	cl, err := Connect(ctx, &MemoryTransport{Server: srv}, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()

	_, err = cl.CallTool(ctx, "fails", nil)
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32001 || rpcErr.Message != "not allowed: fails" {
		t.Errorf("a *jsonrpc.Error rejection: %v", err)
	}
	_, err = cl.CallTool(ctx, "strict", nil)
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInternalError || rpcErr.Message != "quota exceeded" {
		t.Errorf("another error's rejection: %v", err)
	}
	_, err = cl.CallTool(ctx, "ask", map[string]any{"x": "boom"})
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInternalError {
		t.Errorf("a panicking middleware: %v", err)
	}
	if res, err := cl.CallTool(ctx, "ask", nil); err != nil || res.IsError {
		t.Errorf("after a panic, the server serves on: %+v %v", res, err)
	}
	mu.Lock()
	if ran != 1 {
		t.Errorf("the inner middleware saw %d calls, want 1: the rejected and the panicked never reach it", ran)
	}
	mu.Unlock()

	before := len(srvRec.all())
	if _, err := cl.CallTool(ctx, "local", nil); err == nil || err.Error() != "refused by the client" {
		t.Errorf("a client's rejection: %v", err)
	}
	if _, err := cl.CallTool(ctx, "crash", nil); !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInternalError {
		t.Errorf("a client's panicking middleware: %v", err)
	}
	if err := cl.SetRoots(ctx, []Root{{URI: "file:///x"}}); err == nil {
		t.Error("a rejected notification: no error")
	}
	time.Sleep(50 * time.Millisecond)
	for _, s := range srvRec.all()[before:] {
		if s.name == "local" || s.name == "crash" || s.method == "notifications/roots/list_changed" {
			t.Errorf("the server got a message the client's middleware stopped: %v", s)
		}
	}
	if res, err := cl.CallTool(ctx, "ask", nil); err != nil || res.IsError {
		t.Errorf("after a panic, the client calls on: %+v %v", res, err)
	}
}

// Each side is told of its session's end once, with how long it lasted, the revision and
// the transport: a stateless conversation is no session.
func TestSessionEnded(t *testing.T) {
	var mu sync.Mutex
	var ends []SessionEnd
	record := func(e SessionEnd) {
		mu.Lock()
		ends = append(ends, e)
		mu.Unlock()
	}
	srv := NewServer(Implementation{Name: "s", Version: "1"}, &ServerOptions{SessionEnded: record, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	h := srv.HTTPHandler(nil)
	ts := httptest.NewServer(h)
	defer func() {
		h.Close()
		ts.Close()
	}()
	ctx := context.Background()
	for _, version := range []string{"2025-11-25", StatelessProtocolVersion} {
		cl, err := Connect(ctx, &StreamableHTTPTransport{URL: ts.URL}, &ClientOptions{ProtocolVersion: version, SessionEnded: record})
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
		cl.Close()
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		n := len(ends)
		mu.Unlock()
		if n >= 2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // for any end told twice
	mu.Lock()
	defer mu.Unlock()
	if len(ends) != 2 {
		t.Fatalf("%d ends told, want the session's on each side: %+v", len(ends), ends)
	}
	var server, client SessionEnd
	for _, e := range ends {
		if e.Server {
			server = e
		} else {
			client = e
		}
	}
	for _, e := range []SessionEnd{server, client} {
		if e.ID == "" || e.ProtocolVersion != "2025-11-25" || e.Transport != TransportHTTP || e.Duration < 20*time.Millisecond || e.Err != nil || e.Began.IsZero() {
			t.Errorf("session end: %+v", e)
		}
	}
	if server.ID != client.ID {
		t.Errorf("the sides name the session %q and %q", server.ID, client.ID)
	}
}
