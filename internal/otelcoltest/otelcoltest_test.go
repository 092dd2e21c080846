package otelcoltest

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/goleak"
)

// No test leaves a goroutine behind: the collector's process and its watcher end with the
// test. (Idle keep-alive connections of the SDK's HTTP clients, which net/http keeps on
// purpose, are not the collector's.)
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		goleak.IgnoreTopFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
	)
}

// The collector builds from e2e/otelcol (scripts/test.sh runs this test first, so that the
// build's minutes are not spent inside another test's time limit) and has the components
// the tests configure.
func TestCollectorBuilds(t *testing.T) {
	out, err := exec.Command(Binary(t), "components").CombinedOutput()
	if err != nil {
		t.Fatalf("otelcol components: %v\n%s", err, out)
	}
	for _, want := range []string{"name: otlp", "name: file", "name: debug"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("otelcol components does not list %q:\n%s", want, out)
		}
	}
}

// A span tree and a histogram sent by the OpenTelemetry Go SDK's OTLP/HTTP exporters, set
// up from the environment Env gives and nothing else, reach the collector and are read
// back: trace and span ids, parents, names, kinds, attributes of each type, status and the
// error's event; the histogram's temporality, count, sum, bounds, buckets, min and max.
// Nothing is flushed by hand: the intervals Env sets bring them within the wait.
func TestSDKExportsReachTheCollector(t *testing.T) {
	c := Start(t)
	for _, kv := range c.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	ctx := context.Background()
	res := resource.NewSchemaless(attribute.String("service.name", "otelcoltest"))

	spanExporter, err := otlptracehttp.New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(spanExporter), sdktrace.WithResource(res))
	t.Cleanup(func() { tp.Shutdown(context.Background()) })
	metricExporter, err := otlpmetrichttp.New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(metricExporter)), sdkmetric.WithResource(res))
	t.Cleanup(func() { mp.Shutdown(context.Background()) })

	tracer := tp.Tracer("test/scope")
	ctx, parent := tracer.Start(ctx, "tools/call weather", trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(
		attribute.String("mcp.method.name", "tools/call"),
		attribute.Int("count", 42),
		attribute.Bool("flag", true),
		attribute.Float64("ratio", 0.25),
		attribute.StringSlice("list", []string{"a", "b"}),
	))
	_, child := tracer.Start(ctx, "fetch forecast", trace.WithSpanKind(trace.SpanKindClient))
	child.RecordError(errors.New("upstream timed out"))
	child.SetStatus(codes.Error, "upstream timed out")
	child.End()
	parent.SetStatus(codes.Ok, "")
	parent.End()

	hist, err := mp.Meter("test/scope").Float64Histogram("mcp.server.operation.duration",
		metric.WithUnit("s"), metric.WithExplicitBucketBoundaries(0.01, 0.1, 1))
	if err != nil {
		t.Fatal(err)
	}
	tool := metric.WithAttributes(attribute.String("gen_ai.tool.name", "weather"))
	for _, v := range []float64{0.005, 0.05, 0.07, 2} {
		hist.Record(ctx, v, tool)
	}

	spans := c.WaitForSpans(t, 4*time.Second, func(s []Span) bool { return len(s) >= 2 })
	if len(spans) != 2 {
		t.Fatalf("%d spans, want 2: %+v", len(spans), spans)
	}
	byName := map[string]Span{}
	for _, s := range spans {
		byName[s.Name] = s
	}
	p, ch := byName["tools/call weather"], byName["fetch forecast"]
	psc, csc := parent.SpanContext(), child.SpanContext()
	if p.TraceID != psc.TraceID().String() || ch.TraceID != p.TraceID || p.SpanID != psc.SpanID().String() || ch.SpanID != csc.SpanID().String() {
		t.Errorf("ids: parent %s/%s child %s/%s, want %s/%s and %s/%s", p.TraceID, p.SpanID, ch.TraceID, ch.SpanID, psc.TraceID(), psc.SpanID(), csc.TraceID(), csc.SpanID())
	}
	if p.ParentSpanID != "" || ch.ParentSpanID != p.SpanID {
		t.Errorf("parents: %q and %q, want none and %s", p.ParentSpanID, ch.ParentSpanID, p.SpanID)
	}
	if p.Kind != "server" || ch.Kind != "client" {
		t.Errorf("kinds: %s and %s, want server and client", p.Kind, ch.Kind)
	}
	wantAttrs := map[string]any{"mcp.method.name": "tools/call", "count": int64(42), "flag": true, "ratio": 0.25, "list": []any{"a", "b"}}
	for k, want := range wantAttrs {
		if got := p.Attributes[k]; !equal(got, want) {
			t.Errorf("attribute %s = %#v, want %#v", k, got, want)
		}
	}
	if p.Status != (Status{Code: "ok"}) || ch.Status != (Status{Code: "error", Message: "upstream timed out"}) {
		t.Errorf("statuses: %+v and %+v", p.Status, ch.Status)
	}
	if len(ch.Events) != 1 || ch.Events[0].Name != "exception" || ch.Events[0].Attributes["exception.message"] != "upstream timed out" {
		t.Errorf("the child's events: %+v", ch.Events)
	}
	if p.Resource["service.name"] != "otelcoltest" || p.Scope != "test/scope" {
		t.Errorf("resource %v, scope %q", p.Resource, p.Scope)
	}
	if p.Start.IsZero() || p.End.Before(p.Start) || ch.Start.Before(p.Start) {
		t.Errorf("times: parent %v..%v, child %v..%v", p.Start, p.End, ch.Start, ch.End)
	}

	metrics := c.WaitForMetrics(t, 4*time.Second, func(m []Metric) bool {
		_, ok := LastMetric(m, "mcp.server.operation.duration")
		return ok
	})
	m, _ := LastMetric(metrics, "mcp.server.operation.duration")
	if m.Type != "histogram" || m.Temporality != "cumulative" || m.Unit != "s" || len(m.Points) != 1 {
		t.Fatalf("the histogram: %+v", m)
	}
	pt := m.Points[0]
	if pt.Attributes["gen_ai.tool.name"] != "weather" || pt.Count != 4 || pt.Sum != 2.125 {
		t.Errorf("the point: attributes %v, count %d, sum %v", pt.Attributes, pt.Count, pt.Sum)
	}
	if !slices.Equal(pt.Bounds, []float64{0.01, 0.1, 1}) || !slices.Equal(pt.Buckets, []uint64{1, 2, 0, 1}) {
		t.Errorf("bounds %v, buckets %v; want [0.01 0.1 1] and [1 2 0 1]", pt.Bounds, pt.Buckets)
	}
	if pt.Min == nil || *pt.Min != 0.005 || pt.Max == nil || *pt.Max != 2 {
		t.Errorf("min %v, max %v", pt.Min, pt.Max)
	}
}

