package openapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/gen/importer"
)

// A tool per operation: its name, its arguments (the parameters and the body's properties,
// or the body as one argument) as one object schema, its result's schema.

// MaxToolName is the longest tool name made: clients show names, and some limit them to 64.
const MaxToolName = 64

// Tool is an operation made a tool.
type Tool struct {
	Op     *Operation
	Name   string // the MCP tool name
	Method string // the Go method
	Args   []*Arg // in the input schema's order
	// BodyFlat: the body's properties are arguments of their own (Args with In "body");
	// otherwise the body, if any, is the argument "body".
	BodyFlat bool
	Input    json.RawMessage // the input's object schema; nil when the tool takes nothing
	Output   json.RawMessage // the result's object schema; nil for none
	// OutputWrap is the property of Output that holds the response when the response is
	// not an object of properties (an array: "items"); "" when Output is the response's.
	OutputWrap string
	Paged      bool   // the result has "next": the arguments of the next page, from a Link header
	Digest     string // of what the operation says, for drift
	Notes      []string
}

// Arg is one argument: a parameter, a property of the body, or the body.
type Arg struct {
	Key   string // the property
	Name  string // the parameter's or body property's name
	In    string // path, query, header, cookie, body (a property of it), or "" for the body whole
	Param *Param
}

// skippedHeaders are parameters OpenAPI says to ignore: the generated code sets them.
var skippedHeaders = []string{"accept", "content-type", "authorization"}

var invalidName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// toolName makes an operation's tool name: its operationId, or its method and path, made of
// the characters tool names may have.
func toolName(op *Operation) string {
	name := op.ID
	if name == "" {
		name = strings.ToLower(op.Method) + "_" + strings.NewReplacer("{", "", "}", "").Replace(op.Path)
	}
	name = strings.Trim(invalidName.ReplaceAllString(name, "_"), "_.-")
	if name == "" {
		name = strings.ToLower(op.Method)
	}
	if len(name) > MaxToolName {
		sum := sha256.Sum256([]byte(name))
		name = name[:MaxToolName-9] + "_" + hex.EncodeToString(sum[:4])
	}
	return name
}

// plan makes the tools of a document's operations.
func plan(doc *Document) []*Tool {
	var tools []*Tool
	refs := refTexts{}
	names := map[string]bool{}
	methods := map[string]bool{}
	for _, op := range doc.Operations {
		t := &Tool{Op: op, Name: toolName(op)}
		for base, i := t.Name, 2; names[t.Name]; i++ {
			suffix := fmt.Sprintf("_%d", i)
			t.Name = base[:min(len(base), MaxToolName-len(suffix))] + suffix
		}
		names[t.Name] = true
		t.Method = importer.GoName(t.Name)
		for base, i := t.Method, 2; methods[t.Method]; i++ {
			t.Method = fmt.Sprintf("%s%d", base, i)
		}
		methods[t.Method] = true
		t.build(doc, refs)
		tools = append(tools, t)
	}
	slices.SortFunc(tools, func(a, b *Tool) int { return strings.Compare(a.Name, b.Name) })
	return tools
}

