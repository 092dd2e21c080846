package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// Tool is one tool as mcpgen's generated code registers it: static description, schemas
// rendered at generation time, and a handler that decodes, validates and calls the Go
// function.
type Tool struct {
	Name        string
	Title       string
	Description string
	// InputSchema and OutputSchema are JSON Schema (2020-12) documents. OutputSchema is
	// empty for tools without structured output.
	InputSchema  string
	OutputSchema string
	Annotations  ToolAnnotations
	Icons        []Icon // sent to clients of protocol 2025-11-25 and later
	// Task says whether the tool may run as a task (the tasks extension of revision
	// 2026-07-28): a long call whose client polls for its result. The default is never. In
	// a tool a client listed, it is what the server said at 2025-11-25
	// (execution.taskSupport: TaskOptional or TaskRequired).
	Task TaskSupport
	// Scopes are the OAuth scopes a caller's token needs to call the tool on a protected
	// server (HTTPOptions.Auth); a token without them gets 403 insufficient_scope.
	Scopes  []string
	Handler ToolHandler
}

// ToolHandler runs one call of a tool. It reads the arguments from c and sets the result on
// c; it never returns protocol errors, only tool results.
type ToolHandler func(ctx context.Context, c *ToolCall)

// ToolAnnotations are hints about a tool's behaviour; nil means "not said" and leaves the
// protocol's default (readOnly false, destructive true, idempotent false, openWorld true).
type ToolAnnotations struct {
	ReadOnlyHint    *bool
	DestructiveHint *bool
	IdempotentHint  *bool
	OpenWorldHint   *bool
}

func (a *ToolAnnotations) empty() bool {
	return a.ReadOnlyHint == nil && a.DestructiveHint == nil && a.IdempotentHint == nil && a.OpenWorldHint == nil
}

// toolEntry is a registered tool with its description pre-rendered once per dialect.
type toolEntry struct {
	Tool
	rendered     [numDialects][]byte
	headerParams []headerParam // arguments mirrored into Mcp-Param-* headers
}

func newToolEntry(t Tool) (*toolEntry, error) {
	if t.Name == "" {
		return nil, fmt.Errorf("mcp: tool without a name")
	}
	if t.Handler == nil {
		return nil, fmt.Errorf("mcp: tool %q has no handler", t.Name)
	}
	in, err := compactObject(t.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("mcp: tool %q: input schema: %v", t.Name, err)
	}
	var out []byte
	if t.OutputSchema != "" {
		if out, err = compactObject(t.OutputSchema); err != nil {
			return nil, fmt.Errorf("mcp: tool %q: output schema: %v", t.Name, err)
		}
	}
	te := &toolEntry{Tool: t}
	if te.headerParams, err = headerParams(in); err != nil {
		return nil, fmt.Errorf("mcp: tool %q: input schema: %v", t.Name, err)
	}
	for d := range numDialects {
		te.rendered[d] = te.encode(d, in, out)
	}
	return te, nil
}

func compactObject(s string) ([]byte, error) {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		return nil, err
	}
	if b.Len() == 0 || b.Bytes()[0] != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	return b.Bytes(), nil
}

// runTool calls a tool's handler with arguments (nil means none) and returns the call, whose
// result (finish) the caller reads before it puts the call back (putToolCall). A panic in
// the tool becomes an error result, logged with its stack, and the server goes on serving:
// a tool's failure is the tool's result, not the protocol's.
func (s *Server) runTool(ctx context.Context, t *toolEntry, args []byte, d dialect) (c *ToolCall) {
	if args == nil {
		args = []byte("{}")
	}
	c = getToolCall(t.Name, args, d)
	defer func() {
		if v := recover(); v != nil {
			extra := []slog.Attr{slog.String("tool", t.Name)}
			if r := RequestFrom(ctx); r != nil {
				extra = r.logAttrs(extra...)
			}
			logPanic(ctx, s.logger, "mcp: tool panicked", v, extra...)
			c.setErrorText("internal error: tool " + t.Name + " failed unexpectedly")
			c.panicked = true
		}
	}()
	t.Handler(ctx, c)
	return c
}

// CallTool calls a tool in process, exactly as tools/call would (decoding and validating the
// arguments, checking and encoding the result), and returns the CallToolResult as JSON. It is
// for tests and for programs that embed a server. An unknown tool, or arguments that are not
// a JSON object, give a *jsonrpc.Error, as they would give a protocol error.
func (s *Server) CallTool(ctx context.Context, name string, arguments []byte) ([]byte, error) {
	t := s.lookupTool([]byte(name))
	if t == nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, fmt.Sprintf("invalid params: unknown tool %q", name))
	}
	var d jsonwire.Decoder
	d.Reset(arguments)
	if k := d.Peek(); arguments != nil && k != jsonwire.Object && k != jsonwire.Null {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: tools/call: arguments must be an object")
	}
	if d.Peek() == jsonwire.Null {
		arguments = nil
	}
	c := s.runTool(ctx, t, arguments, rev20251125.dialect())
	defer putToolCall(c)
	return append([]byte(nil), c.finish()...), nil
}

// listTools answers tools/list.
func listTools(ctx context.Context, req *Request, params []byte) ([]byte, *jsonrpc.Error) {
	return listPage(req, params, methodToolsList, "tools", &req.srv.tools, toolName,
		func(t *toolEntry, d dialect) []byte { return t.rendered[d] })
}

// toolName is the key the tools are sorted by.
func toolName(t *toolEntry) string { return t.Name }

// callTool answers tools/call. Problems with the request itself (no name, an unknown tool,
// arguments that are not an object) are protocol errors; everything about the arguments'
// content, and whatever the tool does, is a tool result. The result stays in the tool
// call's buffer, which the request holds until its response is written: tools/call is the
// hot path, and the result is copied once, into the response.
func callTool(ctx context.Context, req *Request, params []byte) ([]byte, *jsonrpc.Error) {
	if tk := req.tk; tk != nil && tk.tool != nil && sameBytes(params, req.msg.Params) {
		return req.callTool(ctx, tk.tool, tk.args) // the door read the params, and no middleware changed them
	}
	if params == nil {
		return nil, invalidParams("tools/call: params with a tool name are required")
	}
	var p callToolParams
	var d jsonwire.Decoder
	d.Reset(params)
	if p.decode(&d); d.Failed() {
		return nil, invalidParams("tools/call: %s", d.Summary())
	}
	if !p.hasName {
		return nil, invalidParams("tools/call: a tool name is required")
	}
	t := req.srv.lookupTool(p.name)
	if t == nil {
		return nil, invalidParams("unknown tool %q", string(p.name))
	}
	return req.callTool(ctx, t, p.arguments)
}

// sameBytes reports whether a and b are the same slice of memory.
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// callTool calls tool t with its arguments, as a task if it may run as one and the client
// declared the extension.
func (req *Request) callTool(ctx context.Context, t *toolEntry, args []byte) ([]byte, *jsonrpc.Error) {
	if t.Task != TaskNever && req.client.revision().tasks() {
		switch {
		case req.ClientCapabilities().Tasks:
			return req.srv.tasks.callAsTask(ctx, req, t, args)
		case t.Task == TaskRequired:
			return nil, missingTasksCapability
		}
	}
	req.tool = req.srv.runTool(ctx, t, args, req.client.revision().dialect())
	return req.tool.finish(), nil // which settles isError
}
