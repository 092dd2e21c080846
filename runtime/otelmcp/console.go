package otelmcp

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/internal/termtext"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
)

// consoleExporter writes each span as it ends, for a person to read (OTEL_TRACES_EXPORTER=
// console): to stderr, since a stdio server's stdout carries its messages.
//
//	span mcpgen: tools/call get_weather (client, 12.4ms) trace 4bf92f3577b34da6a3ce929d0e0e4736 span 00f067aa0ba902b7
//	    gen_ai.operation.name=execute_tool gen_ai.tool.name=get_weather mcp.method.name=tools/call ...
type consoleExporter struct {
	mu sync.Mutex
	w  io.Writer
}

func (c *consoleExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	var b strings.Builder
	for _, s := range spans {
		service := ""
		if v, ok := s.Resource().Set().Value(semconv.ServiceNameKey); ok {
			service = v.Emit() + ": "
		}
		kind := strings.ToLower(s.SpanKind().String())
		fmt.Fprintf(&b, "span %s%s (%s, %s) trace %s span %s", service, s.Name(), kind, duration(s.EndTime().Sub(s.StartTime())),
			s.SpanContext().TraceID(), s.SpanContext().SpanID())
		if p := s.Parent(); p.IsValid() {
			fmt.Fprintf(&b, " parent %s", p.SpanID())
		}
		if st := s.Status(); st.Code == codes.Error {
			b.WriteString(" error")
			if st.Description != "" {
				b.WriteString(": " + oneLine(st.Description))
			}
		}
		attrs := slices.Clone(s.Attributes())
		slices.SortFunc(attrs, func(a, b attribute.KeyValue) int { return cmp.Compare(a.Key, b.Key) })
		if len(attrs) > 0 {
			b.WriteString("\n   ")
			for _, a := range attrs {
				b.WriteString(" " + string(a.Key) + "=" + oneLine(a.Value.Emit()))
			}
		}
		b.WriteString("\n")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err := io.WriteString(c.w, b.String())
	return err
}

func (c *consoleExporter) Shutdown(context.Context) error { return nil }

// duration rounds a span's duration for reading: 12.4ms, 1.25s, 830µs.
func duration(d time.Duration) string {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(100 * time.Microsecond).String()
	}
	return d.Round(time.Microsecond).String()
}

// oneLine is a value as one line of text: a server's text may hold newlines, and control
// characters that would act on the terminal.
func oneLine(s string) string { return termtext.Line(s) }
