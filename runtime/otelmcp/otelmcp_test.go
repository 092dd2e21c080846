package otelmcp

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/mcp/ws"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// recorder is a Telemetry that records into memory.
type recorder struct {
	*Telemetry
	spans   *tracetest.SpanRecorder
	metrics *sdkmetric.ManualReader
	tp      *sdktrace.TracerProvider
}

func newRecorder(t *testing.T) *recorder {
	t.Helper()
	r := &recorder{spans: tracetest.NewSpanRecorder(), metrics: sdkmetric.NewManualReader()}
	r.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(r.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(r.metrics))
	tel, err := New(Options{TracerProvider: r.tp, MeterProvider: mp,
		Propagator: propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})})
	if err != nil {
		t.Fatal(err)
	}
	r.Telemetry = tel
	return r
}

// handle runs one message through the middleware, with next as the handler it wraps.
func (r *recorder) handle(ctx context.Context, m *mcp.Message, next mcp.Handler) ([]byte, error) {
	return r.Middleware()(next)(ctx, m)
}

func (r *recorder) histogram(t *testing.T, name string) metricdata.Histogram[float64] {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.metrics.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == name {
				if m.Unit != "s" {
					t.Errorf("%s: unit %q", name, m.Unit)
				}
				return m.Data.(metricdata.Histogram[float64])
			}
		}
	}
	t.Fatalf("no metric %s", name)
	return metricdata.Histogram[float64]{}
}

func attrs(kvs []attribute.KeyValue) map[string]any {
	m := map[string]any{}
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.AsInterface()
	}
	return m
}

const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

