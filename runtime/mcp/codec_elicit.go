package mcp

import (
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// The codec of elicitation/create and roots/list: the requests a server sends, and the
// results its client answers with (see codec_content.go for the convention).

// encode writes the request: mode is left out when empty (form mode, before 2025-11-25).
func (r *ElicitRequest) encode(e *jsonwire.Encoder) {
	e.ObjectStart()
	optionalString(e, "mode", r.Mode)
	e.Key("message")
	e.String(r.Message)
	if r.RequestedSchema != nil {
		e.Key("requestedSchema")
		e.Raw(r.RequestedSchema)
	}
	optionalString(e, "url", r.URL)
	optionalString(e, "elicitationId", r.ElicitationID)
	e.ObjectEnd()
}

// decode reads the request as it came: an empty Mode is form mode.
func (r *ElicitRequest) decode(d *jsonwire.Decoder) {
	for key := range d.Members {
		switch string(key) {
		case "mode":
			r.Mode = readString(d)
		case "message":
			r.Message = readString(d)
		case "requestedSchema":
			if !d.Null() && d.Expect(jsonwire.Object) {
				r.RequestedSchema = d.RawCopy()
			}
		case "url":
			r.URL = readString(d)
		case "elicitationId":
			r.ElicitationID = readString(d)
		default:
			d.Skip()
		}
	}
}

// encode writes the user's answer: its content, if the form has any.
func (r *ElicitResult) encode(e *jsonwire.Encoder) {
	e.ObjectStart()
	e.Key("action")
	e.String(string(r.Action))
	if len(r.Content) > 0 {
		e.Key("content")
		e.Any(r.Content)
	}
	e.ObjectEnd()
}

// readElicitResult reads the client's answer to elicitation/create, an ElicitResult: its
// action, and the content of an accepted form (nil if it has none). An answer of another
// shape is an error that says, in the protocol's words, where, what was expected and what
// came.
func readElicitResult(raw []byte) (ElicitAction, []byte, error) {
	var (
		action    ElicitAction
		content   []byte
		hasAction bool
		d         jsonwire.Decoder
	)
	d.Reset(raw)
	object := d.Peek() == jsonwire.Object
	for key := range d.Members {
		switch string(key) {
		case "action":
			hasAction = true
			s, ok := d.String()
			switch a := ElicitAction(s); {
			case !ok:
			case a == Accept || a == Decline || a == Cancel:
				action = a
			default:
				d.Report(`expected "accept", "decline" or "cancel", got "` + s + `"`)
			}
		case "content":
			if d.Null() {
				continue
			}
			if d.Expect(jsonwire.Object) {
				content = d.Raw()
			}
		default:
			d.Skip()
		}
	}
	if object && !hasAction {
		d.ReportMissing("action")
	}
	if d.Finish(); d.Failed() {
		return "", nil, fmt.Errorf("mcp: the client's answer to elicitation/create is not an ElicitResult (an object with action \"accept\", \"decline\" or \"cancel\", and the form's content):\n%s", d.Summary())
	}
	return action, content, nil
}

// encodeRoots writes a ListRootsResult.
func encodeRoots(e *jsonwire.Encoder, roots []Root) {
	e.ObjectStart()
	e.Key("roots")
	e.ArrayStart()
	for _, r := range roots {
		e.Elem()
		e.ObjectStart()
		e.Key("uri")
		e.String(r.URI)
		optionalString(e, "name", r.Name)
		e.ObjectEnd()
	}
	e.ArrayEnd()
	e.ObjectEnd()
}

// readRoots reads the client's answer to roots/list, a ListRootsResult. An answer of another
// shape is an error that says, in the protocol's words, where, what was expected and what
// came.
func readRoots(raw []byte) ([]Root, error) {
	d := jsonwire.NewDecoder(raw)
	roots := readRootList(d)
	if d.Finish(); d.Failed() {
		return nil, fmt.Errorf("mcp: the client's answer to roots/list is not a ListRootsResult (an object with roots, an array of objects with uri and name):\n%s", d.Summary())
	}
	return roots, nil
}

// readRootList reads a ListRootsResult's roots.
func readRootList(d *jsonwire.Decoder) []Root {
	var roots []Root
	for key := range d.Members {
		if string(key) != "roots" {
			d.Skip()
			continue
		}
		roots = []Root{}
		for range d.Elements {
			var r Root
			for key := range d.Members {
				switch string(key) {
				case "uri":
					r.URI, _ = d.String()
				case "name":
					r.Name, _ = d.String()
				default:
					d.Skip()
				}
			}
			roots = append(roots, r)
		}
	}
	return roots
}
