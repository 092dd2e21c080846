// Package mcptest connects a test to an mcp.Server in memory (mcp.Server.ServeMemory),
// through the same code a real client's messages go through over stdio: every request is
// encoded, served and decoded as JSON.
//
//	srv := mcp.NewServer(mcp.Implementation{Name: "test", Version: "0"}, nil)
//	RegisterMCP(srv)
//	c := mcptest.Connect(t, srv)
//	res := c.CallTool("get_weather", map[string]any{"city": "Lisbon"})
//	if res.IsError { t.Fatal(res.Text()) }
//
// A tool that asks the client for something (sampling, elicitation, roots) gets its answer
// from the handlers given to ConnectWith, in either era: with ProtocolVersion
// mcp.StatelessProtocolVersion (2026-07-28) the client sends no initialize, puts its version
// and capabilities in every request's _meta, and answers an InputRequiredResult by calling
// the handlers and retrying the request with their answers, as a stateless client does.
package mcptest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// Timeout bounds how long a request may go unanswered before the test fails.
var Timeout = 10 * time.Second

// Client is one session with a server, for tests. Its methods fail the test on protocol
// errors they do not expect, so tests read like the happy path.
type Client struct {
	t        testing.TB
	conn     *mcp.MemoryConn
	mu       sync.Mutex
	next     int
	handlers map[string]Handler
	notes    []Notification
	meta     map[string]any // a stateless client's _meta; nil in a session

	// Initialize is the result of the initialize request (of server/discover for a client
	// of revision 2026-07-28).
	Initialize map[string]any
	// InputRounds counts the retries of stateless requests that answered an
	// InputRequiredResult.
	InputRounds int
}

// Handler answers a request the server sends the client, such as "sampling/createMessage"
// or "elicitation/create": it returns the result (anything encoding/json encodes) or an
// error, which the server gets as an error response.
type Handler func(params json.RawMessage) (any, error)

// Options configure ConnectWith.
type Options struct {
	// ProtocolVersion to ask for; the default is the newest.
	ProtocolVersion string
	// Handlers answer the server's requests, by method. The client declares the
	// capabilities they imply: sampling, elicitation (form mode), roots.
	Handlers map[string]Handler
}

// Notification is a notification the server sent.
type Notification struct {
	Method string
	Params json.RawMessage
}

// Connect starts serving srv in memory and initializes a session at the newest protocol
// version. The session ends when the test does.
func Connect(t testing.TB, srv *mcp.Server) *Client {
	return ConnectVersion(t, srv, mcp.StatefulProtocolVersion)
}

// ConnectVersion is Connect with a chosen protocol version.
func ConnectVersion(t testing.TB, srv *mcp.Server, version string) *Client {
	t.Helper()
	return ConnectWith(t, srv, Options{ProtocolVersion: version})
}

