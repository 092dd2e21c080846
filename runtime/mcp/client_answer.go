package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// How a client answers what a server asks of it (sampling/createMessage,
// elicitation/create, roots/list, ping), through the handlers of ClientOptions, and what it
// does with the server's notifications: each function here is a handler of a row of the
// method table (methods.go).

// ElicitRequest is what a server asks the client's user (elicitation/create).
type ElicitRequest struct {
	Mode    string // "form" or "url"
	Message string
	// RequestedSchema is the form, in form mode: a flat JSON Schema object of primitive
	// properties, with their defaults.
	RequestedSchema json.RawMessage
	// URL and ElicitationID, in URL mode: where to send the user, and the id the server's
	// notifications/elicitation/complete names.
	URL           string
	ElicitationID string
}

// ElicitResult is the user's answer.
type ElicitResult struct {
	Action ElicitAction
	// Content is the form's values, on Accept in form mode. The form's defaults are filled
	// in for the fields the user left out.
	Content map[string]any
}

func (c *Client) answerElicitation(ctx context.Context, params []byte) ([]byte, error) {
	var req ElicitRequest
	d := jsonwire.NewDecoder(params)
	req.decode(d)
	if d.Finish(); d.Failed() {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: elicitation/create:\n"+d.Summary())
	}
	if req.Mode == "" {
		req.Mode = "form" // the only mode before 2025-11-25
	}
	switch {
	case req.Mode == "url" && !c.opts.ElicitationURL, req.Mode != "url" && req.Mode != "form":
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, fmt.Sprintf("invalid params: elicitation/create: this client does not declare %q mode", req.Mode))
	}
	res, err := c.opts.Elicitation(ctx, &req)
	if err != nil {
		return nil, err
	}
	out := ElicitResult{Action: res.Action}
	if res.Action == Accept && req.Mode == "form" {
		out.Content = withDefaults(res.Content, req.RequestedSchema)
	}
	var e jsonwire.Encoder
	out.encode(&e)
	return e.Bytes(), e.Err()
}

