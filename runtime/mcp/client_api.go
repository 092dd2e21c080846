package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// What a client asks a server. Each call speaks the revision the client settled with the
// server; protocol errors are *jsonrpc.Error values (errors.As finds them), with their code
// and data.

// Ping checks that the server answers (in the stateless revision, with server/discover).
func (c *Client) Ping(ctx context.Context) error {
	if c.revision().stateless() {
		return c.request(ctx, methodDiscover, nil, nil)
	}
	return c.request(ctx, methodPing, nil, nil)
}

// paginate runs a list method page by page, as an iterator. A server that does not know
// the list ("method not found") has none of its items, whatever it declared: servers of the
// TypeScript SDK declare resources without templates, and others declare prompts they
// never implemented; a debug note says so. An item the client cannot read (read reports its
// problems to d) is left out, with a warning in the log, rather than the whole list; read
// also leaves out an item it must not keep, returning false.
func paginate[T any](c *Client, ctx context.Context, method, field string, read func(d *jsonwire.Decoder) (T, bool)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var d, item jsonwire.Decoder
		pages := 0
		err := c.walkPages(ctx, method, func(page []byte) (string, error) {
			pages++
			d.Reset(page)
			items, next := readPage(&d, field)
			if d.Finish(); d.Failed() {
				return "", fmt.Errorf("mcp: %s: the server's result is not a page of %s:\n%s", method, field, d.Summary())
			}
			for i, raw := range items {
				item.Reset(raw)
				it, keep := read(&item)
				if item.Finish(); item.Failed() {
					c.logger.Warn("mcp: leaving out an item of a list that the client cannot read", "method", method,
						"item", i, "reason", item.Summary(), "json", string(clip(raw, 200)))
					continue
				}
				if keep && !yield(it, nil) {
					return "", errStopped
				}
			}
			return next, nil
		})
		var rpcErr *jsonrpc.Error
		switch {
		case err == nil, err == errStopped:
		case pages == 0 && errors.As(err, &rpcErr) && rpcErr.Code == jsonrpc.CodeMethodNotFound:
			c.logger.Debug("mcp: the server does not know a list; taking it as empty", "method", method,
				"declared", c.declares(method), "error", rpcErr.Message)
		default:
			var zero T
			yield(zero, err)
		}
	}
}

// errStopped is how a page's reader ends the walk early (the loop over a list broke off).
var errStopped = errors.New("mcp: stopped")

// walkPages requests a list page by page, handing each to read, which returns the cursor of
// the next: until a page has none, or one given before (the list went round), or read or a
// request fails.
func (c *Client) walkPages(ctx context.Context, method string, read func(page []byte) (next string, err error)) error {
	cursor := ""
	seen := map[string]bool{}
	for {
		var params any
		if cursor != "" {
			params = listParams(cursor)
		}
		var page rawResult
		if err := c.request(ctx, method, params, &page); err != nil {
			return err
		}
		next, err := read(page)
		if err != nil {
			return err
		}
		seen[cursor] = true
		if next == "" || seen[next] {
			return nil
		}
		cursor = next
	}
}

// rawResult is a result as it came, for a caller that reads it itself.
type rawResult []byte

func (r *rawResult) decodeResult(raw []byte) error {
	*r = raw
	return nil
}

// codecResult reads a result with a codec's decoder; its error names the result's type.
func codecResult(name string, decode func(d *jsonwire.Decoder)) resultDecoder {
	return decodeFunc(func(raw []byte) error {
		var d jsonwire.Decoder
		d.Reset(raw)
		decode(&d)
		if d.Finish(); d.Failed() {
			return errors.New("it is not a " + name + ":\n" + d.Summary())
		}
		return nil
	})
}

// decodeFunc is a resultDecoder of a function.
type decodeFunc func(raw []byte) error

func (f decodeFunc) decodeResult(raw []byte) error { return f(raw) }

// declares reports whether the server declared the capability a list belongs to, for the
// note on a list it does not know.
func (c *Client) declares(method string) bool {
	caps := c.Server().Capabilities
	switch method {
	case methodToolsList:
		return caps.Tools
	case methodPromptsList:
		return caps.Prompts
	case methodResourcesList, methodResourceTemplatesList:
		return caps.Resources
	}
	return false
}

// collect gathers an iterator's items, or its error.
func collect[T any](seq iter.Seq2[T, error]) ([]T, error) {
	var all []T
	for item, err := range seq {
		if err != nil {
			return nil, err
		}
		all = append(all, item)
	}
	return all, nil
}

// Tools lists the server's tools, page after page, as the loop asks for them. Over
// Streamable HTTP, a tool whose x-mcp-header annotations break the specification's rules is
// left out, with a warning in the log: a client could not call it as the server expects.
func (c *Client) Tools(ctx context.Context) iter.Seq2[*Tool, error] {
	return paginate(c, ctx, methodToolsList, "tools", c.readTool)
}

