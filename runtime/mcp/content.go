package mcp

import (
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// Content is one block of a tool result: Text, Image, Audio, ResourceLink or
// EmbeddedResource. A tool returns one of them, a []Content, or a *CallToolResult when it
// needs several blocks or full control. ToolUse and ToolResult are blocks of sampling
// messages only (sampling_tools.go).
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

// TextOf returns the text of the text blocks among blocks, one block per line: what a typed
// client's method returns for a tool without an output schema, read as a person or a model
// reads it.
func TextOf(blocks []Content) string {
	var b strings.Builder
	first := true
	for _, c := range blocks {
		if t, ok := c.(Text); ok {
			if !first {
				b.WriteByte('\n')
			}
			b.WriteString(t.Text)
			first = false
		}
	}
	return b.String()
}

// The String methods print a block as it reads: fmt.Println of a []Content shows the text of
// its text blocks, and what the other blocks are, rather than the structs' fields.

// String returns the text.
func (t Text) String() string { return t.Text }

// String says what the image is: [image image/png, 1234 bytes].
func (i Image) String() string { return describeData("image", i.MIMEType, len(i.Data)) }

// String says what the audio is: [audio audio/wav, 1234 bytes].
func (a Audio) String() string { return describeData("audio", a.MIMEType, len(a.Data)) }

// String says what the link points at: [resource link file:///a.txt].
func (l ResourceLink) String() string { return "[resource link " + l.URI + "]" }

// String returns the resource's text, or says what its binary contents are.
func (r EmbeddedResource) String() string {
	if r.Resource.Blob == nil {
		return r.Resource.Text
	}
	return describeData("resource "+r.Resource.URI, r.Resource.MIMEType, len(r.Resource.Blob))
}

func describeData(what, mimeType string, n int) string {
	if mimeType != "" {
		what += " " + mimeType
	}
	unit := " bytes]"
	if n == 1 {
		unit = " byte]"
	}
	return "[" + what + ", " + strconv.Itoa(n) + unit
}
