package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// Client is a connection to one MCP server, over a Transport: a command it starts (stdio),
// a Streamable HTTP endpoint, or the HTTP+SSE endpoint of revision 2024-11-05. It speaks
// whichever revision the server speaks: the stateless 2026-07-28 when the server offers it,
// otherwise a session begun with initialize at the newest revision both know, down to
// 2024-11-05. It is safe for concurrent use.
//
//	c, err := mcp.Connect(ctx, &mcp.CommandTransport{Command: "./weather"}, nil)
//	if err != nil { ... }
//	defer c.Close()
//	res, err := c.CallTool(ctx, "get_weather", map[string]any{"city": "Lisbon"})
type Client struct {
	opts   ClientOptions
	info   []byte // opts.Info as JSON, for a stateless request's _meta
	conn   Connection
	rc     RequestConn   // conn, if it carries each request on its own; else nil
	read   chan struct{} // closed when the reading loop ends, having told the client why
	p      *peer
	logger *slog.Logger
	label  string // the server, in logs
	lines  bool   // the transport carries lines (stdio), not messages (HTTP)
	// mw is the middleware around the client's handling of its messages; nil without.
	// transport and peerAddr are what a Message says of the connection.
	mw                  Handler
	transport, peerAddr string
	// ctx ends with the connection: the client's own writes (its answers to the server's
	// requests, cancellations) give up then, rather than hold Close.
	ctx        context.Context
	cancel     context.CancelFunc
	unreadable unreadable

	mu         sync.Mutex
	rev        revision // the revision it speaks, once Connect settled it (speak)
	server     ServerInfo
	tools      map[string]*knownTool // what tools/list said of each tool, by name
	roots      []Root
	level      LogLevel    // stateless: the log level each request asks for
	meta       *metaCache  // stateless: the _meta of its requests, for the last version and level
	listening  *subscriber // stateless: the open subscriptions/listen request
	listenErr  error       // stateless: why the client does not listen (ListenErr)
	subscribed []string    // stateless: the resources it subscribes to
	// acks are the subscriptions/listen requests waiting for their acknowledgement, by
	// raw request id.
	acks map[string]func(params []byte)
	// watching are the tasks calls follow, by id: their notifications go there.
	watching  map[string]*taskWatch
	closeOnce sync.Once
	closeErr  error
	// began is when the session began (initialize answered), zero without one.
	began time.Time

	done     chan struct{} // closed when the connection is gone for good
	doneOnce sync.Once
	doneErr  error
}

// ClientOptions configure a Client. The zero value is a client that answers no requests
// from the server and declares no capabilities.
type ClientOptions struct {
	// Info names the client to servers. The default is "mcpgen" and the module's version.
	Info Implementation
	// ProtocolVersion pins a revision: a stateless one (StatelessProtocolVersion) or one
	// with sessions (such as "2025-06-18"). The default speaks the stateless revision when
	// the server offers it, and otherwise the newest revision with sessions both know.
	ProtocolVersion string
	// ProbeTimeout is how long the client waits for the answer to the server/discover with
	// which it learns whether a server speaks the stateless revision before it sends a ping
	// as well: a server that answers the ping but not the probe is taken to speak a
	// revision with sessions, and one that answers neither (still starting) is waited for
	// within Connect's context. The default is 5 seconds.
	ProbeTimeout time.Duration
	// PollInterval is how often the client lists what its list callbacks (ToolsChanged and
	// the others) watch when a server of the stateless revision refuses subscriptions/listen;
	// the default is 30 seconds.
	PollInterval time.Duration
	// Timeout bounds every request whose context has no deadline of its own; 0 for none.
	Timeout time.Duration
	// Logger receives the client's diagnostics, and by default the stderr of a server the
	// client started. The default writes warnings and errors to stderr.
	Logger *slog.Logger

	// Sampling answers the server's sampling/createMessage requests; setting it declares
	// the sampling capability. SamplingContext declares that it honours includeContext.
	// SamplingTools declares sampling.tools (2025-11-25): the handler is given the
	// request's Tools and ToolChoice, and may answer with ToolUse blocks and StopReason
	// StopToolUse; without it a request with tools is refused before the handler sees it.
	Sampling        func(ctx context.Context, req *CreateMessageRequest) (*CreateMessageResult, error)
	SamplingContext bool
	SamplingTools   bool
	// Elicitation answers the server's elicitation/create requests; setting it declares
	// the elicitation capability, for form mode, and for URL mode if ElicitationURL is
	// set. A form's defaults are filled into the answer when the user accepts without them.
	Elicitation    func(ctx context.Context, req *ElicitRequest) (*ElicitResult, error)
	ElicitationURL bool
	// Roots are the roots the client offers (roots/list); setting them declares the roots
	// capability, with listChanged: SetRoots changes them and tells the server.
	Roots []Root

	// The server's notifications. The list ones, and ResourceUpdated, come through a
	// subscriptions/listen request in the stateless revision, which the client keeps open
	// while any of them is set.
	Log                func(msg LogMessage)
	ToolsChanged       func()
	PromptsChanged     func()
	ResourcesChanged   func()
	ResourceUpdated    func(uri string)
	ElicitationDone    func(elicitationID string) // notifications/elicitation/complete (URL mode)
	ServerNotification func(method string, params json.RawMessage)

	// Trace, if set, sees every message the client sends and receives, as raw JSON: for
	// debugging, and for tests that check what a server sends. It must not keep msg.
	Trace func(fromServer bool, msg []byte)

	// Middleware wraps the handling of every request and notification the client sends
	// and receives, the first outermost (see Middleware): to observe, time or reject them.
	// otelmcp's Telemetry.Client adds OpenTelemetry's.
	Middleware []Middleware
	// SessionEnded, if set, is told of the client's session (revisions 2024-11-05 to
	// 2025-11-25) when it ends: when the client is closed or its connection is lost.
	SessionEnded func(SessionEnd)
}

