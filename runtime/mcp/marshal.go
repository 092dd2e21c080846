package mcp

import (
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// JSON forms of what a client receives, as the newest revision writes them: for logs, for
// printing, and for programs that hand results on (a host's HTTP API, say). They are the
// encoders the server answers with.

// MarshalJSON writes the result as a tools/call result; empty structured content is none,
// and structured content that is not JSON an error.
func (r *CallToolResult) MarshalJSON() ([]byte, error) {
	structured, err := structuredJSON(r.StructuredContent)
	if err != nil {
		return nil, fmt.Errorf("mcp: the structured content of a CallToolResult is not JSON: %w", err)
	}
	var e jsonwire.Encoder
	encodeToolResult(&e, rev20260728.dialect(), r.Content, structured, r.IsError)
	return e.Bytes(), e.Err()
}

// MarshalJSON writes the result as a prompts/get result.
func (r *GetPromptResult) MarshalJSON() ([]byte, error) {
	var e jsonwire.Encoder
	r.encode(&e, rev20260728.dialect())
	return e.Bytes(), e.Err()
}

// MarshalJSON writes the contents as an item of a resources/read result's contents.
func (r ResourceContents) MarshalJSON() ([]byte, error) {
	var e jsonwire.Encoder
	r.encode(&e)
	return e.Bytes(), e.Err()
}
