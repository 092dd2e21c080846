package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// outbox delivers messages to a client: the stdio stream, or one of the streams of an HTTP
// session (a request's own response stream, or the stream the client opened with GET).
type outbox interface {
	// send writes one complete message, or reports why it cannot. The outbox owns msg from
	// then on: callers pass a buffer of its own and never touch it again.
	send(msg []byte) error
	// reply writes the response to the request the outbox belongs to: its last message.
	reply(msg []byte) error
}

// session is one client's conversation with a server: its lifecycle state, negotiated
// protocol revision and capabilities, the requests it has in flight in both directions, its
// log level and its subscriptions. Transports feed it messages and tell it where to answer.
type session struct {
	srv *Server
	out outbox // for messages that belong to no request
	id  string // the HTTP session id; "" over stdio
	// modern marks the stand-in session of one request of revision 2026-07-28, which has
	// no session: it holds what the request's _meta says.
	modern bool

	nextID atomic.Int64 // of the requests the server sends

	mu            sync.Mutex
	initialized   bool // initialize has been answered
	version       string
	dialect       dialect
	client        Implementation
	clientInfo    []byte // a modern request's clientInfo, as sent
	caps          ClientCapabilities
	logLevel      LogLevel // the least severe level sent; debug until the client sets one
	subscriptions map[string]bool
	inflight      map[string]*inflightRequest // by the request id's raw JSON
	pending       map[string]chan *jsonrpc.Message
	closed        bool
}

type inflightRequest struct {
	cancel    context.CancelFunc
	cancelled bool // by the client: the response must not be sent
	listen    bool // a subscription, which lasts until it is cancelled or the client leaves
}

func newSession(srv *Server, out outbox) *session {
	return &session{
		srv: srv, out: out,
		subscriptions: map[string]bool{},
		inflight:      map[string]*inflightRequest{},
		pending:       map[string]chan *jsonrpc.Message{},
	}
}

// ClientCapabilities are what a client declared it can do for the server.
type ClientCapabilities struct {
	Sampling        bool
	SamplingContext bool // includeContext other than "none" (2025-11-25)
	Elicitation     bool // form mode
	ElicitationURL  bool
	Roots           bool
	RootsListChange bool
}

// receive handles one incoming message; replies to it go to out. Requests other than
// initialize run on their own goroutine, tracked by wg, so that a slow tool never holds up
// the others; initialize runs inline because everything after it depends on its outcome.
func (ss *session) receive(ctx context.Context, data []byte, out outbox, wg *sync.WaitGroup) {
	m, perr := jsonrpc.Parse(data)
	ss.handle(ctx, &m, perr, out, func(run func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run()
		}()
	})
}

// handle handles a parsed message; spawn runs a request's work (on a new goroutine).
func (ss *session) handle(ctx context.Context, m *jsonrpc.Message, perr *jsonrpc.Error, out outbox, spawn func(func())) {
	var meta *requestMeta
	modern := false
	if perr == nil && m.IsRequest() {
		meta, modern = modernMeta(m)
	}
	switch {
	case modern:
		// A request of revision 2026-07-28 stands on its own, initialized or not.
		if ctx, r := ss.begin(ctx, m, out); r != nil {
			spawn(func() { ss.request(ctx, m, meta, out, r) })
		}
	case perr != nil:
		ss.reply(out, jsonrpc.AppendError(nil, m.ID, perr))
	case m.IsNotification():
		ss.notification(m)
	case m.IsResponse():
		ss.deliver(m)
	case m.Method == "initialize":
		if ctx, r := ss.begin(ctx, m, out); r != nil {
			ss.request(ctx, m, nil, out, r)
		}
	case m.Method != "ping" && !ss.ready():
		// Decided here, in the order messages arrive, not on the request's own goroutine,
		// where an initialize read later could already have been handled.
		ss.reply(out, jsonrpc.AppendError(nil, m.ID, errNotInitialized))
	default:
		if ctx, r := ss.begin(ctx, m, out); r != nil {
			spawn(func() { ss.request(ctx, m, nil, out, r) })
		}
	}
}

var errNotInitialized = jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "invalid request: the session is not initialized; send initialize first")

