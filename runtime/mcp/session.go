package mcp

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// session is one client's conversation with a server in a revision with sessions
// (2024-11-05 to 2025-11-25): its lifecycle state, negotiated revision and capabilities,
// log level and subscriptions, over a peer that carries its requests both ways. Requests of
// the stateless revision that arrive on the same connection (stdio serves both eras at
// once) are served on their own (stateless.go), tracked by the peer only so that they can
// be cancelled.
type session struct {
	*peer
	srv *Server
	id  string // the HTTP session id; "" over stdio
	// transport and peerAddr say how the client is reached (Message.Transport and Peer).
	transport, peerAddr string
	// sessionsOnly: the transport carries the revisions with sessions only (HTTP+SSE: the
	// stateless revision defines stdio and Streamable HTTP alone), so every message is the
	// session's, whatever its _meta says.
	sessionsOnly bool

	mu            sync.Mutex
	initialized   bool     // initialize has been answered
	rev           revision // settled by initialize
	client        Implementation
	caps          ClientCapabilities
	level         LogLevel // the least severe level sent; debug until the client sets one
	subscriptions map[string]bool
	// began is when initialize was answered (SessionEnd); endErr why the session ended, if
	// not as the protocol ends one; endOnce tells of its end once.
	began   time.Time
	endErr  error
	endOnce sync.Once
}

// newSession starts a session that writes to w, and its messages about no request in
// particular through notes.
func newSession(srv *Server, w messageWriter, notes *notifier) *session {
	ss := &session{srv: srv, subscriptions: map[string]bool{}}
	ss.peer = newPeer(ss, w, notes, srv.logger)
	ss.peer.budget = &srv.budget
	if srv.mw != nil {
		ss.peer.mw, ss.peer.describe, ss.peer.server = srv.mw, ss.describe, true
	}
	return ss
}

// ClientCapabilities are what a client declared it can do for the server.
type ClientCapabilities struct {
	Sampling        bool
	SamplingContext bool // includeContext other than "none" (2025-11-25)
	SamplingTools   bool // tools and toolChoice, tool uses and results (2025-11-25)
	Elicitation     bool // form mode
	ElicitationURL  bool
	Roots           bool
	RootsListChange bool
	Tasks           bool // the tasks extension (io.modelcontextprotocol/tasks, 2026-07-28)
}

var errNotInitialized = jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "invalid request: the session is not initialized; send initialize first")

// admit is the door's admission of a request (door.go), in the order requests arrive
// (peerSide), whatever carried it: refused if the caller's token lacks the scopes it needs;
// one of the stateless revision served on its own; anything else but ping only once the
// session is initialized; initialize and what the next messages depend on (a
// subscription, the log level) inline, before the next message is read. Decided here, not
// on the request's own goroutine, where an initialize read later could already have been
// handled.
func (ss *session) admit(ctx context.Context, m *jsonrpc.Message) admission {
	var meta *requestMeta
	if !ss.sessionsOnly {
		meta, _ = statelessMeta(m)
	}
	return ss.admitEra(ctx, m, meta)
}

// admitEra is admit for a request whose era its transport decided already (HTTP reads the
// _meta before it finds the endpoint), so that it is not read again: meta is its _meta if
// it is of the stateless revision, nil if it is the session's.
func (ss *session) admitEra(ctx context.Context, m *jsonrpc.Message, meta *requestMeta) admission {
	row := methods[m.Method]
	tk := ss.srv.readTicket(ctx, m, row)
	if need := ss.srv.lacks(ctx, m, row, tk); need != nil {
		return admission{refuse: insufficientScope(m.Method, need), why: refusedScope, need: need}
	}
	if meta != nil {
		return admission{long: row != nil && row.long, state: meta, tk: tk}
	}
	if row != nil && row.anytime {
		return admission{inline: row.inline, tk: tk}
	}
	if !ss.ready() {
		return admission{refuse: errNotInitialized}
	}
	return admission{inline: row != nil && row.inline, tk: tk}
}

// serve serves an admitted request (peerSide).
func (ss *session) serve(ctx context.Context, in *inflight) []byte {
	m := in.m
	if meta, ok := in.state.(*requestMeta); ok {
		meta.transport, meta.peer = ss.transport, ss.peerAddr
		resp, _ := ss.srv.serveStateless(ctx, m, meta, in.w, ss.notes, &in.tk)
		return resp
	}
	r := &Request{srv: ss.srv, client: ss, msg: m, w: in.w, notes: ss.notes, progressToken: progressToken(m.Params), tk: &in.tk}
	return ss.srv.serve(context.WithValue(ctx, requestKey{}, r), r, m)
}

// notified handles a client's notification with its row's handler (peerSide). Unknown
// notifications are ignored, as JSON-RPC requires.
func (ss *session) notified(m *jsonrpc.Message) {
	if row := methods[m.Method]; row != nil && row.onServer != nil {
		row.onServer(ss, m)
	}
}

func (ss *session) ready() bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.initialized
}

// The session is the client side of its requests.

func (ss *session) protocolVersion() string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if !ss.initialized {
		return ""
	}
	return ss.rev.String()
}

// revision is the session's revision; the oldest until initialize settles it.
func (ss *session) revision() revision {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.rev
}

func (ss *session) capabilities() ClientCapabilities {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.caps
}