// build makes the tool's input and output schemas.
func (t *Tool) build(doc *Document, refs refTexts) {
	op := t.Op
	var props []prop
	var required []string
	taken := map[string]bool{}
	for _, p := range op.Params {
		if p.In == "header" && slices.Contains(skippedHeaders, strings.ToLower(p.Name)) {
			continue
		}
		t.Args = append(t.Args, &Arg{Key: p.Name, Name: p.Name, In: p.In, Param: p})
		taken[p.Name] = true
	}
	// A collision between places: the later one is named by its place too.
	for _, a := range t.Args {
		if n := countKey(t.Args, a.Key); n > 1 && a.In != "path" {
			a.Key = a.In + "_" + a.Name
		}
	}
	for _, a := range t.Args {
		p := a.Param
		desc := p.Description
		if p.Deprecated {
			desc = strings.TrimSpace(desc + " Deprecated.")
		}
		props = append(props, prop{a.Key, withDescription(p.Schema, desc)})
		if p.Required {
			required = append(required, a.Key)
		}
	}
	if b := op.Body; b != nil && b.Schema != nil {
		flat, order, req := bodyProperties(doc.Root, b)
		for _, k := range order {
			if taken[k] || k == "body" {
				flat = nil
			}
		}
		switch {
		case flat != nil && (b.Kind == BodyJSON || b.Kind == BodyForm || b.Kind == BodyMultipart):
			t.BodyFlat = true
			for _, k := range order {
				t.Args = append(t.Args, &Arg{Key: k, Name: k, In: "body"})
				schema := flat[k]
				if b.Kind == BodyMultipart {
					schema = fileSchema(doc.Root, schema)
				}
				props = append(props, prop{k, schema})
				if b.Required && slices.Contains(req, k) {
					required = append(required, k)
				}
			}
		default:
			schema := b.Schema
			switch b.Kind {
			case BodyText:
				schema = json.RawMessage(`{"type":"string"}`)
			case BodyBinary:
				schema = json.RawMessage(`{"type":"string","description":"The body, in base64."}`)
			}
			t.Args = append(t.Args, &Arg{Key: "body", Name: "body"})
			props = append(props, prop{"body", withDescription(schema, b.Description)})
			if b.Required {
				required = append(required, "body")
			}
		}
	}
	if len(props) > 0 {
		t.Input = objectSchema(props, required)
	}
	if r := op.Response; r != nil {
		switch {
		case r.Kind == BodyJSON && r.Schema != nil:
			switch {
			case isObject(doc.Root, r.Schema):
				t.Output = r.Schema
			case isFreeObject(doc.Root, r.Schema):
				// An object of any (or no) properties: the result is its JSON text, with no
				// output schema to add, and no struct to hold it.
			default:
				t.OutputWrap = "items"
				if !isArray(doc.Root, r.Schema) {
					t.OutputWrap = "value"
				}
				out := []prop{{t.OutputWrap, withDescription(r.Schema, r.Description)}}
				outReq := []string{t.OutputWrap}
				if t.OutputWrap == "items" && slices.ContainsFunc(op.Params, func(p *Param) bool { return p.In == "query" }) {
					t.Paged = true
					out = append(out, prop{"next", json.RawMessage(`{"type":"object","additionalProperties":{"type":"string"},"description":"The arguments that fetch the next page (from the response's Link header): call the tool again with them. Absent on the last page."}`)})
				}
				if t.OutputWrap == "items" {
					out = append(out, prop{"truncated", json.RawMessage(`{"type":"string","description":"Set when the response was too long for the model: how many items are shown, and how to ask for fewer."}`)})
				}
				t.Output = objectSchema(out, outReq)
			}
		}
	}
	t.Digest = t.digest(doc, refs)
}

func countKey(args []*Arg, key string) int {
	n := 0
	for _, a := range args {
		if a.Key == key {
			n++
		}
	}
	return n
}

type prop struct {
	key    string
	schema json.RawMessage
}

// objectSchema writes an object schema of the properties, in order.
func objectSchema(props []prop, required []string) json.RawMessage {
	var b bytes.Buffer
	b.WriteString(`{"type":"object","properties":{`)
	for i, p := range props {
		if i > 0 {
			b.WriteByte(',')
		}
		writeString(&b, p.key)
		b.WriteByte(':')
		b.Write(p.schema)
	}
	b.WriteString("}")
	if len(required) > 0 {
		req, _ := json.Marshal(required)
		b.WriteString(`,"required":`)
		b.Write(req)
	}
	b.WriteString("}")
	return b.Bytes()
}

