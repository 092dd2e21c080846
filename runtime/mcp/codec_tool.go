package mcp

import (
	"errors"

	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// The codec of tools as tools/list lists them, and of tools/call's CallToolResult (see
// codec_content.go for the convention).

// encode writes the tool's entry of a tools/list result with the fields dialect d knows; in
// and out are its schemas, compact.
func (t *Tool) encode(d dialect, in, out []byte) []byte {
	var e jsonwire.Encoder
	e.ObjectStart()
	writeNamed(&e, d, t.Name, t.Title, t.Description)
	writeIcons(&e, d, t.Icons)
	e.Key("inputSchema")
	if len(in) == 0 {
		in = []byte(`{"type":"object"}`) // required: a tool read without one takes any object
	}
	e.Raw(in)
	if d.titles() && out != nil {
		e.Key("outputSchema")
		e.Raw(out)
	}
	// Before titles became a field of their own (2025-06-18), annotations carried them.
	titleInAnnotations := d.titleInAnnotations() && t.Title != ""
	if d.toolAnnotations() && (!t.Annotations.empty() || titleInAnnotations) {
		e.Key("annotations")
		e.ObjectStart()
		if titleInAnnotations {
			e.Key("title")
			e.String(t.Title)
		}
		optionalBool(&e, "readOnlyHint", t.Annotations.ReadOnlyHint)
		optionalBool(&e, "destructiveHint", t.Annotations.DestructiveHint)
		optionalBool(&e, "idempotentHint", t.Annotations.IdempotentHint)
		optionalBool(&e, "openWorldHint", t.Annotations.OpenWorldHint)
		e.ObjectEnd()
	}
	e.ObjectEnd()
	return e.Bytes()
}

// decode reads a listed tool: its schemas as they came, a title from its annotations when
// it has none of its own (as 2025-03-26 sends it), whether it runs as a task
// (execution.taskSupport).
func (t *Tool) decode(d *jsonwire.Decoder) {
	annotationsTitle := ""
	for key := range d.Members {
		switch string(key) {
		case "name":
			t.Name = readString(d)
		case "title":
			t.Title = readString(d)
		case "description":
			t.Description = readString(d)
		case "inputSchema":
			t.InputSchema = readSchema(d)
		case "outputSchema":
			t.OutputSchema = readSchema(d)
		case "icons":
			t.Icons = readIcons(d)
		case "execution":
			if d.Null() {
				continue
			}
			for key := range d.Members {
				if string(key) == "taskSupport" {
					t.Task = taskSupportOf(readString(d))
				} else {
					d.Skip()
				}
			}
		case "annotations":
			if d.Null() {
				continue
			}
			for key := range d.Members {
				switch string(key) {
				case "title":
					annotationsTitle = readString(d)
				case "readOnlyHint":
					t.Annotations.ReadOnlyHint = readOptionalBool(d)
				case "destructiveHint":
					t.Annotations.DestructiveHint = readOptionalBool(d)
				case "idempotentHint":
					t.Annotations.IdempotentHint = readOptionalBool(d)
				case "openWorldHint":
					t.Annotations.OpenWorldHint = readOptionalBool(d)
				default:
					d.Skip()
				}
			}
		default:
			d.Skip()
		}
	}
	if t.Title == "" {
		t.Title = annotationsTitle
	}
}

// readSchema reads a tool's schema as it came: "" for null or absent.
func readSchema(d *jsonwire.Decoder) string {
	if d.Null() {
		return ""
	}
	return string(d.Raw())
}

func optionalBool(e *jsonwire.Encoder, key string, v *bool) {
	if v != nil {
		e.Key(key)
		e.Bool(*v)
	}
}

// encodeToolResult writes a tools/call result as revision d has it: structuredContent only
// from 2025-06-18 on; nil blocks are left out.
func encodeToolResult(e *jsonwire.Encoder, d dialect, blocks []Content, structured []byte, isError bool) {
	e.Raw([]byte(`{"content":[`))
	for _, b := range blocks {
		if b != nil {
			e.Elem()
			b.encodeContent(e, d)
		}
	}
	e.ArrayEnd()
	if structured != nil && d.titles() {
		e.Key("structuredContent")
		e.Raw(structured)
	}
	if isError {
		e.Key("isError")
		e.Bool(true)
	}
	e.ObjectEnd()
}

// decode reads a CallToolResult. Its structured content is the bytes of the input, which
// the result keeps: the caller hands over bytes no one else writes.
func (r *CallToolResult) decode(d *jsonwire.Decoder) {
	if d.Null() {
		return // an empty result, as encoding/json reads it
	}
	for key := range d.Members {
		switch string(key) {
		case "content":
			if d.Null() {
				continue
			}
			for range d.Elements {
				if b := readContent(d); b != nil {
					r.Content = append(r.Content, b)
				}
			}
		case "structuredContent":
			if !d.Null() {
				r.StructuredContent = d.Raw()
			}
		case "isError":
			r.IsError = readBool(d)
		default:
			d.Skip()
		}
	}
}

// decodeResult reads a tools/call result for the client (on its hot path: no closure).
func (r *CallToolResult) decodeResult(raw []byte) error {
	var d jsonwire.Decoder
	d.Reset(raw)
	r.decode(&d)
	if d.Finish(); d.Failed() {
		return errors.New("it is not a CallToolResult (an object with content, an array of content blocks):\n" + d.Summary())
	}
	return nil
}
