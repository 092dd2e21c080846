package otelmcp

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"go.opentelemetry.io/otel"
)

// clearOTel unsets every OTEL_ variable Setup reads, for the test.
func clearOTel(t *testing.T) {
	for _, k := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
		"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", "OTEL_EXPORTER_OTLP_COMPRESSION",
		"OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER", "OTEL_SDK_DISABLED", "OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES", "OTEL_PROPAGATORS"} {
		t.Setenv(k, "")
	}
}

// callOnce serves one tools/call of get_weather in memory, through tel on both sides, inside
// a span of the caller's (so that the metrics have exemplars of a trace).
func callOnce(t *testing.T, tel *Telemetry) {
	t.Helper()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	sopts := &mcp.ServerOptions{Logger: quiet}
	tel.Server(sopts)
	srv := mcp.NewServer(mcp.Implementation{Name: "weather", Version: "1"}, sopts)
	srv.AddTool(mcp.Tool{Name: "get_weather", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *mcp.ToolCall) { c.ReturnText("sunny") }})
	copts := &mcp.ClientOptions{Logger: quiet}
	tel.Client(copts)
	ctx, span := otel.Tracer("test").Start(context.Background(), "agent turn")
	defer span.End()
	cl, err := mcp.Connect(ctx, &mcp.MemoryTransport{Server: srv}, copts)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := cl.CallTool(ctx, "get_weather", nil); err != nil {
		t.Fatal(err)
	}
}

// OTEL_TRACES_EXPORTER=console writes each span for a person, with no collector: the
// client's and the server's of a call, one trace, the server's the child of the client's.
func TestConsoleSpans(t *testing.T) {
	keepGlobals(t)
	clearOTel(t)
	t.Setenv("OTEL_TRACES_EXPORTER", "console")
	var out lockedBuffer
	tel, err := Setup(context.Background(), SetupOptions{ServiceName: "demo", Console: &out})
	if err != nil || !tel.Enabled() {
		t.Fatalf("Setup: %v, enabled %v", err, tel != nil && tel.Enabled())
	}
	callOnce(t, tel)
	tel.Shutdown(context.Background())
	text := out.String()
	client := regexp.MustCompile(`(?m)^span demo: tools/call get_weather \(client, [0-9.]+[µm]?s\) trace ([0-9a-f]{32}) span ([0-9a-f]{16}) parent [0-9a-f]{16}\n    .*gen_ai.tool.name=get_weather .*mcp.method.name=tools/call`).FindStringSubmatch(text)
	server := regexp.MustCompile(`(?m)^span demo: tools/call get_weather \(server, [0-9.]+[µm]?s\) trace ([0-9a-f]{32}) span [0-9a-f]{16} parent ([0-9a-f]{16})\n`).FindStringSubmatch(text)
	if client == nil || server == nil || client[1] != server[1] || server[2] != client[2] {
		t.Errorf("the console shows:\n%s", text)
	}
}

// Metrics go out in the protocol OTEL_EXPORTER_OTLP_METRICS_PROTOCOL (else
// OTEL_EXPORTER_OTLP_PROTOCOL) names, as traces do: OTLP/JSON for http/json, with trace ids
// in hex, compressed when asked; protobuf by default.
func TestMetricsProtocol(t *testing.T) {
	for _, c := range []struct {
		env         map[string]string
		contentType string
	}{
		{nil, "application/x-protobuf"},
		{map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, "application/json"},
		{map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL": "http/json"}, "application/json"},
		{map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/json", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL": "http/protobuf"}, "application/x-protobuf"},
		{map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/json", "OTEL_EXPORTER_OTLP_COMPRESSION": "gzip"}, "application/json"},
	} {
		t.Run(strings.TrimSpace(c.env["OTEL_EXPORTER_OTLP_PROTOCOL"]+" "+c.env["OTEL_EXPORTER_OTLP_METRICS_PROTOCOL"]+" "+c.env["OTEL_EXPORTER_OTLP_COMPRESSION"]), func(t *testing.T) {
			keepGlobals(t)
			clearOTel(t)
			var mu sync.Mutex
			got := map[string][]*http.Request{}
			bodies := map[*http.Request][]byte{}
			col := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				mu.Lock()
				got[r.URL.Path] = append(got[r.URL.Path], r)
				bodies[r] = body
				mu.Unlock()
				w.Header().Set("Content-Type", r.Header.Get("Content-Type"))
				if r.Header.Get("Content-Type") == "application/json" {
					w.Write([]byte("{}"))
				}
			}))
			defer col.Close()
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", col.URL)
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			tel, err := Setup(context.Background(), SetupOptions{ServiceName: "demo"})
			if err != nil {
				t.Fatal(err)
			}
			callOnce(t, tel)
			if err := tel.Shutdown(context.Background()); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			metrics, traces := got["/v1/metrics"], got["/v1/traces"]
			if len(metrics) == 0 || len(traces) == 0 {
				t.Fatalf("requests: %v", got)
			}
			for _, r := range append(metrics, traces...) {
				if ct := r.Header.Get("Content-Type"); ct != c.contentType && (r.URL.Path == "/v1/metrics" || c.env["OTEL_EXPORTER_OTLP_METRICS_PROTOCOL"] == "") {
					t.Errorf("%s went out as %s, want %s", r.URL.Path, ct, c.contentType)
				}
			}
			if c.contentType != "application/json" {
				return
			}
			body := bodies[metrics[0]]
			if c.env["OTEL_EXPORTER_OTLP_COMPRESSION"] == "gzip" {
				if metrics[0].Header.Get("Content-Encoding") != "gzip" {
					t.Fatal("not compressed")
				}
				zr, err := gzip.NewReader(bytes.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				body, _ = io.ReadAll(zr)
			}
			var req struct {
				ResourceMetrics []struct {
					ScopeMetrics []struct {
						Metrics []struct {
							Name      string
							Histogram struct {
								AggregationTemporality int
								DataPoints             []struct {
									Exemplars []struct{ TraceID, SpanID string }
								}
							}
						}
					}
				}
			}
			if err := json.Unmarshal(body, &req); err != nil {
				t.Fatalf("%v\n%s", err, body)
			}
			var names []string
			exemplars := 0
			for _, rm := range req.ResourceMetrics {
				for _, sm := range rm.ScopeMetrics {
					for _, m := range sm.Metrics {
						names = append(names, m.Name)
						for _, p := range m.Histogram.DataPoints {
							for _, e := range p.Exemplars {
								exemplars++
								if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(e.TraceID) || !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(e.SpanID) {
									t.Errorf("exemplar ids %q %q, want hex", e.TraceID, e.SpanID)
								}
							}
						}
					}
				}
			}
			if !strings.Contains(strings.Join(names, " "), "mcp.server.operation.duration") || exemplars == 0 || !bytes.Contains(body, []byte(`"aggregationTemporality":2`)) {
				t.Errorf("metrics %v, %d exemplars:\n%s", names, exemplars, body)
			}
		})
	}
}

// lockedBuffer is a buffer written by the exporter's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
