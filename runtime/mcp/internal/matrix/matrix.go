// Package matrix runs a test against a server reached over every transport, as net/http's
// tests run each in every mode: in memory, stdio (pipes), Streamable HTTP, HTTP+SSE and
// WebSocket, each in the eras it carries (a 2025-11-25 session, and stateless 2026-07-28
// requests; HTTP+SSE, which carries sessions only, at 2025-11-25, the newest it can). A
// behaviour written once in a test body is then checked on every door into the server, so
// a transport that skips a check fails by itself. Its tests are in this package too, with
// the allocation budgets per tools/call of each transport (allocs_test.go).
//
// The HTTP transports are served as a program serves them: one ServeHTTPListener, with
// /mcp (Streamable HTTP), /sse (HTTP+SSE) and WebSocket at /ws mounted in Routes, as
// examples/everything mounts it. A protected server (HTTPOptions.Auth) is reached with the
// caller's bearer token over HTTP; in process (memory, stdio) the caller is what the same
// verifier says of the token, in the serving context (mcp.WithAuthInfo), as GuardHTTP
// hands it to the WebSocket handler.
package matrix

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/mcp/ws"
)

// Transport is one way into the server: a transport and the revision its client speaks.
type Transport struct {
	Name    string // Memory, Stdio, HTTP, SSE or WebSocket
	Version string // the revision the client pins
}

// The transports' names.
const (
	Memory    = "memory"
	Stdio     = "stdio"
	HTTP      = "http"
	SSE       = "sse"
	WebSocket = "ws"
)

// String is the subtest's name: "http/2026-07-28".
func (tr Transport) String() string { return tr.Name + "/" + tr.Version }

// Stateless says whether the client speaks the stateless revision (2026-07-28).
func (tr Transport) Stateless() bool { return tr.Version == mcp.StatelessProtocolVersion }

// Remote says whether the transport is reached over HTTP (Streamable HTTP, HTTP+SSE,
// WebSocket), where a caller is who its bearer token says.
func (tr Transport) Remote() bool { return tr.Name == HTTP || tr.Name == SSE || tr.Name == WebSocket }

// Transports are every transport in every era it carries.
var Transports = []Transport{
	{Memory, mcp.StatefulProtocolVersion}, {Memory, mcp.StatelessProtocolVersion},
	{Stdio, mcp.StatefulProtocolVersion}, {Stdio, mcp.StatelessProtocolVersion},
	{HTTP, mcp.StatefulProtocolVersion}, {HTTP, mcp.StatelessProtocolVersion},
	{SSE, mcp.StatefulProtocolVersion},
	{WebSocket, mcp.StatefulProtocolVersion}, {WebSocket, mcp.StatelessProtocolVersion},
}

// Config says what Run serves and how the test's client connects.
type Config struct {
	// Server makes the server under test, once for each transport. Required.
	Server func(t *testing.T) *mcp.Server
	// HTTP are the options of the HTTP transports (Auth protects them; Routes is the
	// harness's). nil: the defaults.
	HTTP *mcp.HTTPOptions
	// WS are the WebSocket handler's options.
	WS *ws.Options
	// Client are the options of the client Run connects (its ProtocolVersion is the
	// transport's). nil: the defaults, with a quiet logger.
	Client *mcp.ClientOptions
	// Token is the caller's bearer token; see the package comment for the in-process
	// transports.
	Token string
	// NoClient leaves Case.Client nil: the body connects its own (Case.Connect, Case.Dial).
	NoClient bool
	// Only, if set, chooses the transports to run (the test's subject exists in some only).
	Only func(Transport) bool
}

// Case is one transport of a Run: the server served over it and a client connected to it.
type Case struct {
	Transport
	Server *mcp.Server
	Client *mcp.Client // connected with Config.Client and Config.Token, unless NoClient
	// URL is the endpoint of a remote transport: http://.../mcp, http://.../sse or
	// ws://.../ws; "" in process.
	URL string

	cfg    *Config
	origin string // http://127.0.0.1:PORT, for a remote transport
}

// Run runs body for each transport, as a subtest named after it, one after another. Every
// server and client it makes ends with the subtest.
func Run(t *testing.T, cfg Config, body func(t *testing.T, c *Case)) {
	t.Helper()
	for _, tr := range Transports {
		if cfg.Only != nil && !cfg.Only(tr) {
			continue
		}
		t.Run(tr.String(), func(t *testing.T) {
			c := Serve(t, tr, &cfg)
			if !cfg.NoClient {
				c.Client = c.Connect(t, cfg.Token, cfg.Client)
			}
			body(t, c)
		})
	}
}

// Serve serves a server made by cfg.Server over tr until the test ends.
func Serve(t *testing.T, tr Transport, cfg *Config) *Case {
	t.Helper()
	c := &Case{Transport: tr, Server: cfg.Server(t), cfg: cfg}
	t.Cleanup(func() { // last: the tasks the server runs beyond its conversations
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := c.Server.Shutdown(ctx); err != nil {
			t.Errorf("the server's Shutdown: %v", err)
		}
	})
	if !tr.Remote() {
		return c
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var opts mcp.HTTPOptions
	if cfg.HTTP != nil {
		opts = *cfg.HTTP
	}
	wsh := ws.NewHandler(c.Server, cfg.WS)
	mux := http.NewServeMux()
	mux.Handle("/ws", wsh)
	opts.Routes = mux
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Server.ServeHTTPListener(ctx, ln, &opts) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("ServeHTTPListener: %v", err)
		}
		sctx, stop := context.WithTimeout(context.Background(), 10*time.Second)
		defer stop()
		if err := wsh.Shutdown(sctx); err != nil {
			t.Errorf("the WebSocket handler's Shutdown: %v", err)
		}
	})
	c.origin = "http://" + ln.Addr().String()
	switch tr.Name {
	case HTTP:
		c.URL = c.origin + "/mcp"
	case SSE:
		c.URL = c.origin + "/sse"
	case WebSocket:
		c.URL = "ws://" + ln.Addr().String() + "/ws"
	}
	return c
}

