package importer

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"
)

// Mapping is the JSON Schema to Go mapping of one package of types, for a generator other
// than mcpgen import: mcpgen openapi maps each operation's arguments and response with it.
// Its types are declared as for a server that mcpgen's generator reads: a field's validation
// keywords in its jsonschema tag, optional values that may be null pointers with the
// nullable keyword (not mcp.Nullable, which the generator does not read), unions as types
// with their own JSON form and a declared schema (//mcp:schema), unions of objects as a
// struct of a pointer per branch; a type has the encode and decode methods over jsonwire
// (lenient: a member it does not know is skipped) that code of the package calls to talk to
// the API.
type Mapping struct {
	pkg       *pkgTypes
	conv      *converter
	fallbacks []string
	tools     []*tool
	finished  bool
}

// MappedTool is one tool's types.
type MappedTool struct {
	m *Mapping
	t *tool
}

// NewMapping maps schemas whose $refs are resolved in root; reserved are names the package
// declares besides the types.
func NewMapping(root json.RawMessage, reserved []string) *Mapping {
	m := &Mapping{pkg: &pkgTypes{names: namer{}}}
	for _, r := range reserved {
		m.pkg.names[r] = true
	}
	m.conv = newConverter(m.pkg, root, "", &m.fallbacks)
	m.conv.rules = true
	return m
}

// Add maps a tool's input (an object schema, at inPath in the root; nil for none) and
// output (nil for none). method is the tool's Go name: its input struct is method+"Input".
func (m *Mapping) Add(name, method string, in json.RawMessage, inPath string, out json.RawMessage, outPath string) *MappedTool {
	t := &tool{Tool: Tool{Name: name}, method: method}
	if in != nil {
		m.conv.where = "operation " + name + " arguments"
		t.in, _ = m.conv.convert(in, inPath)
		if t.in.kind == kStruct {
			t.in.input = method + "Input"
		}
	}
	if out != nil {
		m.conv.where = "operation " + name + " response"
		t.out, _ = m.conv.convert(out, outPath)
	}
	m.tools = append(m.tools, t)
	return &MappedTool{m: m, t: t}
}

// Finish merges the types of one shape and names them; call it once, after Add.
func (m *Mapping) Finish() {
	m.pkg.finish(m.tools)
	for _, t := range m.pkg.decls {
		if t.kind == kIface {
			t.kind = kOneOf
		}
	}
	m.finished = true
}

// Fallbacks are the schemas left as json.RawMessage, and why.
func (m *Mapping) Fallbacks() []string { return m.fallbacks }

// Declare writes the package's types, with their codecs, and the helpers they call.
func (m *Mapping) Declare(f *jen.File) {
	e := &emitter{file: f, pkg: m.pkg, openapi: true, codecs: m.codecs()}
	for _, t := range m.pkg.decls {
		e.decl(t)
	}
	f.Comment("decodeJSON decodes one JSON value with decode, and says what was wrong with it.")
	f.Func().Id("decodeJSON").Params(jen.Id("data").Index().Byte(), jen.Id("decode").Func().Params(jen.Op("*").Qual(jsonwirePkg, "Decoder"))).Error().Block(
		jen.Id("d").Op(":=").Qual(jsonwirePkg, "NewDecoder").Call(jen.Id("data")),
		jen.Id("decode").Call(jen.Id("d")),
		jen.Id("d").Dot("Finish").Call(),
		jen.If(jen.Id("d").Dot("Failed").Call()).Block(jen.Return(jen.Qual("errors", "New").Call(jen.Id("d").Dot("Summary").Call()))),
		jen.Return(jen.Nil()),
	)
}

// codecs says which codecs a struct needs: encode what the client sends (the types within
// a tool's arguments: the input struct itself is encoded by the methods EncodeFields and
// EncodeField write), decode what it reads (the responses). A union's own JSON form, which
// mcpgen's generator calls to decode arguments and encode results, needs both, and so does
// everything within it. The package of GitHub's operations has 254 encode and 804 decode
// methods for its 2,281 structs, each of which had both.
func (m *Mapping) codecs() map[*goType]codecs {
	need := map[*goType]codecs{}
	for _, t := range m.pkg.decls {
		need[t] = codecs{}
	}
	var mark func(t *goType, want codecs)
	mark = func(t *goType, want codecs) {
		if t == nil {
			return
		}
		if t.kind == kUnion || t.kind == kOneOf || t.kind == kIface {
			want = codecs{encode: true, decode: true}
		}
		had := need[t]
		now := codecs{encode: had.encode || want.encode, decode: had.decode || want.decode}
		if now == had && t.kind != kSlice && t.kind != kMap { // undeclared kinds are not kept
			return
		}
		need[t] = now
		mark(t.elem, want)
		mark(t.extra, want)
		for _, f := range t.fields {
			mark(f.t, want)
		}
		for _, mb := range t.members {
			mark(mb.t, want)
		}
		for _, b := range t.branches {
			mark(b.t, want)
		}
	}
	for _, t := range m.tools {
		if t.in != nil {
			for _, f := range t.in.fields {
				mark(f.t, codecs{encode: true})
			}
		}
		switch {
		case t.out == nil:
		case t.outKey == "":
			mark(t.out, codecs{decode: true})
		default:
			for _, f := range t.out.fields {
				if f.key == t.outKey {
					mark(f.t, codecs{decode: true})
				}
			}
		}
	}
	return need
}

