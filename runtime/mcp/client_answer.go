package mcp

import (
	"context"
	"encoding/json"
	"fmt"

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
	var p struct {
		Mode            string          `json:"mode"`
		Message         string          `json:"message"`
		RequestedSchema json.RawMessage `json:"requestedSchema"`
		URL             string          `json:"url"`
		ElicitationID   string          `json:"elicitationId"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: elicitation/create: "+err.Error())
	}
	if p.Mode == "" {
		p.Mode = "form" // the only mode before 2025-11-25
	}
	switch {
	case p.Mode == "url" && !c.opts.ElicitationURL, p.Mode != "url" && p.Mode != "form":
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, fmt.Sprintf("invalid params: elicitation/create: this client does not declare %q mode", p.Mode))
	}
	res, err := c.opts.Elicitation(ctx, &ElicitRequest{Mode: p.Mode, Message: p.Message, RequestedSchema: p.RequestedSchema, URL: p.URL, ElicitationID: p.ElicitationID})
	if err != nil {
		return nil, err
	}
	out := struct {
		Action  ElicitAction   `json:"action"`
		Content map[string]any `json:"content,omitempty"`
	}{Action: res.Action}
	if res.Action == Accept && p.Mode == "form" {
		out.Content = withDefaults(res.Content, p.RequestedSchema)
	}
	return json.Marshal(out)
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

func (c *Client) answerSampling(ctx context.Context, params []byte) ([]byte, error) {
	var p struct {
		Messages []struct {
			Role    Role            `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		SystemPrompt     string   `json:"systemPrompt"`
		MaxTokens        int      `json:"maxTokens"`
		Temperature      *float64 `json:"temperature"`
		StopSequences    []string `json:"stopSequences"`
		IncludeContext   string   `json:"includeContext"`
		ModelPreferences *struct {
			Hints []struct {
				Name string `json:"name"`
			} `json:"hints"`
			CostPriority         *float64 `json:"costPriority"`
			SpeedPriority        *float64 `json:"speedPriority"`
			IntelligencePriority *float64 `json:"intelligencePriority"`
		} `json:"modelPreferences"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: sampling/createMessage: "+err.Error())
	}
	req := &CreateMessageRequest{SystemPrompt: p.SystemPrompt, MaxTokens: p.MaxTokens, Temperature: p.Temperature,
		StopSequences: p.StopSequences, IncludeContext: p.IncludeContext}
	for i, m := range p.Messages {
		content, err := decodeMessageContent(m.Content)
		if err != nil {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, fmt.Sprintf("invalid params: sampling/createMessage: message %d: %v", i, err))
		}
		req.Messages = append(req.Messages, SamplingMessage{Role: m.Role, Content: content})
	}
	if mp := p.ModelPreferences; mp != nil {
		req.ModelPreferences = &ModelPreferences{CostPriority: mp.CostPriority, SpeedPriority: mp.SpeedPriority, IntelligencePriority: mp.IntelligencePriority}
		for _, h := range mp.Hints {
			req.ModelPreferences.Hints = append(req.ModelPreferences.Hints, h.Name)
		}
	}
	res, err := c.opts.Sampling(ctx, req)
	if err != nil {
		return nil, err
	}
	if res.Content == nil && len(res.Contents) > 0 {
		res.Content = res.Contents[0]
	}
	if res.Content == nil {
		return nil, fmt.Errorf("mcp: the sampling handler's result has no content")
	}
	role := res.Role
	if role == "" {
		role = RoleAssistant
	}
	rev, _ := parseRevision(c.Server().ProtocolVersion)
	d := rev.dialect()
	var e jsonwire.Encoder
	e.ObjectStart()
	e.Key("role")
	e.String(string(role))
	e.Key("content")
	if len(res.Contents) > 1 {
		e.ArrayStart()
		for _, b := range res.Contents {
			e.Elem()
			b.encodeContent(&e, d)
		}
		e.ArrayEnd()
	} else {
		res.Content.encodeContent(&e, d)
	}
	e.Key("model")
	e.String(res.Model)
	if res.StopReason != "" {
		e.Key("stopReason")
		e.String(res.StopReason)
	}
	e.ObjectEnd()
	return e.Bytes(), nil
}

// decodeMessageContent reads a sampling message's content: one block, or (2025-11-25) an
// array of them, of which the first counts.
func decodeMessageContent(raw json.RawMessage) (Content, error) {
	var blocks []json.RawMessage
	if json.Unmarshal(raw, &blocks) == nil {
		if len(blocks) == 0 {
			return nil, fmt.Errorf("no content")
		}
		raw = blocks[0]
	}
	return decodeContent(raw)
}

// answerPing answers ping.
func answerPing(*Client, context.Context, []byte) ([]byte, error) { return []byte("{}"), nil }

// answerRoots answers roots/list with the roots the client offers.
func (c *Client) answerRoots(context.Context, []byte) ([]byte, error) {
	c.mu.Lock()
	roots := c.roots
	c.mu.Unlock()
	if roots == nil {
		roots = []Root{}
	}
	return json.Marshal(struct {
		Roots []Root `json:"roots"`
	}{roots})
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
	var msg struct {
		Level  LogLevel        `json:"level"`
		Logger string          `json:"logger"`
		Data   json.RawMessage `json:"data"`
	}
	if json.Unmarshal(m.Params, &msg) == nil {
		c.opts.Log(LogMessage{Level: msg.Level, Logger: msg.Logger, Data: append(json.RawMessage(nil), msg.Data...)})
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