// ServerInfo is what a server said of itself when the client connected.
type ServerInfo struct {
	Implementation
	ProtocolVersion string
	Stateless       bool // the revision has no sessions
	// Negotiation says how the client chose ProtocolVersion, in words: "offered in
	// server/discover", "pinned by ClientOptions.ProtocolVersion", "initialize, after
	// server/discover was refused (...)" and so on.
	Negotiation  string
	Capabilities ServerCapabilities
	Instructions string
}

// ServerCapabilities are what a server declared it offers.
type ServerCapabilities struct {
	Tools, ToolsListChanged                             bool
	Resources, ResourcesSubscribe, ResourcesListChanged bool
	Prompts, PromptsListChanged                         bool
	Completions, Logging                                bool
	// Tasks: the server may run a tools/call as a task: the tasks extension (2026-07-28),
	// or task-augmented tools/call (tasks.requests.tools.call, 2025-11-25). TasksCancel: it
	// takes tasks/cancel (tasks.cancel, 2025-11-25; always with the extension).
	Tasks, TasksCancel bool
	Raw                json.RawMessage // the capabilities object as sent
}

// LogMessage is a log message from the server (notifications/message).
type LogMessage struct {
	Level  LogLevel
	Logger string
	Data   json.RawMessage
}

// Connect connects to a server and learns which revision it speaks: it runs the command,
// or reaches the URL, of t, then probes for the stateless revision or begins a session, as
// opts say (opts may be nil). The context bounds the connection's setup only.
func Connect(ctx context.Context, t Transport, opts *ClientOptions) (*Client, error) {
	c := &Client{tools: map[string]*knownTool{}, acks: map[string]func([]byte){}, watching: map[string]*taskWatch{}, done: make(chan struct{})}
	if opts != nil {
		c.opts = *opts
	}
	if c.opts.Info.Name == "" {
		c.opts.Info = Implementation{Name: "mcpgen", Version: runtimeVersion()}
	}
	if c.opts.ProbeTimeout <= 0 {
		c.opts.ProbeTimeout = 5 * time.Second
	}
	if c.opts.PollInterval <= 0 {
		c.opts.PollInterval = 30 * time.Second
	}
	c.logger = c.opts.Logger
	if c.logger == nil {
		c.logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	c.info = encodeInfo(c.opts.Info)
	c.roots = slices.Clone(c.opts.Roots)
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.p = newPeer(c, clientOut{c}, nil, c.logger)
	if c.mw = middlewareChain(c.opts.Middleware); c.mw != nil {
		c.p.mw, c.p.describe = c.mw, c.describe
	}
	c.p.concurrent = true
	c.p.ownsMessages = true // Connection.Read gives the client its slices
	// A server that sends requests faster than they are answered is refused past this,
	// with "busy" (written by the reader, which a server that does not read then stops).
	c.p.maxConcurrent = maxServerRequests
	conn, err := t.Connect(withLogger(ctx, c.logger))
	if err != nil {
		c.cancel()
		return nil, err
	}
	c.conn = conn
	c.rc, _ = conn.(RequestConn)
	c.describeConn(t)
	c.read = make(chan struct{})
	go c.readLoop()
	if err := c.negotiate(ctx); err != nil {
		c.Close()
		return nil, err
	}
	c.startListening()
	return c, nil
}

// loggerKey carries the client's logger to its Transport's Connect: a transport that says
// things of its own (a command's stderr) says them there.
type loggerKey struct{}

func withLogger(ctx context.Context, l *slog.Logger) context.Context {
	return context.WithValue(ctx, loggerKey{}, l)
}

// loggerFrom is the logger of the client that connects with ctx; slog's default without.
func loggerFrom(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(loggerKey{}).(*slog.Logger); ok {
		return l
	}
	return slog.Default()
}

// Server is what the server said of itself when the client connected.
func (c *Client) Server() ServerInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.server
}

