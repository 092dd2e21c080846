package mcp

import "github.com/mcpgen/mcpgen/runtime/jsonwire"

// The codec of list results' pages (tools/list, prompts/list, resources/list,
// resources/templates/list); the items have their own (see codec_content.go for the
// convention).

// listResult writes a list result: {"<field>":[items...],"nextCursor":...}.
func listResult(field string, items [][]byte, next string) []byte {
	var e jsonwire.Encoder
	e.ObjectStart()
	e.Key(field)
	e.ArrayStart()
	for _, it := range items {
		e.Elem()
		e.Raw(it)
	}
	e.ArrayEnd()
	optionalString(&e, "nextCursor", next)
	e.ObjectEnd()
	return e.Bytes()
}

// readPage reads a list result: the items under field, each as it came (its bytes alias the
// page's), for the caller to read one by one, and the cursor of the next page ("" on the
// last). A server that has no items may leave the list out or send null; a cursor that is
// not a string is no cursor.
func readPage(d *jsonwire.Decoder, field string) (items [][]byte, next string) {
	for key := range d.Members {
		switch string(key) {
		case field:
			if d.Null() {
				continue
			}
			for range d.Elements {
				items = append(items, d.Raw())
			}
		case "nextCursor":
			if d.Peek() == jsonwire.String {
				next, _ = d.String()
			} else {
				d.Skip()
			}
		default:
			d.Skip()
		}
	}
	return items, next
}

// encode writes a listed resource as dialect d has it.
func (r *Resource) encode(e *jsonwire.Encoder, d dialect) {
	e.ObjectStart()
	e.Key("uri")
	e.String(r.URI)
	writeNamed(e, d, r.Name, r.Title, r.Description)
	writeIcons(e, d, r.Icons)
	optionalString(e, "mimeType", r.MIMEType)
	if r.Size != nil {
		e.Key("size")
		e.Int(*r.Size)
	}
	r.Annotations.encode(e)
	e.ObjectEnd()
}

// decode reads a listed resource.
func (r *Resource) decode(d *jsonwire.Decoder) {
	for key := range d.Members {
		switch string(key) {
		case "uri":
			r.URI = readString(d)
		case "size":
			if !d.Null() {
				n, _ := d.Int()
				r.Size = &n
			}
		default:
			readListed(d, key, &r.Name, &r.Title, &r.Description, &r.MIMEType, &r.Icons, &r.Annotations)
		}
	}
}

// encode writes a listed resource template as dialect d has it.
func (t *ResourceTemplate) encode(e *jsonwire.Encoder, d dialect) {
	e.ObjectStart()
	e.Key("uriTemplate")
	e.String(t.URITemplate)
	writeNamed(e, d, t.Name, t.Title, t.Description)
	writeIcons(e, d, t.Icons)
	optionalString(e, "mimeType", t.MIMEType)
	t.Annotations.encode(e)
	e.ObjectEnd()
}

// decode reads a listed resource template.
func (t *ResourceTemplate) decode(d *jsonwire.Decoder) {
	for key := range d.Members {
		if string(key) == "uriTemplate" {
			t.URITemplate = readString(d)
		} else {
			readListed(d, key, &t.Name, &t.Title, &t.Description, &t.MIMEType, &t.Icons, &t.Annotations)
		}
	}
}

// readListed reads a member resources and templates share, skipping any other.
func readListed(d *jsonwire.Decoder, key []byte, name, title, description, mime *string, icons *[]Icon, a **Annotations) {
	switch string(key) {
	case "name":
		*name = readString(d)
	case "title":
		*title = readString(d)
	case "description":
		*description = readString(d)
	case "mimeType":
		*mime = readString(d)
	case "icons":
		*icons = readIcons(d)
	case "annotations":
		*a = readAnnotations(d)
	default:
		d.Skip()
	}
}

// encode writes a listed prompt as dialect d has it.
func (p *Prompt) encode(e *jsonwire.Encoder, d dialect) {
	e.ObjectStart()
	writeNamed(e, d, p.Name, p.Title, p.Description)
	writeIcons(e, d, p.Icons)
	if len(p.Arguments) > 0 {
		e.Key("arguments")
		e.ArrayStart()
		for _, a := range p.Arguments {
			e.Elem()
			e.ObjectStart()
			writeNamed(e, d, a.Name, a.Title, a.Description)
			if a.Required {
				e.Key("required")
				e.Bool(true)
			}
			e.ObjectEnd()
		}
		e.ArrayEnd()
	}
	e.ObjectEnd()
}

