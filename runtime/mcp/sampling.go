package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

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
			r.client.lacking(err.Capability, err.Error())
			return nil, err
		}
	}
	d := rev20251125.dialect()
	if r := RequestFrom(ctx); r != nil {
		d = r.client.revision().dialect()
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
		writeMessage(&e, d, m.Role, m.Content)
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
	raw, err := ask(ctx, methodCreateMessage, e.Bytes())
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
		return nil, fmt.Errorf("mcp: the client's answer to sampling/createMessage is not a CreateMessageResult (an object with role, content, model):\n%s", inProtocolWords(err))
	}
	// Since 2025-11-25 the content may be an array of blocks.
	blocks := []json.RawMessage{res.Content}
	if trimmed := bytes.TrimLeft(res.Content, " \t\r\n"); len(trimmed) > 0 && trimmed[0] == '[' {
		if err := json.Unmarshal(trimmed, &blocks); err != nil {
			return nil, fmt.Errorf("mcp: the client's answer to sampling/createMessage: content: %s", inProtocolWords(err))
		}
	}
	if len(blocks) == 0 || len(res.Content) == 0 {
		return nil, errors.New("mcp: the client's sampling result has no content")
	}
	out := &CreateMessageResult{Role: res.Role, Model: res.Model, StopReason: res.StopReason}
	for _, b := range blocks {
		c, err := decodeContent(b)
		if err != nil {
			return nil, fmt.Errorf("mcp: the client's answer to sampling/createMessage: content: %s", inProtocolWords(err))
		}
		out.Contents = append(out.Contents, c)
	}
	out.Content = out.Contents[0]
	return out, nil
}