// Close ends the connection: a session is ended (HTTP DELETE), a command's stdin is closed
// and the process waited for (then stopped, if it lingers), and requests in progress fail.
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		l := c.listening
		c.listening = nil
		c.mu.Unlock()
		if l != nil {
			l.stop()
		}
		c.end(ErrClientClosed)
		c.p.lost(ErrClientClosed)
		c.closeErr = c.conn.Close()
		<-c.read
		c.p.close()
		c.p.wait()
	})
	return c.closeErr
}

// ErrClientClosed is returned by requests of a client that has been closed.
var ErrClientClosed = errors.New("mcp: the client is closed")

// The client's side of the conversation (peerSide): the server's requests and
// notifications.

// maxServerRequests bounds the server's requests a client serves at once.
const maxServerRequests = 1000

// clientOut is where the client's answers to the server's requests go. They are written as
// long as the connection lasts: Close does not wait for a server that does not read them.
type clientOut struct{ c *Client }

func (o clientOut) Write(_ context.Context, msg []byte) error { return o.c.send(o.c.ctx, msg, nil) }

// readLoop reads what the server sends and hands it to the client, until the connection
// ends: then every call waiting fails, with why, unless the client was closing it.
func (c *Client) readLoop() {
	defer close(c.read)
	for {
		msg, err := c.conn.Read(c.ctx)
		switch {
		case err == nil:
			c.deliver(msg)
			continue
		case errors.Is(err, ErrMessageTooLarge):
			c.logger.Warn("mcp: the server sent a message larger than the client takes; it was skipped", "server", c.label, "error", err)
			continue
		case c.ctx.Err() != nil:
			return // closed, or broken already
		case err == io.EOF:
			err = connError(c.label, transportFailure(errors.New("the server closed the connection")))
		case !errors.Is(err, ErrTransport) && !errors.Is(err, ErrSessionExpired):
			err = connError(c.label, transportFailure(err))
		}
		c.broken(err)
		return
	}
}

// deliver hands the client a message its connection read. What is not
// JSON-RPC is counted and ignored, never answered, but for a broken answer to a call of the
// client's, which fails that call.
func (c *Client) deliver(msg []byte) {
	if c.opts.Trace != nil {
		c.opts.Trace(true, msg)
	}
	m, perr := parser.Parse(msg)
	if perr != nil && unanswerable(&m) {
		if id := jsonrpc.ResponseID(msg); id != nil && c.p.unreadable(id, func(method string) error {
			return fmt.Errorf("mcp: the server's answer to %s could not be read: %s", method, perr.Message)
		}) {
			// The answer to a call of ours, broken: the call fails now, rather than wait
			// for a response that has come.
			c.unreadable.readable()
			c.logger.Warn("mcp: the server's answer to a request could not be read", "server", c.label,
				"error", perr.Message, "message", string(clip(msg, 200)))
			return
		}
		c.ignore(msg)
		return
	}
	c.unreadable.readable()
	if perr != nil {
		c.p.receive(c.ctx, msg, 0) // answers the error
		return
	}
	c.p.accept(c.ctx, &m, clientOut{c}, 0)
}