// ListTools returns every tool the server has.
func (c *Client) ListTools(ctx context.Context) ([]*Tool, error) { return collect(c.Tools(ctx)) }

// CallTool calls a tool with arguments (anything encoding/json encodes as an object; nil for
// none). A result with IsError set is a result, not an error: Err turns it into one. A tool
// with an output schema has its structured content checked against it.
func (c *Client) CallTool(ctx context.Context, name string, arguments any) (*CallToolResult, error) {
	args, err := encodeParams(arguments)
	if err != nil {
		return nil, fmt.Errorf("mcp: tools/call %s: arguments: %w", name, err)
	}
	res := &CallToolResult{}
	if err := c.callTool(ctx, name, args, res); err != nil {
		return nil, err
	}
	if res.StructuredContent != nil {
		if err := c.checkStructured(name, res.StructuredContent); err != nil {
			return res, fmt.Errorf("mcp: tools/call %s: %w", name, err)
		}
	}
	return res, nil
}

// callTool sends tools/call with the Mcp-Param headers the tool's schema asks for. A server
// that finds them wrong (HeaderMismatch) may have changed the tool: the client lists the
// tools again and retries once, as the transport page says.
func (c *Client) callTool(ctx context.Context, name string, args []byte, result any) error {
	task, err := c.augments(ctx, name)
	if err != nil {
		return err
	}
	// One allocation holds the name's bytes, and after them the params written.
	buf := make([]byte, len(name), 2*len(name)+len(args)+36)
	copy(buf, name)
	// task: revision 2025-11-25's call asks for a task (task-augmented execution).
	p := callToolParams{name: buf[:len(name):len(name)], arguments: args, task: task}
	var e jsonwire.Encoder
	e.Reset(buf[len(name):])
	p.encode(&e)
	params := e.Bytes()
	rev := c.revision()
	for attempt := 0; ; attempt++ {
		rq := &OutgoingRequest{name: name, task: task}
		if rev.stateless() && c.carriesHeaders() {
			t, err := c.knownTool(ctx, name, attempt > 0)
			if err != nil {
				return err
			}
			if t != nil {
				rq.params = paramHeaders(t.headers, args)
			}
		}
		err := c.call(ctx, rev, methodToolsCall, json.RawMessage(params), result, rq)
		if attempt == 0 && isHeaderMismatch(err) {
			continue
		}
		return err
	}
}

// isHeaderMismatch reports whether err is the server's HeaderMismatch error.
func isHeaderMismatch(err error) bool {
	var rpcErr *jsonrpc.Error
	return err != nil && errors.As(err, &rpcErr) && rpcErr.Code == CodeHeaderMismatch
}

// Err is the tool's error, if its result has IsError set: a *ToolError with its text, and its
// structured content if it has any (a failure with data).
func (r *CallToolResult) Err() error {
	if !r.IsError {
		return nil
	}
	return &ToolError{Text: TextOf(r.Content), StructuredContent: r.StructuredContent}
}

// ToolError is a tool's error result, as an error.
type ToolError struct {
	Text string // the text of the result's text blocks
	// StructuredContent is the result's structured content, if any: the data of a failure
	// the tool reported with it, a JSON object, checked against the tool's output schema.
	StructuredContent []byte
}

func (e *ToolError) Error() string { return "mcp: the tool failed: " + e.Text }

// Resources lists the server's resources, page after page.
func (c *Client) Resources(ctx context.Context) iter.Seq2[*Resource, error] {
	return paginate(c, ctx, methodResourcesList, "resources", func(d *jsonwire.Decoder) (*Resource, bool) {
		r := &Resource{}
		r.decode(d)
		return r, true
	})
}

// ListResources returns every resource the server lists.
func (c *Client) ListResources(ctx context.Context) ([]*Resource, error) {
	return collect(c.Resources(ctx))
}

// ResourceTemplates lists the server's resource templates, page after page.
func (c *Client) ResourceTemplates(ctx context.Context) iter.Seq2[*ResourceTemplate, error] {
	return paginate(c, ctx, methodResourceTemplatesList, "resourceTemplates", func(d *jsonwire.Decoder) (*ResourceTemplate, bool) {
		t := &ResourceTemplate{}
		t.decode(d)
		return t, true
	})
}

// ListResourceTemplates returns every resource template the server has.
func (c *Client) ListResourceTemplates(ctx context.Context) ([]*ResourceTemplate, error) {
	return collect(c.ResourceTemplates(ctx))
}

