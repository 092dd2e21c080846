package mcp

import (
	"errors"

	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// The codec of content blocks (text, image, audio, resource link, embedded resource), their
// annotations, and resource contents: how a sender writes each for a revision, and, beside
// it, how a receiver reads it.
//
// Every codec_*.go file follows the same convention. A wire type's encode writes it as the
// sender does for the client's dialect, leaving out what the revision lacks. Its decoder reads
// what any revision's peer sends, forgiving where real peers are sloppy (a null for an absent
// member, members it does not know) and reporting every other problem to the decoder with its
// JSON Pointer, so that the caller can say all of them at once, in the protocol's words.

func (c Text) encodeContent(e *jsonwire.Encoder, _ dialect) {
	startBlock(e, "text")
	e.Key("text")
	e.String(c.Text)
	c.Annotations.encode(e)
	e.ObjectEnd()
}

func (c Image) encodeContent(e *jsonwire.Encoder, _ dialect) {
	encodeMedia(e, "image", c.Data, c.MIMEType, c.Annotations)
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

// decodeContent reads one content block the other side sent.
func decodeContent(raw []byte) (Content, error) {
	var d jsonwire.Decoder
	d.Reset(raw)
	c := readContent(&d)
	if d.Finish(); d.Failed() {
		return nil, errors.New(d.Summary())
	}
	return c, nil
}

// readContent reads a content block, or reports why it cannot and returns nil. A block of a
// type this package does not know is reported too: a receiver cannot pass it on as a block
// of another type.
func readContent(d *jsonwire.Decoder) Content { return readBlock(d, false) }

// readBlock reads a content block; one of a sampling message or result (sampling) may also
// be a tool's use or result (2025-11-25).
func readBlock(d *jsonwire.Decoder, sampling bool) Content {
	if !d.Expect(jsonwire.Object) {
		return nil
	}
	var (
		kind, text, mime, uri, name, title, description string
		data                                            []byte
		size                                            *int64
		resource                                        ResourceContents
		a                                               *Annotations
		tool                                            toolBlock
	)
	for key := range d.Members {
		switch string(key) {
		case "type":
			kind, _ = d.String()
		case "id", "input", "toolUseId", "content", "structuredContent", "isError", "_meta":
			tool.read(d, string(key))
		case "text":
			text = readString(d)
		case "data":
			if !d.Null() {
				data, _ = d.Base64()
			}
		case "mimeType":
			mime = readString(d)
		case "uri":
			uri = readString(d)
		case "name":
			name = readString(d)
		case "title":
			title = readString(d)
		case "description":
			description = readString(d)
		case "size":
			if !d.Null() {
				n, _ := d.Int()
				size = &n
			}
		case "resource":
			if !d.Null() {
				resource.decode(d)
			}
		case "annotations":
			a = readAnnotations(d)
		default:
			d.Skip()
		}
	}
	switch kind {
	case "text":
		return Text{Text: text, Annotations: a}
	case "image":
		return Image{Data: data, MIMEType: mime, Annotations: a}
	case "audio":
		return Audio{Data: data, MIMEType: mime, Annotations: a}
	case "resource_link":
		return ResourceLink{URI: uri, Name: name, Title: title, Description: description, MIMEType: mime, Size: size, Annotations: a}
	case "resource":
		return EmbeddedResource{Resource: resource, Annotations: a}
	case "tool_use", "tool_result":
		if sampling {
			return tool.block(d, kind, name)
		}
		d.Report(`content of type "` + kind + `", which only sampling messages have`)
	case "":
		d.ReportMissing("type")
	default:
		d.Report(`content of unknown type "` + kind + `"`)
	}
	return nil
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

// readAnnotations reads a block's annotations; nil for none (or null).
func readAnnotations(d *jsonwire.Decoder) *Annotations {
	if d.Null() {
		return nil
	}
	a := &Annotations{}
	for key := range d.Members {
		switch string(key) {
		case "audience":
			if d.Null() {
				continue
			}
			a.Audience = []Role{}
			for range d.Elements {
				s, _ := d.String()
				a.Audience = append(a.Audience, Role(s))
			}
		case "priority":
			if !d.Null() {
				p, _ := d.Float(64)
				a.Priority = &p
			}
		case "lastModified":
			a.LastModified = readString(d)
		default:
			d.Skip()
		}
	}
	return a
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

// decode reads a resource's contents: text, or binary when it has a blob (an empty blob is
// binary too: Blob is then empty, not nil).
func (r *ResourceContents) decode(d *jsonwire.Decoder) {
	for key := range d.Members {
		switch string(key) {
		case "uri":
			r.URI = readString(d)
		case "mimeType":
			r.MIMEType = readString(d)
		case "text":
			r.Text = readString(d)
		case "blob":
			if d.Null() {
				continue
			}
			if b, ok := d.Base64(); ok {
				r.Blob = b
				if r.Blob == nil {
					r.Blob = []byte{}
				}
			}
		default:
			d.Skip()
		}
	}
}

// optionalString writes a string member unless it is empty.
func optionalString(e *jsonwire.Encoder, key, v string) {
	if v != "" {
		e.Key(key)
		e.String(v)
	}
}

// readString reads an optional string member: null reads as "", as absent.
func readString(d *jsonwire.Decoder) string {
	if d.Null() {
		return ""
	}
	s, _ := d.String()
	return s
}

// readBool reads an optional boolean member: null reads as false, as absent.
func readBool(d *jsonwire.Decoder) bool {
	if d.Null() {
		return false
	}
	v, _ := d.Bool()
	return v
}

// readOptionalBool reads a boolean member whose absence means something (a hint): nil for
// null or absent.
func readOptionalBool(d *jsonwire.Decoder) *bool {
	if d.Null() {
		return nil
	}
	v, ok := d.Bool()
	if !ok {
		return nil
	}
	return &v
}