func (ss *session) ready() bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.initialized
}

func (ss *session) write(out outbox, msg []byte) {
	if err := out.send(msg); err != nil {
		ss.srv.logger.Debug("mcp: cannot send message", "error", err)
	}
}

func (ss *session) reply(out outbox, msg []byte) {
	if err := out.reply(msg); err != nil {
		ss.srv.logger.Debug("mcp: cannot send response", "error", err)
	}
}

func (ss *session) notification(m *jsonrpc.Message) {
	switch m.Method {
	case "notifications/initialized":
		// Nothing to do: requests are served as soon as initialize has been answered.
	case "notifications/cancelled":
		ss.cancelRequest(m.Params)
	case "notifications/roots/list_changed":
		ss.srv.rootsChanged(ss)
	}
	// Unknown notifications are ignored, as JSON-RPC requires.
}

// cancelRequest cancels an in-flight request named by a notifications/cancelled message.
func (ss *session) cancelRequest(params []byte) {
	var id []byte
	d := jsonwire.NewDecoder(params)
	for key := range d.Members {
		if string(key) == "requestId" {
			id = d.Raw()
		} else {
			d.Skip()
		}
	}
	if id == nil {
		return
	}
	ss.mu.Lock()
	if r := ss.inflight[string(id)]; r != nil {
		r.cancelled = true
		r.cancel()
	}
	ss.mu.Unlock()
}

// begin records a request as in flight, in the order messages are read, so that a
// notifications/cancelled read right after it finds it. For an id already in use it answers
// with an error and returns a nil request.
func (ss *session) begin(ctx context.Context, m *jsonrpc.Message, out outbox) (context.Context, *inflightRequest) {
	ctx, cancel := context.WithCancel(ctx)
	key := string(m.ID)
	r := &inflightRequest{cancel: cancel, listen: m.Method == "subscriptions/listen"}
	ss.mu.Lock()
	_, dup := ss.inflight[key]
	if !dup {
		ss.inflight[key] = r
	}
	ss.mu.Unlock()
	if dup {
		cancel()
		ss.reply(out, jsonrpc.AppendError(nil, m.ID, jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
			"invalid request: id "+key+" is already in use by a request in progress")))
		return ctx, nil
	}
	return ctx, r
}

// request serves one request begun with begin and sends its response, unless the client
// cancelled it. meta is that of a request of revision 2026-07-28, served without the
// session's state.
func (ss *session) request(ctx context.Context, m *jsonrpc.Message, meta *requestMeta, out outbox, r *inflightRequest) {
	defer r.cancel()
	key := string(m.ID)

	var resp []byte
	if meta != nil {
		resp, _ = ss.srv.serveModern(ctx, m, meta, out)
	} else {
		req := &Request{ss: ss, id: m.ID, method: m.Method, out: out, progressToken: progressToken(m.Params)}
		resp = ss.dispatch(context.WithValue(ctx, requestKey{}, req), m, req)
	}

	ss.mu.Lock()
	delete(ss.inflight, key)
	cancelled := r.cancelled
	ss.mu.Unlock()
	if !cancelled {
		ss.reply(out, resp)
	}
}

