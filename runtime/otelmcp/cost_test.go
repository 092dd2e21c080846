package otelmcp

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// What telemetry costs a server per tools/call, in process: a raw client writes the call
// and reads its answer over pipes, as stdio does, or over Streamable HTTP on loopback,
// against a server without telemetry, one with Setup's Telemetry off (no OTEL_* variables),
// and one that traces every call (always sampled, batched to an exporter that drops them)
// and records its duration.

// costServer serves a server with one tool over pipes; tel, if not nil, is added to its
// options as a program adds it.
type costServer struct {
	w    io.Writer
	r    *bufio.Reader
	line []byte
	id   int
}

// newCostServer is the server the benchmarks call: one tool, which answers at once.
func newCostServer(tel *Telemetry) *mcp.Server {
	opts := &mcp.ServerOptions{Logger: slog.New(slog.DiscardHandler)}
	if tel != nil {
		tel.Server(opts)
	}
	srv := mcp.NewServer(mcp.Implementation{Name: "cost", Version: "1"}, opts)
	srv.AddTool(mcp.Tool{Name: "get_weather", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *mcp.ToolCall) {
		c.ReturnText("sunny, 21°C")
	}})
	return srv
}

func startCostServer(tb testing.TB, tel *Telemetry) *costServer {
	tb.Helper()
	srv := newCostServer(tel)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Serve(ctx, inR, outW)
		outW.Close()
	}()
	tb.Cleanup(func() {
		cancel()
		inW.Close()
		outR.Close()
		<-done
	})
	c := &costServer{w: inW, r: bufio.NewReaderSize(outR, 1<<16)}
	if resp := c.roundTrip(tb, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"cost","version":"1"}}`); !bytes.Contains(resp, []byte(`"result"`)) {
		tb.Fatalf("initialize: %s", resp)
	}
	if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		tb.Fatal(err)
	}
	return c
}

func (c *costServer) roundTrip(tb testing.TB, method, params string) []byte {
	c.id++
	c.line = append(c.line[:0], `{"jsonrpc":"2.0","id":`...)
	c.line = strconv.AppendInt(c.line, int64(c.id), 10)
	c.line = append(c.line, `,"method":"`...)
	c.line = append(c.line, method...)
	c.line = append(c.line, `","params":`...)
	c.line = append(c.line, params...)
	c.line = append(c.line, "}\n"...)
	if _, err := c.w.Write(c.line); err != nil {
		tb.Fatal(err)
	}
	for {
		resp, err := c.r.ReadSlice('\n')
		if err != nil {
			tb.Fatal(err)
		}
		if bytes.Contains(resp, []byte(`"id":`+strconv.Itoa(c.id)+`,`)) {
			return resp
		}
	}
}

const costCall = `{"name":"get_weather","arguments":{"city":"Lisbon"},"_meta":{"traceparent":"` + traceparent + `"}}`

func (c *costServer) call(tb testing.TB) {
	if resp := c.roundTrip(tb, "tools/call", costCall); !bytes.Contains(resp, []byte(`sunny`)) {
		tb.Fatalf("tools/call: %s", resp)
	}
}

// costHTTP is the server over Streamable HTTP on loopback, one session of 2025-11-25.
type costHTTP struct {
	url, session string
	hc           *http.Client
	id           int
	body         bytes.Buffer
}