// codecs are the methods of a struct's JSON form.
type codecs struct{ encode, decode bool }

// InputName is the Go name of the tool's input struct, "" when it has none.
func (mt *MappedTool) InputName() string {
	if mt.t.in == nil || mt.t.in.kind != kStruct {
		return ""
	}
	return mt.t.in.name
}

// Field is a property of a tool's input or output struct, as Go has it.
type Field struct {
	Name     string // the Go field
	Key      string // the property
	Kind     string // string, int, float, bool, time, enum, raw, slice, map, struct, union
	Elem     string // a slice's or map's elements: their Kind
	Pointer  bool   // the field is *T
	Nullable bool   // the field is mcp.Nullable[T]: left out, null or a value
	Optional bool
}

// InputField is the field of the tool's input struct for a property, nil when there is none
// (a property of one value has no field: its value is always that).
func (mt *MappedTool) InputField(key string) *Field {
	return fieldOf(mt.t.in, key)
}

// OutputField is the field of the tool's output struct for a property.
func (mt *MappedTool) OutputField(key string) *Field {
	return fieldOf(mt.t.out, key)
}

func fieldOf(t *goType, key string) *Field {
	if t == nil || t.kind != kStruct {
		return nil
	}
	for _, f := range t.fields {
		if f.key == key && !f.fixed {
			out := &Field{Name: f.name, Key: f.key, Kind: kindName(f.t), Pointer: f.pointer(), Nullable: f.threeStates(), Optional: f.optional}
			if f.t.elem != nil {
				out.Elem = kindName(f.t.elem)
			}
			return out
		}
	}
	return nil
}

func kindName(t *goType) string {
	return map[kind]string{kString: "string", kInt: "int", kFloat: "float", kBool: "bool", kTime: "time", kRaw: "raw", kBytes: "bytes",
		kSlice: "slice", kMap: "map", kStruct: "struct", kEnum: "enum", kUnion: "union", kIface: "union", kOneOf: "union"}[t.kind]
}

// Output is the Go type of the tool's output (nil when it has none) and whether it is a
// struct of the package, whose pointer the tool returns.
func (mt *MappedTool) Output() (typ jen.Code, isStruct bool) {
	if mt.t.out == nil {
		return nil, false
	}
	return goTypeOf(mt.t.out), mt.t.out.kind == kStruct
}

// OutputRaw says why the tool's output is json.RawMessage, "" when it is not.
func (mt *MappedTool) OutputRaw() string {
	if mt.t.out == nil || mt.t.out.kind != kRaw {
		return ""
	}
	return cmpOr(mt.t.out.why, "no type")
}

// EncodeFields writes a method of the input struct that encodes the named properties (in
// that order) as one JSON object: a request body of some of the tool's arguments.
func (mt *MappedTool) EncodeFields(f *jen.File, method string, keys []string) {
	var body []jen.Code
	body = append(body, jen.Id("e").Dot("ObjectStart").Call())
	for _, k := range keys {
		for _, fl := range mt.t.in.fields {
			if fl.key == k {
				body = append(body, encodeField(fl)...)
			}
		}
	}
	body = append(body, jen.Id("e").Dot("ObjectEnd").Call())
	f.Func().Params(jen.Id("v").Op("*").Id(mt.t.in.name)).Id(method).Params(jen.Id("e").Op("*").Qual(jsonwirePkg, "Encoder")).Block(body...)
}

// EncodeField writes a method of the input struct that encodes one property's value (a
// request body that is not an object of properties), null when it is unset.
func (mt *MappedTool) EncodeField(f *jen.File, method, key string) {
	var body []jen.Code
	for _, fl := range mt.t.in.fields {
		if fl.key != key {
			continue
		}
		sel := jen.Id("v").Dot(fl.name)
		switch {
		case fl.pointer():
			body = append(body, jen.If(sel.Clone().Op("==").Nil()).Block(jen.Id("e").Dot("Null").Call(), jen.Return()))
			body = append(body, encodeValue(jen.Op("*").Add(sel.Clone()), fl.t, 0)...)
		case fl.t.kind.nilable():
			body = append(body, jen.If(sel.Clone().Op("==").Nil()).Block(jen.Id("e").Dot("Null").Call(), jen.Return()))
			body = append(body, encodeValue(sel.Clone(), fl.t, 0)...)
		default:
			body = append(body, encodeValue(sel.Clone(), fl.t, 0)...)
		}
	}
	f.Func().Params(jen.Id("v").Op("*").Id(mt.t.in.name)).Id(method).Params(jen.Id("e").Op("*").Qual(jsonwirePkg, "Encoder")).Block(body...)
}