// answered hands the client msg, which its connection read on the caller's goroutine, if
// it is the response to the request with this id, and reports whether it was.
func (c *Client) answered(msg, id []byte) bool {
	m, perr := parser.Parse(msg)
	if perr != nil || !m.IsResponse() || !bytes.Equal(m.ID, id) {
		return false
	}
	if c.opts.Trace != nil {
		c.opts.Trace(true, msg)
	}
	c.unreadable.readable()
	c.p.deliver(&m)
	return true
}

// send writes a message to the server: a request (rq describes it, and its cancellation)
// through a RequestConn's WriteRequest, anything else with Write.
func (c *Client) send(ctx context.Context, msg []byte, rq *OutgoingRequest) error {
	if c.opts.Trace != nil {
		c.opts.Trace(false, msg)
	}
	if c.rc != nil && rq != nil {
		return c.rc.WriteRequest(ctx, msg, rq)
	}
	err := c.conn.Write(ctx, msg)
	if err != nil && c.rc == nil && errors.Is(err, ErrTransport) && ctx.Err() == nil {
		// The connection is gone: the call that fails for it returns once the client has
		// heard why (Err, which a host asks to know the connection was lost), which the
		// reading loop finds at once.
		t := time.NewTimer(time.Second)
		defer t.Stop()
		select {
		case <-c.read:
		case <-t.C:
		case <-ctx.Done():
		}
	}
	return err
}

// negotiated tells a RequestConn the revision the client speaks.
func (c *Client) negotiated(rev revision) {
	if c.rc != nil {
		c.rc.Negotiated(rev.String(), rev.stateless())
	}
}

// revision is the revision the client speaks: the oldest until Connect settles it.
func (c *Client) revision() revision {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rev
}

// carriesHeaders reports whether requests carry their metadata in headers.
func (c *Client) carriesHeaders() bool { return c.rc != nil && c.rc.CarriesHeaders() }

// broken tells the client its connection is gone: every waiting call fails with err, once
// Err says so (a caller that sees its call fail may ask why).
func (c *Client) broken(err error) {
	c.end(err)
	c.p.lost(err)
}

// end records why the connection is gone, once, and closes Done.
func (c *Client) end(err error) {
	c.doneOnce.Do(func() {
		c.mu.Lock()
		c.doneErr = err
		began, version := c.began, c.server.ProtocolVersion
		c.mu.Unlock()
		if f := c.opts.SessionEnded; f != nil && !began.IsZero() {
			if errors.Is(err, ErrClientClosed) {
				err = nil // ended as the protocol ends a session
			}
			f(SessionEnd{ID: c.sessionID(), ProtocolVersion: version, Transport: c.transport, Peer: c.peerAddr,
				Began: began, Duration: time.Since(began), Err: err})
		}
		c.cancel()
		c.summarizeUnreadable()
		close(c.done)
	})
}

// Done is closed when the connection is gone for good: the server's process exited, its
// stream or session ended, or the client was closed. Err says why. A program that keeps a
// server (a host) connects again then. A stateless server over HTTP has no connection to
// lose: a request that cannot reach it fails with an error that wraps ErrTransport.
func (c *Client) Done() <-chan struct{} { return c.done }

// Err is why Done was closed (ErrClientClosed after Close), or nil while it is open.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.doneErr
}

// admit admits a request from the server that the client answers (its row has an answer)
// and whose capability it declared; any other is "method not found".
func (c *Client) admit(_ context.Context, m *jsonrpc.Message) admission {
	if c.answers(m.Method) == nil {
		return admission{refuse: methodNotFound(m.Method)}
	}
	return admission{}
}

func (c *Client) serve(ctx context.Context, in *inflight) []byte {
	m := in.m
	result, err := c.answerRequest(ctx, m.Method, m.ID, m.Params)
	if err != nil {
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) {
			rpcErr = jsonrpc.NewError(jsonrpc.CodeInternalError, err.Error())
		}
		return jsonrpc.AppendError(nil, m.ID, rpcErr)
	}
	return jsonrpc.AppendResult(nil, m.ID, result)
}

// answers is the row of a request from the server the client answers, or nil.
func (c *Client) answers(method string) *method {
	row := methods[method]
	if row == nil || row.answer == nil || row.declared != nil && !row.declared(&c.opts) {
		return nil
	}
	return row
}

