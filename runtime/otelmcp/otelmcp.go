// Package otelmcp records what MCP servers, clients and hosts built on mcpgen's runtime do
// as OpenTelemetry traces and metrics, by the OpenTelemetry semantic conventions for MCP:
// a span per request and notification, sent or received, named "{mcp.method.name}
// {target}" (the tool or the prompt), with the conventions' attributes; the histograms
// mcp.server.operation.duration, mcp.client.operation.duration,
// mcp.server.session.duration and mcp.client.session.duration; and the trace context
// carried in params._meta (traceparent, tracestate, baggage), both ways, so that a call from
// a host through mcpgen's client into a server, and the server's sampling request back to
// the client, are one trace.
//
// It is a package of its own so that the runtime (runtime/mcp) does not link the
// OpenTelemetry SDK: a server that does not import otelmcp carries none of it, and one
// that does but finds no OTEL_* configuration adds no middleware, and so costs nothing.
//
//	tel, err := otelmcp.Setup(ctx, otelmcp.SetupOptions{ServiceName: "weather"})
//	if err != nil { ... } // a configuration it cannot follow, such as OTLP over gRPC
//	defer tel.Shutdown(context.Background())
//	opts := &mcp.ServerOptions{}
//	tel.Server(opts)
//	srv := mcp.NewServer(info, opts)
package otelmcp

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/semconv/v1.41.0/mcpconv"
	"go.opentelemetry.io/otel/trace"
)

// scope is the instrumentation scope of the spans and metrics.
const scope = "github.com/mcpgen/mcpgen/runtime/otelmcp"

// durationBuckets are the bucket boundaries the conventions advise for every MCP duration
// histogram, in seconds. (semconv's helpers set none.)
var durationBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}

// Options say where a Telemetry records. The zero value records through OpenTelemetry's
// global providers and propagator (otel.SetTracerProvider and the others), which Setup
// sets.
type Options struct {
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
	// Propagator reads and writes the trace context in params._meta; the default is the
	// global one (Setup's: W3C trace context and baggage).
	Propagator propagation.TextMapPropagator
}

// Telemetry records MCP's spans and metrics. Its Middleware goes on servers, clients and
// hosts alike (a Message says which side it is on). A Telemetry that Setup found nothing to
// record for is off: Server and Client add nothing.
type Telemetry struct {
	off      bool
	tracer   trace.Tracer
	prop     propagation.TextMapPropagator
	serverOp mcpconv.ServerOperationDuration
	clientOp mcpconv.ClientOperationDuration
	serverSn mcpconv.ServerSessionDuration
	clientSn mcpconv.ClientSessionDuration
	ops      ops

	// What Setup made, which Shutdown ends, and the Prometheus handler, if asked for.
	shutdown []func(context.Context) error
	metrics  http.Handler
}

// New returns a Telemetry that records through the providers of opts.
func New(opts Options) (*Telemetry, error) {
	tp, mp, prop := opts.TracerProvider, opts.MeterProvider, opts.Propagator
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	if prop == nil {
		prop = otel.GetTextMapPropagator()
	}
	t := &Telemetry{tracer: tp.Tracer(scope, trace.WithInstrumentationVersion(version), trace.WithSchemaURL(semconv.SchemaURL)), prop: prop}
	meter := mp.Meter(scope, metric.WithInstrumentationVersion(version), metric.WithSchemaURL(semconv.SchemaURL))
	buckets := metric.WithExplicitBucketBoundaries(durationBuckets...)
	var errs [4]error
	t.serverOp, errs[0] = mcpconv.NewServerOperationDuration(meter, buckets)
	t.clientOp, errs[1] = mcpconv.NewClientOperationDuration(meter, buckets)
	t.serverSn, errs[2] = mcpconv.NewServerSessionDuration(meter, buckets)
	t.clientSn, errs[3] = mcpconv.NewClientSessionDuration(meter, buckets)
	if err := errors.Join(errs[:]...); err != nil {
		return nil, err
	}
	return t, nil
}

