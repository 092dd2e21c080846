package mcp

import "github.com/mcpgen/mcpgen/runtime/jsonwire"

// JSON forms of what a client receives, as the newest revision writes them: for logs, for
// printing, and for programs that hand results on (a host's HTTP API, say).

// MarshalJSON writes the result as a tools/call result.
func (r *CallToolResult) MarshalJSON() ([]byte, error) {
	var e jsonwire.Encoder
	e.ObjectStart()
	e.Key("content")
	e.ArrayStart()
	for _, b := range r.Content {
		if b != nil {
			e.Elem()
			b.encodeContent(&e, dialect20260728)
		}
	}
	e.ArrayEnd()
	if r.StructuredContent != nil {
		e.Key("structuredContent")
		e.Raw(r.StructuredContent)
	}
	if r.IsError {
		e.Key("isError")
		e.Bool(true)
	}
	e.ObjectEnd()
	return e.Bytes(), e.Err()
}

// MarshalJSON writes the result as a prompts/get result.
func (r *GetPromptResult) MarshalJSON() ([]byte, error) {
	var e jsonwire.Encoder
	e.ObjectStart()
	optionalString(&e, "description", r.Description)
	e.Key("messages")
	e.ArrayStart()
	for _, m := range r.Messages {
		e.Elem()
		writeMessage(&e, dialect20260728, m.Role, m.Content)
	}
	e.ArrayEnd()
	e.ObjectEnd()
	return e.Bytes(), e.Err()
}

// MarshalJSON writes the contents as an item of a resources/read result's contents.
func (r ResourceContents) MarshalJSON() ([]byte, error) {
	var e jsonwire.Encoder
	r.encode(&e)
	return e.Bytes(), e.Err()
}
