package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// The first middleware of a list is the outermost: it sees the message first and the
// outcome last, and what an inner one returns is what the outer one gets.
func TestMiddlewareOrder(t *testing.T) {
	var seen []string
	mw := func(name string) Middleware {
		return func(next Handler) Handler {
			return func(ctx context.Context, m *Message) ([]byte, error) {
				seen = append(seen, name+" in")
				res, err := next(ctx, m)
				seen = append(seen, name+" out")
				return append(res, name...), err
			}
		}
	}
	h := chain([]Middleware{mw("a"), mw("b"), mw("c")}, func(ctx context.Context, m *Message) ([]byte, error) {
		seen = append(seen, "handler")
		return []byte("result:"), nil
	})
	res, err := h(context.Background(), &Message{Method: "ping"})
	if err != nil || string(res) != "result:cba" {
		t.Errorf("got %q %v, want result:cba", res, err)
	}
	if want := "a in, b in, c in, handler, c out, b out, a out"; strings.Join(seen, ", ") != want {
		t.Errorf("order: %s, want %s", strings.Join(seen, ", "), want)
	}
	if h := chain(nil, nil); h != nil {
		t.Error("no middleware: chain should leave the handler as it is")
	}
}

// SetMeta adds to the params' _meta, keeping what is there (a progress token), replacing the
// same key, and creating params or _meta when there are none; Meta reads it back. What
// SetMeta returns is valid JSON with every other member kept.
func TestMessageMeta(t *testing.T) {
	cases := []struct {
		params string
		want   string // the params after SetMeta("traceparent", "00-ab-cd-01")
	}{
		{"", `{"_meta":{"traceparent":"00-ab-cd-01"}}`},
		{`{}`, `{"_meta":{"traceparent":"00-ab-cd-01"}}`},
		{`{"name":"get_weather","arguments":{"city":"Lisbon"}}`, `{"name":"get_weather","arguments":{"city":"Lisbon"},"_meta":{"traceparent":"00-ab-cd-01"}}`},
		{`{"_meta":{"progressToken":7},"name":"x"}`, `{"_meta":{"progressToken":7,"traceparent":"00-ab-cd-01"},"name":"x"}`},
		{`{"_meta":{"traceparent":"old","tracestate":"a=b"}}`, `{"_meta":{"tracestate":"a=b","traceparent":"00-ab-cd-01"}}`},
		{`{"_meta":null,"name":"x"}`, `{"name":"x","_meta":{"traceparent":"00-ab-cd-01"}}`},
		{` { "name" : "x" } `, `{"name":"x","_meta":{"traceparent":"00-ab-cd-01"}}`},
	}
	for _, c := range cases {
		var params []byte
		if c.params != "" {
			params = []byte(c.params)
		}
		orig := string(params)
		m := &Message{Params: params}
		m.SetMeta("traceparent", "00-ab-cd-01")
		if string(m.Params) != c.want {
			t.Errorf("SetMeta on %s: %s, want %s", c.params, m.Params, c.want)
		}
		if string(params) != orig {
			t.Errorf("SetMeta changed the params in place: %s", params)
		}
		if !json.Valid(m.Params) {
			t.Errorf("SetMeta on %s: invalid JSON %s", c.params, m.Params)
		}
		if got := m.Meta("traceparent"); got != "00-ab-cd-01" {
			t.Errorf("Meta after SetMeta on %s: %q", c.params, got)
		}
	}
	m := &Message{Params: []byte(`{"_meta":{"tracestate":"a=b","n":1},"tracestate":"not meta"}`)}
	if m.Meta("tracestate") != "a=b" || m.Meta("n") != "" || m.Meta("absent") != "" {
		t.Errorf("Meta: %q %q %q", m.Meta("tracestate"), m.Meta("n"), m.Meta("absent"))
	}
	for _, bad := range []string{`[1]`, `{"a":`, `"s"`} {
		m := &Message{Params: []byte(bad)}
		m.SetMeta("k", "v")
		if string(m.Params) != bad || m.Meta("k") != "" {
			t.Errorf("SetMeta on %s: %s", bad, m.Params)
		}
	}
}