// ReadResource reads a resource.
func (c *Client) ReadResource(ctx context.Context, uri string) ([]ResourceContents, error) {
	var contents []ResourceContents
	res := codecResult("ReadResourceResult", func(d *jsonwire.Decoder) { contents = readReadResult(d) })
	if err := c.request(ctx, methodResourcesRead, map[string]string{"uri": uri}, res); err != nil {
		return nil, err
	}
	return contents, nil
}

// Subscribe asks the server to tell ClientOptions.ResourceUpdated when the resource at uri
// changes: with resources/subscribe in a session, and in the stateless revision through the
// client's subscriptions/listen request. It returns once the server has the subscription
// (answered, or acknowledged it), so that a change made by a call after it is heard of.
func (c *Client) Subscribe(ctx context.Context, uri string) error {
	if c.revision().stateless() {
		return c.changeSubscriptions(ctx, uri, true)
	}
	return c.request(ctx, methodResourcesSubscribe, map[string]string{"uri": uri}, nil)
}

// Unsubscribe ends a subscription to a resource.
func (c *Client) Unsubscribe(ctx context.Context, uri string) error {
	if c.revision().stateless() {
		return c.changeSubscriptions(ctx, uri, false)
	}
	return c.request(ctx, methodResourcesUnsubscribe, map[string]string{"uri": uri}, nil)
}

// Prompts lists the server's prompts, page after page.
func (c *Client) Prompts(ctx context.Context) iter.Seq2[*Prompt, error] {
	return paginate(c, ctx, methodPromptsList, "prompts", func(d *jsonwire.Decoder) (*Prompt, bool) {
		p := &Prompt{}
		p.decode(d)
		return p, true
	})
}

// ListPrompts returns every prompt the server has.
func (c *Client) ListPrompts(ctx context.Context) ([]*Prompt, error) { return collect(c.Prompts(ctx)) }

// GetPrompt renders a prompt with arguments.
func (c *Client) GetPrompt(ctx context.Context, name string, arguments map[string]string) (*GetPromptResult, error) {
	p := getPromptParams{name: name}
	if arguments != nil {
		var args jsonwire.Encoder
		writeValue(&args, arguments)
		p.arguments = args.Bytes()
	}
	var e jsonwire.Encoder
	p.encode(&e)
	out := &GetPromptResult{}
	if err := c.request(ctx, methodPromptsGet, json.RawMessage(e.Bytes()), codecResult("GetPromptResult", out.decode)); err != nil {
		return nil, err
	}
	return out, nil
}

// CompletionRef names what a completion is for: a prompt's argument or a resource
// template's variable.
type CompletionRef struct {
	Prompt           string // a prompt's name, or
	ResourceTemplate string // a resource template's URI template
}

// CompleteResult is the values a server suggests.
type CompleteResult struct {
	Values  []string
	Total   int // how many there are in all, if the server says; 0 otherwise
	HasMore bool
}

// Complete asks for values that complete an argument's partial value. context holds the
// values of other arguments already given, or is nil.
func (c *Client) Complete(ctx context.Context, ref CompletionRef, argument, value string, context map[string]string) (*CompleteResult, error) {
	p := completeParams{refType: "ref/prompt", refName: ref.Prompt, argument: argument, value: value,
		hasContext: context != nil, context: context}
	if ref.Prompt == "" {
		p.refType, p.refURI = "ref/resource", ref.ResourceTemplate
	}
	var e jsonwire.Encoder
	p.encode(&e, c.revision().dialect())
	out := &CompleteResult{}
	if err := c.request(ctx, methodComplete, json.RawMessage(e.Bytes()), codecResult("CompleteResult", out.decode)); err != nil {
		return nil, err
	}
	return out, nil
}

// SetLogLevel asks the server to send log messages at level or above to ClientOptions.Log:
// with logging/setLevel in a session, and in the stateless revision with the log level
// every later request carries.
func (c *Client) SetLogLevel(ctx context.Context, level LogLevel) error {
	if level.rank() < 0 {
		return fmt.Errorf("mcp: log level %q is not one of %v", level, levels)
	}
	c.mu.Lock()
	stateless := c.rev.stateless()
	if stateless {
		c.level = level
	}
	c.mu.Unlock()
	if stateless {
		return nil
	}
	return c.request(ctx, methodSetLevel, json.RawMessage(appendSetLevelParams(level)), nil)
}

// Request sends any request and returns its raw result: for methods this client has no
// call of its own for, such as those of an extension.
func (c *Client) Request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	var raw json.RawMessage
	if err := c.request(ctx, method, params, &raw); err != nil {
		return nil, err
	}
	return raw, nil
}

// listParams are the params of a list request for the page after cursor.
func listParams(cursor string) json.RawMessage {
	var e jsonwire.Encoder
	(&paginatedParams{cursor: cursor, hasCursor: true}).encode(&e)
	return e.Bytes()
}
