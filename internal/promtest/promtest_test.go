package promtest

import (
	"cmp"
	"context"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/otlptranslator"
	"go.opentelemetry.io/otel/attribute"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.uber.org/goleak"
)

// No test leaves a goroutine behind: Prometheus's process and its watcher end with the test.
// (Idle keep-alive connections of the test's HTTP server, which net/http keeps on purpose,
// are not Prometheus's.)
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		goleak.IgnoreTopFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
	)
}

// A histogram recorded through the OpenTelemetry metrics API and served at /metrics by the
// OpenTelemetry Prometheus exporter, as runtime/otelmcp will serve the MCP conventions'
// histograms, is scraped by a real Prometheus and read back through its query API by tool:
// the name mcp.server.operation.duration in seconds becomes
// mcp_server_operation_duration_seconds, the attribute gen_ai.tool.name the label
// gen_ai_tool_name, and each bucket a series with its le.
func TestPrometheusScrapesAnOTelHistogram(t *testing.T) {
	registry := prometheus.NewRegistry()
	exporter, err := otelprom.New(otelprom.WithRegisterer(registry), otelprom.WithTranslationStrategy(otlptranslator.UnderscoreEscapingWithSuffixes))
	if err != nil {
		t.Fatal(err)
	}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exporter))
	t.Cleanup(func() { mp.Shutdown(context.Background()) })
	hist, err := mp.Meter("promtest").Float64Histogram("mcp.server.operation.duration",
		metric.WithUnit("s"), metric.WithExplicitBucketBoundaries(0.01, 0.1, 1))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for tool, values := range map[string][]float64{"weather": {0.005, 0.05, 0.07}, "search": {2}} {
		for _, v := range values {
			hist.Record(ctx, v, metric.WithAttributes(attribute.String("gen_ai.tool.name", tool), attribute.String("mcp.method.name", "tools/call")))
		}
	}
	srv := httptest.NewServer(promhttp.HandlerFor(registry, promhttp.HandlerOpts{}))
	defer srv.Close()

	p := Start(t, srv.URL+"/metrics")
	counts := p.WaitForQuery(t, 15*time.Second, `sum by (gen_ai_tool_name) (mcp_server_operation_duration_seconds_count{mcp_method_name="tools/call"})`,
		func(s []Sample) bool { return len(s) == 2 })
	got := map[string]float64{}
	for _, s := range counts {
		got[s.Labels["gen_ai_tool_name"]] = s.Value
	}
	if got["weather"] != 3 || got["search"] != 1 {
		t.Errorf("calls by tool: %v, want weather 3 and search 1", got)
	}

	buckets, err := p.Query(ctx, `mcp_server_operation_duration_seconds_bucket{gen_ai_tool_name="weather"}`)
	if err != nil {
		t.Fatal(err)
	}
	var les []string
	cumulative := map[string]float64{}
	for _, s := range buckets {
		if s.Labels["job"] != "target0" || s.Labels["__name__"] != "mcp_server_operation_duration_seconds_bucket" {
			t.Errorf("a bucket's labels: %v", s.Labels)
		}
		les = append(les, s.Labels["le"])
		cumulative[s.Labels["le"]] = s.Value
	}
	slices.SortFunc(les, func(a, b string) int {
		x, _ := strconv.ParseFloat(a, 64)
		y, _ := strconv.ParseFloat(b, 64)
		return cmp.Compare(x, y)
	})
	if strings.Join(les, " ") != "0.01 0.1 1 +Inf" || cumulative["0.01"] != 1 || cumulative["0.1"] != 3 || cumulative["+Inf"] != 3 {
		t.Errorf("weather's buckets: %v", cumulative)
	}

	// What a latency panel asks: the median of the weather tool's calls, interpolated in
	// the (0.01, 0.1] bucket.
	median, err := p.Query(ctx, `histogram_quantile(0.5, sum by (le) (mcp_server_operation_duration_seconds_bucket{gen_ai_tool_name="weather"}))`)
	if err != nil || len(median) != 1 || median[0].Value <= 0.01 || median[0].Value > 0.1 {
		t.Errorf("the median: %+v %v", median, err)
	}
}

// Query's errors say what was asked and why it failed; a scalar is one sample.
func TestQueryResults(t *testing.T) {
	p := Start(t)
	ctx := context.Background()
	if s, err := p.Query(ctx, "1 + 2"); err != nil || len(s) != 1 || s[0].Value != 3 || len(s[0].Labels) != 0 {
		t.Errorf("1 + 2: %+v %v", s, err)
	}
	if s, err := p.Query(ctx, "vector(4)"); err != nil || len(s) != 1 || s[0].Value != 4 || time.Since(s[0].Time) > time.Minute {
		t.Errorf("vector(4): %+v %v", s, err)
	}
	if _, err := p.Query(ctx, "sum("); err == nil || !strings.Contains(err.Error(), `query "sum("`) || !strings.Contains(err.Error(), "bad_data") {
		t.Errorf("a syntax error: %v", err)
	}
	if _, err := p.Query(ctx, "up[1m]"); err == nil || !strings.Contains(err.Error(), "a matrix result") {
		t.Errorf("a range vector: %v", err)
	}
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	if !p.cmd.ProcessState.Exited() || p.cmd.ProcessState.ExitCode() != 0 {
		t.Errorf("Prometheus ended %v:\n%s", p.cmd.ProcessState, p.Log())
	}
}

// Targets that are not URLs are refused before Prometheus starts.
func TestScrapeConfigRefusesBadTargets(t *testing.T) {
	for _, target := range []string{"127.0.0.1:9090", "ftp://x/metrics", "http:///metrics"} {
		if _, err := scrapeConfig([]string{target}); err == nil {
			t.Errorf("%q: no error", target)
		}
	}
	cfg, err := scrapeConfig([]string{"http://127.0.0.1:1/metrics?format=x", "https://[::1]:2/m"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"metrics_path": "/metrics"`, `"format"`, `"127.0.0.1:1"`, `"[::1]:2"`, `"scheme": "https"`, `"job_name": "target1"`} {
		if !strings.Contains(string(cfg), want) {
			t.Errorf("the configuration lacks %s:\n%s", want, cfg)
		}
	}
}
