package mcp

import (
	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// Content is one block of a tool result: Text, Image, Audio, ResourceLink or
// EmbeddedResource. A tool returns one of them, a []Content, or a *CallToolResult when it
// needs several blocks or full control.
type Content interface {
	// encodeContent writes the block for a client of dialect d. A block of a kind the
	// client's revision does not have (audio before 2025-03-26, resource links before
	// 2025-06-18) is written as a text block that says what it was: older revisions get
	// only what they know, and the model still learns of it.
	encodeContent(e *jsonwire.Encoder, d dialect)
}

// Role is who a piece of content is meant for.
type Role string

// The roles of MCP.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Annotations tell a client how to use a content block; every field is optional.
type Annotations struct {
	Audience     []Role   // who the content is for
	Priority     *float64 // 0 (least) to 1 (most important)
	LastModified string   // ISO 8601 timestamp
}

// Text is a text content block.
type Text struct {
	Text        string
	Annotations *Annotations
}

// Image is an image content block; Data holds the raw bytes, sent base64-encoded.
type Image struct {
	Data        []byte
	MIMEType    string // for example "image/png"
	Annotations *Annotations
}

// Audio is an audio content block; Data holds the raw bytes, sent base64-encoded.
type Audio struct {
	Data        []byte
	MIMEType    string // for example "audio/wav"
	Annotations *Annotations
}

// ResourceLink points at a resource the client may read or subscribe to.
type ResourceLink struct {
	URI         string
	Name        string
	Title       string
	Description string
	MIMEType    string
	Size        *int64 // in bytes, if known
	Annotations *Annotations
}

// ResourceContents is the content of a resource: text, or binary when Blob is not nil.
type ResourceContents struct {
	URI      string
	MIMEType string
	Text     string
	Blob     []byte
}

// EmbeddedResource carries a resource's contents inside a result.
type EmbeddedResource struct {
	Resource    ResourceContents
	Annotations *Annotations
}

// CallToolResult gives a tool full control over its result: several content blocks,
// structured content as raw JSON, and the error flag.
type CallToolResult struct {
	Content []Content
	// StructuredContent is a JSON object, sent to clients of protocol 2025-06-18 and later.
	StructuredContent []byte
	IsError           bool
}
