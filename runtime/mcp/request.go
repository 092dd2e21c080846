package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// Request is the request a handler serves: a tool call, a prompt, a resource read. What a
// tool body may need from the client goes through it: progress, log messages, and asking
// the client for more (sampling, elicitation, roots). Get it with RequestFrom; the helpers
// Progress, Log, Sample, Elicit and Roots do so for you.
type Request struct {
	ss            *session
	id            []byte
	method        string
	out           outbox // where messages about this request go
	progressToken []byte
	round         *round // a modern request's multi round-trip state
}

type requestKey struct{}

// RequestFrom returns the request ctx belongs to, or nil outside a handler.
func RequestFrom(ctx context.Context) *Request {
	r, _ := ctx.Value(requestKey{}).(*Request)
	return r
}

// Method is the request's method, such as "tools/call".
func (r *Request) Method() string { return r.method }

// ProtocolVersion is the protocol revision of the request's session.
func (r *Request) ProtocolVersion() string {
	r.ss.mu.Lock()
	defer r.ss.mu.Unlock()
	return r.ss.version
}

// ClientInfo names the client.
func (r *Request) ClientInfo() Implementation {
	r.ss.mu.Lock()
	defer r.ss.mu.Unlock()
	if r.ss.modern && r.ss.clientInfo != nil {
		// A modern request's, read when asked for: most bodies never do.
		var c struct{ Name, Title, Version string }
		json.Unmarshal(r.ss.clientInfo, &c)
		r.ss.client, r.ss.clientInfo = Implementation(c), nil
	}
	return r.ss.client
}

// ClientCapabilities are the capabilities the client declared.
func (r *Request) ClientCapabilities() ClientCapabilities {
	r.ss.mu.Lock()
	defer r.ss.mu.Unlock()
	return r.ss.caps
}

// notify sends a notification about this request.
func (r *Request) notify(method string, params []byte) {
	r.ss.write(r.out, jsonrpc.AppendNotification(nil, method, params))
}

// Progress reports progress of the request the context belongs to, if the client asked for
// it (with a progressToken); otherwise it does nothing. progress should increase with each
// call; total is 0 when unknown; message may be empty.
func Progress(ctx context.Context, progress, total float64, message string) {
	r := RequestFrom(ctx)
	if r == nil || r.progressToken == nil {
		return
	}
	var e jsonwire.Encoder
	e.ObjectStart()
	e.Key("progressToken")
	e.Raw(r.progressToken)
	e.Key("progress")
	e.Float(progress, 64)
	if total > 0 {
		e.Key("total")
		e.Float(total, 64)
	}
	optionalString(&e, "message", message)
	e.ObjectEnd()
	r.notify("notifications/progress", e.Bytes())
}

// ErrCapability reports that the client did not declare what a request to it needs.
type ErrCapability struct {
	Capability string // "sampling", "elicitation", "roots"
}

func (e *ErrCapability) Error() string {
	c := e.Capability
	if c == "elicitation" {
		c = "elicitation capability for form mode"
	} else {
		c += " capability"
	}
	return "mcp: the client did not declare the " + c + ", so the server cannot ask it for that"
}

// ask sends a request to the client of the request ctx belongs to, if it declared the
// capability it needs, and returns the raw result.
func ask(ctx context.Context, capability string, has func(ClientCapabilities) bool, method string, params []byte) ([]byte, error) {
	r := RequestFrom(ctx)
	if r == nil {
		return nil, errors.New("mcp: " + method + " needs the context of a request being served")
	}
	if !has(r.ClientCapabilities()) {
		err := &ErrCapability{Capability: capability}
		if r.round != nil {
			r.round.lacking(capability, err.Error())
		}
		return nil, err
	}
	if r.ss.modern {
		key, _ := ctx.Value(inputKeyCtx{}).(string)
		return r.askModern(method, key, params)
	}
	return r.ss.call(ctx, r.out, method, params)
}

