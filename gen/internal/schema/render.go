package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Render writes the JSON Schema (2020-12) of a tool's argument or result type, indented for
// reading in the generated file. Everything is inlined, because some MCP clients mishandle
// $ref; only recursive types are written once under $defs and referenced.
func Render(t *Type) []byte {
	r := &renderer{defs: map[*Object]bool{}}
	var root *ordered
	if t.Kind == Custom && t.Declared != "" {
		// A tool argument that declares its whole schema gets exactly that schema.
		declared, err := parseOrdered(t.Declared)
		if err != nil {
			panic("schema: declared schema is not a JSON object: " + err.Error())
		}
		root = &declared
	} else {
		root = r.node(t, "", t.Object)
	}
	for i := 0; i < len(r.order); i++ { // definitions may add definitions
		s := r.order[i]
		r.defList = append(r.defList, member{s.Name, r.object(s, s.Doc)})
	}
	if len(r.defList) > 0 {
		root.add("$defs", ordered(r.defList))
	}
	var out bytes.Buffer
	root.writeIndented(&out, 0)
	return out.Bytes()
}

type renderer struct {
	defs    map[*Object]bool
	order   []*Object
	defList []member
}

// ordered is a JSON object whose keys keep the order they were added in.
type ordered []member

type member struct {
	key   string
	value any // string, bool, *Number, rawJSON, []any, ordered, *ordered
}

// rawJSON is already-encoded JSON.
type rawJSON string

// add sets a key, replacing its value if it is already there.
func (o *ordered) add(key string, value any) {
	for i := range *o {
		if (*o)[i].key == key {
			(*o)[i].value = value
			return
		}
	}
	*o = append(*o, member{key, value})
}

// parseOrdered reads a JSON object keeping the order of its keys; nested values stay raw.
func parseOrdered(raw string) (ordered, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.Token() // {
	var o ordered
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key := tok.(string)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
		o.add(key, rawJSON(compact(m[key])))
	}
	return o, nil
}

func compact(raw []byte) string {
	var b bytes.Buffer
	json.Compact(&b, raw)
	return b.String()
}

func (o ordered) write(b *bytes.Buffer) {
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		writeValue(b, m.key)
		b.WriteByte(':')
		writeValue(b, m.value)
	}
	b.WriteByte('}')
}

// plainString says whether a string's JSON is itself between quotes: printable ASCII without
// a quote, a backslash or a backquote.
func plainString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '`' {
			return false
		}
	}
	return true
}

// writeIndented writes the object as json.Indent(prefix "", indent "  ") would write its
// compact form, at a depth, without the compact form.
func (o ordered) writeIndented(b *bytes.Buffer, depth int) {
	if len(o) == 0 {
		b.WriteString("{}")
		return
	}
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		newline(b, depth+1)
		writeValue(b, m.key)
		b.WriteString(": ")
		writeIndentedValue(b, m.value, depth+1)
	}
	newline(b, depth)
	b.WriteByte('}')
}

func newline(b *bytes.Buffer, depth int) {
	b.WriteByte('\n')
	for range depth {
		b.WriteString("  ")
	}
}

func writeIndentedValue(b *bytes.Buffer, v any, depth int) {
	switch v := v.(type) {
	case []any:
		if len(v) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(b, depth+1)
			writeIndentedValue(b, e, depth+1)
		}
		newline(b, depth)
		b.WriteByte(']')
	case ordered:
		v.writeIndented(b, depth)
	case *ordered:
		v.writeIndented(b, depth)
	case rawJSON:
		var compact bytes.Buffer
		writeValue(&compact, v)
		if err := json.Indent(b, compact.Bytes(), strings.Repeat("  ", depth), "  "); err != nil {
			panic("schema: rendered invalid JSON: " + err.Error())
		}
	default:
		writeValue(b, v)
	}
}

func writeValue(b *bytes.Buffer, v any) {
	switch v := v.(type) {
	case string:
		if plainString(v) { // most keys and descriptions: written as they are, quoted
			b.WriteByte('"')
			b.WriteString(v)
			b.WriteByte('"')
			return
		}
		// No HTML escaping (descriptions stay readable); backquotes are escaped so that the
		// schema fits in a raw string literal in generated code.
		var enc bytes.Buffer
		e := json.NewEncoder(&enc)
		e.SetEscapeHTML(false)
		e.Encode(v)
		b.Write(bytes.ReplaceAll(bytes.TrimSuffix(enc.Bytes(), []byte("\n")), []byte("`"), []byte(`\u0060`)))
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case *Number:
		b.WriteString(v.Text)
	case uint64:
		b.WriteString(strconv.FormatUint(v, 10))
	case rawJSON:
		b.WriteString(strings.ReplaceAll(string(v), "`", `\u0060`))
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			writeValue(b, e)
		}
		b.WriteByte(']')
	case ordered:
		v.write(b)
	case *ordered:
		v.write(b)
	default:
		panic(fmt.Sprintf("schema: cannot render %T", v))
	}
}

