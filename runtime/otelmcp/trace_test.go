package otelmcp

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// A call from a client into a server, each with its own Telemetry (as two processes have),
// is one trace: the caller's span, the client's CLIENT span, the server's SERVER span, the
// server's CLIENT span of the sampling request it sends while serving the call, and the
// client's SERVER span answering it, each the child of the one before; a span a tool's body
// starts nests in the server's. Over Streamable HTTP in a session and in the stateless
// revision (whose sampling request comes inside the call's result, and the call is sent
// again with the answer). The session histograms hear of the session's end.
func TestOneTraceAcrossClientAndServer(t *testing.T) {
	for _, version := range []string{"2025-11-25", mcp.StatelessProtocolVersion} {
		t.Run(version, func(t *testing.T) {
			srvRec, cliRec := newRecorder(t), newRecorder(t)
			quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
			sopts := &mcp.ServerOptions{Logger: quiet}
			srvRec.Server(sopts)
			srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"}, sopts)
			srv.AddTool(mcp.Tool{Name: "ask", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *mcp.ToolCall) {
				_, inner := srvRec.tp.Tracer("tool").Start(ctx, "tool body")
				inner.End()
				res, err := mcp.Sample(ctx, &mcp.CreateMessageRequest{Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.Text{Text: "hi"}}}, MaxTokens: 5})
				if err != nil {
					c.ReturnError(err)
					return
				}
				c.ReturnText(res.Content.(mcp.Text).Text)
			}})
			h := srv.HTTPHandler(nil)
			ts := httptest.NewServer(h)
			defer func() {
				h.Close()
				ts.Close()
			}()
			copts := &mcp.ClientOptions{ProtocolVersion: version, Logger: quiet,
				Sampling: func(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
					return &mcp.CreateMessageResult{Content: mcp.Text{Text: "hello"}, Model: "m"}, nil
				}}
			cliRec.Client(copts)
			ctx, root := cliRec.tp.Tracer("agent").Start(context.Background(), "agent turn")
			cl, err := mcp.Connect(ctx, &mcp.StreamableHTTPTransport{URL: ts.URL}, copts)
			if err != nil {
				t.Fatal(err)
			}
			res, err := cl.CallTool(ctx, "ask", nil)
			if err != nil || res.IsError {
				t.Fatalf("%+v %v", res, err)
			}
			cl.Close()
			root.End()

			byName := func(rec *tracetest.SpanRecorder, name string, kind trace.SpanKind) []sdktrace.ReadOnlySpan {
				var out []sdktrace.ReadOnlySpan
				for _, s := range rec.Ended() {
					if s.Name() == name && s.SpanKind() == kind {
						out = append(out, s)
					}
				}
				return out
			}
			one := func(rec *tracetest.SpanRecorder, name string, kind trace.SpanKind) sdktrace.ReadOnlySpan {
				t.Helper()
				spans := byName(rec, name, kind)
				if len(spans) == 0 {
					t.Fatalf("no %s span %q among %d", kind, name, len(rec.Ended()))
				}
				return spans[len(spans)-1]
			}
			clientCall := one(cliRec.spans, "tools/call ask", trace.SpanKindClient)
			serverCall := one(srvRec.spans, "tools/call ask", trace.SpanKindServer)
			body := one(srvRec.spans, "tool body", trace.SpanKindInternal)
			answer := one(cliRec.spans, "sampling/createMessage", trace.SpanKindServer)
			tid := root.SpanContext().TraceID()
			for _, s := range []sdktrace.ReadOnlySpan{clientCall, serverCall, body, answer} {
				if s.SpanContext().TraceID() != tid {
					t.Errorf("%s (%s) is in trace %s, not the caller's %s", s.Name(), s.SpanKind(), s.SpanContext().TraceID(), tid)
				}
			}
			if clientCall.Parent().SpanID() != root.SpanContext().SpanID() || serverCall.Parent().SpanID() != clientCall.SpanContext().SpanID() ||
				body.Parent().SpanID() != serverCall.SpanContext().SpanID() {
				t.Errorf("parents: client call's %s (root %s), server call's %s (client call %s), body's %s (server call %s)",
					clientCall.Parent().SpanID(), root.SpanContext().SpanID(), serverCall.Parent().SpanID(), clientCall.SpanContext().SpanID(),
					body.Parent().SpanID(), serverCall.SpanContext().SpanID())
			}
			if version != mcp.StatelessProtocolVersion {
				asked := one(srvRec.spans, "sampling/createMessage", trace.SpanKindClient)
				if asked.Parent().SpanID() != serverCall.SpanContext().SpanID() || answer.Parent().SpanID() != asked.SpanContext().SpanID() {
					t.Errorf("the sampling request's spans: the server's parent %s (want %s), the client's %s (want %s)",
						asked.Parent().SpanID(), serverCall.SpanContext().SpanID(), answer.Parent().SpanID(), asked.SpanContext().SpanID())
				}
				if a := attrs(serverCall.Attributes()); a["mcp.session.id"] == nil || a["mcp.session.id"] != attrs(clientCall.Attributes())["mcp.session.id"] {
					t.Errorf("session ids: server %v, client %v", a["mcp.session.id"], attrs(clientCall.Attributes())["mcp.session.id"])
				}
				deadline := time.Now().Add(5 * time.Second)
				for len(srvRec.histogram(t, "mcp.server.session.duration").DataPoints) == 0 && time.Now().Before(deadline) {
					time.Sleep(10 * time.Millisecond)
				}
				if p := srvRec.histogram(t, "mcp.server.session.duration").DataPoints; len(p) != 1 || p[0].Count != 1 {
					t.Errorf("server sessions: %+v", p)
				}
				if p := cliRec.histogram(t, "mcp.client.session.duration").DataPoints; len(p) != 1 || p[0].Count != 1 {
					t.Errorf("client sessions: %+v", p)
				}
			} else {
				// The question came in the first call's result; the client answered it, then
				// called again with the answer: two calls on the wire, each a span, with the
				// answer between them, all in the caller's span.
				calls := byName(cliRec.spans, "tools/call ask", trace.SpanKindClient)
				served := byName(srvRec.spans, "tools/call ask", trace.SpanKindServer)
				if len(calls) != 2 || len(served) != 2 || answer.Parent().SpanID() != root.SpanContext().SpanID() {
					t.Errorf("%d calls, %d served, the answer's parent %s (the caller's %s)", len(calls), len(served), answer.Parent().SpanID(), root.SpanContext().SpanID())
				}
				for i := range min(len(calls), len(served)) {
					if calls[i].Parent().SpanID() != root.SpanContext().SpanID() || served[i].Parent().SpanID() != calls[i].SpanContext().SpanID() {
						t.Errorf("call %d: parent %s, served as the child of %s", i, calls[i].Parent().SpanID(), served[i].Parent().SpanID())
					}
				}
			}
			for _, s := range []sdktrace.ReadOnlySpan{clientCall, serverCall} {
				if s.Status().Code == codes.Error {
					t.Errorf("%s failed: %v", s.Name(), s.Status())
				}
			}
		})
	}
}