func (ss *session) info() Implementation {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.client
}

// logLevel is the level the client set, or debug until it sets one: a session's client gets
// every log message unless it asks for fewer.
func (ss *session) logLevel() LogLevel {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.level == "" {
		return LevelDebug
	}
	return ss.level
}

func (ss *session) ask(ctx context.Context, r *Request, method string, params []byte) ([]byte, error) {
	raw, err := ss.call(ctx, method, params)
	if e, ok := err.(*jsonrpc.Error); ok {
		return nil, &ClientError{Method: method, Code: e.Code, Message: e.Message}
	}
	return raw, err
}

func (ss *session) lacking(capability, failure string) {}

func (ss *session) describe(m *Message) {
	m.SessionID, m.Transport, m.Peer, m.ProtocolVersion = ss.id, ss.transport, ss.peerAddr, ss.protocolVersion()
}

func (ss *session) respond(r *Request, m *jsonrpc.Message, result []byte, err *jsonrpc.Error) []byte {
	if err != nil {
		return jsonrpc.AppendError(nil, m.ID, err)
	}
	return jsonrpc.AppendResult(nil, m.ID, result)
}

// ClientError is an error response of the client to a request of the server's.
type ClientError struct {
	Method  string
	Code    int
	Message string
}

func (e *ClientError) Error() string {
	return fmt.Sprintf("mcp: the client answered %s with error %d: %s", e.Method, e.Code, e.Message)
}

// initialize answers initialize: it settles the session's revision and the client's
// capabilities, and says what the server offers.
func initialize(ctx context.Context, r *Request, params []byte) ([]byte, *jsonrpc.Error) {
	ss := r.client.(*session) // a stateful method: its client is a session
	var p initializeParams
	if params != nil {
		d := jsonwire.NewDecoder(params)
		p.decode(d)
		if d.Finish(); d.Failed() {
			return nil, invalidParams("initialize: %s", d.Summary())
		}
	}
	if p.version == "" {
		return nil, invalidParams("initialize: protocolVersion is required")
	}
	rev := negotiate(p.version)
	var caps ClientCapabilities
	if p.caps != nil {
		var problem string
		if caps, problem = readCapabilities(jsonwire.NewDecoder(p.caps), rev); problem != "" {
			return nil, invalidParams("initialize: %s", problem)
		}
	}

	ss.mu.Lock()
	again := ss.initialized
	if !again {
		ss.initialized = true
		ss.began = time.Now()
		ss.rev = rev
		ss.client = p.info
		ss.caps = caps
	}
	ss.mu.Unlock()
	if again {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "invalid request: the session is already initialized")
	}

	srv := ss.srv
	res := initializeResult{ProtocolVersion: rev.String(), Capabilities: srv.capabilities(false),
		ServerInfo: srv.info, Instructions: srv.opts.Instructions}
	var e jsonwire.Encoder
	res.encode(&e, rev.dialect())
	return e.Bytes(), nil
}

func invalidParams(format string, args ...any) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: "+fmt.Sprintf(format, args...))
}

// close ends the session: requests in progress are cancelled, those waiting for the client
// give up, and the server forgets it.
func (ss *session) close() {
	ss.peer.close()
	ss.srv.forget(ss)
	ss.endOnce.Do(ss.tellEnd)
}

// failed records why the session is ending, when it is not as the protocol ends one: its
// connection failed, or it was idle too long.
func (ss *session) failed(err error) {
	ss.mu.Lock()
	if ss.endErr == nil {
		ss.endErr = err
	}
	ss.mu.Unlock()
}

// tellEnd tells ServerOptions.SessionEnded of the session, if it began.
func (ss *session) tellEnd() {
	f := ss.srv.opts.SessionEnded
	if f == nil {
		return
	}
	ss.mu.Lock()
	began, rev, err := ss.began, ss.rev, ss.endErr
	ss.mu.Unlock()
	if began.IsZero() {
		return // never initialized: no session began
	}
	f(SessionEnd{Server: true, ID: ss.id, ProtocolVersion: rev.String(), Transport: ss.transport, Peer: ss.peerAddr,
		Began: began, Duration: time.Since(began), Err: err})
}

// progressToken reads params._meta.progressToken, as raw JSON.
func progressToken(params []byte) []byte {
	if !containsMeta(params) {
		return nil // the common case, decided without decoding
	}
	var token []byte
	var d jsonwire.Decoder
	d.Reset(params)
	for key := range d.Members {
		if string(key) != "_meta" {
			d.Skip()
			continue
		}
		for key := range d.Members {
			if string(key) == "progressToken" && (d.Peek() == jsonwire.String || d.Peek() == jsonwire.Number) {
				token = append([]byte(nil), d.Raw()...)
			} else {
				d.Skip()
			}
		}
	}
	return token
}

// stringParam reads a string member of a request's params.
func stringParam(params []byte, name string) (string, bool) {
	var d jsonwire.Decoder
	d.Reset(params)
	v, found := "", false
	if params == nil || d.Peek() != jsonwire.Object {
		return "", false
	}
	for key := range d.Members {
		if string(key) == name && d.Peek() == jsonwire.String {
			v, _ = d.String()
			found = true
		} else {
			d.Skip()
		}
	}
	return v, found
}