// Name and URI read what the method names: a tool, a prompt, a resource.
func TestMessageTarget(t *testing.T) {
	cases := []struct {
		method, params, name, uri string
	}{
		{"tools/call", `{"arguments":{"name":"not this"},"name":"get_weather"}`, "get_weather", ""},
		{"prompts/get", `{"name":"review"}`, "review", ""},
		{"resources/read", `{"uri":"file:///a.txt"}`, "", "file:///a.txt"},
		{"resources/subscribe", `{"uri":"x://1"}`, "", "x://1"},
		{"notifications/resources/updated", `{"uri":"x://2"}`, "", "x://2"},
		{"tools/list", `{"name":"no"}`, "", ""},
		{"tools/call", `{"name":7}`, "", ""},
		{"tools/call", ``, "", ""},
	}
	for _, c := range cases {
		m := &Message{Method: c.method, Params: []byte(c.params)}
		if m.Name() != c.name || m.URI() != c.uri {
			t.Errorf("%s %s: name %q uri %q, want %q %q", c.method, c.params, m.Name(), m.URI(), c.name, c.uri)
		}
	}
}

// ErrorType names the class of a failure as OpenTelemetry's error.type has it.
func TestMessageErrorType(t *testing.T) {
	call := &Message{Method: "tools/call"}
	cases := []struct {
		m      *Message
		result string
		err    error
		want   string
	}{
		{call, `{"content":[]}`, nil, ""},
		{call, `{"content":[{"type":"text","text":"no"}],"isError":true}`, nil, ErrorTool},
		{call, `{"isError":false}`, nil, ""},
		{&Message{Method: "tools/list"}, `{"isError":true}`, nil, ""},
		{call, "", jsonrpc.NewError(jsonrpc.CodeInvalidParams, "unknown tool"), "-32602"},
		{call, "", fmt.Errorf("mcp: tools/call: %w", jsonrpc.NewError(-32601, "no")), "-32601"},
		{call, "", &ClientError{Method: "sampling/createMessage", Code: -1, Message: "declined"}, "-1"},
		{call, "", context.DeadlineExceeded, "timeout"},
		{call, "", fmt.Errorf("waiting: %w", context.Canceled), "cancelled"},
		{call, "", transportFailure(errors.New("broken pipe")), "transport"},
		{call, "", errors.New("something"), "_OTHER"},
	}
	for _, c := range cases {
		var res []byte
		if c.result != "" {
			res = []byte(c.result)
		}
		if got := c.m.ErrorType(res, c.err); got != c.want {
			t.Errorf("%s %s %v: %q, want %q", c.m.Method, c.result, c.err, got, c.want)
		}
	}
	// A server knows why a tool's result is an error: the runtime says so, whatever the text.
	for _, c := range []struct {
		call func(c *ToolCall)
		want string
	}{
		{func(c *ToolCall) { c.ReturnText("ok") }, ""},
		{func(c *ToolCall) { c.ReturnError(errors.New("no")) }, ErrorTool},
		{func(c *ToolCall) {
			c.Arguments().decoder().ReportMissing("city")
			if err := c.Arguments().Err(); err != nil {
				c.ReturnError(err)
			}
		}, ErrorInvalidArguments},
		{func(c *ToolCall) {
			c.checker().Report("must be positive")
			c.resultOK()
		}, ErrorInvalidResult},
	} {
		tc := getToolCall("t", []byte(`{}`), rev20251125.dialect())
		c.call(tc)
		tc.finish()
		m := &Message{Method: "tools/call"}
		m.setToolOutcome(tc)
		putToolCall(tc)
		if got := m.ErrorType([]byte(`{"isError":true}`), nil); got != c.want {
			t.Errorf("a server's tool outcome: %q, want %q", got, c.want)
		}
	}
	if got := asRPCError(errors.New("refused by policy")); !reflect.DeepEqual(got, jsonrpc.NewError(jsonrpc.CodeInternalError, "refused by policy")) {
		t.Errorf("asRPCError: %+v", got)
	}
	e := jsonrpc.NewError(-32001, "quota")
	if got := asRPCError(fmt.Errorf("x: %w", e)); got != e {
		t.Errorf("asRPCError of a wrapped *jsonrpc.Error: %+v", got)
	}
}