func startCostHTTP(tb testing.TB, tel *Telemetry) *costHTTP {
	tb.Helper()
	h := newCostServer(tel).HTTPHandler(nil)
	ts := httptest.NewServer(h)
	tb.Cleanup(func() {
		h.Close()
		ts.Close()
	})
	c := &costHTTP{url: ts.URL, hc: ts.Client()}
	c.post(tb, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"cost","version":"1"}}}`)
	c.post(tb, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c
}

func (c *costHTTP) post(tb testing.TB, msg string) []byte {
	req, err := http.NewRequest(http.MethodPost, c.url, strings.NewReader(msg))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		c.session = id
	}
	c.body.Reset()
	if _, err := c.body.ReadFrom(resp.Body); err != nil {
		tb.Fatal(err)
	}
	if resp.StatusCode/100 != 2 {
		tb.Fatalf("status %d: %s", resp.StatusCode, c.body.Bytes())
	}
	return c.body.Bytes()
}

func (c *costHTTP) call(tb testing.TB) {
	c.id++
	if resp := c.post(tb, `{"jsonrpc":"2.0","id":`+strconv.Itoa(c.id)+`,"method":"tools/call","params":`+costCall+`}`); !bytes.Contains(resp, []byte(`sunny`)) {
		tb.Fatalf("tools/call: %s", resp)
	}
}

// offTelemetry is what Setup returns when no OTEL_* variable asks for anything.
func offTelemetry(tb testing.TB) *Telemetry {
	tb.Helper()
	for _, k := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "OTEL_SDK_DISABLED"} {
		tb.Setenv(k, "")
	}
	tel, err := Setup(context.Background(), SetupOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	if tel.Enabled() {
		tb.Fatal("Setup turned telemetry on with no OTEL_* variable set")
	}
	return tel
}

// tracedTelemetry records every call as a sampled span, batched to an exporter that drops
// them, and its duration into a histogram.
func tracedTelemetry(tb testing.TB) *Telemetry {
	tb.Helper()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()), sdktrace.WithBatcher(dropExporter{}))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	tb.Cleanup(func() {
		tp.Shutdown(context.Background())
		mp.Shutdown(context.Background())
	})
	tel, err := New(Options{TracerProvider: tp, MeterProvider: mp, Propagator: propagation.TraceContext{}})
	if err != nil {
		tb.Fatal(err)
	}
	return tel
}

// sampledOutTelemetry is traced the way a sampler that leaves the call out sees it
// (OTEL_TRACES_SAMPLER=traceidratio with a ratio of 0): no span is recorded, the durations
// still are.
func sampledOutTelemetry(tb testing.TB) *Telemetry {
	tb.Helper()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.TraceIDRatioBased(0)), sdktrace.WithBatcher(dropExporter{}))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	tb.Cleanup(func() {
		tp.Shutdown(context.Background())
		mp.Shutdown(context.Background())
	})
	tel, err := New(Options{TracerProvider: tp, MeterProvider: mp, Propagator: propagation.TraceContext{}})
	if err != nil {
		tb.Fatal(err)
	}
	return tel
}

type dropExporter struct{}

func (dropExporter) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (dropExporter) Shutdown(context.Context) error                             { return nil }

// A server given Setup's Telemetry with nothing configured allocates exactly what a server
// without it does per call: it adds no middleware, so the calls take the same path. (The
// traced server is measured too, so that the test would see a difference if there were
// one to see.) Over pipes, where a call's allocations are the server's and exact; over
// HTTP, net/http's own vary by one now and then under the race detector, and
// BenchmarkHTTPToolCall reports them (127, 127 and 158).
func TestOffCostsNothing(t *testing.T) {
	keepGlobals(t)
	// The least of a few runs: another goroutine of the test binary (the race detector's,
	// the GC's) may allocate during one.
	least := func(tel *Telemetry) float64 {
		c := startCostServer(t, tel)
		c.call(t) // warm: the first call sizes buffers
		best := testing.AllocsPerRun(200, func() { c.call(t) })
		for range 4 {
			best = min(best, testing.AllocsPerRun(200, func() { c.call(t) }))
		}
		return best
	}
	plain, off, out, traced := least(nil), least(offTelemetry(t)), least(sampledOutTelemetry(t)), least(tracedTelemetry(t))
	t.Logf("allocations per tools/call: no telemetry %.0f, telemetry off %.0f, sampled out %.0f, traced %.0f", plain, off, out, traced)
	if off != plain {
		t.Errorf("a server with telemetry off allocates %.0f per call, one without %.0f", off, plain)
	}
	if traced <= plain {
		t.Errorf("the traced server allocates %.0f per call, no more than one without (%.0f): the test measures nothing", traced, plain)
	}
	// What a call costs when traced, and when its sampler leaves it out: the trace context
	// read from _meta and the span the sampler decides on (its name and first attributes
	// made once per tool), the histogram's series found, not made; the rest of the
	// attributes only for a span that records. (Before, 25 and 27 more than without.)
	if extra := out - plain; extra > 10 {
		t.Errorf("a call the sampler leaves out allocates %.0f more than without telemetry, want at most 10", extra)
	}
	tracedBudget := 14.0
	if raceEnabled {
		tracedBudget = 18 // the SDK's pools, which the race detector empties at random
	}
	if extra := traced - plain; extra > tracedBudget {
		t.Errorf("a traced call allocates %.0f more than without telemetry, want at most %.0f", extra, tracedBudget)
	}
}

// telemetries are the cases the benchmarks compare: without telemetry, with Setup's
// Telemetry off, and traced (every call sampled).
var telemetries = []struct {
	name string
	tel  func(testing.TB) *Telemetry
}{
	{"none", func(testing.TB) *Telemetry { return nil }},
	{"off", offTelemetry},
	{"sampled_out", sampledOutTelemetry},
	{"traced", tracedTelemetry},
}

// BenchmarkToolCall is a tools/call round trip over pipes, as stdio carries it.
func BenchmarkToolCall(b *testing.B) {
	for _, c := range telemetries {
		b.Run(c.name, func(b *testing.B) {
			keepGlobals(b)
			s := startCostServer(b, c.tel(b))
			s.call(b)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				s.call(b)
			}
		})
	}
}

// BenchmarkHTTPToolCall is a tools/call round trip over Streamable HTTP on loopback.
func BenchmarkHTTPToolCall(b *testing.B) {
	for _, c := range telemetries {
		b.Run(c.name, func(b *testing.B) {
			keepGlobals(b)
			s := startCostHTTP(b, c.tel(b))
			s.call(b)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				s.call(b)
			}
		})
	}
}

// Over HTTP a call allocates some 10 KB already (net/http's and the runtime's), and the
// heap of a small server stays at Go's smallest goal (4 MB): what a traced call adds, with
// the spans waiting in the batch for export, is what makes the garbage collector run more
// often, which is most of why tracing costs more over HTTP than over stdio. So the bytes
// the middleware allocates for a traced tools/call received over HTTP (its span, whose
// batch goes to an exporter that drops it, and its duration) are held to a budget: 6.8 KB
// (7.5 KB under the race detector) before a span's attributes were left to the spans that
// record and the histograms' attribute sets made once, 3.4 KB (4.1 KB) after. (Over the network, net/http's allocations, which
// the race detector makes vary by kilobytes, would hide the difference.)
func TestTracedBytesOverHTTP(t *testing.T) {
	tel := tracedTelemetry(t)
	h := tel.Middleware()(func(context.Context, *mcp.Message) ([]byte, error) { return []byte(`{"content":[]}`), nil })
	params := []byte(costCall)
	call := func() {
		m := &mcp.Message{Method: "tools/call", ID: "7", Server: true, SessionID: "3b1f0c1e8a2d4f6b9c7e5a3d1f0b2c4e", ProtocolVersion: "2025-11-25",
			Transport: mcp.TransportHTTP, Peer: "127.0.0.1:50123", Params: params}
		if _, err := h(context.Background(), m); err != nil {
			t.Fatal(err)
		}
	}
	for range 100 {
		call() // warm: the batch's buffers, the histogram's series
	}
	best := math.Inf(1)
	for range 5 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		const n = 1000
		for range n {
			call()
		}
		runtime.ReadMemStats(&after)
		best = min(best, float64(after.TotalAlloc-before.TotalAlloc)/n)
	}
	t.Logf("bytes per traced tools/call over HTTP, in the middleware: %.0f", best)
	budget := 4000.0
	if raceEnabled {
		budget = 4700
	}
	if best > budget {
		t.Errorf("a traced tools/call over HTTP allocates %.0f bytes in the middleware, want at most %.0f", best, budget)
	}
}
