package mcp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// SamplingMessage is one message of a conversation the client's model is asked to continue.
type SamplingMessage struct {
	Role Role
	// Content is the message's block: Text, Image or Audio, or (2025-11-25) a ToolUse or a
	// ToolResult. A message of several blocks (the model's tool uses, the results that
	// answer them) has them in Contents, and Content is the first; set either.
	Content  Content
	Contents []Content
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
	// Tools are the tools the model may use (2025-11-25; the client must declare
	// sampling.tools): it answers with ToolUse blocks and StopReason "toolUse", the server
	// runs them and asks again with the ToolResults appended. ToolChoice says whether the
	// model must, may or must not use them; "" leaves it to the client (auto).
	Tools      []SamplingTool
	ToolChoice ToolChoice
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
	Content    Content   // Text, Image or Audio, or a ToolUse: the first block of Contents
	Contents   []Content // every block; a 2025-11-25 client may answer with several
	Model      string
	StopReason string // "endTurn", "stopSequence", "maxTokens", "toolUse" (StopToolUse) or the client's own
}

// Sample asks the client's model to continue a conversation (sampling/createMessage), if
// the client declared the sampling capability. It waits for the answer, as long as ctx lets it.
//
// A message with no Role is the user's. IncludeContext other than "none" needs the client's
// sampling.context capability (2025-11-25). Tools, a ToolChoice, or a tool's use or result
// in the messages need its sampling.tools capability (2025-11-25), and the conversation
// must keep the rules of tool use: each of the model's tool uses answered by the next
// message, a user message of ToolResults only.
func Sample(ctx context.Context, req *CreateMessageRequest) (*CreateMessageResult, error) {
	if len(req.Messages) == 0 {
		return nil, errors.New("mcp: sampling needs at least one message")
	}
	r := RequestFrom(ctx)
	if req.IncludeContext != "" && req.IncludeContext != "none" {
		if r != nil && r.ClientCapabilities().Sampling && !r.ClientCapabilities().SamplingContext {
			err := &ErrCapability{Capability: "sampling.context"}
			r.client.lacking(err.Capability, err.Error())
			return nil, err
		}
	}
	rev := rev20251125
	if r != nil {
		rev = r.client.revision()
	}
	for i := range req.Messages {
		blocks := req.Messages[i].blocks()
		if len(blocks) == 0 || slices.Contains(blocks, nil) {
			return nil, fmt.Errorf("mcp: sampling message %d has no content", i)
		}
		if len(blocks) > 1 && !rev.samplingTools() {
			return nil, fmt.Errorf("mcp: sampling message %d has %d content blocks, and the client speaks protocol %s, which takes one a message (several came with 2025-11-25)", i, len(blocks), rev)
		}
	}
	if req.usesTools() {
		if err := toolsAllowed(r, rev, req); err != nil {
			return nil, err
		}
	}
	d := rev.dialect()
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

// toolsAllowed says why a request with tools may not be sent: it breaks the rules of tool
// use, or its client cannot take it (a revision before 2025-11-25, or no sampling.tools
// declared). A client without sampling at all is left to ask, which says so.
func toolsAllowed(r *Request, rev revision, req *CreateMessageRequest) error {
	if problems := req.problems(); len(problems) > 0 {
		return errors.New("mcp: sampling with tools: " + strings.Join(problems, "; "))
	}
	if r == nil || !r.ClientCapabilities().Sampling {
		return nil
	}
	if !rev.samplingTools() {
		return &ErrCapability{Capability: "sampling.tools", Revision: rev.String()}
	}
	if !r.ClientCapabilities().SamplingTools {
		err := &ErrCapability{Capability: "sampling.tools"}
		r.client.lacking(err.Capability, err.Error())
		return err
	}
	return nil
}