// A tools/call a server receives is a SERVER span named after the tool, the child of the
// span whose context the client put in _meta, with the conventions' attributes; its
// duration goes to mcp.server.operation.duration with the low-cardinality ones only. The
// handler runs in the span.
func TestServerSpan(t *testing.T) {
	r := newRecorder(t)
	m := &mcp.Message{Method: "tools/call", ID: "7", Server: true, SessionID: "s-1", ProtocolVersion: "2025-11-25",
		Transport: mcp.TransportHTTP, Peer: "127.0.0.1:50123",
		Params: []byte(`{"name":"get_weather","arguments":{"city":"Lisbon"},"_meta":{"traceparent":"` + traceparent + `","tracestate":"rojo=00f067aa0ba902b7"}}`)}
	var inner trace.SpanContext
	_, err := r.handle(context.Background(), m, func(ctx context.Context, m *mcp.Message) ([]byte, error) {
		inner = trace.SpanContextFromContext(ctx)
		time.Sleep(15 * time.Millisecond)
		return []byte(`{"content":[]}`), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	spans := r.spans.Ended()
	if len(spans) != 1 {
		t.Fatalf("%d spans", len(spans))
	}
	s := spans[0]
	if s.Name() != "tools/call get_weather" || s.SpanKind() != trace.SpanKindServer {
		t.Errorf("span %q kind %v", s.Name(), s.SpanKind())
	}
	if s.Parent().TraceID().String() != "4bf92f3577b34da6a3ce929d0e0e4736" || s.Parent().SpanID().String() != "00f067aa0ba902b7" || !s.Parent().IsRemote() {
		t.Errorf("parent %v", s.Parent())
	}
	if s.SpanContext().TraceState().Get("rojo") != "00f067aa0ba902b7" {
		t.Errorf("tracestate %v", s.SpanContext().TraceState())
	}
	if inner.SpanID() != s.SpanContext().SpanID() {
		t.Error("the handler did not run in the span")
	}
	want := map[string]any{
		"mcp.method.name": "tools/call", "jsonrpc.request.id": "7", "gen_ai.tool.name": "get_weather",
		"gen_ai.operation.name": "execute_tool", "mcp.session.id": "s-1", "mcp.protocol.version": "2025-11-25",
		"network.transport": "tcp", "network.protocol.name": "http", "client.address": "127.0.0.1", "client.port": int64(50123),
	}
	if got := attrs(s.Attributes()); !equalMaps(got, want) {
		t.Errorf("attributes:\n%v\nwant\n%v", got, want)
	}
	if s.Status().Code != codes.Unset || len(s.Links()) != 0 {
		t.Errorf("status %v, links %v", s.Status(), s.Links())
	}
	if d := s.EndTime().Sub(s.StartTime()); d < 15*time.Millisecond {
		t.Errorf("span lasted %v", d)
	}

	h := r.histogram(t, "mcp.server.operation.duration")
	if len(h.DataPoints) != 1 {
		t.Fatalf("%d points", len(h.DataPoints))
	}
	p := h.DataPoints[0]
	wantMetric := map[string]any{"mcp.method.name": "tools/call", "gen_ai.tool.name": "get_weather", "gen_ai.operation.name": "execute_tool",
		"mcp.protocol.version": "2025-11-25", "network.transport": "tcp", "network.protocol.name": "http"}
	if got := attrs(p.Attributes.ToSlice()); !equalMaps(got, wantMetric) {
		t.Errorf("metric attributes:\n%v\nwant\n%v", got, wantMetric)
	}
	if p.Count != 1 || p.Sum < 0.015 || !slices.Equal(p.Bounds, durationBuckets) {
		t.Errorf("point: count %d sum %v bounds %v", p.Count, p.Sum, p.Bounds)
	}
}

// A request a client sends is a CLIENT span whose context the message carries in _meta
// (the handler sees the params with it); an error response gives error.type and
// rpc.response.status_code the code, and the status its message.
func TestClientSpan(t *testing.T) {
	r := newRecorder(t)
	parentCtx, parent := r.tp.Tracer("test").Start(context.Background(), "agent")
	m := &mcp.Message{Method: "tools/call", ID: `"req-3"`, Outgoing: true, ProtocolVersion: "2026-07-28",
		Transport: mcp.TransportStdio, Params: []byte(`{"name":"search","_meta":{"progressToken":1}}`)}
	var sent []byte
	_, err := r.handle(parentCtx, m, func(ctx context.Context, m *mcp.Message) ([]byte, error) {
		sent = m.Params
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "unknown tool \"search\"")
	})
	parent.End()
	if err == nil {
		t.Fatal("the error was lost")
	}
	spans := r.spans.Ended()
	s := spans[0]
	if s.Name() != "tools/call search" || s.SpanKind() != trace.SpanKindClient || s.Parent().SpanID() != parent.SpanContext().SpanID() {
		t.Errorf("span %q kind %v parent %v", s.Name(), s.SpanKind(), s.Parent())
	}
	wantParent := "00-" + s.SpanContext().TraceID().String() + "-" + s.SpanContext().SpanID().String() + "-01"
	if got := (&mcp.Message{Params: sent}).Meta("traceparent"); got != wantParent {
		t.Errorf("traceparent sent: %q, want %q (params %s)", got, wantParent, sent)
	}
	if !bytes.Contains(sent, []byte(`"progressToken":1`)) {
		t.Errorf("the progress token was lost: %s", sent)
	}
	a := attrs(s.Attributes())
	if a["error.type"] != "-32602" || a["rpc.response.status_code"] != "-32602" || a["jsonrpc.request.id"] != "req-3" || a["network.transport"] != "pipe" {
		t.Errorf("attributes %v", a)
	}
	if s.Status().Code != codes.Error || s.Status().Description != `unknown tool "search"` {
		t.Errorf("status %+v", s.Status())
	}
	p := r.histogram(t, "mcp.client.operation.duration").DataPoints[0]
	if got := attrs(p.Attributes.ToSlice()); got["error.type"] != "-32602" || got["gen_ai.tool.name"] != "search" || got["jsonrpc.request.id"] != nil {
		t.Errorf("metric attributes %v", got)
	}
}

// A tool's error result (isError) is a failed span with error.type tool_error, though the
// request succeeded; other outcomes name their class.
func TestErrorTypes(t *testing.T) {
	r := newRecorder(t)
	cases := []struct {
		result string
		err    error
		want   string
	}{
		{`{"content":[{"type":"text","text":"no such city"}],"isError":true}`, nil, "tool_error"},
		{"", context.DeadlineExceeded, "timeout"},
		{"", errors.New("mcp: the session has ended"), "_OTHER"},
	}
	for _, c := range cases {
		m := &mcp.Message{Method: "tools/call", ID: "1", Outgoing: true, Params: []byte(`{"name":"w"}`)}
		r.handle(context.Background(), m, func(context.Context, *mcp.Message) ([]byte, error) { return []byte(c.result), c.err })
	}
	for i, s := range r.spans.Ended() {
		a := attrs(s.Attributes())
		if a["error.type"] != cases[i].want || s.Status().Code != codes.Error || a["rpc.response.status_code"] != nil {
			t.Errorf("%s %v: error.type %v, status %v, rpc.response.status_code %v", cases[i].result, cases[i].err, a["error.type"], s.Status(), a["rpc.response.status_code"])
		}
	}
}

// A request received in a context that has a span already (an HTTP server's) is the child
// of the span in _meta, and links the one it was received in. Without _meta, it is the
// child of the ambient span. A notification has no request id.
func TestAmbientSpanIsLinked(t *testing.T) {
	r := newRecorder(t)
	ctx, httpSpan := r.tp.Tracer("http").Start(context.Background(), "POST /mcp")
	m := &mcp.Message{Method: "tools/list", ID: "2", Server: true, Params: []byte(`{"_meta":{"traceparent":"` + traceparent + `"}}`)}
	r.handle(ctx, m, func(context.Context, *mcp.Message) ([]byte, error) { return []byte(`{}`), nil })
	n := &mcp.Message{Method: "notifications/initialized", Server: true}
	r.handle(ctx, n, func(context.Context, *mcp.Message) ([]byte, error) { return nil, nil })
	httpSpan.End()
	spans := r.spans.Ended()
	s := spans[0]
	if s.Name() != "tools/list" || s.Parent().SpanID().String() != "00f067aa0ba902b7" || len(s.Links()) != 1 || s.Links()[0].SpanContext.SpanID() != httpSpan.SpanContext().SpanID() {
		t.Errorf("span %q parent %v links %v", s.Name(), s.Parent(), s.Links())
	}
	ns := spans[1]
	if ns.Name() != "notifications/initialized" || ns.Parent().SpanID() != httpSpan.SpanContext().SpanID() || len(ns.Links()) != 0 {
		t.Errorf("notification span %q parent %v links %v", ns.Name(), ns.Parent(), ns.Links())
	}
	if _, ok := attrs(ns.Attributes())["jsonrpc.request.id"]; ok {
		t.Error("a notification has a request id")
	}
}

// Sessions' durations go to their histograms, with error.type when the connection failed.
func TestSessionDurations(t *testing.T) {
	r := newRecorder(t)
	r.SessionEnded(mcp.SessionEnd{Server: true, ProtocolVersion: "2025-06-18", Transport: mcp.TransportStdio, Duration: 3 * time.Second})
	r.SessionEnded(mcp.SessionEnd{ProtocolVersion: "2025-11-25", Transport: mcp.TransportHTTP, Duration: 40 * time.Second, Err: errors.Join(mcp.ErrTransport)})
	s := r.histogram(t, "mcp.server.session.duration").DataPoints[0]
	if s.Sum != 3 || !equalMaps(attrs(s.Attributes.ToSlice()), map[string]any{"mcp.protocol.version": "2025-06-18", "network.transport": "pipe"}) {
		t.Errorf("server session: %v %v", s.Sum, attrs(s.Attributes.ToSlice()))
	}
	c := r.histogram(t, "mcp.client.session.duration").DataPoints[0]
	if c.Sum != 40 || attrs(c.Attributes.ToSlice())["error.type"] != "transport" || !slices.Equal(c.Bounds, durationBuckets) {
		t.Errorf("client session: %v %v %v", c.Sum, attrs(c.Attributes.ToSlice()), c.Bounds)
	}
}

// A log record in a span's context carries its trace and span ids; others do not.
func TestLogHandler(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(LogHandler(slog.NewTextHandler(&buf, nil))).With("server", "weather")
	r := newRecorder(t)
	ctx, span := r.tp.Tracer("t").Start(context.Background(), "x")
	logger.InfoContext(ctx, "in a span")
	logger.Info("outside")
	span.End()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	want := "trace_id=" + span.SpanContext().TraceID().String() + " span_id=" + span.SpanContext().SpanID().String()
	if len(lines) != 2 || !strings.Contains(lines[0], want) || !strings.Contains(lines[0], "server=weather") || strings.Contains(lines[1], "trace_id") {
		t.Errorf("log:\n%s\nwant the first line with %s", buf.String(), want)
	}
}

func equalMaps(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// dropSampler leaves every span out, and keeps what it was asked to decide on.
type dropSampler struct{ asked []sdktrace.SamplingParameters }

func (s *dropSampler) ShouldSample(p sdktrace.SamplingParameters) sdktrace.SamplingResult {
	p.Attributes = slices.Clone(p.Attributes)
	s.asked = append(s.asked, p)
	return sdktrace.SamplingResult{Decision: sdktrace.Drop}
}
func (s *dropSampler) Description() string { return "drop" }

// A call the sampler leaves out: the sampler decides on the span's name and the attributes
// that name the operation (a client's also the server it calls); no span is recorded, the
// other side is told it was not sampled, and the duration still goes to the histogram with
// the conventions' attributes, the same series a recorded call's goes to.
func TestSampledOut(t *testing.T) {
	sampler := &dropSampler{}
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sampler), sdktrace.WithSpanProcessor(spans))
	reader := sdkmetric.NewManualReader()
	tel, err := New(Options{TracerProvider: tp, MeterProvider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)), Propagator: propagation.TraceContext{}})
	if err != nil {
		t.Fatal(err)
	}
	r := &recorder{Telemetry: tel, spans: spans, metrics: reader, tp: tp}
	ok := func(context.Context, *mcp.Message) ([]byte, error) { return []byte(`{"content":[]}`), nil }
	for range 2 {
		in := &mcp.Message{Method: "tools/call", ID: "7", Server: true, SessionID: "s-1", ProtocolVersion: "2025-11-25",
			Transport: mcp.TransportHTTP, Peer: "127.0.0.1:50123", Params: []byte(`{"name":"get_weather"}`)}
		r.handle(context.Background(), in, ok)
	}
	out := &mcp.Message{Method: "prompts/get", ID: "8", Outgoing: true, ProtocolVersion: "2025-11-25",
		Transport: mcp.TransportHTTP, Peer: "example.com:8443", Params: []byte(`{"name":"review"}`)}
	var sent []byte
	r.handle(context.Background(), out, func(_ context.Context, m *mcp.Message) ([]byte, error) {
		sent = m.Params
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "no such prompt")
	})

	if n := len(spans.Ended()); n != 0 {
		t.Errorf("%d spans recorded", n)
	}
	if len(sampler.asked) != 3 {
		t.Fatalf("the sampler was asked %d times", len(sampler.asked))
	}
	server, client := sampler.asked[0], sampler.asked[2]
	if server.Name != "tools/call get_weather" || server.Kind != trace.SpanKindServer || !equalMaps(attrs(server.Attributes), map[string]any{
		"mcp.method.name": "tools/call", "gen_ai.tool.name": "get_weather", "gen_ai.operation.name": "execute_tool"}) {
		t.Errorf("the server's sampler saw %q %v %v", server.Name, server.Kind, attrs(server.Attributes))
	}
	if client.Name != "prompts/get review" || client.Kind != trace.SpanKindClient || !equalMaps(attrs(client.Attributes), map[string]any{
		"mcp.method.name": "prompts/get", "gen_ai.prompt.name": "review", "server.address": "example.com", "server.port": int64(8443)}) {
		t.Errorf("the client's sampler saw %q %v %v", client.Name, client.Kind, attrs(client.Attributes))
	}
	if tp := (&mcp.Message{Params: sent}).Meta("traceparent"); !strings.HasSuffix(tp, "-00") {
		t.Errorf("traceparent sent: %q, want one that says not sampled", tp)
	}

	h := r.histogram(t, "mcp.server.operation.duration")
	if len(h.DataPoints) != 1 || h.DataPoints[0].Count != 2 || !equalMaps(attrs(h.DataPoints[0].Attributes.ToSlice()), map[string]any{
		"mcp.method.name": "tools/call", "gen_ai.tool.name": "get_weather", "gen_ai.operation.name": "execute_tool",
		"mcp.protocol.version": "2025-11-25", "network.transport": "tcp", "network.protocol.name": "http"}) {
		t.Errorf("server durations: %+v", h.DataPoints)
	}
	c := r.histogram(t, "mcp.client.operation.duration")
	if len(c.DataPoints) != 1 || c.DataPoints[0].Count != 1 || !equalMaps(attrs(c.DataPoints[0].Attributes.ToSlice()), map[string]any{
		"mcp.method.name": "prompts/get", "gen_ai.prompt.name": "review", "mcp.protocol.version": "2025-11-25",
		"network.transport": "tcp", "network.protocol.name": "http", "server.address": "example.com", "server.port": int64(8443),
		"error.type": "-32602", "rpc.response.status_code": "-32602"}) {
		t.Errorf("client durations: %+v", c.DataPoints)
	}
}

