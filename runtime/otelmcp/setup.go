package otelmcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/otlptranslator"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
)

// SetupOptions configure Setup. The zero value reads everything from the environment.
type SetupOptions struct {
	// ServiceName is service.name when OTEL_SERVICE_NAME (or service.name in
	// OTEL_RESOURCE_ATTRIBUTES) does not set it; the default is the program's file name.
	ServiceName    string
	ServiceVersion string
	// Prometheus also serves the metrics for Prometheus to scrape: MetricsHandler is the
	// /metrics handler (the text exposition format, names in Prometheus's style:
	// mcp_server_operation_duration_seconds).
	Prometheus bool
	// Console is where OTEL_TRACES_EXPORTER=console writes spans; nil is stderr.
	Console io.Writer
}

// Setup configures OpenTelemetry from the standard environment variables, as operators set
// them for any program, and returns a Telemetry that records through it; Shutdown sends
// what is buffered and stops the exporters.
//
// Traces and metrics are exported with OTLP over HTTP when OTEL_EXPORTER_OTLP_ENDPOINT (or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, OTEL_EXPORTER_OTLP_METRICS_ENDPOINT) is set, and
// OTEL_TRACES_EXPORTER or OTEL_METRICS_EXPORTER is not "none"; the exporters read the rest
// of the OTEL_EXPORTER_OTLP_* variables themselves (headers, TLS, timeouts, compression),
// and both follow OTEL_EXPORTER_OTLP_PROTOCOL (or its _TRACES_ and _METRICS_ variants):
// http/protobuf or http/json. The SDK reads OTEL_TRACES_SAMPLER, OTEL_BSP_* and
// OTEL_METRIC_EXPORT_INTERVAL, the resource OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES.
// OTEL_TRACES_EXPORTER=console (alone or beside otlp) writes each span to stderr as it
// ends, for a person to read, with no collector. OTEL_PROPAGATORS may
// name tracecontext, baggage or none (the default is the first two). OTEL_SDK_DISABLED=true
// turns off what the environment would turn on.
//
// Setup sets OpenTelemetry's global providers and propagator when it turns anything on,
// so that spans a tool's body starts nest in the span of its call. With nothing to record,
// the Telemetry is off: Server and Client add nothing, and calls cost what they cost
// without it.
//
// A configuration Setup cannot follow is an error that says what to change: OTLP over gRPC
// (mcpgen exports over HTTP only), an exporter or propagator it does not have.
func Setup(ctx context.Context, opts SetupOptions) (*Telemetry, error) {
	env := readEnv(os.Getenv)
	if err := env.check(); err != nil {
		return nil, err
	}
	if !env.traces && !env.console && !env.metrics && !opts.Prometheus {
		return &Telemetry{off: true}, nil
	}
	res, err := newResource(ctx, opts)
	if err != nil {
		return nil, err
	}
	t := &Telemetry{}
	fail := func(err error) (*Telemetry, error) {
		t.Shutdown(ctx)
		return nil, err
	}
	var tracing Options
	if env.traces || env.console {
		spans := []sdktrace.TracerProviderOption{sdktrace.WithResource(res)}
		if env.traces {
			exp, err := otlptracehttp.New(ctx)
			if err != nil {
				return fail(fmt.Errorf("otelmcp: the OTLP trace exporter: %w", err))
			}
			spans = append(spans, sdktrace.WithBatcher(exp))
		}
		if env.console {
			w := opts.Console
			if w == nil {
				w = os.Stderr
			}
			spans = append(spans, sdktrace.WithSyncer(&consoleExporter{w: w}))
		}
		tp := sdktrace.NewTracerProvider(spans...)
		t.shutdown = append(t.shutdown, tp.Shutdown)
		otel.SetTracerProvider(tp)
		tracing.TracerProvider = tp
	}
	var readers []sdkmetric.Option
	if env.metrics {
		var metricOpts []otlpmetrichttp.Option
		if metricsProtocol(os.Getenv) == "http/json" {
			hc, err := jsonMetricsClient(os.Getenv)
			if err != nil {
				return fail(err)
			}
			metricOpts = append(metricOpts, otlpmetrichttp.WithHTTPClient(hc))
		}
		exp, err := otlpmetrichttp.New(ctx, metricOpts...)
		if err != nil {
			return fail(fmt.Errorf("otelmcp: the OTLP metric exporter: %w", err))
		}
		readers = append(readers, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)))
	}
	if opts.Prometheus {
		registry := prometheus.NewRegistry()
		exp, err := otelprom.New(otelprom.WithRegisterer(registry),
			otelprom.WithTranslationStrategy(otlptranslator.UnderscoreEscapingWithSuffixes))
		if err != nil {
			return fail(fmt.Errorf("otelmcp: the Prometheus exporter: %w", err))
		}
		readers = append(readers, sdkmetric.WithReader(exp))
		t.metrics = promhttp.HandlerFor(registry, promhttp.HandlerOpts{})
	}
	if len(readers) > 0 {
		mp := sdkmetric.NewMeterProvider(append(readers, sdkmetric.WithResource(res))...)
		t.shutdown = append(t.shutdown, mp.Shutdown)
		otel.SetMeterProvider(mp)
		tracing.MeterProvider = mp
	}
	otel.SetTextMapPropagator(env.propagator)
	tracing.Propagator = env.propagator
	rec, err := New(tracing)
	if err != nil {
		return fail(err)
	}
	rec.shutdown, rec.metrics = t.shutdown, t.metrics
	return rec, nil
}

