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

// handle records one message.
func (t *Telemetry) handle(ctx context.Context, m *mcp.Message, next mcp.Handler) ([]byte, error) {
	start := time.Now()
	kind := trace.SpanKindServer
	opts := make([]trace.SpanStartOption, 0, 4)
	if m.Outgoing {
		kind = trace.SpanKindClient
	} else {
		// The span continues the other side's trace, from _meta; the context it was served
		// in (an HTTP request's span, say) is linked, as the conventions advise.
		ambient := trace.SpanContextFromContext(ctx)
		ctx = t.prop.Extract(ctx, metaCarrier{m})
		if remote := trace.SpanContextFromContext(ctx); ambient.IsValid() && !ambient.Equal(remote) {
			opts = append(opts, trace.WithLinks(trace.Link{SpanContext: ambient}))
		}
	}
	attrs := t.attributes(m, make([]attribute.KeyValue, 0, 12))
	opts = append(opts, trace.WithSpanKind(kind), trace.WithAttributes(attrs...), trace.WithTimestamp(start))
	ctx, span := t.tracer.Start(ctx, spanName(m), opts...)
	if m.Outgoing {
		t.prop.Inject(ctx, metaCarrier{m})
	}
	result, err := next(ctx, m)
	elapsed := time.Since(start)

	if et := m.ErrorType(result, err); et != "" {
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
		attrs = append(attrs, errAttrs...)
	}
	span.End(trace.WithTimestamp(start.Add(elapsed)))

	// The histograms take the span's low-cardinality attributes: not the ids, nor the URI.
	metricAttrs := attrs[:0:0]
	for _, a := range attrs {
		switch a.Key {
		case semconv.JSONRPCRequestIDKey, semconv.McpSessionIDKey, semconv.McpResourceURIKey, semconv.McpMethodNameKey,
			semconv.ClientAddressKey, semconv.ClientPortKey:
			continue
		}
		metricAttrs = append(metricAttrs, a)
	}
	if m.Outgoing {
		t.clientOp.Record(ctx, elapsed.Seconds(), mcpconv.MethodNameAttr(m.Method), metricAttrs...)
	} else {
		t.serverOp.Record(ctx, elapsed.Seconds(), mcpconv.MethodNameAttr(m.Method), metricAttrs...)
	}
	return result, err
}

// spanName is "{mcp.method.name} {target}", the target being the tool or the prompt; the
// method alone for the others (a resource's URI would make names of unbounded number).
func spanName(m *mcp.Message) string {
	if name := m.Name(); name != "" {
		return m.Method + " " + name
	}
	return m.Method
}

// attributes appends a message's attributes, as the conventions name them, to attrs.
func (t *Telemetry) attributes(m *mcp.Message, attrs []attribute.KeyValue) []attribute.KeyValue {
	attrs = append(attrs, semconv.McpMethodNameKey.String(m.Method))
	if m.ID != "" {
		attrs = append(attrs, semconv.JSONRPCRequestID(requestID(m.ID)))
	}
	switch name := m.Name(); {
	case name == "":
	case m.Method == "tools/call":
		attrs = append(attrs, semconv.GenAIToolName(name), semconv.GenAIOperationNameExecuteTool)
	case m.Method == "prompts/get":
		attrs = append(attrs, semconv.GenAIPromptName(name))
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
	attrs = appendNetwork(attrs, m.Transport, m.Peer, m.Server)
	return attrs
}

// appendNetwork appends the transport's attributes: network.transport (pipe for stdio, tcp
// for HTTP), network.protocol.name, and the other side's address (server.* on a client,
// client.* on a server).
func appendNetwork(attrs []attribute.KeyValue, transport, peer string, server bool) []attribute.KeyValue {
	switch transport {
	case mcp.TransportStdio:
		attrs = append(attrs, semconv.NetworkTransportPipe)
	case mcp.TransportHTTP, mcp.TransportSSE:
		attrs = append(attrs, semconv.NetworkTransportTCP, semconv.NetworkProtocolName("http"))
	}
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
	attrs = appendNetwork(attrs, s.Transport, "", s.Server)
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