// The operations cached are bounded, since a client names the tools it calls: past the
// bound, a call's series is made for it and its duration recorded all the same.
func TestOpsBounded(t *testing.T) {
	r := newRecorder(t)
	ok := func(context.Context, *mcp.Message) ([]byte, error) { return []byte(`{}`), nil }
	n := maxOps + 10
	for i := range n {
		m := &mcp.Message{Method: "tools/call", ID: "1", Server: true, Params: []byte(`{"name":"t` + strconv.Itoa(i) + `"}`)}
		r.handle(context.Background(), m, ok)
	}
	r.ops.mu.RLock()
	cached := len(r.ops.m)
	r.ops.mu.RUnlock()
	if cached != maxOps {
		t.Errorf("%d operations cached, want %d", cached, maxOps)
	}
	if got := len(r.histogram(t, "mcp.server.operation.duration").DataPoints); got != n {
		t.Errorf("%d series, want %d", got, n)
	}
	if got := len(r.spans.Ended()); got != n || r.spans.Ended()[n-1].Name() != "tools/call t"+strconv.Itoa(n-1) {
		t.Errorf("%d spans", got)
	}
}

// Each transport a Message names gets the conventions' network attributes; a WebSocket
// conversation (runtime/mcp/ws) is TCP carrying the websocket protocol.
func TestTransportAttributes(t *testing.T) {
	for transport, want := range map[string]string{
		mcp.TransportStdio: "network.transport=pipe",
		mcp.TransportHTTP:  "network.transport=tcp network.protocol.name=http",
		mcp.TransportSSE:   "network.transport=tcp network.protocol.name=http",
		ws.TransportName:   "network.transport=tcp network.protocol.name=websocket",
		"carrier pigeon":   "",
	} {
		var got []string
		for _, kv := range appendTransport(nil, transport) {
			got = append(got, string(kv.Key)+"="+kv.Value.Emit())
		}
		if g := strings.Join(got, " "); g != want {
			t.Errorf("%s: %q, want %q", transport, g, want)
		}
	}
}