// Roots asks the client for its roots: the directories or files it lets the server work in.
func Roots(ctx context.Context) ([]Root, error) {
	raw, err := ask(ctx, "roots", func(c ClientCapabilities) bool { return c.Roots }, "roots/list", []byte("{}"))
	if err != nil {
		return nil, err
	}
	var res struct {
		Roots []Root `json:"roots"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("mcp: the client's roots/list result: %w", err)
	}
	return res.Roots, nil
}

// Root is a root the client offers.
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
}

// SamplingMessage is one message of a conversation the client's model is asked to continue.
type SamplingMessage struct {
	Role    Role
	Content Content // Text, Image or Audio
}

// CreateMessageRequest asks the client's model for a message (sampling/createMessage).
type CreateMessageRequest struct {
	Messages         []SamplingMessage
	SystemPrompt     string
	MaxTokens        int
	Temperature      *float64
	StopSequences    []string
	IncludeContext   string            // "none", "thisServer" or "allServers"; "" leaves it out
	ModelPreferences *ModelPreferences // nil leaves it to the client
}

// ModelPreferences guide the client's choice of model.
type ModelPreferences struct {
	Hints                []string // model names, or parts of names
	CostPriority         *float64 // each from 0 to 1
	SpeedPriority        *float64
	IntelligencePriority *float64
}

// CreateMessageResult is the client's model's answer.
type CreateMessageResult struct {
	Role       Role
	Content    Content   // Text, Image or Audio: the first block of Contents
	Contents   []Content // every block; a 2025-11-25 client may answer with several
	Model      string
	StopReason string
}

// Sample asks the client's model to continue a conversation (sampling/createMessage), if
// the client declared the sampling capability. It waits for the answer, as long as ctx lets it.
//
// A message with no Role is the user's. IncludeContext other than "none" needs the client's
// sampling.context capability (2025-11-25).
func Sample(ctx context.Context, req *CreateMessageRequest) (*CreateMessageResult, error) {
	if len(req.Messages) == 0 {
		return nil, errors.New("mcp: sampling needs at least one message")
	}
	if req.IncludeContext != "" && req.IncludeContext != "none" {
		if r := RequestFrom(ctx); r != nil && r.ClientCapabilities().Sampling && !r.ClientCapabilities().SamplingContext {
			err := &ErrCapability{Capability: "sampling.context"}
			if r.round != nil {
				r.round.lacking(err.Capability, err.Error())
			}
			return nil, err
		}
	}
	var e jsonwire.Encoder
	e.ObjectStart()
	e.Key("messages")
	e.ArrayStart()
	for i, m := range req.Messages {
		if m.Content == nil {
			return nil, fmt.Errorf("mcp: sampling message %d has no content", i)
		}
		e.Elem()
		writeMessage(&e, m.Role, m.Content)
	}
	e.ArrayEnd()
	optionalString(&e, "systemPrompt", req.SystemPrompt)
	optionalString(&e, "includeContext", req.IncludeContext)
	if req.Temperature != nil {
		e.Key("temperature")
		e.Float(*req.Temperature, 64)
	}
	e.Key("maxTokens")
	e.Int(int64(req.MaxTokens))
	if len(req.StopSequences) > 0 {
		e.Key("stopSequences")
		e.ArrayStart()
		for _, s := range req.StopSequences {
			e.Elem()
			e.String(s)
		}
		e.ArrayEnd()
	}
	if p := req.ModelPreferences; p != nil {
		e.Key("modelPreferences")
		e.ObjectStart()
		if len(p.Hints) > 0 {
			e.Key("hints")
			e.ArrayStart()
			for _, h := range p.Hints {
				e.Elem()
				e.ObjectStart()
				e.Key("name")
				e.String(h)
				e.ObjectEnd()
			}
			e.ArrayEnd()
		}
		for _, kv := range []struct {
			key string
			v   *float64
		}{{"costPriority", p.CostPriority}, {"speedPriority", p.SpeedPriority}, {"intelligencePriority", p.IntelligencePriority}} {
			if kv.v != nil {
				e.Key(kv.key)
				e.Float(*kv.v, 64)
			}
		}
		e.ObjectEnd()
	}
	e.ObjectEnd()
	raw, err := ask(ctx, "sampling", func(c ClientCapabilities) bool { return c.Sampling }, "sampling/createMessage", e.Bytes())
	if err != nil {
		return nil, err
	}
	var res struct {
		Role       Role            `json:"role"`
		Content    json.RawMessage `json:"content"`
		Model      string          `json:"model"`
		StopReason string          `json:"stopReason"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("mcp: the client's sampling result: %w", err)
	}
	// Since 2025-11-25 the content may be an array of blocks.
	blocks := []json.RawMessage{res.Content}
	if trimmed := bytes.TrimLeft(res.Content, " \t\r\n"); len(trimmed) > 0 && trimmed[0] == '[' {
		if err := json.Unmarshal(trimmed, &blocks); err != nil {
			return nil, fmt.Errorf("mcp: the client's sampling result: %w", err)
		}
	}
	if len(blocks) == 0 || len(res.Content) == 0 {
		return nil, errors.New("mcp: the client's sampling result has no content")
	}
	out := &CreateMessageResult{Role: res.Role, Model: res.Model, StopReason: res.StopReason}
	for _, b := range blocks {
		c, err := decodeContent(b)
		if err != nil {
			return nil, fmt.Errorf("mcp: the client's sampling result: %w", err)
		}
		out.Contents = append(out.Contents, c)
	}
	out.Content = out.Contents[0]
	return out, nil
}

