package mcp

import (
	"encoding/json"
	"fmt"

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

func (a *Annotations) encode(e *jsonwire.Encoder) {
	if a == nil {
		return
	}
	e.Key("annotations")
	e.ObjectStart()
	if a.Audience != nil {
		e.Key("audience")
		e.ArrayStart()
		for _, r := range a.Audience {
			e.Elem()
			e.String(string(r))
		}
		e.ArrayEnd()
	}
	if a.Priority != nil {
		e.Key("priority")
		e.Float(*a.Priority, 64)
	}
	optionalString(e, "lastModified", a.LastModified)
	e.ObjectEnd()
}

// Text is a text content block.
type Text struct {
	Text        string
	Annotations *Annotations
}

func (c Text) encodeContent(e *jsonwire.Encoder, _ dialect) {
	startBlock(e, "text")
	e.Key("text")
	e.String(c.Text)
	c.Annotations.encode(e)
	e.ObjectEnd()
}

// Image is an image content block; Data holds the raw bytes, sent base64-encoded.
type Image struct {
	Data        []byte
	MIMEType    string // for example "image/png"
	Annotations *Annotations
}

func (c Image) encodeContent(e *jsonwire.Encoder, _ dialect) {
	encodeMedia(e, "image", c.Data, c.MIMEType, c.Annotations)
}

// Audio is an audio content block; Data holds the raw bytes, sent base64-encoded.
type Audio struct {
	Data        []byte
	MIMEType    string // for example "audio/wav"
	Annotations *Annotations
}

func (c Audio) encodeContent(e *jsonwire.Encoder, d dialect) {
	if !d.toolAnnotations() {
		Text{Text: "[" + c.MIMEType + " audio, not sent: this client's protocol revision has no audio content]", Annotations: c.Annotations}.encodeContent(e, d)
		return
	}
	encodeMedia(e, "audio", c.Data, c.MIMEType, c.Annotations)
}

func encodeMedia(e *jsonwire.Encoder, kind string, data []byte, mime string, a *Annotations) {
	startBlock(e, kind)
	e.Key("data")
	e.Base64(data)
	e.Key("mimeType")
	e.String(mime)
	a.encode(e)
	e.ObjectEnd()
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

func (c ResourceLink) encodeContent(e *jsonwire.Encoder, d dialect) {
	if !d.titles() {
		text := "Resource " + c.URI
		if c.Name != "" {
			text += " (" + c.Name + ")"
		}
		if c.Description != "" {
			text += ": " + c.Description
		}
		Text{Text: text, Annotations: c.Annotations}.encodeContent(e, d)
		return
	}
	startBlock(e, "resource_link")
	e.Key("uri")
	e.String(c.URI)
	e.Key("name")
	e.String(c.Name)
	optionalString(e, "title", c.Title)
	optionalString(e, "description", c.Description)
	optionalString(e, "mimeType", c.MIMEType)
	if c.Size != nil {
		e.Key("size")
		e.Int(*c.Size)
	}
	c.Annotations.encode(e)
	e.ObjectEnd()
}

// ResourceContents is the content of a resource: text, or binary when Blob is not nil.
type ResourceContents struct {
	URI      string
	MIMEType string
	Text     string
	Blob     []byte
}

func (r *ResourceContents) encode(e *jsonwire.Encoder) {
	e.ObjectStart()
	e.Key("uri")
	e.String(r.URI)
	optionalString(e, "mimeType", r.MIMEType)
	if r.Blob != nil {
		e.Key("blob")
		e.Base64(r.Blob)
	} else {
		e.Key("text")
		e.String(r.Text)
	}
	e.ObjectEnd()
}

// EmbeddedResource carries a resource's contents inside a result.
type EmbeddedResource struct {
	Resource    ResourceContents
	Annotations *Annotations
}

func (c EmbeddedResource) encodeContent(e *jsonwire.Encoder, _ dialect) {
	startBlock(e, "resource")
	e.Key("resource")
	c.Resource.encode(e)
	c.Annotations.encode(e)
	e.ObjectEnd()
}

// startBlock opens a content block of the given type.
func startBlock(e *jsonwire.Encoder, kind string) {
	e.ObjectStart()
	e.Key("type")
	e.String(kind)
}

func optionalString(e *jsonwire.Encoder, key, v string) {
	if v != "" {
		e.Key(key)
		e.String(v)
	}
}

// writeNamed writes the name, title and description of a listed item (a tool, a prompt or
// its argument, a resource, a template), for a dialect: titles came with 2025-06-18.
func writeNamed(e *jsonwire.Encoder, d dialect, name, title, description string) {
	e.Key("name")
	e.String(name)
	if d.titles() {
		optionalString(e, "title", title)
	}
	optionalString(e, "description", description)
}

// writeMessage writes a message of a prompt or of a sampling request, for a client of
// dialect d: its role (the user's when unset) and its content.
func writeMessage(e *jsonwire.Encoder, d dialect, role Role, c Content) {
	if role == "" {
		role = RoleUser
	}
	e.ObjectStart()
	e.Key("role")
	e.String(string(role))
	e.Key("content")
	c.encodeContent(e, d)
	e.ObjectEnd()
}

// CallToolResult gives a tool full control over its result: several content blocks,
// structured content as raw JSON, and the error flag.
type CallToolResult struct {
	Content []Content
	// StructuredContent is a JSON object, sent to clients of protocol 2025-06-18 and later.
	StructuredContent []byte
	IsError           bool
}

// decodeContent reads one content block the other side sent.
func decodeContent(raw []byte) (Content, error) {
	var c struct {
		Type        string               `json:"type"`
		Text        string               `json:"text"`
		Data        []byte               `json:"data"`
		MIMEType    string               `json:"mimeType"`
		URI         string               `json:"uri"`
		Name        string               `json:"name"`
		Title       string               `json:"title"`
		Description string               `json:"description"`
		Size        *int64               `json:"size"`
		Resource    resourceContentsWire `json:"resource"`
		Annotations *annotationsWire     `json:"annotations"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, err
	}
	a := c.Annotations.annotations()
	switch c.Type {
	case "text":
		return Text{Text: c.Text, Annotations: a}, nil
	case "image":
		return Image{Data: c.Data, MIMEType: c.MIMEType, Annotations: a}, nil
	case "audio":
		return Audio{Data: c.Data, MIMEType: c.MIMEType, Annotations: a}, nil
	case "resource_link":
		return ResourceLink{URI: c.URI, Name: c.Name, Title: c.Title, Description: c.Description, MIMEType: c.MIMEType, Size: c.Size, Annotations: a}, nil
	case "resource":
		return EmbeddedResource{Resource: c.Resource.contents(), Annotations: a}, nil
	}
	return nil, fmt.Errorf("content of unknown type %q", c.Type)
}

type annotationsWire struct {
	Audience     []Role   `json:"audience"`
	Priority     *float64 `json:"priority"`
	LastModified string   `json:"lastModified"`
}

func (w *annotationsWire) annotations() *Annotations {
	if w == nil {
		return nil
	}
	return &Annotations{Audience: w.Audience, Priority: w.Priority, LastModified: w.LastModified}
}

// resourceContentsWire is a resource's contents as JSON: text, or a base64 blob.
type resourceContentsWire struct {
	URI      string  `json:"uri"`
	MIMEType string  `json:"mimeType"`
	Text     string  `json:"text"`
	Blob     *[]byte `json:"blob"`
}

func (w resourceContentsWire) contents() ResourceContents {
	r := ResourceContents{URI: w.URI, MIMEType: w.MIMEType, Text: w.Text}
	if w.Blob != nil {
		r.Blob = *w.Blob
		if r.Blob == nil {
			r.Blob = []byte{}
		}
	}
	return r
}