// Shutdown exports what is buffered and stops the exporters, within ctx.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	var errs []error
	for _, f := range t.shutdown {
		errs = append(errs, f(ctx))
	}
	t.shutdown = nil
	return errors.Join(errs...)
}

// MetricsHandler serves the metrics in Prometheus's text format, for a /metrics route, when
// Setup was asked for them (SetupOptions.Prometheus); otherwise it answers 404.
func (t *Telemetry) MetricsHandler() http.Handler {
	if t == nil || t.metrics == nil {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "metrics are not served: the server was started without them", http.StatusNotFound)
		})
	}
	return t.metrics
}

// newResource describes the process: service.name (opts', unless the environment says),
// the SDK, and OTEL_RESOURCE_ATTRIBUTES.
func newResource(ctx context.Context, opts SetupOptions) (*resource.Resource, error) {
	name := opts.ServiceName
	if name == "" {
		name = filepath.Base(os.Args[0])
	}
	base := resource.NewSchemaless(semconv.ServiceName(name))
	if opts.ServiceVersion != "" {
		base = resource.NewSchemaless(semconv.ServiceName(name), semconv.ServiceVersion(opts.ServiceVersion))
	}
	detected, err := resource.New(ctx, resource.WithTelemetrySDK(), resource.WithFromEnv())
	if err != nil && !errors.Is(err, resource.ErrPartialResource) {
		return nil, fmt.Errorf("otelmcp: OTEL_RESOURCE_ATTRIBUTES: %w", err)
	}
	// What the environment says wins over the program's defaults.
	return resource.Merge(base, detected)
}

// setupEnv is what Setup reads of the environment.
type setupEnv struct {
	traces, metrics bool // exported with OTLP
	console         bool // spans written for a person (OTEL_TRACES_EXPORTER=console)
	propagator      propagation.TextMapPropagator
	problems        []string
}

func readEnv(getenv func(string) string) setupEnv {
	var e setupEnv
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		e.propagator = propagation.NewCompositeTextMapPropagator()
		return e
	}
	endpoint := getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != ""
	otlpTraces, console := e.exporter(getenv, "OTEL_TRACES_EXPORTER", true)
	e.traces, e.console = otlpTraces && (endpoint || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""), console
	otlpMetrics, _ := e.exporter(getenv, "OTEL_METRICS_EXPORTER", false)
	e.metrics = otlpMetrics && (endpoint || getenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT") != "")
	for _, name := range []string{"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL"} {
		switch p := strings.TrimSpace(getenv(name)); p {
		case "", "http/protobuf", "http/json":
		case "grpc":
			e.problems = append(e.problems, name+"=grpc: mcpgen exports OTLP over HTTP only; set it to http/protobuf, and the endpoint to the collector's OTLP/HTTP port (4318 by default)")
		default:
			e.problems = append(e.problems, fmt.Sprintf("%s=%s: not an OTLP protocol (http/protobuf or http/json)", name, p))
		}
	}
	e.propagator = e.propagators(getenv("OTEL_PROPAGATORS"))
	return e
}

// exporter reads OTEL_TRACES_EXPORTER or OTEL_METRICS_EXPORTER: otlp (the default), none,
// and for traces console.
func (e *setupEnv) exporter(getenv func(string) string, name string, traces bool) (otlp, console bool) {
	v := getenv(name)
	if v == "" {
		return true, false
	}
	for _, x := range strings.Split(v, ",") {
		switch x = strings.TrimSpace(x); {
		case x == "otlp":
			otlp = true
		case x == "console" && traces:
			console = true
		case x == "none":
		case x == "console":
			e.problems = append(e.problems, name+"=console: mcpgen writes spans to the console (OTEL_TRACES_EXPORTER=console), not metrics; export them with otlp, or serve them to Prometheus")
		default:
			e.problems = append(e.problems, fmt.Sprintf("%s=%s: mcpgen exports with otlp (or none)", name, x))
		}
	}
	return otlp, console
}

// propagators reads OTEL_PROPAGATORS: tracecontext and baggage by default.
func (e *setupEnv) propagators(v string) propagation.TextMapPropagator {
	if v == "" {
		v = "tracecontext,baggage"
	}
	var ps []propagation.TextMapPropagator
	for _, x := range strings.Split(v, ",") {
		switch x = strings.TrimSpace(x); x {
		case "tracecontext":
			ps = append(ps, propagation.TraceContext{})
		case "baggage":
			ps = append(ps, propagation.Baggage{})
		case "none":
		default:
			e.problems = append(e.problems, "OTEL_PROPAGATORS="+v+": mcpgen has tracecontext, baggage and none, not "+x)
		}
	}
	return propagation.NewCompositeTextMapPropagator(ps...)
}

func (e *setupEnv) check() error {
	if len(e.problems) == 0 {
		return nil
	}
	return errors.New("otelmcp: " + strings.Join(e.problems, "; "))
}
