package otelmcp

import (
	"context"
	"log/slog"

	"go.opentelemetry.io/otel/trace"
)

// LogHandler wraps a slog.Handler so that each record logged with a context in a span
// carries trace_id and span_id, as OpenTelemetry's log data model names them: a log line
// of the runtime's about a request (logged with its context, as the runtime does) leads to
// the request's trace.
//
//	logger := slog.New(otelmcp.LogHandler(slog.NewJSONHandler(os.Stderr, nil)))
//	opts := &mcp.ServerOptions{Logger: logger}
func LogHandler(h slog.Handler) slog.Handler { return traceHandler{h} }

type traceHandler struct{ slog.Handler }

func (h traceHandler) Handle(ctx context.Context, r slog.Record) error {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		r = r.Clone()
		r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
	}
	return h.Handler.Handle(ctx, r)
}

func (h traceHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return traceHandler{h.Handler.WithAttrs(attrs)}
}

func (h traceHandler) WithGroup(name string) slog.Handler {
	return traceHandler{h.Handler.WithGroup(name)}
}
