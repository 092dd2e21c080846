package mcp

import (
	"context"
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
	for i, m := range req.Messages {
		if m.Content == nil {
			return nil, fmt.Errorf("mcp: sampling message %d has no content", i)
		}
	}
	var e jsonwire.Encoder
	req.encode(&e, d)
	raw, err := ask(ctx, methodCreateMessage, e.Bytes())
	if err != nil {
		return nil, err
	}
	out := &CreateMessageResult{}
	dec := jsonwire.NewDecoder(raw)
	out.decode(dec)
	if dec.Finish(); dec.Failed() {
		return nil, fmt.Errorf("mcp: the client's answer to sampling/createMessage is not a CreateMessageResult (an object with role, content, model):\n%s", dec.Summary())
	}
	return out, nil
}