// progressToken reads params._meta.progressToken, as raw JSON.
func progressToken(params []byte) []byte {
	if !bytes.Contains(params, []byte(`"_meta"`)) {
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

// handler answers one method: it returns the result object, or a JSON-RPC error.
type handler func(ctx context.Context, req *Request, params []byte) ([]byte, *jsonrpc.Error)

// methods are the requests a server answers after initialize.
var methods = map[string]handler{
	"tools/list":               listTools,
	"tools/call":               callTool,
	"resources/list":           listResources,
	"resources/templates/list": listResourceTemplates,
	"resources/read":           readResource,
	"resources/subscribe":      subscribe,
	"resources/unsubscribe":    unsubscribe,
	"prompts/list":             listPrompts,
	"prompts/get":              getPrompt,
	"completion/complete":      complete,
	"logging/setLevel":         setLevel,
}

// dispatch runs a request's handler and returns the complete response message. A panic
// anywhere in it becomes an internal error: nothing a client sends may stop the server.
func (ss *session) dispatch(ctx context.Context, m *jsonrpc.Message, req *Request) (resp []byte) {
	defer func() {
		if v := recover(); v != nil {
			ss.srv.logger.Error("mcp: panic while serving request", "method", m.Method, "panic", v, "stack", string(debug.Stack()))
			resp = jsonrpc.AppendError(nil, m.ID, jsonrpc.NewError(jsonrpc.CodeInternalError, "internal error"))
		}
	}()
	switch m.Method {
	case "initialize":
		return ss.initialize(m)
	case "ping":
		return jsonrpc.AppendResult(nil, m.ID, []byte("{}"))
	}
	h := methods[m.Method]
	if h == nil || !ss.srv.offers(m.Method) {
		return jsonrpc.AppendError(nil, m.ID, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method not found: "+m.Method))
	}
	if m.Method == "tools/call" {
		return callToolResponse(ctx, req, m.ID, m.Params)
	}
	result, err := h(ctx, req, m.Params)
	if err != nil {
		return jsonrpc.AppendError(nil, m.ID, err)
	}
	return jsonrpc.AppendResult(nil, m.ID, result)
}

func invalidParams(format string, args ...any) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: "+fmt.Sprintf(format, args...))
}

func (ss *session) initialize(m *jsonrpc.Message) []byte {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
		ClientInfo      struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"clientInfo"`
		Capabilities struct {
			Sampling *struct {
				Context *json.RawMessage `json:"context"`
			} `json:"sampling"`
			Elicitation *struct {
				Form *json.RawMessage `json:"form"`
				URL  *json.RawMessage `json:"url"`
			} `json:"elicitation"`
			Roots *struct {
				ListChanged bool `json:"listChanged"`
			} `json:"roots"`
		} `json:"capabilities"`
	}
	// initialize happens once per session: encoding/json is simplest here.
	if m.Params != nil {
		if err := json.Unmarshal(m.Params, &p); err != nil {
			return jsonrpc.AppendError(nil, m.ID, invalidParams("initialize: %v", err))
		}
	}
	if p.ProtocolVersion == "" {
		return jsonrpc.AppendError(nil, m.ID, invalidParams("initialize: protocolVersion is required"))
	}
	c := p.Capabilities
	caps := ClientCapabilities{
		Sampling: c.Sampling != nil,
		// Before 2025-11-25, sampling included context without a capability of its own.
		SamplingContext: c.Sampling != nil && (c.Sampling.Context != nil || negotiate(p.ProtocolVersion) < "2025-11-25"),
		// An empty elicitation object means form mode (it was the only mode before 2025-11-25).
		Elicitation:    c.Elicitation != nil && (c.Elicitation.Form != nil || c.Elicitation.URL == nil),
		ElicitationURL: c.Elicitation != nil && c.Elicitation.URL != nil,
		Roots:          c.Roots != nil,
	}
	if c.Roots != nil {
		caps.RootsListChange = c.Roots.ListChanged
	}

	ss.mu.Lock()
	again := ss.initialized
	if !again {
		ss.initialized = true
		ss.version = negotiate(p.ProtocolVersion)
		ss.dialect = dialectOf(ss.version)
		ss.client = Implementation{Name: p.ClientInfo.Name, Version: p.ClientInfo.Version}
		ss.caps = caps
	}
	version, dialect := ss.version, ss.dialect
	ss.mu.Unlock()
	if again {
		return jsonrpc.AppendError(nil, m.ID, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "invalid request: the session is already initialized"))
	}

	var e jsonwire.Encoder
	e.ObjectStart()
	e.Key("protocolVersion")
	e.String(version)
	e.Key("capabilities")
	ss.srv.writeCapabilities(&e)
	e.Key("serverInfo")
	if dialect >= dialect2025b {
		e.Raw(ss.srv.infoJSON)
	} else {
		e.Raw(encodeInfo(Implementation{Name: ss.srv.info.Name, Version: ss.srv.info.Version})) // no titles yet
	}
	optionalString(&e, "instructions", ss.srv.opts.Instructions)
	e.ObjectEnd()
	return jsonrpc.AppendResult(nil, m.ID, e.Bytes())
}

// call sends a request to the client on out and waits for its response, or for ctx to end
// (then it tells the client the request is cancelled). It returns the raw result.
func (ss *session) call(ctx context.Context, out outbox, method string, params []byte) ([]byte, error) {
	id := []byte(strconv.FormatInt(ss.nextID.Add(1), 10))
	ch := make(chan *jsonrpc.Message, 1)
	ss.mu.Lock()
	if ss.closed {
		ss.mu.Unlock()
		return nil, ErrSessionClosed
	}
	ss.pending[string(id)] = ch
	ss.mu.Unlock()
	defer func() {
		ss.mu.Lock()
		delete(ss.pending, string(id))
		ss.mu.Unlock()
	}()
	if err := out.send(jsonrpc.AppendRequest(nil, id, method, params)); err != nil {
		return nil, fmt.Errorf("mcp: sending %s: %w", method, err)
	}
	select {
	case resp := <-ch:
		if resp == nil {
			return nil, ErrSessionClosed
		}
		if resp.Error != nil {
			return nil, &ClientError{Method: method, Code: resp.Error.Code, Message: resp.Error.Message}
		}
		return resp.Result, nil
	case <-ctx.Done():
		note := fmt.Appendf(nil, `{"requestId":%s,"reason":%s}`, id, jsonwire.AppendString(nil, context.Cause(ctx).Error()))
		out.send(jsonrpc.AppendNotification(nil, "notifications/cancelled", note))
		return nil, ctx.Err()
	}
}

// deliver hands a client's response to the request of ours it answers.
func (ss *session) deliver(m *jsonrpc.Message) {
	ss.mu.Lock()
	ch := ss.pending[string(m.ID)]
	delete(ss.pending, string(m.ID))
	ss.mu.Unlock()
	if ch == nil {
		ss.srv.logger.Debug("mcp: a response to no request of ours", "id", string(m.ID))
		return
	}
	// The message aliases the transport's buffer: keep copies.
	copied := *m
	copied.Result = append([]byte(nil), m.Result...)
	ch <- &copied
}

// hangUp records that the client will send nothing more: requests waiting for its answers
// give up, and no new ones are sent. Requests in progress go on, to be answered.
func (ss *session) hangUp() {
	ss.mu.Lock()
	ss.closed = true
	pending := ss.pending
	ss.pending = map[string]chan *jsonrpc.Message{}
	for _, r := range ss.inflight {
		if r.listen {
			r.cancel() // a subscription ends with its transport
		}
	}
	ss.mu.Unlock()
	for _, ch := range pending {
		ch <- nil
	}
}

// close ends the session: requests in progress are cancelled, and those waiting for the
// client give up.
func (ss *session) close() {
	ss.hangUp()
	ss.mu.Lock()
	for _, r := range ss.inflight {
		r.cancel()
	}
	ss.mu.Unlock()
	ss.srv.forget(ss)
}

// ErrSessionClosed is returned by requests to a client whose session has ended.
var ErrSessionClosed = errors.New("mcp: the session has ended")

// ClientError is an error response of the client to a request of the server's.
type ClientError struct {
	Method  string
	Code    int
	Message string
}

func (e *ClientError) Error() string {
	return fmt.Sprintf("mcp: the client answered %s with error %d: %s", e.Method, e.Code, e.Message)
}

// notify sends a notification that belongs to no request (list changes, resource updates),
// without waiting for the client to read it.
func (ss *session) notify(method string, params []byte) {
	if err := sendUnwaited(ss.out, jsonrpc.AppendNotification(nil, method, params)); err != nil {
		ss.srv.logger.Debug("mcp: cannot send message", "error", err)
	}
}

// sendUnwaited sends a message that belongs to no request (a session's notification, or a
// subscription's) without making the caller, such as AddTool, wait for a client to read it:
// an outbox that would block (stdio's) queues it; the others never block.
func sendUnwaited(out outbox, msg []byte) error {
	if later, ok := out.(interface{ sendLater([]byte) }); ok {
		later.sendLater(msg)
		return nil
	}
	return out.send(msg)
}