// ConnectWith is Connect with options: a protocol version, and handlers for the requests
// the server may send.
func ConnectWith(t testing.TB, srv *mcp.Server, opts Options) *Client {
	t.Helper()
	version := opts.ProtocolVersion
	if version == "" {
		version = mcp.StatefulProtocolVersion
	}
	caps := map[string]any{}
	for method, capability := range map[string]string{"sampling/createMessage": "sampling", "elicitation/create": "elicitation", "roots/list": "roots"} {
		if opts.Handlers[method] != nil {
			caps[capability] = map[string]any{}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	conn := srv.ServeMemory(ctx)
	t.Cleanup(func() {
		conn.Close()
		cancel()
		<-conn.Done()
	})
	c := &Client{t: t, conn: conn, handlers: opts.Handlers}
	if version == mcp.StatelessProtocolVersion {
		c.meta = map[string]any{
			"io.modelcontextprotocol/protocolVersion":    version,
			"io.modelcontextprotocol/clientCapabilities": caps,
			"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "mcptest", "version": "0"},
		}
		if err := c.call("server/discover", nil, &c.Initialize); err != nil {
			t.Fatalf("mcptest: server/discover: %v", err)
		}
		return c
	}
	err := c.call("initialize", map[string]any{
		"protocolVersion": version,
		"capabilities":    caps,
		"clientInfo":      map[string]any{"name": "mcptest", "version": "0"},
	}, &c.Initialize)
	if err != nil {
		t.Fatalf("mcptest: initialize: %v", err)
	}
	c.Notify("notifications/initialized", nil)
	return c
}

// Error is a JSON-RPC error response.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

// maxInputRounds bounds the retries of one stateless request: a server that keeps asking is
// a bug the test should see.
const maxInputRounds = 10

// Request sends a request and waits for its response: the result, or the error response.
// A stateless client retries a request answered with an InputRequiredResult, with the
// handlers' answers, until it completes.
func (c *Client) Request(method string, params any) (json.RawMessage, *Error) {
	c.t.Helper()
	if c.meta == nil {
		return c.request(method, params)
	}
	p := map[string]any{}
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil || json.Unmarshal(b, &p) != nil {
			c.t.Fatalf("mcptest: params of %s are not a JSON object: %v", method, err)
		}
	}
	p["_meta"] = c.meta
	for round := 0; ; round++ {
		res, rpcErr := c.request(method, p)
		if rpcErr != nil {
			return nil, rpcErr
		}
		var ir struct {
			ResultType    string                     `json:"resultType"`
			InputRequests map[string]json.RawMessage `json:"inputRequests"`
			RequestState  *string                    `json:"requestState"`
		}
		c.decode(method, res, &ir)
		if ir.ResultType != "input_required" {
			return res, nil
		}
		if round == maxInputRounds {
			c.t.Fatalf("mcptest: %s still needs input after %d rounds: %s", method, round, res)
		}
		responses := map[string]any{}
		for key, raw := range ir.InputRequests {
			var r struct {
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
			}
			if err := json.Unmarshal(raw, &r); err != nil {
				c.t.Fatalf("mcptest: input request %s: %v", key, err)
			}
			h := c.handlers[r.Method]
			if h == nil {
				return nil, &Error{Code: -32601, Message: "mcptest: the server asked for " + r.Method + ", which no handler answers"}
			}
			answer, err := h(r.Params)
			if err != nil {
				return nil, &Error{Code: -32603, Message: "mcptest: the " + r.Method + " handler failed: " + err.Error()}
			}
			responses[key] = answer
		}
		p["inputResponses"] = responses
		delete(p, "requestState")
		if ir.RequestState != nil {
			p["requestState"] = *ir.RequestState
		}
		c.InputRounds++
	}
}

// call sends a request and decodes its result into v; it returns the error response, if
// that is the answer.
func (c *Client) call(method string, params, v any) *Error {
	c.t.Helper()
	raw, rpcErr := c.Request(method, params)
	if rpcErr != nil {
		return rpcErr
	}
	c.decode(method, raw, v)
	return nil
}

// decode reads the result of method into v, failing the test if it cannot.
func (c *Client) decode(method string, result json.RawMessage, v any) {
	c.t.Helper()
	if err := json.Unmarshal(result, v); err != nil {
		c.t.Fatalf("mcptest: %s result: %v", method, err)
	}
}

// request sends one request and waits for its response.
func (c *Client) request(method string, params any) (json.RawMessage, *Error) {
	c.t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.next++
	id := c.next
	msg := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	c.send(msg)
	for {
		var resp struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
			Error  *Error          `json:"error"`
		}
		if err := json.Unmarshal(c.receive(), &resp); err != nil {
			c.t.Fatalf("mcptest: invalid message from server: %v", err)
		}
		switch {
		case resp.Method != "" && resp.ID != nil:
			c.answer(resp.ID, resp.Method, resp.Params)
		case resp.Method != "":
			c.notes = append(c.notes, Notification{resp.Method, resp.Params})
		case string(resp.ID) == fmt.Sprint(id):
			return resp.Result, resp.Error
		}
	}
}

// answer runs the handler of a request from the server and sends the response. c.mu is held.
func (c *Client) answer(id json.RawMessage, method string, params json.RawMessage) {
	msg := map[string]any{"jsonrpc": "2.0", "id": id}
	h := c.handlers[method]
	if h == nil {
		msg["error"] = &Error{Code: -32601, Message: "mcptest: no handler for " + method}
	} else if res, err := h(params); err != nil {
		msg["error"] = &Error{Code: -32603, Message: err.Error()}
	} else {
		msg["result"] = res
	}
	c.send(msg)
}

// Notifications returns the notifications the server has sent so far, and forgets them.
func (c *Client) Notifications() []Notification {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.notes
	c.notes = nil
	return n
}

// Notify sends a notification.
func (c *Client) Notify(method string, params any) {
	c.t.Helper()
	msg := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		msg["params"] = params
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.send(msg)
}

func (c *Client) send(msg any) {
	c.t.Helper()
	b, err := json.Marshal(msg)
	if err != nil {
		c.t.Fatalf("mcptest: %v", err)
	}
	if err := c.conn.Send(b); err != nil {
		c.t.Fatalf("mcptest: sending: %v", err)
	}
}

