package mcp

import (
	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// The codec of sampling/createMessage: the request a server sends and the result its client
// answers with (see codec_content.go for the convention).

// encode writes the request as dialect d has it. Every message has content (Sample checks).
func (r *CreateMessageRequest) encode(e *jsonwire.Encoder, d dialect) {
	e.ObjectStart()
	e.Key("messages")
	e.ArrayStart()
	for _, m := range r.Messages {
		e.Elem()
		writeMessage(e, d, m.Role, m.Content)
	}
	e.ArrayEnd()
	optionalString(e, "systemPrompt", r.SystemPrompt)
	optionalString(e, "includeContext", r.IncludeContext)
	if r.Temperature != nil {
		e.Key("temperature")
		e.Float(*r.Temperature, 64)
	}
	e.Key("maxTokens")
	e.Int(int64(r.MaxTokens))
	if len(r.StopSequences) > 0 {
		e.Key("stopSequences")
		e.ArrayStart()
		for _, s := range r.StopSequences {
			e.Elem()
			e.String(s)
		}
		e.ArrayEnd()
	}
	if p := r.ModelPreferences; p != nil {
		e.Key("modelPreferences")
		p.encode(e)
	}
	e.ObjectEnd()
}

// decode reads the request. A message's content may be an array of blocks (2025-11-25), of
// which the first is the message's; a message without content is reported.
func (r *CreateMessageRequest) decode(d *jsonwire.Decoder) {
	for key := range d.Members {
		switch string(key) {
		case "messages":
			if d.Null() {
				continue
			}
			for range d.Elements {
				var m SamplingMessage
				m.Role, m.Content = readMessage(d)
				r.Messages = append(r.Messages, m)
			}
		case "systemPrompt":
			r.SystemPrompt = readString(d)
		case "includeContext":
			r.IncludeContext = readString(d)
		case "temperature":
			if !d.Null() {
				t, _ := d.Float(64)
				r.Temperature = &t
			}
		case "maxTokens":
			if !d.Null() {
				n, _ := d.Int()
				r.MaxTokens = int(n)
			}
		case "stopSequences":
			if d.Null() {
				continue
			}
			for range d.Elements {
				s, _ := d.String()
				r.StopSequences = append(r.StopSequences, s)
			}
		case "modelPreferences":
			if !d.Null() {
				r.ModelPreferences = &ModelPreferences{}
				r.ModelPreferences.decode(d)
			}
		default:
			d.Skip()
		}
	}
}

func (p *ModelPreferences) encode(e *jsonwire.Encoder) {
	e.ObjectStart()
	if len(p.Hints) > 0 {
		e.Key("hints")
		e.ArrayStart()
		for _, h := range p.Hints {
			e.Elem()
			e.ObjectStart()
			e.Key("name")
			e.String(h)
			e.ObjectEnd()
		}
		e.ArrayEnd()
	}
	optionalFloat(e, "costPriority", p.CostPriority)
	optionalFloat(e, "speedPriority", p.SpeedPriority)
	optionalFloat(e, "intelligencePriority", p.IntelligencePriority)
	e.ObjectEnd()
}

func (p *ModelPreferences) decode(d *jsonwire.Decoder) {
	for key := range d.Members {
		switch string(key) {
		case "hints":
			if d.Null() {
				continue
			}
			for range d.Elements {
				for key := range d.Members {
					if string(key) == "name" {
						p.Hints = append(p.Hints, readString(d))
					} else {
						d.Skip()
					}
				}
			}
		case "costPriority":
			p.CostPriority = readOptionalFloat(d)
		case "speedPriority":
			p.SpeedPriority = readOptionalFloat(d)
		case "intelligencePriority":
			p.IntelligencePriority = readOptionalFloat(d)
		default:
			d.Skip()
		}
	}
}

// encode writes the result as dialect d has it: several blocks as an array (2025-11-25),
// one as itself; the role is the assistant's when unset.
func (r *CreateMessageResult) encode(e *jsonwire.Encoder, d dialect) {
	role := r.Role
	if role == "" {
		role = RoleAssistant
	}
	e.ObjectStart()
	e.Key("role")
	e.String(string(role))
	e.Key("content")
	if len(r.Contents) > 1 {
		e.ArrayStart()
		for _, b := range r.Contents {
			e.Elem()
			b.encodeContent(e, d)
		}
		e.ArrayEnd()
	} else {
		r.Content.encodeContent(e, d)
	}
	e.Key("model")
	e.String(r.Model)
	optionalString(e, "stopReason", r.StopReason)
	e.ObjectEnd()
}

// decode reads the result: Contents holds every block, Content the first. A result without
// content is reported.
func (r *CreateMessageResult) decode(d *jsonwire.Decoder) {
	object := d.Peek() == jsonwire.Object
	for key := range d.Members {
		switch string(key) {
		case "role":
			r.Role = Role(readString(d))
		case "content":
			r.Contents = readBlocks(d)
			if len(r.Contents) > 0 {
				r.Content = r.Contents[0]
			}
		case "model":
			r.Model = readString(d)
		case "stopReason":
			r.StopReason = readString(d)
		default:
			d.Skip()
		}
	}
	if object && r.Content == nil && !d.Failed() {
		d.ReportMissing("content")
	}
}

// readMessage reads a message of a prompt or of a sampling request: its role and its content
// (one block, or an array of them, of which the first is the message's). A message without
// content is reported.
func readMessage(d *jsonwire.Decoder) (role Role, content Content) {
	object, has := d.Peek() == jsonwire.Object, false
	for key := range d.Members {
		switch string(key) {
		case "role":
			role = Role(readString(d))
		case "content":
			has = true
			if blocks := readBlocks(d); len(blocks) > 0 {
				content = blocks[0]
			}
		default:
			d.Skip()
		}
	}
	if object && !has {
		d.ReportMissing("content")
	}
	return role, content
}

// readBlocks reads a sampling message's content: one block, or (2025-11-25) an array of
// them. An empty array is reported.
func readBlocks(d *jsonwire.Decoder) []Content {
	if d.Peek() != jsonwire.Array {
		if c := readContent(d); c != nil {
			return []Content{c}
		}
		return nil
	}
	var blocks []Content
	n := 0
	for range d.Elements {
		n++
		if c := readContent(d); c != nil {
			blocks = append(blocks, c)
		}
	}
	if n == 0 {
		d.Report("no content: an empty array")
	}
	return blocks
}

func optionalFloat(e *jsonwire.Encoder, key string, v *float64) {
	if v != nil {
		e.Key(key)
		e.Float(*v, 64)
	}
}

// readOptionalFloat reads a number member whose absence means something: nil for null or
// absent.
func readOptionalFloat(d *jsonwire.Decoder) *float64 {
	if d.Null() {
		return nil
	}
	f, ok := d.Float(64)
	if !ok {
		return nil
	}
	return &f
}