// decode reads a listed prompt.
func (p *Prompt) decode(d *jsonwire.Decoder) {
	for key := range d.Members {
		switch string(key) {
		case "name":
			p.Name = readString(d)
		case "title":
			p.Title = readString(d)
		case "description":
			p.Description = readString(d)
		case "icons":
			p.Icons = readIcons(d)
		case "arguments":
			if d.Null() {
				continue
			}
			for range d.Elements {
				var a PromptArgument
				for key := range d.Members {
					switch string(key) {
					case "name":
						a.Name = readString(d)
					case "title":
						a.Title = readString(d)
					case "description":
						a.Description = readString(d)
					case "required":
						a.Required = readBool(d)
					default:
						d.Skip()
					}
				}
				p.Arguments = append(p.Arguments, a)
			}
		default:
			d.Skip()
		}
	}
}

// encode writes the result of prompts/get as revision d has it.
func (r *GetPromptResult) encode(e *jsonwire.Encoder, d dialect) {
	e.ObjectStart()
	optionalString(e, "description", r.Description)
	e.Key("messages")
	e.ArrayStart()
	for _, m := range r.Messages {
		e.Elem()
		writeMessage(e, d, m.Role, []Content{m.Content})
	}
	e.ArrayEnd()
	e.ObjectEnd()
}

// decode reads the result of prompts/get.
func (r *GetPromptResult) decode(d *jsonwire.Decoder) {
	for key := range d.Members {
		switch string(key) {
		case "description":
			r.Description = readString(d)
		case "messages":
			if d.Null() {
				continue
			}
			for range d.Elements {
				var m PromptMessage
				m.Role, m.Content = readMessage(d)
				r.Messages = append(r.Messages, m)
			}
		default:
			d.Skip()
		}
	}
}

// writeMessage writes a message of a prompt or of a sampling request, for a client of
// dialect d: its role (the user's when unset) and its content, one block as itself or
// several as an array (writeBlocks).
func writeMessage(e *jsonwire.Encoder, d dialect, role Role, blocks []Content) {
	if role == "" {
		role = RoleUser
	}
	e.ObjectStart()
	e.Key("role")
	e.String(string(role))
	e.Key("content")
	writeBlocks(e, d, blocks)
	e.ObjectEnd()
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

// encode writes the result of completion/complete.
func (r *CompleteResult) encode(e *jsonwire.Encoder) {
	e.ObjectStart()
	e.Key("completion")
	e.ObjectStart()
	e.Key("values")
	e.ArrayStart()
	for _, v := range r.Values {
		e.Elem()
		e.String(v)
	}
	e.ArrayEnd()
	e.Key("total")
	e.Int(int64(r.Total))
	e.Key("hasMore")
	e.Bool(r.HasMore)
	e.ObjectEnd()
	e.ObjectEnd()
}

// decode reads the result of completion/complete.
func (r *CompleteResult) decode(d *jsonwire.Decoder) {
	for key := range d.Members {
		if string(key) != "completion" {
			d.Skip()
			continue
		}
		if d.Null() {
			continue
		}
		for key := range d.Members {
			switch string(key) {
			case "values":
				if d.Null() {
					continue
				}
				r.Values = []string{}
				for range d.Elements {
					v, _ := d.String()
					r.Values = append(r.Values, v)
				}
			case "total":
				if !d.Null() {
					n, _ := d.Int()
					r.Total = int(n)
				}
			case "hasMore":
				r.HasMore = readBool(d)
			default:
				d.Skip()
			}
		}
	}
}

// encodeReadResult writes the result of resources/read: the contents, each with the URI
// read and the resource's MIME type where it has none of its own.
func encodeReadResult(e *jsonwire.Encoder, contents []ResourceContents, uri, mime string) {
	e.ObjectStart()
	e.Key("contents")
	e.ArrayStart()
	for _, c := range contents {
		// c is a copy: the function may return a slice it keeps (a cache), which is not ours
		// to fill in.
		e.Elem()
		if c.URI == "" {
			c.URI = uri
		}
		if c.MIMEType == "" {
			c.MIMEType = mime
		}
		c.encode(e)
	}
	e.ArrayEnd()
	e.ObjectEnd()
}

// readReadResult reads the result of resources/read.
func readReadResult(d *jsonwire.Decoder) []ResourceContents {
	out := []ResourceContents{}
	for key := range d.Members {
		if string(key) != "contents" {
			d.Skip()
			continue
		}
		if d.Null() {
			continue
		}
		for range d.Elements {
			var c ResourceContents
			if d.Expect(jsonwire.Object) {
				c.decode(d)
			}
			out = append(out, c)
		}
	}
	return out
}
