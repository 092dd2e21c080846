package mcp

import (
	"context"
	"encoding/base64"
	"fmt"
	"runtime/debug"
	"sync"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// session is one client's conversation with a server: its lifecycle state, negotiated
// protocol revision and the requests it has in flight. Transports feed it messages and
// give it a way to send.
type session struct {
	srv  *Server
	send func(msg []byte) error // writes one complete message; safe for concurrent use

	mu          sync.Mutex
	initialized bool // initialize has been answered
	version     string
	dialect     dialect
	client      Implementation
	inflight    map[string]*inflightRequest // by the request id's raw JSON
}

type inflightRequest struct {
	cancel    context.CancelFunc
	cancelled bool // by the client: the response must not be sent
}

func newSession(srv *Server, send func([]byte) error) *session {
	return &session{srv: srv, send: send, inflight: map[string]*inflightRequest{}}
}

// receive handles one incoming message. Requests other than initialize run on their own
// goroutine, tracked by wg, so that a slow tool never holds up the others; initialize runs
// inline because everything after it depends on its outcome.
func (ss *session) receive(ctx context.Context, data []byte, wg *sync.WaitGroup) {
	m, perr := jsonrpc.Parse(data)
	switch {
	case perr != nil:
		ss.write(jsonrpc.AppendError(nil, m.ID, perr))
	case m.IsNotification():
		ss.notification(&m)
	case m.IsResponse():
		// The server sends no requests yet, so no response is expected; ignore it.
		ss.srv.logger.Debug("mcp: ignoring unexpected response", "id", string(m.ID))
	case m.Method == "initialize":
		ss.request(ctx, &m)
	case m.Method != "ping" && !ss.ready():
		// Decided here, in the order messages arrive, not on the request's own goroutine,
		// where an initialize read later could already have been handled.
		ss.write(jsonrpc.AppendError(nil, m.ID, errNotInitialized))
	default:
		wg.Add(1)
		go func() {
			defer wg.Done()
			ss.request(ctx, &m)
		}()
	}
}

var errNotInitialized = jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "invalid request: the session is not initialized; send initialize first")

func (ss *session) ready() bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.initialized
}

func (ss *session) write(msg []byte) {
	if err := ss.send(msg); err != nil {
		ss.srv.logger.Warn("mcp: cannot send message", "error", err)
	}
}

func (ss *session) notification(m *jsonrpc.Message) {
	switch m.Method {
	case "notifications/initialized":
		// Nothing to do: requests are served as soon as initialize has been answered.
	case "notifications/cancelled":
		ss.cancelRequest(m.Params)
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

// request serves one request and sends its response, unless the client cancelled it.
func (ss *session) request(ctx context.Context, m *jsonrpc.Message) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	key := string(m.ID)
	r := &inflightRequest{cancel: cancel}
	ss.mu.Lock()
	_, dup := ss.inflight[key]
	if !dup {
		ss.inflight[key] = r
	}
	ss.mu.Unlock()
	if dup {
		ss.write(jsonrpc.AppendError(nil, m.ID, jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
			"invalid request: id "+key+" is already in use by a request in progress")))
		return
	}

	resp := ss.dispatch(ctx, m)

	ss.mu.Lock()
	delete(ss.inflight, key)
	cancelled := r.cancelled
	ss.mu.Unlock()
	if !cancelled {
		ss.write(resp)
	}
}

