package mcp

import (
	"strconv"

	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// The codec of sampling/createMessage: the request a server sends and the result its client
// answers with (see codec_content.go for the convention).

// encode writes the request as dialect d has it. Every message has content (Sample checks).
func (r *CreateMessageRequest) encode(e *jsonwire.Encoder, d dialect) {
	e.ObjectStart()
	e.Key("messages")
	e.ArrayStart()
	for i := range r.Messages {
		e.Elem()
		r.Messages[i].encode(e, d)
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
	if d.samplingTools() {
		if len(r.Tools) > 0 {
			e.Key("tools")
			e.ArrayStart()
			for i := range r.Tools {
				e.Elem()
				r.Tools[i].encode(e)
			}
			e.ArrayEnd()
		}
		if r.ToolChoice != "" {
			e.Key("toolChoice")
			e.ObjectStart()
			e.Key("mode")
			e.String(string(r.ToolChoice))
			e.ObjectEnd()
		}
	}
	e.ObjectEnd()
}

// decode reads the request. A message's content may be an array of blocks (2025-11-25); a
// message without content is reported.
func (r *CreateMessageRequest) decode(d *jsonwire.Decoder) {
	for key := range d.Members {
		switch string(key) {
		case "messages":
			if d.Null() {
				continue
			}
			for range d.Elements {
				r.Messages = append(r.Messages, readSamplingMessage(d))
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
		case "tools":
			if d.Null() {
				continue
			}
			for range d.Elements {
				var t SamplingTool
				t.decode(d)
				r.Tools = append(r.Tools, t)
			}
		case "toolChoice":
			r.ToolChoice = readToolChoice(d)
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
	if len(r.Contents) > 0 {
		writeBlocks(e, d, r.Contents)
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
			r.Contents = readBlocks(d, true)
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

// readMessage reads a message of a prompt: its role and its content (one block, or an array
// of them, of which the first is the message's). A message without content is reported.
func readMessage(d *jsonwire.Decoder) (role Role, content Content) {
	m := readAnyMessage(d, false)
	return m.Role, m.Content
}

// readSamplingMessage reads a message of a sampling request: every block of its content in
// Contents, the first in Content, a tool's use or result among them.
func readSamplingMessage(d *jsonwire.Decoder) SamplingMessage { return readAnyMessage(d, true) }

func readAnyMessage(d *jsonwire.Decoder, sampling bool) (m SamplingMessage) {
	object, has := d.Peek() == jsonwire.Object, false
	for key := range d.Members {
		switch string(key) {
		case "role":
			m.Role = Role(readString(d))
		case "content":
			has = true
			if m.Contents = readBlocks(d, sampling); len(m.Contents) > 0 {
				m.Content = m.Contents[0]
			}
		default:
			d.Skip()
		}
	}
	if object && !has {
		d.ReportMissing("content")
	}
	return m
}

// encode writes the message as dialect d has it; a message without a role is the user's.
func (m *SamplingMessage) encode(e *jsonwire.Encoder, d dialect) {
	writeMessage(e, d, m.Role, m.blocks())
}

// writeBlocks writes a sampling message's content: one block as itself, several as an
// array (2025-11-25; Sample sends several only to a client of that revision or later).
func writeBlocks(e *jsonwire.Encoder, d dialect, blocks []Content) {
	if len(blocks) == 1 {
		blocks[0].encodeContent(e, d)
		return
	}
	e.ArrayStart()
	for _, b := range blocks {
		e.Elem()
		b.encodeContent(e, d)
	}
	e.ArrayEnd()
}

// readBlocks reads a message's content: one block, or (2025-11-25) an array of them; a
// sampling message's may be a tool's use or result. An empty array is reported.
func readBlocks(d *jsonwire.Decoder, sampling bool) []Content {
	if d.Peek() != jsonwire.Array {
		if c := readBlock(d, sampling); c != nil {
			return []Content{c}
		}
		return nil
	}
	var blocks []Content
	n := 0
	for range d.Elements {
		n++
		if c := readBlock(d, sampling); c != nil {
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

// encode writes a tool of a sampling request; a tool without an input schema takes any
// object.
func (t *SamplingTool) encode(e *jsonwire.Encoder) {
	e.ObjectStart()
	e.Key("name")
	e.String(t.Name)
	optionalString(e, "description", t.Description)
	e.Key("inputSchema")
	if len(t.InputSchema) == 0 {
		e.Raw([]byte(`{"type":"object"}`))
	} else {
		e.Raw(t.InputSchema)
	}
	e.ObjectEnd()
}

// decode reads a tool of a sampling request: what a model reads of it (see SamplingTool).
func (t *SamplingTool) decode(d *jsonwire.Decoder) {
	object := d.Peek() == jsonwire.Object
	for key := range d.Members {
		switch string(key) {
		case "name":
			t.Name = readString(d)
		case "description":
			t.Description = readString(d)
		case "inputSchema":
			if !d.Null() && d.Expect(jsonwire.Object) {
				t.InputSchema = d.RawCopy()
			}
		default:
			d.Skip()
		}
	}
	if object && t.Name == "" && !d.Failed() {
		d.ReportMissing("name")
	}
}

// readToolChoice reads a request's toolChoice, {"mode": ...}; "" for none, or a mode the
// object leaves out (the protocol's default then, auto). A mode the protocol does not have
// is reported.
func readToolChoice(d *jsonwire.Decoder) ToolChoice {
	var mode ToolChoice
	if d.Null() {
		return mode
	}
	for key := range d.Members {
		if string(key) != "mode" {
			d.Skip()
			continue
		}
		switch m := ToolChoice(readString(d)); m {
		case "", ToolChoiceAuto, ToolChoiceRequired, ToolChoiceNone:
			mode = m
		default:
			d.Report(`toolChoice.mode ` + strconv.Quote(string(m)) + ` is none of "auto", "required" and "none"`)
		}
	}
	return mode
}

func (u ToolUse) encodeContent(e *jsonwire.Encoder, d dialect) {
	if !d.samplingTools() {
		Text{Text: "[use of tool " + u.Name + ", not sent: this client's protocol revision has no tools in sampling]"}.encodeContent(e, d)
		return
	}
	startBlock(e, "tool_use")
	e.Key("id")
	e.String(u.ID)
	e.Key("name")
	e.String(u.Name)
	e.Key("input")
	if len(u.Input) == 0 {
		e.Raw([]byte("{}"))
	} else {
		e.Raw(u.Input)
	}
	optionalRaw(e, "_meta", u.Meta)
	e.ObjectEnd()
}

func (r ToolResult) encodeContent(e *jsonwire.Encoder, d dialect) {
	if !d.samplingTools() {
		Text{Text: "[result of tool use " + r.ToolUseID + ", not sent: this client's protocol revision has no tools in sampling]"}.encodeContent(e, d)
		return
	}
	startBlock(e, "tool_result")
	e.Key("toolUseId")
	e.String(r.ToolUseID)
	e.Key("content")
	e.ArrayStart()
	for _, c := range r.Content {
		if c != nil {
			e.Elem()
			c.encodeContent(e, d)
		}
	}
	e.ArrayEnd()
	optionalRaw(e, "structuredContent", r.StructuredContent)
	if r.IsError {
		e.Key("isError")
		e.Bool(true)
	}
	optionalRaw(e, "_meta", r.Meta)
	e.ObjectEnd()
}

func optionalRaw(e *jsonwire.Encoder, key string, v []byte) {
	if len(v) > 0 {
		e.Key(key)
		e.Raw(v)
	}
}

// toolBlock gathers the members of a tool's use or result as readBlock meets them, in any
// order; block makes the block once the type is known. A member of the wrong JSON type is
// reported only then: in a block of another type it is a member that block does not have.
type toolBlock struct {
	id, toolUseID           string
	input, structured, meta []byte
	content                 []Content
	isError, hasInput       bool
	wrong                   []string
}

func (t *toolBlock) read(d *jsonwire.Decoder, key string) {
	want := jsonwire.String
	switch key {
	case "input", "_meta":
		want = jsonwire.Object
	case "content":
		want = jsonwire.Array
	case "isError":
		want = jsonwire.Bool
	case "structuredContent":
		want = d.Peek() // any JSON value
	}
	k := d.Peek()
	t.hasInput = t.hasInput || key == "input" && k != jsonwire.Null
	switch {
	case k == jsonwire.Null:
		d.Skip()
		return
	case k != want:
		t.wrong = append(t.wrong, key+": expected "+want.String()+", got "+k.String())
		d.Skip()
		return
	}
	switch key {
	case "id":
		t.id, _ = d.String()
	case "toolUseId":
		t.toolUseID, _ = d.String()
	case "input":
		t.input = d.RawCopy()
	case "_meta":
		t.meta = d.RawCopy()
	case "structuredContent":
		t.structured = d.RawCopy()
	case "isError":
		t.isError, _ = d.Bool()
	case "content":
		t.content = []Content{}
		for range d.Elements {
			if c := readContent(d); c != nil {
				t.content = append(t.content, c)
			}
		}
	}
}

// block is the tool_use or tool_result block read, with what it lacks reported. A result
// without content is taken as an empty one, as peers that default it send it.
func (t *toolBlock) block(d *jsonwire.Decoder, kind, name string) Content {
	for _, w := range t.wrong {
		d.Report(w)
	}
	if kind == "tool_result" {
		if t.toolUseID == "" {
			d.ReportMissing("toolUseId")
		}
		return ToolResult{ToolUseID: t.toolUseID, Content: t.content, StructuredContent: t.structured, IsError: t.isError, Meta: t.meta}
	}
	if t.id == "" {
		d.ReportMissing("id")
	}
	if name == "" {
		d.ReportMissing("name")
	}
	if !t.hasInput {
		d.ReportMissing("input")
	}
	return ToolUse{ID: t.id, Name: name, Input: t.input, Meta: t.meta}
}
