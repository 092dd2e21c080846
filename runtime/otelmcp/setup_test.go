package otelmcp

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
)

// What Setup reads of the environment: exporters only with an endpoint, "none" for none,
// and every setting it cannot follow said at once, with what to change.
func TestReadEnv(t *testing.T) {
	cases := []struct {
		env             map[string]string
		traces, metrics bool
		console         bool
		problems        []string
		fields          string // the propagator's fields
	}{
		{env: nil, fields: "baggage,traceparent,tracestate"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, traces: true, metrics: true, fields: "baggage,traceparent,tracestate"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"}, traces: true, fields: "baggage,traceparent,tracestate"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_METRICS_EXPORTER": "none", "OTEL_PROPAGATORS": "tracecontext"}, traces: true, fields: "traceparent,tracestate"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_SDK_DISABLED": "TRUE"}},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_TRACES_EXPORTER": "zipkin", "OTEL_METRICS_EXPORTER": "console", "OTEL_PROPAGATORS": "b3"},
			fields:   "",
			problems: []string{"OTEL_TRACES_EXPORTER=zipkin: mcpgen exports with otlp (or none)", "OTEL_METRICS_EXPORTER=console: mcpgen writes spans to the console", "OTEL_EXPORTER_OTLP_PROTOCOL=grpc: mcpgen exports OTLP over HTTP only; set it to http/protobuf", "OTEL_PROPAGATORS=b3: mcpgen has tracecontext, baggage and none, not b3"}},
		// Spans on the console need no endpoint; beside otlp, both.
		{env: map[string]string{"OTEL_TRACES_EXPORTER": "console"}, console: true, fields: "baggage,traceparent,tracestate"},
		{env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp, console", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, traces: true, metrics: true, console: true, fields: "baggage,traceparent,tracestate"},
	}
	for _, c := range cases {
		e := readEnv(func(k string) string { return c.env[k] })
		if e.traces != c.traces || e.metrics != c.metrics || e.console != c.console {
			t.Errorf("%v: traces %v metrics %v console %v, want %v %v %v", c.env, e.traces, e.metrics, e.console, c.traces, c.metrics, c.console)
		}
		fields := e.propagator.Fields()
		slices.Sort(fields)
		if got := strings.Join(fields, ","); got != c.fields {
			t.Errorf("%v: propagator fields %q, want %q", c.env, got, c.fields)
		}
		err := e.check()
		if len(c.problems) == 0 && err != nil {
			t.Errorf("%v: %v", c.env, err)
		}
		for _, p := range c.problems {
			if err == nil || !strings.Contains(err.Error(), p) {
				t.Errorf("%v: error %v, want it to say %q", c.env, err, p)
			}
		}
	}
}

// keepGlobals restores OpenTelemetry's globals, which Setup sets, when the test ends.
func keepGlobals(t testing.TB) {
	tp, mp, prop := otel.GetTracerProvider(), otel.GetMeterProvider(), otel.GetTextMapPropagator()
	t.Cleanup(func() {
		if otel.GetTracerProvider() != tp {
			otel.SetTracerProvider(tp)
		}
		if otel.GetMeterProvider() != mp {
			otel.SetMeterProvider(mp)
		}
		if otel.GetTextMapPropagator() != prop {
			otel.SetTextMapPropagator(prop)
		}
	})
}

// With no endpoint and no Prometheus, Setup turns nothing on and sets no global.
func TestSetupOff(t *testing.T) {
	keepGlobals(t)
	for _, k := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "OTEL_SDK_DISABLED"} {
		t.Setenv(k, "")
	}
	before := otel.GetTracerProvider()
	tel, err := Setup(context.Background(), SetupOptions{})
	if err != nil || tel.Enabled() || otel.GetTracerProvider() != before {
		t.Fatalf("Setup: %v, enabled %v", err, tel.Enabled())
	}
	rec := httptest.NewRecorder()
	tel.MetricsHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != http.StatusNotFound {
		t.Errorf("/metrics without metrics: %d", rec.Code)
	}
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
	if _, err := Setup(context.Background(), SetupOptions{}); err == nil {
		t.Error("Setup took OTLP over gRPC")
	}
}

// With Prometheus asked for, the operation histograms are served at /metrics in
// Prometheus's names, by tool, with the conventions' buckets, and service.name comes from
// the environment when it says.
func TestSetupPrometheus(t *testing.T) {
	keepGlobals(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	t.Setenv("OTEL_SERVICE_NAME", "weather-prod")
	tel, err := Setup(context.Background(), SetupOptions{ServiceName: "weather", Prometheus: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tel.Shutdown(context.Background())
	if !tel.Enabled() {
		t.Fatal("not enabled")
	}
	if _, ok := otel.GetTextMapPropagator().(propagation.TextMapPropagator); !ok {
		t.Fatal("no propagator")
	}
	m := &mcp.Message{Method: "tools/call", ID: "1", Server: true, Params: []byte(`{"name":"get_weather"}`), Transport: mcp.TransportHTTP}
	tel.Middleware()(func(context.Context, *mcp.Message) ([]byte, error) { return []byte(`{}`), nil })(context.Background(), m)

	srv := httptest.NewServer(tel.MetricsHandler())
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	text := string(body)
	for _, want := range []string{
		`mcp_server_operation_duration_seconds_count{gen_ai_operation_name="execute_tool",gen_ai_tool_name="get_weather",mcp_method_name="tools/call",network_protocol_name="http",network_transport="tcp"`,
		`mcp_server_operation_duration_seconds_bucket{`, `le="0.01"`, `le="300"`,
		`target_info{`, `service_name="weather-prod"`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %s:\n%s", want, text)
		}
	}
}