// version is this package's, for the instrumentation scope.
const version = "0.1.0"

// Enabled reports whether the Telemetry records anything.
func (t *Telemetry) Enabled() bool { return t != nil && !t.off }

// Middleware is the middleware that records each message's span and duration, and carries
// the trace context in params._meta: put it first (outermost), so that its span covers what
// the other middleware do and they log within it.
func (t *Telemetry) Middleware() mcp.Middleware {
	return func(next mcp.Handler) mcp.Handler {
		return func(ctx context.Context, m *mcp.Message) ([]byte, error) {
			return t.handle(ctx, m, next)
		}
	}
}

// handle records one message. What a sampler may decide on, the span's name and the
// attributes naming the operation, is given when the span starts; what only a recorded span
// keeps (the ids, the session, the transport, the caller's address, the error's details)
// is worked out only when the span records, so that a call the sampler leaves out costs
// little more than the duration, which the histogram gets for every call (metrics are not
// sampled), with attribute sets made once per operation (ops).
func (t *Telemetry) handle(ctx context.Context, m *mcp.Message, next mcp.Handler) ([]byte, error) {
	start := time.Now()
	key := opKey{outgoing: m.Outgoing, method: m.Method, target: m.Name(), version: m.ProtocolVersion, transport: m.Transport}
	if !m.Known() {
		// A method, tool or prompt the other side made up is named as one value, so that
		// names without end make no series (nor span names) without end.
		if key.target != "" {
			key.target = other
		} else {
			key.method = other
		}
	}
	if m.Outgoing {
		key.peer = m.Peer // server.address and server.port, which a client's span starts with
	}
	o := t.ops.get(key)
	opts := o.start
	if !m.Outgoing {
		// The span continues the other side's trace, from _meta; the context it was served
		// in (an HTTP request's span, say) is linked, as the conventions advise.
		ambient := trace.SpanContextFromContext(ctx)
		ctx = t.prop.Extract(ctx, metaCarrier{m})
		if remote := trace.SpanContextFromContext(ctx); ambient.IsValid() && !ambient.Equal(remote) {
			opts = append(opts[:len(opts):len(opts)], trace.WithLinks(trace.Link{SpanContext: ambient}))
		}
	}
	ctx, span := t.tracer.Start(ctx, o.name, opts...)
	recording := span.IsRecording()
	if recording {
		span.SetAttributes(recordedAttributes(m, make([]attribute.KeyValue, 0, 8))...)
	}
	if m.Outgoing {
		// Sampled or not, the other side is told, so that it decides as this side did.
		t.prop.Inject(ctx, metaCarrier{m})
	}
	result, err := next(ctx, m)
	elapsed := time.Since(start)

	if et := m.ErrorType(result, err); et != "" {
		if recording {
			errAttrs := []attribute.KeyValue{semconv.ErrorTypeKey.String(et)}
			if code, ok := rpcCode(et); ok {
				errAttrs = append(errAttrs, semconv.RPCResponseStatusCode(code))
			}
			span.SetAttributes(errAttrs...)
			desc := ""
			if err != nil {
				desc = errorMessage(err)
			}
			span.SetStatus(codes.Error, desc)
		}
		key.errorType = boundedErrorType(et)
		o = t.ops.get(key)
	}
	span.End()

	if m.Outgoing {
		t.clientOp.Inst().Record(ctx, elapsed.Seconds(), o.record...)
	} else {
		t.serverOp.Inst().Record(ctx, elapsed.Seconds(), o.record...)
	}
	return result, err
}

// spanName is "{mcp.method.name} {target}", the target being the tool or the prompt; the
// method alone for the others (a resource's URI would make names of unbounded number).
func spanName(method, target string) string {
	if target != "" {
		return method + " " + target
	}
	return method
}