// answer runs the handler of a request from the server (in a session, or an input request
// of the stateless revision) and returns its result.
func (c *Client) answer(ctx context.Context, method string, params []byte) ([]byte, error) {
	row := c.answers(method)
	if row == nil {
		return nil, methodNotFound(method)
	}
	return row.answer(c, ctx, params)
}

func methodNotFound(method string) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method not found: "+method)
}

// notified handles a notification from the server with its row's handler; one the client
// has none for goes to ClientOptions.ServerNotification.
func (c *Client) notified(m *jsonrpc.Message) {
	if row := methods[m.Method]; row != nil && row.onClient != nil {
		row.onClient(c, m)
		return
	}
	c.unhandled(m)
}

// SetRoots changes the roots the client offers, and tells the server they changed. The
// client must have been given roots (ClientOptions.Roots, empty or not) to offer any.
func (c *Client) SetRoots(ctx context.Context, roots []Root) error {
	if c.opts.Roots == nil {
		return errors.New("mcp: the client declared no roots capability (ClientOptions.Roots is nil)")
	}
	c.mu.Lock()
	c.roots = slices.Clone(roots)
	stateless := c.rev.stateless()
	c.mu.Unlock()
	if stateless {
		return nil // the server asks for the roots with each request that needs them
	}
	return c.notify(ctx, notificationRootsListChanged, nil)
}

// noteTimeout bounds the write of a cancellation: a caller that gave up waits no longer than
// this for a server that does not read.
const noteTimeout = time.Second

// An outgoing request is its own sender (peer.request): with its client's send, which
// writes what describes it (HTTP headers); its cancellation goes as any notification, within
// noteTimeout (the peer's request sends it through the middleware).
func (rq *OutgoingRequest) send(ctx context.Context, msg []byte) error {
	return rq.c.send(ctx, msg, rq)
}

func (rq *OutgoingRequest) cancel(_ context.Context, note []byte) error {
	ctx, cancel := context.WithTimeout(rq.c.ctx, noteTimeout)
	defer cancel()
	return rq.c.send(ctx, note, &OutgoingRequest{c: rq.c, rev: rq.rev, method: notificationCancelled})
}

// notify sends a notification to the server.
func (c *Client) notify(ctx context.Context, method string, params []byte) error {
	if c.mw != nil {
		return c.p.sendThroughMiddleware(ctx, method, params, func(msg []byte) error { return c.send(ctx, msg, nil) })
	}
	return c.send(ctx, jsonrpc.AppendNotification(nil, method, params), nil)
}

// describe fills in what a Message says of the connection (peer.describe).
func (c *Client) describe(m *Message) {
	m.SessionID, m.Transport, m.Peer = c.sessionID(), c.transport, c.peerAddr
	c.mu.Lock()
	m.ProtocolVersion = c.server.ProtocolVersion
	c.mu.Unlock()
}

// sessionID is the session's id over HTTP, once the server gave one.
func (c *Client) sessionID() string {
	if c.rc == nil {
		return ""
	}
	return c.rc.SessionID()
}

// answerRequest answers a request of the server's (id is nil for an input request of the
// stateless revision, which has none) inside the client's middleware, if it has any.
func (c *Client) answerRequest(ctx context.Context, method string, id, params []byte) ([]byte, error) {
	if c.mw == nil {
		return c.answer(ctx, method, params)
	}
	msg := c.p.message(method, params, false)
	msg.ID = string(id)
	return runMiddleware(ctx, c.mw, msg, func(ctx context.Context, msg *Message) ([]byte, error) {
		return c.answer(ctx, method, msg.Params)
	}, c.logger)
}

// roundTrip sends a request of the client's and waits for its answer, inside the client's
// middleware if it has any (each request on the wire: a retry is another).
func (c *Client) roundTrip(ctx context.Context, rq *OutgoingRequest, method string, params, token []byte, onProgress func([]byte)) ([]byte, error) {
	rq.c = c
	return c.p.request(ctx, rq.id, method, params, token, onProgress, rq)
}

// runtimeVersion is the version of this module, for the default client info.
func runtimeVersion() string { return "0.1.0" }

// connError names the server in an error about its transport.
func connError(name string, err error) error {
	return fmt.Errorf("mcp: %s: %w", name, err)
}