// node renders one use of a type. desc is the description from the use site (a field's doc
// comment); root is the object the schema document describes, if any.
func (r *renderer) node(t *Type, desc string, root *Object) *ordered {
	if t.Kind == Pointer || t.Kind == ThreeStates {
		inner := r.node(t.Elem, desc, root)
		if t.Nullable {
			return &ordered{{"oneOf", []any{inner, ordered{{"type", "null"}}}}}
		}
		return inner
	}
	if desc == "" {
		desc = t.Doc
	}
	if t.Rules.Description != "" {
		desc = t.Rules.Description
	}
	var o *ordered
	if t.Kind == Struct && (t.Object.Recursive && t.Object != root) {
		if !r.defs[t.Object] {
			r.defs[t.Object] = true
			r.order = append(r.order, t.Object)
		}
		o = &ordered{{"$ref", "#/$defs/" + t.Object.Name}}
		r.annotate(o, t, desc)
	} else if t.Kind == Struct {
		o = r.object(t.Object, desc)
		r.annotate(o, t, "")
	} else {
		o = r.value(t, desc)
	}
	if t.Nullable {
		return &ordered{{"oneOf", []any{o, ordered{{"type", "null"}}}}}
	}
	return o
}

// object renders a struct's properties.
func (r *renderer) object(s *Object, desc string) *ordered {
	o := &ordered{{"type", "object"}}
	if desc != "" {
		o.add("description", desc)
	}
	props := ordered{}
	var required []any
	for _, f := range s.Fields {
		props.add(f.Name, r.node(f.Type, f.Doc, nil))
		if f.Required {
			required = append(required, f.Name)
		}
	}
	o.add("properties", props)
	if len(required) > 0 {
		o.add("required", required)
	}
	switch {
	case s.Rest == nil:
		o.add("additionalProperties", false)
	case s.Rest.Type.Elem.Kind != Any && s.Rest.Type.Elem.Kind != RawJSON: // else any value, as if unsaid
		o.add("additionalProperties", r.node(s.Rest.Type.Elem, "", nil))
	}
	return o
}

// value renders everything but structs and pointers.
func (r *renderer) value(t *Type, desc string) *ordered {
	o := &ordered{}
	if t.Declared != "" {
		// The schema declared for a type that encodes itself, with the use site's rules on top.
		declared, err := parseOrdered(t.Declared)
		if err != nil {
			panic("schema: declared schema is not a JSON object: " + err.Error())
		}
		*o = declared
	} else if t.Quoted {
		o.add("type", "string") // the ",string" option: the value travels inside a string
	} else if name := jsonType[t.Kind]; name != "" {
		o.add("type", name)
	}
	if desc == "" && t.Kind == Duration {
		desc = `A duration such as "1h30m", "90s" or "250ms".`
	}
	if desc != "" {
		o.add("description", desc)
	}
	switch {
	case t.Quoted:
		o.add("pattern", quotedPattern[t.Kind])
	case t.Kind == Bytes:
		o.add("contentEncoding", "base64")
	case t.Kind == Slice || t.Kind == Array:
		o.add("items", r.node(t.Elem, "", nil))
	case t.Kind == Map:
		if t.Key.Kind != String {
			o.add("propertyNames", ordered{{"pattern", intKeyPattern[t.Key.Kind]}})
		}
		if t.Elem.Kind != Any && t.Elem.Kind != RawJSON {
			o.add("additionalProperties", r.node(t.Elem, "", nil))
		}
	}
	r.annotate(o, t, "")
	return o
}

// quotedPattern is what a ",string" value's text must look like: the JSON form of the value,
// as encoding/json reads it.
var quotedPattern = map[Kind]string{
	Int:    `^-?(0|[1-9][0-9]*)$`,
	Uint:   `^(0|[1-9][0-9]*)$`,
	Float:  `^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`,
	Bool:   `^(true|false)$`,
	String: `^"([^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"$`,
}

// intKeyPattern is what the keys of an integer-keyed map look like (strconv's syntax, which
// encoding/json parses them with).
var intKeyPattern = map[Kind]string{
	Int:  `^[+-]?[0-9]+$`,
	Uint: `^[0-9]+$`,
}

// jsonType is the JSON Schema type of each kind; Any has none.
var jsonType = map[Kind]string{
	String: "string", Bool: "boolean", Int: "integer", Uint: "integer", Float: "number",
	Bytes: "string", Slice: "array", Array: "array", Map: "object",
	Text: "string", Duration: "string", JSONNumber: "number",
}

// annotate adds the rules' keywords, in the order of the keyword table; the title goes
// first, where it reads best.
func (r *renderer) annotate(o *ordered, t *Type, desc string) {
	if desc != "" {
		o.add("description", desc)
	}
	for i := range keywords {
		k := &keywords[i]
		if k.get == nil {
			continue
		}
		v := k.get(&t.Rules)
		switch {
		case v == nil:
		case k.schema == "title":
			*o = append(ordered{{k.schema, v}}, *o...)
		default:
			o.add(k.schema, v)
		}
	}
	for _, x := range t.Rules.Extras {
		o.add(x.Key, x.Value)
	}
}

func values(vs []Value) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = rawJSON(v.JSON)
	}
	return out
}

// Description is the description a field's schema carries: its jsonschema tag's, else its
// doc comment, else its type's doc comment.
func Description(f *Field) string {
	t := f.Type.Deref()
	switch {
	case t.Rules.Description != "":
		return t.Rules.Description
	case f.Doc != "":
		return f.Doc
	}
	return t.Doc
}
