package mcp

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
)

// Tools in sampling (revision 2025-11-25, client/sampling.mdx): a server offers the client's
// model tools of its own; the model answers with ToolUse blocks and stop reason "toolUse";
// the server runs them and asks again, the conversation now holding the model's message and
// a user message of the ToolResults that answer it, until the model answers in words.

// SamplingTool is a tool the client's model may use during a sampling request. It is not a
// Tool: it belongs to the request, not to the server's tools/list, and has no handler (the
// server runs it when the model asks). What a model reads of a tool is its name, its
// description and its input's schema, so that is what it has; a title, icons and
// annotations a server sent are not kept.
type SamplingTool struct {
	Name        string
	Description string
	// InputSchema is the JSON Schema of the tool's input, an object ({"type":"object",...});
	// empty is any object.
	InputSchema json.RawMessage
}

// ToolChoice says how the model may use the tools of a sampling request.
type ToolChoice string

// The tool choices; the protocol's default is ToolChoiceAuto.
const (
	ToolChoiceAuto     ToolChoice = "auto"     // the model decides
	ToolChoiceRequired ToolChoice = "required" // the model uses at least one tool
	ToolChoiceNone     ToolChoice = "none"     // the model uses none
)

// StopToolUse is the stop reason of a sampling result whose model wants to use tools: its
// content holds ToolUse blocks.
const StopToolUse = "toolUse"

// ToolUse is the model's request to use a tool, a content block of a sampling result or of
// an assistant message.
type ToolUse struct {
	ID    string          // names the use; its ToolResult gives it back as ToolUseID
	Name  string          // a tool of the request
	Input json.RawMessage // the tool's input, a JSON object; empty is {}
	// Meta is the block's _meta, kept as it came so that a server that sends the block back
	// in its next request sends it unchanged: the protocol asks that, providers cache by it.
	Meta json.RawMessage
}

// ToolResult is the result of a ToolUse, a content block of the user message that follows
// the model's: a message with tool results holds nothing else.
type ToolResult struct {
	ToolUseID string
	// Content is what the tool returned, as a tool's result has it (Text, Image, Audio,
	// ResourceLink, EmbeddedResource); StructuredContent is its structured value, if any.
	Content           []Content
	StructuredContent json.RawMessage
	IsError           bool
	Meta              json.RawMessage // _meta, kept as ToolUse's is
}

// String says what the model asked for: [tool use get_weather {"city":"Paris"}].
func (u ToolUse) String() string { return "[tool use " + u.Name + " " + string(u.Input) + "]" }

// String is the result's text, as TextOf reads it.
func (r ToolResult) String() string { return TextOf(r.Content) }

// blocks are the message's content blocks: Contents, or else Content alone.
func (m *SamplingMessage) blocks() []Content {
	if len(m.Contents) > 0 {
		return m.Contents
	}
	if m.Content == nil {
		return nil
	}
	return []Content{m.Content}
}

// usesTools reports whether the request offers tools, chooses for them, or holds a tool's
// use or result: what only a client that declared sampling.tools may be sent.
func (r *CreateMessageRequest) usesTools() bool {
	if len(r.Tools) > 0 || r.ToolChoice != "" {
		return true
	}
	for i := range r.Messages {
		for _, b := range r.Messages[i].blocks() {
			switch b.(type) {
			case ToolUse, ToolResult:
				return true
			}
		}
	}
	return false
}

// problems says what in the request breaks the protocol's rules of tools in sampling: a
// tool without a name, two of one name, an input schema that is not an object's, a tool
// choice the protocol does not have, and what conversation checks.
func (r *CreateMessageRequest) problems() []string {
	var out []string
	names := map[string]bool{}
	for i, t := range r.Tools {
		switch {
		case t.Name == "":
			out = append(out, "tool "+strconv.Itoa(i)+" has no name")
		case names[t.Name]:
			out = append(out, "two tools are named "+strconv.Quote(t.Name))
		}
		names[t.Name] = true
		if len(t.InputSchema) > 0 {
			var schema struct {
				Type any `json:"type"`
			}
			if json.Unmarshal(t.InputSchema, &schema) != nil || schema.Type != "object" {
				out = append(out, "tool "+strconv.Quote(t.Name)+`'s input schema is not an object's: it must be a JSON Schema with "type": "object"`)
			}
		}
	}
	switch r.ToolChoice {
	case "", ToolChoiceAuto, ToolChoiceRequired, ToolChoiceNone:
	default:
		out = append(out, fmt.Sprintf("tool choice %q: it is auto, required or none", r.ToolChoice))
	}
	return append(out, conversation(r.Messages)...)
}