func equal(a, b any) bool {
	as, aok := a.([]any)
	bs, bok := b.([]any)
	if aok && bok {
		return slices.Equal(as, bs)
	}
	return a == b
}

// Stop ends the collector's process with SIGTERM, which it exits cleanly on: the port is
// free again and nothing is left running.
func TestStopEndsTheProcess(t *testing.T) {
	c := Start(t)
	pid := c.cmd.Process.Pid
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := c.Stop(); err != nil {
		t.Errorf("a second Stop: %v", err)
	}
	if !c.cmd.ProcessState.Exited() || c.cmd.ProcessState.ExitCode() != 0 {
		t.Errorf("the collector ended %v", c.cmd.ProcessState)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("process %d is still there: %v", pid, err)
	}
	if conn, err := net.Dial("tcp", strings.TrimPrefix(c.Endpoint, "http://")); err == nil {
		conn.Close()
		t.Errorf("%s still accepts connections", c.Endpoint)
	}
}

// A collector that dies is reported as such by Stop, with its log.
func TestStopReportsACollectorThatDied(t *testing.T) {
	c := Start(t)
	c.cmd.Process.Kill()
	<-c.exited
	err := c.Stop()
	if err == nil || !strings.Contains(err.Error(), "had exited before") || !strings.Contains(err.Error(), readyLine) {
		t.Errorf("Stop after the process was killed: %v", err)
	}
	c.stopErr = nil // the test's cleanup would report it again
}

// A collector whose port is taken by the time it listens exits saying what start looks for
// to try another port.
func TestATakenPortIsRecognised(t *testing.T) {
	bin := Binary(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dir := t.TempDir()
	c := &Collector{tracesPath: filepath.Join(dir, "t"), metricsPath: filepath.Join(dir, "m")}
	config := filepath.Join(dir, "config.json")
	if err := os.WriteFile(config, c.config(ln.Addr().(*net.TCPAddr).Port), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "--config=file:"+config).CombinedOutput()
	if err == nil || !strings.Contains(string(out), portTakenMessage) {
		t.Fatalf("the collector on a taken port: %v\n%s", err, out)
	}
}