// decodeContent reads one content block a client sent.
func decodeContent(raw []byte) (Content, error) {
	var c struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		Data     []byte `json:"data"`
		MIMEType string `json:"mimeType"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, err
	}
	switch c.Type {
	case "text":
		return Text{Text: c.Text}, nil
	case "image":
		return Image{Data: c.Data, MIMEType: c.MIMEType}, nil
	case "audio":
		return Audio{Data: c.Data, MIMEType: c.MIMEType}, nil
	}
	return nil, fmt.Errorf("content of unknown type %q", c.Type)
}

// form is the elicitation form of a Go type: its requested schema and the decoder that reads
// and checks an answer into a value of the type.
type form[T any] struct {
	schema []byte
	// legacy is the schema for clients before 2025-11-25, which know neither titled enums
	// (oneOf) nor multi-selects; legacyErr says why there is none.
	legacy    []byte
	legacyErr error
	decode    func(*jsonwire.Decoder, *T)
}

// legacyForm rewrites a 2025-11-25 requested schema for the 2025-06-18 dialect: a titled
// single-select ({"oneOf": [{"const", "title"}]}) becomes "enum" with "enumNames"; a
// multi-select cannot be expressed. The schema is copied member by member, so the order of
// the fields, which clients show, is kept. It runs once, when the form is registered.
func legacyForm(schema []byte) ([]byte, error) {
	var (
		e   jsonwire.Encoder
		err error
	)
	d := jsonwire.NewDecoder(schema)
	e.ObjectStart()
	for key := range d.Members {
		e.Key(string(key))
		if string(key) != "properties" {
			e.Raw(d.Raw())
			continue
		}
		e.ObjectStart()
		for name := range d.Members {
			e.Key(string(name))
			field, ferr := legacyField(string(name), d.Raw())
			if err == nil {
				err = ferr
			}
			e.Raw(field)
		}
		e.ObjectEnd()
	}
	e.ObjectEnd()
	if d.Finish(); d.Failed() {
		return nil, errors.New(d.Summary())
	}
	if err != nil {
		return nil, err
	}
	return e.Bytes(), nil
}

// legacyField rewrites the schema of one field of a form for legacyForm: a oneOf becomes
// enum and enumNames, in its place.
func legacyField(name string, field []byte) ([]byte, error) {
	var typ string
	var oneOf []byte
	d := jsonwire.NewDecoder(field)
	for key := range d.Members {
		switch {
		case string(key) == "type" && d.Peek() == jsonwire.String:
			typ, _ = d.String()
		case string(key) == "oneOf":
			oneOf = d.Raw()
		default:
			d.Skip()
		}
	}
	switch {
	case d.Failed():
		return nil, errors.New(d.Summary())
	case typ == "array":
		return nil, fmt.Errorf("field %s is a multi-select, which clients before 2025-11-25 do not know", name)
	case oneOf == nil:
		return field, nil
	}
	var options []struct {
		Const json.RawMessage `json:"const"`
		Title json.RawMessage `json:"title"`
	}
	if err := json.Unmarshal(oneOf, &options); err != nil {
		return nil, err
	}
	var values, titles []json.RawMessage
	for _, o := range options {
		values, titles = append(values, o.Const), append(titles, o.Title)
	}
	v, _ := json.Marshal(values)
	t, _ := json.Marshal(titles)
	var e jsonwire.Encoder
	d.Reset(field)
	e.ObjectStart()
	for key := range d.Members {
		if string(key) == "oneOf" {
			d.Skip()
			e.Key("enum")
			e.Raw(v)
			e.Key("enumNames")
			e.Raw(t)
			continue
		}
		e.Key(string(key))
		e.Raw(d.Raw())
	}
	e.ObjectEnd()
	return e.Bytes(), nil
}

// ElicitAction is what the user did with an elicitation.
type ElicitAction string

// The actions.
const (
	Accept  ElicitAction = "accept"  // the user submitted the form: it is filled in
	Decline ElicitAction = "decline" // the user refused
	Cancel  ElicitAction = "cancel"  // the user dismissed the request
)

// Elicit asks the client's user to fill in a form, the fields of struct T, explaining why in
// message, if the client declared the elicitation capability (form mode). On Accept it
// returns the user's answer, checked against the form's schema; on Decline or Cancel, the
// zero T. It waits for the user as long as ctx lets it.
//
// mcpgen generates the form of every T a package passes to Elicit; RegisterMCP registers it.
func Elicit[T any](ctx context.Context, message string) (T, ElicitAction, error) {
	var zero T
	r := RequestFrom(ctx)
	if r == nil {
		return zero, "", errors.New("mcp: elicitation/create needs the context of a request being served")
	}
	srv := r.ss.srv
	srv.mu.RLock()
	f, _ := srv.forms[(*T)(nil)].(*form[T])
	srv.mu.RUnlock()
	if f == nil {
		return zero, "", fmt.Errorf("mcp: no elicitation form for type %T is registered: run go generate, and call RegisterMCP of the package that calls Elicit (a type elicited from generic code needs //mcp:form)", zero)
	}
	var e jsonwire.Encoder
	e.ObjectStart()
	if r.ProtocolVersion() >= "2025-11-25" {
		e.Key("mode")
		e.String("form")
		e.Key("message")
		e.String(message)
		e.Key("requestedSchema")
		e.Raw(f.schema)
	} else {
		if f.legacyErr != nil && r.ClientCapabilities().Elicitation {
			return zero, "", fmt.Errorf("mcp: cannot elicit %T from a client of protocol version %s: %w", zero, r.ProtocolVersion(), f.legacyErr)
		}
		e.Key("message")
		e.String(message)
		e.Key("requestedSchema")
		e.Raw(f.legacy)
	}
	e.ObjectEnd()
	raw, err := ask(ctx, "elicitation", func(c ClientCapabilities) bool { return c.Elicitation }, "elicitation/create", e.Bytes())
	if err != nil {
		return zero, "", err
	}
	var res struct {
		Action  ElicitAction    `json:"action"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return zero, "", fmt.Errorf("mcp: the client's elicitation result: %w", err)
	}
	switch res.Action {
	case Accept:
		if res.Content == nil {
			res.Content = []byte("{}")
		}
		var v T
		answer := newInput(res.Content, formAnswer, "")
		f.decode(answer.Decoder(), &v)
		if err := answer.Err(); err != nil {
			return zero, Accept, err
		}
		return v, Accept, nil
	case Decline, Cancel:
		return zero, res.Action, nil
	}
	return zero, "", fmt.Errorf("mcp: the client answered elicitation with unknown action %q", res.Action)
}

// CloseSSEStream closes the HTTP connection that carries the SSE stream of the request ctx
// belongs to, without ending the stream: the client reconnects after the retry interval and
// resumes the stream where it left off (GET with Last-Event-ID), missing nothing. A server
// uses it to avoid holding a connection open through a long call. Over stdio it does nothing.
func CloseSSEStream(ctx context.Context) {
	if r := RequestFrom(ctx); r != nil {
		if st, ok := r.out.(*stream); ok {
			st.closeConnection()
		}
	}
}