// startAttributes appends the attributes a span starts with, which a sampler sees: those
// that name the operation (the method, the tool or prompt, execute_tool, as the GenAI
// conventions ask of an execute_tool span) and, on a client, the server it goes to (the
// conventions' server.address and server.port, sampling-relevant wherever they appear).
func startAttributes(k opKey, attrs []attribute.KeyValue) []attribute.KeyValue {
	attrs = append(attrs, semconv.McpMethodNameKey.String(k.method))
	switch {
	case k.target == "":
	case k.method == "tools/call":
		attrs = append(attrs, semconv.GenAIToolName(k.target), semconv.GenAIOperationNameExecuteTool)
	case k.method == "prompts/get":
		attrs = append(attrs, semconv.GenAIPromptName(k.target))
	}
	if k.outgoing {
		attrs = appendPeer(attrs, k.peer, false)
	}
	return attrs
}

// recordedAttributes appends the rest of a message's attributes, as the conventions name
// them, which only a span that records is given.
func recordedAttributes(m *mcp.Message, attrs []attribute.KeyValue) []attribute.KeyValue {
	if m.ID != "" {
		attrs = append(attrs, semconv.JSONRPCRequestID(requestID(m.ID)))
	}
	if uri := m.URI(); uri != "" {
		attrs = append(attrs, semconv.McpResourceURI(uri))
	}
	if m.ProtocolVersion != "" {
		attrs = append(attrs, semconv.McpProtocolVersion(m.ProtocolVersion))
	}
	if m.SessionID != "" {
		attrs = append(attrs, semconv.McpSessionID(m.SessionID))
	}
	attrs = appendTransport(attrs, m.Transport)
	if !m.Outgoing {
		attrs = appendPeer(attrs, m.Peer, true)
	}
	return attrs
}

// metricAttributes are the histogram's: the span's low-cardinality attributes (not the
// ids, the session, the URI or the client's address) and the outcome's.
func metricAttributes(k opKey) []attribute.KeyValue {
	attrs := startAttributes(k, make([]attribute.KeyValue, 0, 10))
	if k.version != "" {
		attrs = append(attrs, semconv.McpProtocolVersion(k.version))
	}
	attrs = appendTransport(attrs, k.transport)
	if k.errorType != "" {
		attrs = append(attrs, semconv.ErrorTypeKey.String(k.errorType))
		if code, ok := rpcCode(k.errorType); ok {
			attrs = append(attrs, semconv.RPCResponseStatusCode(code))
		}
	}
	return attrs
}

// appendTransport appends the transport's attributes: network.transport (pipe for stdio,
// tcp for HTTP and WebSocket) and network.protocol.name.
func appendTransport(attrs []attribute.KeyValue, transport string) []attribute.KeyValue {
	switch transport {
	case mcp.TransportStdio:
		attrs = append(attrs, semconv.NetworkTransportPipe)
	case mcp.TransportHTTP, mcp.TransportSSE:
		attrs = append(attrs, semconv.NetworkTransportTCP, semconv.NetworkProtocolName("http"))
	case "websocket": // runtime/mcp/ws's name, which otelmcp knows without linking it
		attrs = append(attrs, semconv.NetworkTransportTCP, semconv.NetworkProtocolName("websocket"))
	}
	return attrs
}

// appendPeer appends the other side's address: client.* on a server, server.* on a client.
func appendPeer(attrs []attribute.KeyValue, peer string, server bool) []attribute.KeyValue {
	if peer == "" {
		return attrs
	}
	host, port, err := net.SplitHostPort(peer)
	if err != nil {
		host = peer
	}
	p, _ := strconv.Atoi(port)
	if server {
		attrs = append(attrs, semconv.ClientAddress(host))
		if p > 0 {
			attrs = append(attrs, semconv.ClientPort(p))
		}
	} else {
		attrs = append(attrs, semconv.ServerAddress(host))
		if p > 0 {
			attrs = append(attrs, semconv.ServerPort(p))
		}
	}
	return attrs
}