// dispatch runs a request's handler and returns the complete response message. A panic
// anywhere in it becomes an internal error: nothing a client sends may stop the server.
func (ss *session) dispatch(ctx context.Context, m *jsonrpc.Message) (resp []byte) {
	defer func() {
		if v := recover(); v != nil {
			ss.srv.logger.Error("mcp: panic while serving request", "method", m.Method, "panic", v, "stack", string(debug.Stack()))
			resp = jsonrpc.AppendError(nil, m.ID, jsonrpc.NewError(jsonrpc.CodeInternalError, "internal error"))
		}
	}()
	if m.Method == "initialize" {
		return ss.initialize(m)
	}
	if m.Method == "ping" {
		return jsonrpc.AppendResult(nil, m.ID, []byte("{}"))
	}
	ss.mu.Lock()
	d := ss.dialect
	ss.mu.Unlock()
	switch m.Method {
	case "tools/list":
		return ss.listTools(m, d)
	case "tools/call":
		return ss.callTool(ctx, m, d)
	}
	return jsonrpc.AppendError(nil, m.ID, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method not found: "+m.Method))
}

func invalidParams(id []byte, format string, args ...any) []byte {
	return jsonrpc.AppendError(nil, id, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: "+fmt.Sprintf(format, args...)))
}

func (ss *session) initialize(m *jsonrpc.Message) []byte {
	var requested string
	var client Implementation
	d := jsonwire.NewDecoder(m.Params)
	if m.Params == nil {
		d.Reset([]byte("{}"))
	}
	for key := range d.Members {
		switch string(key) {
		case "protocolVersion":
			requested, _ = d.String()
		case "clientInfo":
			for key := range d.Members {
				switch string(key) {
				case "name":
					client.Name, _ = d.String()
				case "version":
					client.Version, _ = d.String()
				default:
					d.Skip()
				}
			}
		case "capabilities":
			for range d.Members {
				d.Skip()
			}
		default:
			d.Skip()
		}
	}
	d.Finish()
	switch {
	case d.Failed():
		return invalidParams(m.ID, "initialize: %s", d.Summary())
	case requested == "":
		return invalidParams(m.ID, "initialize: protocolVersion is required")
	}

	ss.mu.Lock()
	again := ss.initialized
	if !again {
		ss.initialized = true
		ss.version = negotiate(requested)
		ss.dialect = dialectOf(ss.version)
		ss.client = client
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
	e.Raw([]byte(`{"tools":{}}`))
	e.Key("serverInfo")
	e.ObjectStart()
	e.Key("name")
	e.String(ss.srv.info.Name)
	if dialect >= dialect2025b {
		optionalString(&e, "title", ss.srv.info.Title)
	}
	e.Key("version")
	e.String(ss.srv.info.Version)
	e.ObjectEnd()
	optionalString(&e, "instructions", ss.srv.opts.Instructions)
	e.ObjectEnd()
	return jsonrpc.AppendResult(nil, m.ID, e.Bytes())
}

// listTools answers tools/list: the tools in name order, PageSize at a time. The cursor is
// the last name of the previous page, so pages stay correct while tools are added.
func (ss *session) listTools(m *jsonrpc.Message, dl dialect) []byte {
	after, ok := "", true
	if m.Params != nil {
		d := jsonwire.NewDecoder(m.Params)
		for key := range d.Members {
			if string(key) != "cursor" {
				d.Skip()
				continue
			}
			var cursor string
			if cursor, ok = d.String(); ok {
				after, ok = decodeCursor(cursor)
			}
		}
		d.Finish()
		if d.Failed() || !ok {
			return invalidParams(m.ID, "tools/list: invalid cursor")
		}
	}

	srv := ss.srv
	srv.mu.RLock()
	defer srv.mu.RUnlock()
	start := 0
	if after != "" {
		var found bool
		if start, found = searchTools(srv.toolOrder, after); found {
			start++
		}
	}
	end := min(start+srv.opts.PageSize, len(srv.toolOrder))

	var e jsonwire.Encoder
	e.Reset(make([]byte, 0, 256))
	e.Raw([]byte(`{"tools":[`))
	for _, t := range srv.toolOrder[start:end] {
		e.Elem()
		e.Raw(t.rendered[dl])
	}
	e.ArrayEnd()
	if end < len(srv.toolOrder) {
		e.Key("nextCursor")
		e.String(encodeCursor(srv.toolOrder[end-1].Name))
	}
	e.ObjectEnd()
	return jsonrpc.AppendResult(nil, m.ID, e.Bytes())
}

const cursorPrefix = "after:"

func encodeCursor(last string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + last))
}

func decodeCursor(c string) (string, bool) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(b) <= len(cursorPrefix) || string(b[:len(cursorPrefix)]) != cursorPrefix {
		return "", false
	}
	return string(b[len(cursorPrefix):]), true
}

// callTool answers tools/call. Problems with the request itself (no name, an unknown tool,
// arguments that are not an object) are protocol errors; everything about the arguments'
// content, and whatever the tool does, is a tool result.
func (ss *session) callTool(ctx context.Context, m *jsonrpc.Message, dl dialect) []byte {
	if m.Params == nil {
		return invalidParams(m.ID, "tools/call: params with a tool name are required")
	}
	var (
		t       *toolEntry
		named   bool
		unknown string
		args    []byte
		argsOK  = true
	)
	d := jsonwire.NewDecoder(m.Params)
	for key := range d.Members {
		switch string(key) {
		case "name":
			if d.Peek() != jsonwire.String {
				d.Skip()
				continue
			}
			name, _ := d.Text() // valid until the next read: look it up now
			named = true
			if t = ss.srv.lookupTool(name); t == nil {
				unknown = string(name)
			}
		case "arguments":
			switch d.Peek() {
			case jsonwire.Object:
				args = d.Raw()
			case jsonwire.Null:
				d.Skip()
			default:
				d.Skip()
				argsOK = false
			}
		default:
			d.Skip()
		}
	}
	switch {
	case !named:
		return invalidParams(m.ID, "tools/call: a tool name is required")
	case t == nil:
		return invalidParams(m.ID, "unknown tool %q", unknown)
	case !argsOK:
		return invalidParams(m.ID, "tools/call: arguments must be an object")
	}
	return ss.srv.runTool(ctx, t, args, dl, func(result []byte) []byte { return jsonrpc.AppendResult(nil, m.ID, result) })
}