// conversation says where messages break the rules of tool use (client/sampling.mdx, Message
// Content Constraints): tool uses are the assistant's and tool results the user's; a
// message with tool results holds nothing else; and an assistant message with tool uses is
// followed by a user message that answers each of them, by id, and nothing more.
func conversation(messages []SamplingMessage) []string {
	var out []string
	var pending []string // the ids of the previous message's tool uses
	for i := range messages {
		m := &messages[i]
		out = append(out, messageProblems("message "+strconv.Itoa(i), m)...)
		var uses, results []string
		for _, b := range m.blocks() {
			switch b := b.(type) {
			case ToolUse:
				uses = append(uses, b.ID)
			case ToolResult:
				results = append(results, b.ToolUseID)
			}
		}
		at := "message " + strconv.Itoa(i)
		switch {
		case pending != nil && results == nil:
			out = append(out, fmt.Sprintf("message %d's tool uses are not answered: %s must hold their results", i-1, at))
		case pending != nil:
			for _, id := range pending {
				if !slices.Contains(results, id) {
					out = append(out, fmt.Sprintf("%s does not answer tool use %q of message %d", at, id, i-1))
				}
			}
			for _, id := range results {
				if !slices.Contains(pending, id) {
					out = append(out, fmt.Sprintf("%s answers tool use %q, which message %d does not make", at, id, i-1))
				}
			}
		case results != nil:
			out = append(out, at+" holds tool results, and the message before it uses no tool")
		}
		pending = uses
	}
	if pending != nil {
		out = append(out, fmt.Sprintf("message %d's tool uses are not answered: a user message with their results must follow it", len(messages)-1))
	}
	return out
}

// messageProblems says what in one message breaks the rules a message keeps on its own:
// whose its tool uses and results are, tool results with nothing else, a tool use's id,
// name and input.
func messageProblems(at string, m *SamplingMessage) []string {
	var out []string
	role := m.Role
	if role == "" {
		role = RoleUser
	}
	results, others := 0, 0
	var ids []string
	for _, b := range m.blocks() {
		switch b := b.(type) {
		case ToolUse:
			others++
			switch {
			case role != RoleAssistant:
				out = append(out, at+" uses a tool: that is the assistant's, and its role is "+string(role))
			case b.ID == "" || b.Name == "":
				out = append(out, at+" has a tool use without an id or a name")
			case slices.Contains(ids, b.ID):
				out = append(out, fmt.Sprintf("%s has two tool uses with id %q", at, b.ID))
			}
			ids = append(ids, b.ID)
			if len(b.Input) > 0 && !isJSONObject(b.Input) {
				out = append(out, fmt.Sprintf("%s: the input of tool use %q is not a JSON object", at, b.ID))
			}
		case ToolResult:
			results++
			if role != RoleUser {
				out = append(out, at+" holds a tool result: that is the user's, and its role is "+string(role))
			}
			if len(b.StructuredContent) > 0 && !json.Valid(b.StructuredContent) {
				out = append(out, fmt.Sprintf("%s: the structured content of the result of %q is not JSON", at, b.ToolUseID))
			}
			for _, c := range b.Content {
				switch c.(type) {
				case nil, ToolUse, ToolResult:
					out = append(out, fmt.Sprintf("%s: the result of %q holds %v: a tool's result holds what a tool returns (Text, Image, ...)", at, b.ToolUseID, c))
				}
			}
		default:
			others++
		}
	}
	if results > 0 && others > 0 {
		out = append(out, at+" holds tool results and other content: a message with tool results holds only tool results")
	}
	return out
}

// isJSONObject reports whether raw is a JSON object.
func isJSONObject(raw json.RawMessage) bool {
	var v map[string]json.RawMessage
	return json.Unmarshal(raw, &v) == nil && v != nil
}