// withDescription is the schema with a description first: a parameter's, which says more of
// its use than its schema's. A $ref keeps its target's type; the description beside it is the
// field's comment.
func withDescription(schema json.RawMessage, desc string) json.RawMessage {
	desc = strings.TrimSpace(desc)
	trimmed := bytes.TrimSpace(schema)
	if desc == "" || len(trimmed) < 2 || trimmed[0] != '{' {
		return schema
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(trimmed, &m) != nil {
		return schema
	}
	var b bytes.Buffer
	b.WriteString(`{"description":`)
	writeString(&b, desc)
	for _, k := range orderedKeys(trimmed) {
		if k == "description" {
			continue
		}
		b.WriteByte(',')
		writeString(&b, k)
		b.WriteByte(':')
		b.Write(m[k])
	}
	b.WriteByte('}')
	return b.Bytes()
}

// resolved is the schema a chain of $refs from raw ends at.
func resolved(root, raw json.RawMessage) json.RawMessage {
	for range 16 {
		var r struct {
			Ref string `json:"$ref"`
		}
		if json.Unmarshal(raw, &r) != nil || r.Ref == "" {
			return raw
		}
		next, err := importer.ResolvePointer(root, r.Ref)
		if err != nil {
			return raw
		}
		raw = next
	}
	return raw
}

type shape struct {
	Type       json.RawMessage            `json:"type"`
	Properties map[string]json.RawMessage `json:"properties"`
	Required   []string                   `json:"required"`
	OneOf      []json.RawMessage          `json:"oneOf"`
	AnyOf      []json.RawMessage          `json:"anyOf"`
	AllOf      []json.RawMessage          `json:"allOf"`
	Items      json.RawMessage            `json:"items"`
}

// isObject says whether a schema is an object of properties (not a union, not an array):
// a struct, which a tool's result may be as it is.
func isObject(root, raw json.RawMessage) bool {
	var s shape
	if json.Unmarshal(resolved(root, raw), &s) != nil || len(s.OneOf)+len(s.AnyOf) > 0 {
		return false
	}
	if len(s.Properties) > 0 {
		return string(s.Type) == "" || string(s.Type) == `"object"`
	}
	if len(s.AllOf) > 0 {
		for _, a := range s.AllOf {
			if isObject(root, a) {
				return true
			}
		}
	}
	return false
}

// isFreeObject says whether a schema is an object of no properties, nothing else said of its
// members' shape (GitHub's empty-object; a free-form object).
func isFreeObject(root, raw json.RawMessage) bool {
	var s struct {
		shape
		AdditionalProperties json.RawMessage `json:"additionalProperties"`
	}
	if json.Unmarshal(resolved(root, raw), &s) != nil || len(s.OneOf)+len(s.AnyOf)+len(s.AllOf) > 0 || len(s.Properties) > 0 {
		return false
	}
	ap := bytes.TrimSpace(s.AdditionalProperties)
	return string(s.Type) == `"object"` && (len(ap) == 0 || ap[0] != '{' || string(ap) == "{}")
}

func isArray(root, raw json.RawMessage) bool {
	var s shape
	return json.Unmarshal(resolved(root, raw), &s) == nil && (string(s.Type) == `"array"` || len(s.Items) > 0 && len(s.Type) == 0)
}

// bodyProperties are the properties of a body that is an object of them and nothing else
// (no union, no allOf, no other members), in order, with its required ones; nil when it is
// not such an object. Read-only properties are left out: the server sets them.
func bodyProperties(root json.RawMessage, b *Body) (map[string]json.RawMessage, []string, []string) {
	raw := resolved(root, b.Schema)
	var s struct {
		shape
		AdditionalProperties json.RawMessage `json:"additionalProperties"`
	}
	if json.Unmarshal(raw, &s) != nil || len(s.OneOf)+len(s.AnyOf)+len(s.AllOf) > 0 || len(s.Properties) == 0 {
		return nil, nil, nil
	}
	if ap := bytes.TrimSpace(s.AdditionalProperties); len(ap) > 0 && ap[0] == '{' && string(ap) != "{}" {
		return nil, nil, nil
	}
	var holder struct {
		Properties json.RawMessage `json:"properties"`
	}
	json.Unmarshal(raw, &holder)
	var order []string
	for _, k := range orderedKeys(holder.Properties) {
		var p struct {
			ReadOnly bool `json:"readOnly"`
		}
		json.Unmarshal(resolved(root, s.Properties[k]), &p)
		if p.ReadOnly {
			delete(s.Properties, k)
			continue
		}
		order = append(order, k)
	}
	if len(order) == 0 {
		return nil, nil, nil
	}
	return s.Properties, order, s.Required
}

// digest is the digest of what the tool is made of: the operation's own JSON and every
// schema it reaches, so that a change anywhere the tool reads changes it.
func (t *Tool) digest(doc *Document, texts refTexts) string {
	h := sha256.New()
	seen := map[string]bool{}
	var follow func(refs []string)
	follow = func(refs []string) {
		for _, ref := range refs {
			if seen[ref] {
				continue
			}
			seen[ref] = true
			if text := texts.of(doc, ref); text != nil {
				h.Write([]byte(ref))
				h.Write(text.compact)
				follow(text.refs)
			}
		}
	}
	visit := func(raw json.RawMessage) {
		h.Write(compactJSON(raw))
		follow(refsIn(raw))
	}
	if op, err := importer.ResolvePointer(doc.Root, "#"+t.Op.Pointer); err == nil {
		visit(op)
	}
	// The path item's parameters, which the operation takes too.
	fmt.Fprint(h, t.Op.Method, t.Op.Path)
	for _, p := range t.Op.Params {
		visit(p.Schema)
		fmt.Fprint(h, p.Name, p.In, p.Required, p.Description)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// refTexts are the schemas $refs name, compact, with the $refs in them: what a digest reads
// of a schema every tool that reaches it shares (GitHub's: compacted once, not 1,223 times).
type refTexts map[string]*refText

type refText struct {
	compact []byte
	refs    []string
}

// of is what ref names, nil when it names nothing.
func (m refTexts) of(doc *Document, ref string) *refText {
	if text, ok := m[ref]; ok {
		return text
	}
	var text *refText
	if target, err := importer.ResolvePointer(doc.Root, ref); err == nil {
		text = &refText{compact: compactJSON(target), refs: refsIn(target)}
	}
	m[ref] = text
	return text
}

// refsIn are the $refs a schema's JSON has, in order.
func refsIn(raw json.RawMessage) []string {
	var refs []string
	for _, m := range refPattern.FindAllSubmatch(raw, -1) {
		refs = append(refs, string(m[1]))
	}
	return refs
}

var refPattern = regexp.MustCompile(`"\$ref"\s*:\s*"(#[^"]*)"`)

// fileSchema is the schema of a multipart form's field: a file (a string of binary data,
// format binary or a contentMediaType, or a list of them) is base64 in the tool's arguments,
// which the importer makes []byte and mcpgen's generator checks; other fields as they are.
func fileSchema(root, raw json.RawMessage) json.RawMessage {
	var s struct {
		Type             json.RawMessage `json:"type"`
		Format           string          `json:"format"`
		ContentMediaType string          `json:"contentMediaType"`
		ContentEncoding  string          `json:"contentEncoding"`
		Description      string          `json:"description"`
		Items            json.RawMessage `json:"items"`
	}
	if json.Unmarshal(resolved(root, raw), &s) != nil {
		return raw
	}
	desc := strings.TrimSpace(s.Description)
	if desc != "" && !strings.HasSuffix(desc, ".") {
		desc += "."
	}
	desc = strings.TrimSpace(desc + " A file, in base64.")
	switch {
	case string(s.Type) == `"string"` && s.ContentEncoding == "" && (s.Format == "binary" || s.ContentMediaType != ""):
		var b bytes.Buffer
		b.WriteString(`{"type":"string","contentEncoding":"base64","description":`)
		writeString(&b, desc)
		b.WriteByte('}')
		return b.Bytes()
	case string(s.Type) == `"array"` && len(s.Items) > 0:
		if item := fileSchema(root, s.Items); !bytes.Equal(item, s.Items) {
			var b bytes.Buffer
			b.WriteString(`{"type":"array","items":`)
			b.Write(item)
			if s.Description != "" {
				b.WriteString(`,"description":`)
				writeString(&b, s.Description)
			}
			b.WriteByte('}')
			return b.Bytes()
		}
	}
	return raw
}