// Connect connects a client with the bearer token (none if "") and opts (nil: the
// defaults), closed when the test ends; the test fails if it cannot.
func (c *Case) Connect(t *testing.T, token string, opts *mcp.ClientOptions) *mcp.Client {
	t.Helper()
	cl, err := c.Dial(t, token, opts)
	if err != nil {
		t.Fatalf("%s: connecting: %v", c, err)
	}
	return cl
}

// Dial is Connect, returning the error of a client that could not connect.
func (c *Case) Dial(t *testing.T, token string, opts *mcp.ClientOptions) (*mcp.Client, error) {
	t.Helper()
	var o mcp.ClientOptions
	if opts != nil {
		o = *opts
	}
	o.ProtocolVersion = c.Version
	if o.Logger == nil {
		o.Logger = quiet
	}
	if o.Timeout == 0 {
		o.Timeout = CallTimeout // a call the server never answers fails the test, not the run
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tr, err := c.transport(t, token)
	if err != nil {
		return nil, err
	}
	cl, err := mcp.Connect(ctx, tr, &o)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { cl.Close() })
	return cl, nil
}

// header is the HTTP header of a client with the token.
func header(token string) http.Header {
	h := http.Header{}
	if token != "" {
		h.Set("Authorization", "Bearer "+token)
	}
	return h
}

// transport is the client's side of a new connection with the token.
func (c *Case) transport(t *testing.T, token string) (mcp.Transport, error) {
	switch c.Name {
	case HTTP:
		return &mcp.StreamableHTTPTransport{URL: c.URL, Header: header(token), NoSSEFallback: true}, nil
	case SSE:
		return &mcp.SSETransport{URL: c.URL, Header: header(token)}, nil
	case WebSocket:
		return &ws.Transport{URL: c.URL, Header: header(token)}, nil
	}
	ctx, err := c.caller(token)
	if err != nil {
		return nil, err
	}
	if c.Name == Memory {
		if mcp.AuthInfoFrom(ctx) == nil {
			return &mcp.MemoryTransport{Server: c.Server}, nil
		}
		return &memoryTransport{srv: c.Server, ctx: ctx}, nil
	}
	return c.stdio(t, ctx), nil
}

// caller is the serving context of an in-process conversation: with the AuthInfo the HTTP
// options' verifier gives the token, on a protected server.
func (c *Case) caller(token string) (context.Context, error) {
	ctx := context.Background()
	if c.cfg.HTTP == nil || c.cfg.HTTP.Auth == nil {
		return ctx, nil
	}
	if token == "" {
		return nil, fmt.Errorf("%s: a protected server in process needs a caller, and no token was given", c)
	}
	a, err := c.cfg.HTTP.Auth.Verifier.VerifyToken(ctx, token)
	if err != nil {
		return nil, fmt.Errorf("%s: the verifier refused the token: %w", c, err)
	}
	return mcp.WithAuthInfo(ctx, a), nil
}

// stdio serves the server over a pair of pipes, newline-delimited as over a process's
// stdin and stdout, until the test ends, and returns the client's ends.
func (c *Case) stdio(t *testing.T, ctx context.Context) mcp.Transport {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.Server.Serve(ctx, inR, outW)
		outW.Close()
		inR.Close()
	}()
	t.Cleanup(func() {
		inW.Close() // the client's end of input: Serve returns once it is read
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Errorf("%s: Serve did not return within 10s of its input's end", c)
			cancel()
			<-done
		}
		cancel()
		outR.Close()
	})
	return &mcp.IOTransport{Reader: outR, Writer: inW, Name: "stdio"}
}

// memoryTransport is MemoryTransport serving under ctx (a caller's), which MemoryTransport
// has no way to give.
type memoryTransport struct {
	srv *mcp.Server
	ctx context.Context
}

func (m *memoryTransport) Connect(context.Context) (mcp.Connection, error) {
	ctx, cancel := context.WithCancel(m.ctx)
	return &memoryConn{mc: m.srv.ServeMemory(ctx), cancel: cancel}, nil
}

type memoryConn struct {
	mc     *mcp.MemoryConn
	cancel context.CancelFunc
}

func (m *memoryConn) Read(ctx context.Context) ([]byte, error) {
	msg, err := m.mc.Receive(ctx)
	if err != nil && ctx.Err() == nil {
		err = fmt.Errorf("the in-memory server stopped: %w: %w", err, mcp.ErrTransport)
	}
	return msg, err
}

func (m *memoryConn) Write(_ context.Context, msg []byte) error { return m.mc.Send(msg) }

func (m *memoryConn) Close() error {
	m.mc.Close()
	select {
	case <-m.mc.Done():
	case <-time.After(2 * time.Second):
	}
	m.cancel()
	<-m.mc.Done()
	return nil
}

var quiet = slog.New(slog.DiscardHandler)

// CallTimeout bounds each request of a client Dial connects whose options set no Timeout.
var CallTimeout = 10 * time.Second

// Quiet is a logger that drops everything, for servers whose warnings a test provokes.
func Quiet() *slog.Logger { return quiet }