// requestID is the id as the conventions write it: a string id without its quotes.
func requestID(raw string) string {
	if len(raw) >= 2 && raw[0] == '"' {
		if s, err := strconv.Unquote(raw); err == nil {
			return s
		}
	}
	return raw
}

// other is the value of an attribute whose value the other side chose and this side does
// not know, as the conventions write an HTTP method the instrumentation does not know.
const other = "_OTHER"

// boundedErrorType is an error.type as the histograms label it: a JSON-RPC error code the
// other side chose outside the range JSON-RPC and MCP reserve (-32768 to -32000) is
// other, so that a server answering with ever new codes makes no new series.
func boundedErrorType(errorType string) string {
	if code, err := strconv.Atoi(errorType); err == nil && (code < -32768 || code > -32000) {
		return other
	}
	return errorType
}

// rpcCode reports whether an error.type is a JSON-RPC error code.
func rpcCode(errorType string) (string, bool) {
	_, err := strconv.Atoi(errorType)
	return errorType, err == nil
}

// errorMessage is the span status's description: the JSON-RPC error's message when the
// other side answered with one, as the conventions ask, else the error's text.
func errorMessage(err error) string {
	var rpcErr *jsonrpc.Error
	var clientErr *mcp.ClientError
	switch {
	case errors.As(err, &rpcErr):
		return rpcErr.Message
	case errors.As(err, &clientErr):
		return clientErr.Message
	}
	return err.Error()
}

// SessionEnded records a session's duration (mcp.server.session.duration or
// mcp.client.session.duration), with error.type if it ended in error.
func (t *Telemetry) SessionEnded(s mcp.SessionEnd) {
	attrs := make([]attribute.KeyValue, 0, 6)
	if s.ProtocolVersion != "" {
		attrs = append(attrs, semconv.McpProtocolVersion(s.ProtocolVersion))
	}
	attrs = appendTransport(attrs, s.Transport)
	if s.Err != nil {
		attrs = append(attrs, semconv.ErrorTypeKey.String((&mcp.Message{}).ErrorType(nil, s.Err)))
	}
	ctx := context.Background()
	if s.Server {
		t.serverSn.Record(ctx, s.Duration.Seconds(), attrs...)
	} else {
		t.clientSn.Record(ctx, s.Duration.Seconds(), attrs...)
	}
}

// metaCarrier reads and writes the trace context in a message's params._meta.
type metaCarrier struct{ m *mcp.Message }

func (c metaCarrier) Get(key string) string { return c.m.Meta(key) }
func (c metaCarrier) Set(key, value string) { c.m.SetMeta(key, value) }

// Keys is not used by the W3C propagators, which ask for their keys by name.
func (c metaCarrier) Keys() []string { return nil }

// Server adds the Telemetry to a server's options: its middleware first (outermost), and
// the session histogram. A Telemetry that is off adds nothing.
func (t *Telemetry) Server(o *mcp.ServerOptions) {
	if !t.Enabled() {
		return
	}
	o.Middleware = append([]mcp.Middleware{t.Middleware()}, o.Middleware...)
	o.SessionEnded = alsoTell(o.SessionEnded, t.SessionEnded)
}

// Client adds the Telemetry to a client's options, as Server does to a server's. For a
// host, give it the host's client options: tel.Client(&hostOptions.Client).
func (t *Telemetry) Client(o *mcp.ClientOptions) {
	if !t.Enabled() {
		return
	}
	o.Middleware = append([]mcp.Middleware{t.Middleware()}, o.Middleware...)
	o.SessionEnded = alsoTell(o.SessionEnded, t.SessionEnded)
}

// alsoTell is a SessionEnded hook that tells first (if set), then then.
func alsoTell(first, then func(mcp.SessionEnd)) func(mcp.SessionEnd) {
	if first == nil {
		return then
	}
	return func(s mcp.SessionEnd) {
		first(s)
		then(s)
	}
}