// withDefaults fills into a form's answer the default of each property the user left out
// (SEP-1034): a server that offers a default gets it unless the user chose otherwise.
func withDefaults(content map[string]any, schema json.RawMessage) map[string]any {
	var s struct {
		Properties map[string]struct {
			Default json.RawMessage `json:"default"`
		} `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return content
	}
	for name, prop := range s.Properties {
		if _, given := content[name]; given || prop.Default == nil {
			continue
		}
		var v any
		if json.Unmarshal(prop.Default, &v) == nil {
			if content == nil {
				content = map[string]any{}
			}
			content[name] = v
		}
	}
	if content == nil {
		content = map[string]any{}
	}
	return content
}

// declaredCapabilities are the client's capabilities, as JSON: what its options declare,
// and in a stateless request the extensions it supports.
func (c *Client) declaredCapabilities(stateless bool) []byte {
	caps := ClientCapabilities{
		Sampling: c.opts.Sampling != nil, SamplingContext: c.opts.SamplingContext, SamplingTools: c.opts.SamplingTools,
		Elicitation: c.opts.Elicitation != nil, ElicitationURL: c.opts.ElicitationURL,
		Roots: c.opts.Roots != nil, RootsListChange: c.opts.Roots != nil,
		// The client follows the tasks servers make of its tool calls (awaitTask): a
		// call's caller gets its result either way.
		Tasks: stateless,
	}
	var e jsonwire.Encoder
	caps.encode(&e)
	return e.Bytes()
}

func (c *Client) answerSampling(ctx context.Context, params []byte) ([]byte, error) {
	req := &CreateMessageRequest{}
	d := jsonwire.NewDecoder(params)
	req.decode(d)
	if d.Finish(); d.Failed() {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: sampling/createMessage:\n"+d.Summary())
	}
	if req.usesTools() {
		// The protocol's own errors for a conversation that breaks the rules of tool use
		// (client/sampling.mdx, Error Handling): -32602, before the user or model sees it.
		if !c.opts.SamplingTools {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: sampling/createMessage: the request uses tools, and this client did not declare sampling.tools")
		}
		if problems := req.problems(); len(problems) > 0 {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: sampling/createMessage: "+strings.Join(problems, "; "))
		}
	}
	res, err := c.opts.Sampling(ctx, req)
	if err != nil {
		return nil, err
	}
	if res.Content == nil && len(res.Contents) > 0 {
		res.Content = res.Contents[0]
	}
	if res.Content == nil || slices.Contains(res.Contents, nil) {
		return nil, fmt.Errorf("mcp: the sampling handler's result has no content")
	}
	if problems := answerProblems(req, res); len(problems) > 0 {
		return nil, errors.New("mcp: the sampling handler's result: " + strings.Join(problems, "; "))
	}
	var e jsonwire.Encoder
	res.encode(&e, c.revision().dialect())
	return e.Bytes(), nil
}

// answerPing answers ping.
func answerPing(*Client, context.Context, []byte) ([]byte, error) { return []byte("{}"), nil }

// answerRoots answers roots/list with the roots the client offers.
func (c *Client) answerRoots(context.Context, []byte) ([]byte, error) {
	c.mu.Lock()
	roots := c.roots
	c.mu.Unlock()
	var e jsonwire.Encoder
	encodeRoots(&e, roots)
	return e.Bytes(), nil
}

// What the client does with the server's notifications: each is a row's onClient
// (methods.go); unhandled passes on the others.

// unhandled passes a notification the client has no handler for to
// ClientOptions.ServerNotification.
func (c *Client) unhandled(m *jsonrpc.Message) {
	if c.opts.ServerNotification != nil {
		c.opts.ServerNotification(m.Method, append(json.RawMessage(nil), m.Params...))
	}
}

func (c *Client) logged(m *jsonrpc.Message) {
	if c.opts.Log == nil {
		return
	}
	var msg LogMessage
	d := jsonwire.NewDecoder(m.Params)
	msg.decode(d)
	if d.Finish(); !d.Failed() {
		c.opts.Log(msg)
	}
}

func (c *Client) toolsChanged(*jsonrpc.Message) {
	c.mu.Lock()
	clear(c.tools) // what tools/list said may be stale now
	c.mu.Unlock()
	if c.opts.ToolsChanged != nil {
		c.opts.ToolsChanged()
	}
}

func (c *Client) promptsChanged(*jsonrpc.Message) {
	if c.opts.PromptsChanged != nil {
		c.opts.PromptsChanged()
	}
}

func (c *Client) resourcesChanged(*jsonrpc.Message) {
	if c.opts.ResourcesChanged != nil {
		c.opts.ResourcesChanged()
	}
}

func (c *Client) resourceUpdated(m *jsonrpc.Message) {
	if c.opts.ResourceUpdated != nil {
		uri, _ := stringParam(m.Params, "uri")
		c.opts.ResourceUpdated(uri)
	}
}

func (c *Client) elicitationDone(m *jsonrpc.Message) {
	if c.opts.ElicitationDone != nil {
		id, _ := stringParam(m.Params, "elicitationId")
		c.opts.ElicitationDone(id)
	}
}

// acknowledgedNote: a subscription is open; whoever waits for it goes on.
func (c *Client) acknowledgedNote(m *jsonrpc.Message) { c.acknowledged(m.Params) }

// taskChanged hands a task's change to whoever follows the task, else to
// ServerNotification.
func (c *Client) taskChanged(m *jsonrpc.Message) {
	if !c.taskNotified(m.Params) {
		c.unhandled(m)
	}
}

// answerProblems says what in a sampling handler's result its server could not take: the
// rules a message keeps (tool uses are the assistant's, ...), and a tool use of a tool the
// request did not offer, or against its tool choice "none".
func answerProblems(req *CreateMessageRequest, res *CreateMessageResult) []string {
	m := SamplingMessage{Role: res.Role, Content: res.Content, Contents: res.Contents}
	if m.Role == "" {
		m.Role = RoleAssistant
	}
	problems := messageProblems("the result", &m)
	var named []string // each tool said once
	for _, b := range m.blocks() {
		u, ok := b.(ToolUse)
		switch {
		case !ok || slices.Contains(named, u.Name):
			continue
		case req.ToolChoice == ToolChoiceNone:
			problems = append(problems, "it uses tool "+strconv.Quote(u.Name)+", and the request's tool choice is none")
		case !slices.ContainsFunc(req.Tools, func(t SamplingTool) bool { return t.Name == u.Name }):
			problems = append(problems, "it uses tool "+strconv.Quote(u.Name)+", which the request does not offer")
		}
		named = append(named, u.Name)
	}
	return problems
}