// receive returns the next message from the server, failing the test if none comes in time.
func (c *Client) receive() []byte {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	msg, err := c.conn.Receive(ctx)
	switch {
	case err == context.DeadlineExceeded:
		c.t.Fatalf("mcptest: no answer from the server within %v", Timeout)
	case err != nil:
		c.t.Fatalf("mcptest: reading: %v", err)
	}
	return msg
}

// Tool is an entry of tools/list.
type Tool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	Annotations  map[string]any  `json:"annotations"`
}

// ListTools returns every tool, following pagination.
func (c *Client) ListTools() []Tool {
	c.t.Helper()
	var all []Tool
	cursor := ""
	for {
		var params any
		if cursor != "" {
			params = map[string]any{"cursor": cursor}
		}
		var page struct {
			Tools      []Tool `json:"tools"`
			NextCursor string `json:"nextCursor"`
		}
		if rpcErr := c.call("tools/list", params, &page); rpcErr != nil {
			c.t.Fatalf("mcptest: tools/list: %v", rpcErr)
		}
		all = append(all, page.Tools...)
		if page.NextCursor == "" {
			return all
		}
		cursor = page.NextCursor
	}
}

// ToolResult is the result of tools/call.
type ToolResult struct {
	Content           []map[string]any `json:"content"`
	StructuredContent json.RawMessage  `json:"structuredContent"`
	IsError           bool             `json:"isError"`
}

// Text joins the text of the result's text blocks.
func (r *ToolResult) Text() string {
	var parts []string
	for _, b := range r.Content {
		if b["type"] == "text" {
			parts = append(parts, fmt.Sprint(b["text"]))
		}
	}
	return strings.Join(parts, "\n")
}

// Structured decodes the structured content into v.
func (r *ToolResult) Structured(v any) error {
	if r.StructuredContent == nil {
		return fmt.Errorf("the result has no structured content")
	}
	return json.Unmarshal(r.StructuredContent, v)
}

// CallTool calls a tool with arguments (anything encoding/json encodes as an object) and
// returns its result. A protocol error fails the test; use CallToolErr to expect one.
func (c *Client) CallTool(name string, args any) *ToolResult {
	c.t.Helper()
	res, rpcErr := c.CallToolErr(name, args)
	if rpcErr != nil {
		c.t.Fatalf("mcptest: tools/call %s: %v", name, rpcErr)
	}
	return res
}

// CallToolErr calls a tool and returns its result or the protocol error.
func (c *Client) CallToolErr(name string, args any) (*ToolResult, *Error) {
	c.t.Helper()
	params := map[string]any{"name": name}
	if args != nil {
		params["arguments"] = args
	}
	var res ToolResult
	if rpcErr := c.call("tools/call", params, &res); rpcErr != nil {
		return nil, rpcErr
	}
	return &res, nil
}

// ReadResource reads a resource and returns its contents, or the protocol error.
func (c *Client) ReadResource(uri string) ([]map[string]any, *Error) {
	c.t.Helper()
	var res struct {
		Contents []map[string]any `json:"contents"`
	}
	if rpcErr := c.call("resources/read", map[string]any{"uri": uri}, &res); rpcErr != nil {
		return nil, rpcErr
	}
	return res.Contents, nil
}

// GetPrompt gets a prompt with arguments and returns its messages, or the protocol error.
func (c *Client) GetPrompt(name string, args map[string]string) ([]map[string]any, *Error) {
	c.t.Helper()
	params := map[string]any{"name": name}
	if args != nil {
		params["arguments"] = args
	}
	var res struct {
		Messages []map[string]any `json:"messages"`
	}
	if rpcErr := c.call("prompts/get", params, &res); rpcErr != nil {
		return nil, rpcErr
	}
	return res.Messages, nil
}

// Complete asks for completions of an argument of a prompt (ref "prompt:NAME") or a
// variable of a resource template (ref "resource:TEMPLATE").
func (c *Client) Complete(ref, argument, value string) ([]string, *Error) {
	c.t.Helper()
	kind, name, _ := strings.Cut(ref, ":")
	r := map[string]any{"type": "ref/" + kind}
	if kind == "prompt" {
		r["name"] = name
	} else {
		r["uri"] = name
	}
	var res struct {
		Completion struct {
			Values []string `json:"values"`
		} `json:"completion"`
	}
	if rpcErr := c.call("completion/complete", map[string]any{"ref": r, "argument": map[string]any{"name": argument, "value": value}}, &res); rpcErr != nil {
		return nil, rpcErr
	}
	return res.Completion.Values, nil
}
