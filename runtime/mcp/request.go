package mcp

import (
	"context"
	"errors"
	"log/slog"
	"strconv"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// Request is the request a handler serves: a tool call, a prompt, a resource read. What a
// tool body may need from the client goes through it: progress, log messages, and asking
// the client for more (sampling, elicitation, roots). Get it with RequestFrom; the helpers
// Progress, Log, Sample, Elicit and Roots do so for you.
type Request struct {
	srv           *Server
	client        clientSide       // the session it belongs to, or the stateless request itself
	msg           *jsonrpc.Message // the request as it was read
	w             messageWriter    // what messages about this request are written to, with its ctx
	notes         *notifier        // the conversation's, for a subscription's notifications
	progressToken []byte
	row           *method      // its method's row, once found
	tool          *ToolCall    // the call a tools/call holds until its response is written
	task          *runningTask // the task whose body this is, if it is one
	// tk is the door's ticket of the request (door.go): what it read of it, and its bytes in
	// the server's budget, given back once it is answered; nil where there is none (a
	// task's body, a call in process).
	tk *ticket
	// detach: a task made of the request runs on after it, in a context that holds it
	// (release lets go of its message then).
	detach bool
}

// keep takes over up to n of the request's bytes in the server's budget, for what outlives
// it (a task's arguments), and returns how many it took: those are the taker's to give back.
func (r *Request) keep(n int64) int64 {
	if r.tk == nil {
		return 0
	}
	k := min(r.tk.held, n)
	r.tk.held -= k
	return k
}

// clientSide is the client of a request, as the server sees it: a session of a revision
// with sessions, or, in the stateless revision, the request itself, which says in its _meta
// who the client is and what it can do.
type clientSide interface {
	// protocolVersion names the revision; "" before a session is initialized.
	protocolVersion() string
	revision() revision
	capabilities() ClientCapabilities
	info() Implementation
	// logLevel is the least severe level of log messages the client wants; "" for none.
	logLevel() LogLevel
	// ask asks the client something (sampling, elicitation, roots) for r and returns the
	// raw result: a request to a session's client, or, in a stateless request, the answer
	// the client sent with it or ErrInputRequired.
	ask(ctx context.Context, r *Request, method string, params []byte) ([]byte, error)
	// lacking records that r wanted a capability the client did not declare.
	lacking(capability, failure string)
	// respond writes the response message to r: its result, or err.
	respond(r *Request, m *jsonrpc.Message, result []byte, err *jsonrpc.Error) []byte
	// describe fills in what a Message says of the conversation: its session, transport
	// and the client's address.
	describe(m *Message)
}

type requestKey struct{}

// RequestFrom returns the request ctx belongs to, or nil outside a handler.
func RequestFrom(ctx context.Context) *Request {
	r, _ := ctx.Value(requestKey{}).(*Request)
	return r
}

// Method is the request's method, such as "tools/call".
func (r *Request) Method() string { return r.msg.Method }

// ProtocolVersion is the protocol revision the client speaks.
func (r *Request) ProtocolVersion() string { return r.client.protocolVersion() }

// ClientInfo names the client.
func (r *Request) ClientInfo() Implementation { return r.client.info() }

// ClientCapabilities are the capabilities the client declared.
func (r *Request) ClientCapabilities() ClientCapabilities { return r.client.capabilities() }

// The attributes of the runtime's log lines about a message, named as OpenTelemetry's
// conventions for MCP name them on spans; with otelmcp.LogHandler, a line logged in a
// request's context carries its trace too.
const (
	logMethod    = "mcp.method.name"
	logRequestID = "jsonrpc.request.id"
	logSession   = "mcp.session.id"
)

// messageAttrs are the attributes of a log line about a message: its method, id (for a
// request) and session (if it has an id), then extra.
func messageAttrs(m *jsonrpc.Message, session string, extra ...slog.Attr) []slog.Attr {
	attrs := make([]slog.Attr, 0, 3+len(extra))
	attrs = append(attrs, slog.String(logMethod, m.Method))
	if len(m.ID) > 0 {
		attrs = append(attrs, slog.String(logRequestID, string(m.ID)))
	}
	if session != "" {
		attrs = append(attrs, slog.String(logSession, session))
	}
	return append(attrs, extra...)
}

// logAttrs are the attributes of a log line about the request, then extra.
func (r *Request) logAttrs(extra ...slog.Attr) []slog.Attr {
	id := ""
	if ss, ok := r.client.(*session); ok {
		id = ss.id
	}
	return messageAttrs(r.msg, id, extra...)
}

// notifyThroughMiddleware sends a notification about this request inside the server's
// middleware.
func (r *Request) notifyThroughMiddleware(ctx context.Context, method string, params []byte) {
	if err := r.srv.notifyThroughMiddleware(ctx, r.client, method, params, func(msg []byte) error { return r.w.Write(ctx, msg) }); err != nil {
		r.srv.logger.LogAttrs(ctx, slog.LevelDebug, "mcp: cannot send "+method, r.logAttrs(slog.Any("error", err))...)
	}
}

// message is the request as the server's middleware sees it.
func (r *Request) message() *Message {
	m := &Message{Method: r.msg.Method, ID: string(r.msg.ID), Params: r.msg.Params, Server: true, srv: r.srv}
	if r.tk != nil && r.tk.name != nil {
		m.name, m.parsed = string(r.tk.name), true // read by the door: not parsed again
	}
	r.client.describe(m)
	return m
}

// release lets go of what the request held for its response, once it is written.
func (r *Request) release() {
	if r.tool != nil {
		putToolCall(r.tool)
		r.tool = nil
	}
	if r.detach {
		// A task's context outlives the request, and holds it: it keeps nothing of the
		// message's bytes (the params alias a body as large as the arguments, which the
		// task copied), only what names the request.
		r.msg = &jsonrpc.Message{Method: r.msg.Method, ID: append([]byte(nil), r.msg.ID...)}
		r.tk = nil
	}
}

// notify sends a notification about this request.
func (r *Request) notify(ctx context.Context, method string, params []byte) {
	if r.srv.mw != nil {
		r.notifyThroughMiddleware(ctx, method, params)
		return
	}
	if err := r.w.Write(ctx, jsonrpc.AppendNotification(nil, method, params)); err != nil {
		r.srv.logger.LogAttrs(context.Background(), slog.LevelDebug, "mcp: cannot send "+method, r.logAttrs(slog.Any("error", err))...)
	}
}

// Progress reports progress of the request the context belongs to, if the client asked for
// it (with a progressToken); otherwise it does nothing. progress should increase with each
// call; total is 0 when unknown; message may be empty.
func Progress(ctx context.Context, progress, total float64, message string) {
	r := RequestFrom(ctx)
	if r != nil && r.task != nil {
		// In a task, progress is what its status says.
		if message == "" {
			message = "Progress: " + strconv.FormatFloat(progress, 'f', -1, 64)
			if total > 0 {
				message += " of " + strconv.FormatFloat(total, 'f', -1, 64)
			}
		}
		r.srv.tasks.statusMessage(ctx, r.task, message)
		return
	}
	if r == nil || r.progressToken == nil {
		return
	}
	var e jsonwire.Encoder
	(&ProgressNotice{Progress: progress, Total: total, Message: message}).encode(&e, r.progressToken)
	r.notify(ctx, notificationProgress, e.Bytes())
}

// ErrCapability reports that the client did not declare what a request to it needs.
type ErrCapability struct {
	Capability string // "sampling", "elicitation", "roots", "sampling.context", "sampling.tools"
	Revision   string // if set, the client's protocol revision, which has no such capability
}

func (e *ErrCapability) Error() string {
	c := e.Capability
	if c == "elicitation" {
		c = "elicitation capability for form mode"
	} else {
		c += " capability"
	}
	if e.Revision != "" {
		return "mcp: the client speaks protocol " + e.Revision + ", which has no " + c + ", so the server cannot ask it for that"
	}
	return "mcp: the client did not declare the " + c + ", so the server cannot ask it for that"
}

// ask sends a request to the client of the request ctx belongs to, if it declared the
// capability the method's row says it needs, and returns the raw result.
func ask(ctx context.Context, method string, params []byte) ([]byte, error) {
	r := RequestFrom(ctx)
	if r == nil {
		return nil, errors.New("mcp: " + method + " needs the context of a request being served")
	}
	if row := methods[method]; row.needs != nil && !row.needs(r.ClientCapabilities()) {
		err := &ErrCapability{Capability: row.capability}
		r.client.lacking(row.capability, err.Error())
		return nil, err
	}
	return r.client.ask(ctx, r, method, params)
}
