package mcp

import (
	"context"
	"errors"
	"log/slog"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// Middleware wraps how one side of a conversation handles its messages: every request and
// notification it receives, and every one it sends, on a server (ServerOptions.Middleware),
// a client (ClientOptions.Middleware) and every client of a host (host.Options.Client). It
// is given the next handler and returns one that does what it wants around it: observe the
// message, time it, reject it, or add to its _meta (Message.SetMeta).
//
//	func timing(next mcp.Handler) mcp.Handler {
//		return func(ctx context.Context, m *mcp.Message) ([]byte, error) {
//			start := time.Now()
//			result, err := next(ctx, m)
//			slog.InfoContext(ctx, "mcp", "method", m.Method, "tool", m.Name(),
//				"took", time.Since(start), "error", m.ErrorType(result, err))
//			return result, err
//		}
//	}
//
// What the handler covers:
//
//   - A request received: serving it, from the moment it is admitted (the server's checks of
//     the session and the caller done) until its result is ready to be written. The handler
//     returns the result object, or the error the other side gets as an error response.
//   - A request sent: one request on the wire (a stateless request retried with the
//     client's input is another), from before it is written, so that SetMeta reaches it, until
//     its response has come. The handler returns the result, a *jsonrpc.Error when the other
//     side answered with one, or why no answer came (ctx's error, ErrTransport).
//   - A notification, received or sent: handling or writing it. The handler returns nil, nil.
//
// Order: the first middleware of a list is the outermost. It sees a message first and its
// outcome last, in both directions.
//
// Rejecting: a middleware that returns an error without calling next stops the message. A
// request received is answered with it (a *jsonrpc.Error as it is, any other error as
// -32603 internal error with its text); a request to send is not sent, and its caller gets
// the error; a notification is dropped.
//
// Panics: a panic in a middleware, as in a handler, is contained: it is logged with its
// stack, a request received is answered with an internal error, a request to send fails,
// and the conversation goes on.
//
// Cost: a side without middleware handles its messages exactly as it would without this
// feature, allocating nothing for it. With middleware, each message costs a Message.
type Middleware func(next Handler) Handler

// Handler handles one message, as a Middleware sees it: see Middleware for what it covers
// and returns.
type Handler func(ctx context.Context, m *Message) (result []byte, err error)

// Message is a request or a notification as a middleware sees it: what it is, which side
// sends it, and the conversation it belongs to. It is only valid until the handler returns.
type Message struct {
	// Method is the request's or notification's method, such as "tools/call".
	Method string
	// ID is the request's id as it is written in JSON (7, "a7"); "" for a notification.
	ID string
	// Params are the params as they are written in JSON (an object), or nil. They must not
	// be changed in place: SetMeta adds to their _meta.
	Params []byte
	// Outgoing is true for a message this side sends, false for one it received.
	Outgoing bool
	// Server is true on a server, false on a client.
	Server bool
	// SessionID is the session's id (Mcp-Session-Id over Streamable HTTP, the sessionId of
	// HTTP+SSE); "" over stdio and in memory, which have no id, and in the stateless
	// revision, which has no sessions.
	SessionID string
	// ProtocolVersion is the revision spoken, such as "2025-11-25"; "" while initialize has
	// not settled it.
	ProtocolVersion string
	// Transport is how the messages travel: TransportStdio, TransportHTTP, TransportSSE or
	// TransportMemory; a transport of another package names itself (a method
	// TransportName() string on its Connection or Transport: runtime/mcp/ws's says
	// "websocket").
	Transport string
	// Peer is the other side's address over HTTP: on a server the client's (host:port, as
	// the connection has it), on a client the server's (its URL's host:port); "" otherwise.
	Peer string
	// Auth is the verified caller of a request to a protected server (AuthInfoFrom); nil
	// on a client, and on a server that is not protected.
	Auth *AuthInfo

	// toolError classifies a tools/call result with isError true, as the server that
	// served it knows it (ErrorType); toolKnown says it was set.
	toolError string
	toolKnown bool
	// name and uri are read from Params once asked for; parsed says they were.
	name, uri string
	parsed    bool
	// srv is the server a request was received by, whose tools and prompts Known checks.
	srv *Server
	// inner is what the runtime does with the message once the middleware hand it on.
	inner Handler
}

// SessionEnd is a session that has ended, as the side that was in it saw it: a session of
// a revision with sessions (2024-11-05 to 2025-11-25), from its initialize to its end. The
// stateless revision (2026-07-28) has no sessions.
type SessionEnd struct {
	// Server is true on a server, false on a client.
	Server bool
	// ID, ProtocolVersion, Transport and Peer are as in Message.
	ID, ProtocolVersion, Transport, Peer string
	// Began is when initialize was sent or received; Duration is how long the session
	// lasted from then.
	Began    time.Time
	Duration time.Duration
	// Err is why the session ended if the connection failed (ErrTransport) or it timed out;
	// nil when a side ended it as the protocol does (the client closed it, the server's
	// stdin ended, an HTTP DELETE, the server stopping).
	Err error
}

// The transports of Message.Transport.
const (
	TransportStdio  = "stdio"  // newline-delimited JSON on a pipe: a command's stdin and stdout
	TransportHTTP   = "http"   // Streamable HTTP
	TransportSSE    = "sse"    // HTTP+SSE, of revision 2024-11-05
	TransportMemory = "memory" // a server in the same process
)

// The error classes ErrorType gives a tools/call whose result has isError true.
const (
	// ErrorTool: the tool failed (it returned an error, or panicked). The OpenTelemetry
	// conventions for MCP name every error result so.
	ErrorTool = "tool_error"
	// ErrorInvalidArguments: the arguments broke the tool's input schema, as its
	// generated code found. Told apart from ErrorTool because it is the caller's mistake
	// (a model's), not the tool's.
	ErrorInvalidArguments = "invalid_arguments"
	// ErrorInvalidResult: the tool returned a result its output schema does not allow.
	ErrorInvalidResult = "invalid_result"
)

// Name is the name of the tool a tools/call calls, or of the prompt a prompts/get gets;
// "" for other methods.
func (m *Message) Name() string {
	m.parse()
	return m.name
}

// URI is the resource's URI of resources/read, resources/subscribe, resources/unsubscribe
// and notifications/resources/updated; "" for other methods.
func (m *Message) URI() string {
	m.parse()
	return m.uri
}

// Known reports whether what a message received names is known to this side: its method
// is one of MCP's, and on a server the tool of a tools/call and the prompt of a prompts/get
// (when it names one) are ones the server has. The other side chooses what it sends: a
// middleware that labels metrics with the method or the name (otelmcp does) labels a
// message that is not known with one fixed value instead, so that a client calling ever
// new names makes no new series. A message this side sends is its own: always known.
func (m *Message) Known() bool {
	if m.Outgoing {
		return true
	}
	if methods[m.Method] == nil {
		return false
	}
	if m.srv == nil {
		return true
	}
	switch name := m.Name(); {
	case name == "":
		return true
	case m.Method == methodToolsCall:
		return m.srv.lookupTool([]byte(name)) != nil
	case m.Method == methodPromptsGet:
		return m.srv.lookupPrompt(name) != nil
	}
	return true
}

func (m *Message) parse() {
	if m.parsed {
		return
	}
	m.parsed = true
	switch m.Method {
	case methodToolsCall, methodPromptsGet:
		m.name, _ = stringParam(m.Params, "name")
	case methodResourcesRead, methodResourcesSubscribe, methodResourcesUnsubscribe, notificationResourceUpdated:
		m.uri, _ = stringParam(m.Params, "uri")
	}
}

// Meta returns the string member key of the params' _meta, or "": where a middleware reads
// what the other side's put there, such as the trace context (traceparent, tracestate).
func (m *Message) Meta(key string) string {
	d := jsonwire.NewDecoder(m.Params)
	if m.Params == nil || d.Peek() != jsonwire.Object {
		return ""
	}
	v := ""
	for k := range d.Members {
		if string(k) != "_meta" || d.Peek() != jsonwire.Object {
			d.Skip()
			continue
		}
		for k := range d.Members {
			if string(k) == key && d.Peek() == jsonwire.String {
				v, _ = d.String()
			} else {
				d.Skip()
			}
		}
	}
	return v
}

// SetMeta sets the string member key of the params' _meta to value, adding _meta if the
// params have none: on a message to send, the message written carries it. The params are
// copied, never changed in place.
func (m *Message) SetMeta(key, value string) {
	m.Params = setMeta(m.Params, key, value)
}

// setMeta returns params with _meta.key set to value. Params that are not an object are
// returned as they are.
func setMeta(params []byte, key, value string) []byte {
	var e jsonwire.Encoder
	e.Reset(make([]byte, 0, len(params)+len(key)+len(value)+16))
	e.ObjectStart()
	writeMeta := func(d *jsonwire.Decoder) {
		e.Key("_meta")
		e.ObjectStart()
		if d != nil {
			for k := range d.Members {
				if string(k) == key {
					d.Skip()
					continue
				}
				e.Key(string(k))
				e.Raw(d.Raw())
			}
		}
		e.Key(key)
		e.String(value)
		e.ObjectEnd()
	}
	if params == nil {
		writeMeta(nil)
		e.ObjectEnd()
		return e.Bytes()
	}
	d := jsonwire.NewDecoder(params)
	if d.Peek() != jsonwire.Object {
		return params
	}
	seen := false
	for k := range d.Members {
		if string(k) == "_meta" && d.Peek() == jsonwire.Object {
			writeMeta(d)
			seen = true
			continue
		}
		if string(k) == "_meta" {
			d.Skip() // not an object (null): replaced
			continue
		}
		e.Key(string(k))
		e.Raw(d.Raw())
	}
	if d.Failed() {
		return params
	}
	if !seen {
		writeMeta(nil)
	}
	e.ObjectEnd()
	return e.Bytes()
}

// ErrorType classifies how a message's handling ended, given what the handler returned, as
// OpenTelemetry's error.type has it: "" when it succeeded; the JSON-RPC error code ("-32602")
// of an error response; for a tools/call whose result has isError true, ErrorTool,
// ErrorInvalidArguments or ErrorInvalidResult (a client knows only ErrorTool); "timeout" and
// "cancelled" when ctx ended first; "transport" when the connection failed; "_OTHER" for
// anything else.
func (m *Message) ErrorType(result []byte, err error) string {
	if err == nil {
		if !m.toolKnown && m.Method == methodToolsCall && isErrorResult(result) {
			return ErrorTool
		}
		return m.toolError
	}
	var rpcErr *jsonrpc.Error
	var clientErr *ClientError
	switch {
	case errors.As(err, &rpcErr):
		return strconv.Itoa(rpcErr.Code)
	case errors.As(err, &clientErr):
		return strconv.Itoa(clientErr.Code)
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "cancelled"
	case errors.Is(err, ErrTransport):
		return "transport"
	}
	return "_OTHER"
}

// isErrorResult reports whether a CallToolResult has isError true.
func isErrorResult(result []byte) bool {
	d := jsonwire.NewDecoder(result)
	if result == nil || d.Peek() != jsonwire.Object {
		return false
	}
	isError := false
	for k := range d.Members {
		if string(k) == "isError" && d.Peek() == jsonwire.Bool {
			isError, _ = d.Bool()
			continue
		}
		d.Skip()
	}
	return isError
}

// setToolOutcome records how a tool call a server served ended, for ErrorType.
func (m *Message) setToolOutcome(c *ToolCall) {
	m.toolKnown = true
	m.toolError = c.errorType()
}

// chain wraps h in mws, the first outermost.
func chain(mws []Middleware, h Handler) Handler {
	for i := len(mws) - 1; i >= 0; i-- {
		h = mws[i](h)
	}
	return h
}

// middlewareChain is a side's middleware around the runtime's own handling, which each
// message carries (Message.inner); nil without middleware.
func middlewareChain(mws []Middleware) Handler {
	if len(mws) == 0 {
		return nil
	}
	return chain(mws, func(ctx context.Context, m *Message) ([]byte, error) { return m.inner(ctx, m) })
}

// runMiddleware runs m through a side's middleware h, inner last, and returns what they
// return. A panic in a middleware or in inner is contained: logged with its stack, it
// becomes an internal error.
func runMiddleware(ctx context.Context, h Handler, m *Message, inner Handler, logger *slog.Logger) (result []byte, err error) {
	m.inner = inner
	defer func() {
		if v := recover(); v != nil {
			logPanic(ctx, logger, "mcp: panic in middleware", v, slog.String(logMethod, m.Method), slog.Bool("outgoing", m.Outgoing))
			result, err = nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "internal error")
		}
	}()
	return h(ctx, m)
}

// logPanic logs a panic recovered (v) with its stack: the one way the runtime reports one,
// wherever it contains it (a handler, a tool, a middleware), each answering it as its own.
func logPanic(ctx context.Context, logger *slog.Logger, msg string, v any, attrs ...slog.Attr) {
	attrs = append(attrs, slog.Any("panic", v), slog.String("stack", string(debug.Stack())))
	logger.LogAttrs(ctx, slog.LevelError, msg, attrs...)
}

// rpcError is err as the error response of a request received: nil for nil.
func rpcError(err error) *jsonrpc.Error {
	if err == nil {
		return nil
	}
	return asRPCError(err)
}

// handlerError is a handler's *jsonrpc.Error as an error: nil for nil (not an interface
// holding a nil pointer).
func handlerError(err *jsonrpc.Error) error {
	if err == nil {
		return nil
	}
	return err
}

// asRPCError is the error response a request received gets for err, which a handler or a
// middleware returned.
func asRPCError(err error) *jsonrpc.Error {
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		return rpcErr
	}
	return jsonrpc.NewError(jsonrpc.CodeInternalError, err.Error())
}