// DecodesInto says that the response is decoded into property key of the output struct (a
// response that is not an object, held by the property), not into the struct itself: call it
// before Declare, so that the struct has no decoder of its own.
func (mt *MappedTool) DecodesInto(key string) { mt.t.outKey = key }

// DecodeOutput writes a function that decodes the tool's output from the API's JSON, into
// the output struct (decodeWhole) or, when key is not "", into that property of it (a
// response that is not an object, held by the property; see DecodesInto).
func (mt *MappedTool) DecodeOutput(f *jen.File, name, key string) {
	out := mt.t.out
	v := jen.Id("v")
	var body []jen.Code
	if key == "" {
		body = decodeValue(jen.Op("*").Add(v.Clone()), out, 0)
	} else {
		for _, fl := range out.fields {
			if fl.key == key {
				body = decodeField(fl)
			}
		}
	}
	f.Func().Id(name).Params(jen.Id("d").Op("*").Qual(jsonwirePkg, "Decoder"), v.Clone().Op("*").Add(goTypeOf(out))).Block(body...)
}

// declaredSchema is the schema mcpgen's generator gives a union type (//mcp:schema): the
// schema of what it decodes, objects to a depth, then any object.
func declaredSchema(t *goType) string {
	b, err := json.Marshal(schemaOf(t, 0, map[*goType]bool{}))
	if err != nil {
		panic(fmt.Sprintf("importer: schema of %s: %v", t.name, err))
	}
	return string(b)
}

// orderedObject is a JSON object whose members are written in order.
type orderedObject []member2

type member2 struct {
	k string
	v any
}

func (o orderedObject) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.k)
		v, err := json.Marshal(m.v)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

func schemaOf(t *goType, depth int, open map[*goType]bool) any {
	switch t.kind {
	case kString:
		return orderedObject{{"type", "string"}}
	case kInt:
		return orderedObject{{"type", "integer"}}
	case kFloat:
		return orderedObject{{"type", "number"}}
	case kBool:
		return orderedObject{{"type", "boolean"}}
	case kTime:
		return orderedObject{{"type", "string"}, {"format", "date-time"}}
	case kBytes:
		return orderedObject{{"type", "string"}, {"contentEncoding", "base64"}}
	case kRaw:
		if t.rawKind != "" {
			return orderedObject{{"type", t.rawKind}}
		}
		return orderedObject{}
	case kEnum:
		var vals []string
		for _, v := range t.values {
			vals = append(vals, v.value)
		}
		return orderedObject{{"type", "string"}, {"enum", vals}}
	case kSlice:
		return orderedObject{{"type", "array"}, {"items", elemSchema(t, depth, open)}}
	case kMap:
		return orderedObject{{"type", "object"}, {"additionalProperties", elemSchema(t, depth, open)}}
	}
	if open[t] || depth > 3 {
		return orderedObject{{"type", "object"}}
	}
	open[t] = true
	defer delete(open, t)
	switch t.kind {
	case kStruct:
		props := orderedObject{}
		var required []string
		for _, f := range t.fields {
			var s any
			if f.fixed {
				s = orderedObject{{"const", f.value}}
			} else {
				s = schemaOf(f.t, depth+1, open)
				if f.nullable {
					s = orderedObject{{"anyOf", []any{s, orderedObject{{"type", "null"}}}}}
				}
			}
			props = append(props, member2{f.key, s})
			if !f.optional {
				required = append(required, f.key)
			}
		}
		o := orderedObject{{"type", "object"}, {"properties", props}}
		if len(required) > 0 {
			o = append(o, member2{"required", required})
		}
		if t.extra != nil {
			o = append(o, member2{"additionalProperties", elemSchema(t.extraMap(), depth, open)})
		}
		return o
	case kUnion:
		var alts []any
		for _, m := range t.members {
			alts = append(alts, schemaOf(m.t, depth, open))
		}
		return orderedObject{{"anyOf", alts}}
	case kOneOf, kIface:
		var alts []any
		for _, b := range t.branches {
			alts = append(alts, schemaOf(b.t, depth, open))
		}
		return orderedObject{{"oneOf", alts}}
	}
	return orderedObject{}
}

func elemSchema(t *goType, depth int, open map[*goType]bool) any {
	s := schemaOf(t.elem, depth+1, open)
	if t.nullElem {
		return orderedObject{{"anyOf", []any{s, orderedObject{{"type", "null"}}}}}
	}
	return s
}

// GoName is the exported Go identifier a name makes: get_weather, get-weather and
// getWeather all make GetWeather; initialisms stay in capitals (UserID).
func GoName(name string) string { return exported(name) }
