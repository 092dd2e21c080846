package mcp

import (
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// The codec of the params of the client's requests that carry more than a name or a URI:
// tools/call, prompts/get, completion/complete and the list methods' cursor (see
// codec_content.go for the convention). The client writes them; the server reads them
// where it serves the request, and answers a problem with invalid params at its JSON
// Pointer. Their _meta is the envelope: the client adds it, the server reads it apart
// (statelessMeta).

// callToolParams are the params of tools/call.
type callToolParams struct {
	// name is the tool's name. Read, it aliases the input when it is plain ASCII without
	// escapes, as tool names are: tools/call reads it without allocating.
	name    []byte
	hasName bool
	// arguments are a raw JSON object, or nil for none.
	arguments []byte
	// task, in revision 2025-11-25, asks the server to run the call as a task (params.task).
	task bool
}

// encode writes the params: arguments if any, task if asked.
func (p *callToolParams) encode(e *jsonwire.Encoder) {
	e.ObjectStart()
	e.Key("name")
	e.StringBytes(p.name)
	if p.arguments != nil {
		e.Key("arguments")
		e.Raw(p.arguments)
	}
	if p.task {
		e.Key("task")
		e.ObjectStart()
		e.ObjectEnd()
	}
	e.ObjectEnd()
}

// decode reads the params; arguments alias the input.
func (p *callToolParams) decode(d *jsonwire.Decoder) {
	for key := range d.Members {
		switch string(key) {
		case "name":
			if d.Expect(jsonwire.String) {
				p.name, p.hasName = readName(d)
			}
		case "arguments":
			if !d.Null() && d.Expect(jsonwire.Object) {
				p.arguments = d.Raw()
			}
		case "task":
			if !d.Null() && d.Expect(jsonwire.Object) {
				d.Skip()
				p.task = true
			}
		default:
			d.Skip()
		}
	}
}

// readName reads a string as bytes that alias the input if it is plain ASCII (Decoder.Text's
// are valid only until its next read), or else a copy, unescaped.
func readName(d *jsonwire.Decoder) ([]byte, bool) {
	raw := d.Raw() // its syntax checked
	if len(raw) < 2 {
		return nil, false
	}
	plain := true
	for _, c := range raw[1 : len(raw)-1] {
		if c == '\\' || c >= utf8.RuneSelf {
			plain = false
			break
		}
	}
	if plain {
		return raw[1 : len(raw)-1], true
	}
	s, ok := jsonwire.NewDecoder(raw).String()
	return []byte(s), ok
}

// getPromptParams are the params of prompts/get.
type getPromptParams struct {
	name    string
	hasName bool
	// arguments are a raw JSON object (of strings), or nil for none.
	arguments []byte
}

// encode writes the params: arguments if any.
func (p *getPromptParams) encode(e *jsonwire.Encoder) {
	e.ObjectStart()
	e.Key("name")
	e.String(p.name)
	if p.arguments != nil {
		e.Key("arguments")
		e.Raw(p.arguments)
	}
	e.ObjectEnd()
}

// decode reads the params; arguments alias the input.
func (p *getPromptParams) decode(d *jsonwire.Decoder) {
	for key := range d.Members {
		switch string(key) {
		case "name":
			p.name, p.hasName = d.String()
		case "arguments":
			if !d.Null() && d.Expect(jsonwire.Object) {
				p.arguments = d.Raw()
			}
		default:
			d.Skip()
		}
	}
}

// completeParams are the params of completion/complete: what is completed (a prompt's
// argument or a resource template's variable), its value so far, and the values of the
// other arguments already given.
type completeParams struct {
	refType    string // "ref/prompt" or "ref/resource"
	refName    string // the prompt's, or
	refURI     string // the template's
	argument   string
	value      string
	hasContext bool
	context    map[string]string
}

// encode writes the params: the ref's name or uri as its type has it, context if given
// and the revision has it.
func (p *completeParams) encode(e *jsonwire.Encoder, d dialect) {
	e.ObjectStart()
	e.Key("ref")
	e.ObjectStart()
	e.Key("type")
	e.String(p.refType)
	if p.refType == "ref/resource" {
		e.Key("uri")
		e.String(p.refURI)
	} else {
		e.Key("name")
		e.String(p.refName)
	}
	e.ObjectEnd()
	e.Key("argument")
	e.ObjectStart()
	e.Key("name")
	e.String(p.argument)
	e.Key("value")
	e.String(p.value)
	e.ObjectEnd()
	if p.hasContext && d.completionContext() {
		e.Key("context")
		e.ObjectStart()
		e.Key("arguments")
		writeValue(e, p.context)
		e.ObjectEnd()
	}
	e.ObjectEnd()
}

// decode reads the params; null reads as absent.
func (p *completeParams) decode(d *jsonwire.Decoder) {
	for key := range d.Members {
		switch string(key) {
		case "ref":
			if d.Null() {
				continue
			}
			for key := range d.Members {
				switch string(key) {
				case "type":
					p.refType = readString(d)
				case "name":
					p.refName = readString(d)
				case "uri":
					p.refURI = readString(d)
				default:
					d.Skip()
				}
			}
		case "argument":
			if d.Null() {
				continue
			}
			for key := range d.Members {
				switch string(key) {
				case "name":
					p.argument = readString(d)
				case "value":
					p.value = readString(d)
				default:
					d.Skip()
				}
			}
		case "context":
			if d.Null() {
				continue
			}
			for key := range d.Members {
				if string(key) != "arguments" {
					d.Skip()
					continue
				}
				if d.Null() {
					continue
				}
				p.hasContext, p.context = true, map[string]string{}
				for name := range d.Members {
					if v, ok := d.String(); ok {
						p.context[string(name)] = v
					}
				}
			}
		default:
			d.Skip()
		}
	}
}

// paginatedParams are the params of a list request: the cursor of the page it asks for,
// none for the first.
type paginatedParams struct {
	cursor    string
	hasCursor bool // even "": a cursor the server must have given
}

// encode writes the params: {} for the first page.
func (p *paginatedParams) encode(e *jsonwire.Encoder) {
	e.ObjectStart()
	if p.hasCursor {
		e.Key("cursor")
		e.String(p.cursor)
	}
	e.ObjectEnd()
}

// decode reads the params; a null cursor is none.
func (p *paginatedParams) decode(d *jsonwire.Decoder) {
	for key := range d.Members {
		switch {
		case string(key) != "cursor":
			d.Skip()
		case !d.Null():
			p.cursor, p.hasCursor = d.String()
		}
	}
}
