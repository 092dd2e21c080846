package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// JSON Schema (2020-12, and the draft-07 that many servers still write) made into Go types.
// The mapping, which the README's table documents:
//
//	type string                 string; with format date-time, time.Time
//	type string with enum       a named string type with a constant per value
//	type integer / number       int64 / float64
//	type boolean                bool
//	type array                  []T of items ([]json.RawMessage without items)
//	type object with properties a named struct; properties in the schema's order
//	type object, only additionalProperties: a schema   map[string]T
//	$ref to #/$defs/X (or #/definitions/X)            the named type of X, recursion included
//	anyOf/oneOf of T and null, type [T, "null"]       T, as a pointer
//	allOf of one schema         that schema
//	anything else (oneOf, anyOf, allOf of several, several types, no type, const of no
//	string, a free-form object) json.RawMessage
//
// Optional properties are pointers (scalars, structs, enums) or nil (slices, maps,
// json.RawMessage) and are left out of the JSON when unset; required ones are values.

type kind int

const (
	kString kind = iota
	kInt
	kFloat
	kBool
	kTime
	kRaw
	kSlice
	kMap
	kStruct
	kEnum
)

// goType is a Go type the generated package uses or declares.
type goType struct {
	kind   kind
	name   string    // kStruct, kEnum: the declared name
	elem   *goType   // kSlice, kMap
	fields []*field  // kStruct
	values []enumVal // kEnum
	doc    string    // kStruct, kEnum: from the schema's title and description
}

type enumVal struct{ name, value string }

// field is a property of an object.
type field struct {
	name, key string
	t         *goType
	optional  bool // not required: left out when unset
	nullable  bool // may be null
	recursive bool // a struct that contains itself: a pointer, required or not
	doc       string
}

// pointer says whether the field is *T: optional or nullable scalars, structs and enums.
func (f *field) pointer() bool {
	switch f.t.kind {
	case kSlice, kMap, kRaw:
		return false
	}
	return f.optional || f.nullable || f.recursive
}

// schema is the part of a JSON Schema the mapping reads.
type schema struct {
	Ref                  string                     `json:"$ref"`
	Type                 json.RawMessage            `json:"type"`
	Format               string                     `json:"format"`
	Title                string                     `json:"title"`
	Description          string                     `json:"description"`
	Enum                 []json.RawMessage          `json:"enum"`
	Const                json.RawMessage            `json:"const"`
	Default              json.RawMessage            `json:"default"`
	Properties           map[string]json.RawMessage `json:"properties"`
	Required             []string                   `json:"required"`
	Items                json.RawMessage            `json:"items"`
	AdditionalProperties json.RawMessage            `json:"additionalProperties"`
	OneOf                []json.RawMessage          `json:"oneOf"`
	AnyOf                []json.RawMessage          `json:"anyOf"`
	AllOf                []json.RawMessage          `json:"allOf"`

	order []string // the properties, in the order the schema wrote them
}

func parseSchema(raw json.RawMessage) (*schema, error) {
	var s schema
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "true" {
		return &s, nil
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	if len(s.Properties) > 0 {
		var holder struct {
			Properties json.RawMessage `json:"properties"`
		}
		json.Unmarshal(raw, &holder)
		s.order = objectKeys(holder.Properties)
	}
	return &s, nil
}

// ObjectKeys is the keys of the object member of raw (a JSON object), in the order they are
// written: the order of a schema's properties.
func ObjectKeys(raw json.RawMessage, member string) []string {
	var holder map[string]json.RawMessage
	if json.Unmarshal(raw, &holder) != nil {
		return nil
	}
	return objectKeys(holder[member])
}

// objectKeys is the keys of a JSON object in the order they are written.
func objectKeys(raw json.RawMessage) []string {
	d := json.NewDecoder(bytes.NewReader(raw))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var keys []string
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return keys
		}
		keys = append(keys, t.(string))
		var skip json.RawMessage
		if d.Decode(&skip) != nil {
			return keys
		}
	}
	return keys
}

// types is the schema's type keyword as a list, and whether it admits null.
func (s *schema) types() (types []string, null bool) {
	var one string
	if json.Unmarshal(s.Type, &one) == nil {
		types = []string{one}
	} else {
		json.Unmarshal(s.Type, &types)
	}
	if i := slices.Index(types, "null"); i >= 0 {
		return slices.Delete(slices.Clone(types), i, i+1), true
	}
	return types, false
}

// converter turns the schemas of one tool (or prompt) into types, declaring them in a
// package-wide scope of names.
type converter struct {
	pkg       *pkgTypes
	root      json.RawMessage // for $ref
	where     string          // "tool get_weather input", for fallbacks
	refs      map[string]*goType
	building  map[*goType]bool
	fallbacks *[]string
}

// pkgTypes is every type a generated package declares.
type pkgTypes struct {
	names namer
	decls []*goType
}

func newConverter(pkg *pkgTypes, root json.RawMessage, where string, fallbacks *[]string) *converter {
	return &converter{pkg: pkg, root: root, where: where, refs: map[string]*goType{}, building: map[*goType]bool{}, fallbacks: fallbacks}
}

// noArguments says whether a tool's input schema is an object of no properties: the tool
// takes no arguments, and its method no input.
func noArguments(raw json.RawMessage) bool {
	s, err := parseSchema(raw)
	if err != nil || s.Ref != "" || len(s.OneOf)+len(s.AnyOf)+len(s.AllOf) > 0 || len(s.Properties) > 0 {
		return false
	}
	ap := bytes.TrimSpace(s.AdditionalProperties)
	types, _ := s.types()
	return len(types) == 1 && types[0] == "object" && (len(ap) == 0 || ap[0] != '{')
}

func (p *pkgTypes) declare(t *goType, name string) *goType {
	t.name = p.names.unique(name)
	p.decls = append(p.decls, t)
	return t
}

func (c *converter) fallback(path, why string) *goType {
	*c.fallbacks = append(*c.fallbacks, fmt.Sprintf("%s %s: %s: json.RawMessage", c.where, orRoot(path), why))
	return &goType{kind: kRaw}
}

func orRoot(path string) string {
	if path == "" {
		return "/"
	}
	return path
}

// convert maps a schema to a type, naming what it declares after name; nullable says
// whether the value may be null.
func (c *converter) convert(raw json.RawMessage, name, path string) (t *goType, nullable bool) {
	s, err := parseSchema(raw)
	if err != nil {
		return c.fallback(path, "not a schema: "+err.Error()), false
	}
	if s.Ref != "" {
		return c.ref(s.Ref, path), false
	}
	alts := s.OneOf
	if len(alts) == 0 {
		alts = s.AnyOf
	}
	if len(alts) > 0 {
		var kept []json.RawMessage
		null := false
		for _, a := range alts {
			if as, err := parseSchema(a); err == nil && string(bytes.TrimSpace(as.Type)) == `"null"` {
				null = true
				continue
			}
			kept = append(kept, a)
		}
		if len(kept) == 1 {
			t, n := c.convert(kept[0], name, path)
			return t, n || null
		}
		return c.fallback(path, "oneOf/anyOf of several schemas"), null
	}
	if len(s.AllOf) == 1 {
		return c.convert(s.AllOf[0], name, path)
	}
	if len(s.AllOf) > 1 {
		return c.fallback(path, "allOf of several schemas"), false
	}
	types, null := s.types()
	if len(types) == 0 {
		switch {
		case len(s.Properties) > 0:
			types = []string{"object"}
		case len(s.Enum) > 0 && allStrings(s.Enum), isString(s.Const):
			types = []string{"string"}
		default:
			return c.fallback(path, "no type"), null
		}
	}
	if len(types) > 1 {
		return c.fallback(path, "several types ("+strings.Join(types, ", ")+")"), null
	}
	switch types[0] {
	case "string":
		switch {
		case len(s.Enum) > 0 && allStrings(s.Enum):
			return c.enum(s, name), null
		case s.Format == "date-time":
			return &goType{kind: kTime}, null
		}
		return &goType{kind: kString}, null
	case "integer":
		return &goType{kind: kInt}, null
	case "number":
		return &goType{kind: kFloat}, null
	case "boolean":
		return &goType{kind: kBool}, null
	case "array":
		if len(s.Items) == 0 || string(s.Items) == "true" {
			return &goType{kind: kSlice, elem: &goType{kind: kRaw}}, null
		}
		elem, elemNull := c.convert(s.Items, name+"Item", path+"/items")
		if elemNull && elem.kind != kRaw {
			elem = &goType{kind: kRaw} // []*T would do, but an array with nulls is rare enough to keep raw
			*c.fallbacks = append(*c.fallbacks, fmt.Sprintf("%s %s/items: items that may be null: json.RawMessage", c.where, path))
		}
		return &goType{kind: kSlice, elem: elem}, null
	case "object":
		if len(s.Properties) == 0 {
			ap := bytes.TrimSpace(s.AdditionalProperties)
			if len(ap) > 0 && ap[0] == '{' {
				elem, _ := c.convert(s.AdditionalProperties, name+"Value", path+"/additionalProperties")
				return &goType{kind: kMap, elem: elem}, null
			}
			return c.fallback(path, "an object of any properties"), null
		}
		t := c.pkg.declare(&goType{kind: kStruct, doc: docOf(s)}, name)
		c.fields(t, s, path)
		return t, null
	case "null":
		return c.fallback(path, "always null"), true
	}
	return c.fallback(path, "type "+types[0]), null
}

// fields fills a struct with the properties of s.
func (c *converter) fields(t *goType, s *schema, path string) {
	c.building[t] = true
	defer delete(c.building, t)
	names := namer{}
	for _, key := range s.order {
		fname := names.unique(exported(key))
		ft, null := c.convert(s.Properties[key], t.name+fname, path+"/properties/"+key)
		ps, _ := parseSchema(s.Properties[key])
		f := &field{name: fname, key: key, t: ft, nullable: null, optional: !slices.Contains(s.Required, key), recursive: c.building[ft]}
		if ps != nil {
			f.doc = fieldDoc(ps)
		}
		t.fields = append(t.fields, f)
	}
}

// ref resolves a $ref within the root schema.
func (c *converter) ref(ref, path string) *goType {
	if t, ok := c.refs[ref]; ok {
		return t
	}
	name, ok := strings.CutPrefix(ref, "#/$defs/")
	if !ok {
		name, ok = strings.CutPrefix(ref, "#/definitions/")
	}
	if !ok || strings.Contains(name, "/") {
		return c.fallback(path, "$ref "+ref+" outside #/$defs")
	}
	var root struct {
		Defs        map[string]json.RawMessage `json:"$defs"`
		Definitions map[string]json.RawMessage `json:"definitions"`
	}
	json.Unmarshal(c.root, &root)
	raw, found := root.Defs[name]
	if !found {
		raw, found = root.Definitions[name]
	}
	if !found {
		return c.fallback(path, "$ref "+ref+" names no definition")
	}
	s, err := parseSchema(raw)
	if err != nil {
		return c.fallback(path, "$ref "+ref+": "+err.Error())
	}
	if ts, _ := s.types(); (len(ts) == 1 && ts[0] == "object" || len(ts) == 0) && len(s.Properties) > 0 {
		// Declared before its fields are read, so that a recursive schema finds itself.
		t := c.pkg.declare(&goType{kind: kStruct, doc: docOf(s)}, exported(name))
		c.refs[ref] = t
		c.fields(t, s, "/$defs/"+name)
		return t
	}
	c.refs[ref] = &goType{kind: kRaw} // a cycle through a non-object stays raw
	t, _ := c.convert(raw, exported(name), "/$defs/"+name)
	c.refs[ref] = t
	return t
}

func (c *converter) enum(s *schema, name string) *goType {
	t := c.pkg.declare(&goType{kind: kEnum, doc: docOf(s)}, name)
	for _, raw := range s.Enum {
		var v string
		json.Unmarshal(raw, &v)
		t.values = append(t.values, enumVal{value: v})
	}
	return t
}

func allStrings(vals []json.RawMessage) bool {
	for _, v := range vals {
		if !isString(v) {
			return false
		}
	}
	return true
}

func isString(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && v[0] == '"'
}

// docOf is a declared type's comment: its title and description.
func docOf(s *schema) string {
	return strings.TrimSpace(strings.Join(nonEmpty(s.Title, s.Description), "\n\n"))
}

// fieldDoc is a field's comment: its description, its format and its default.
func fieldDoc(s *schema) string {
	desc := strings.TrimSpace(s.Description)
	if desc != "" && !strings.ContainsAny(desc[len(desc)-1:], ".!?:)") && (s.Format != "" && s.Format != "date-time" || len(s.Default) > 0) {
		desc += "." // a sentence before the format and the default
	}
	parts := nonEmpty(desc)
	if s.Format != "" && s.Format != "date-time" {
		parts = append(parts, "Format: "+s.Format+".")
	}
	if len(s.Enum) > 0 && !allStrings(s.Enum) {
		var vals []string
		for _, v := range s.Enum {
			vals = append(vals, string(compact(v)))
		}
		parts = append(parts, "One of: "+strings.Join(vals, ", ")+".")
	}
	if len(s.Default) > 0 {
		parts = append(parts, "Default: "+string(compact(s.Default))+".")
	}
	return strings.Join(parts, " ")
}

func compact(raw json.RawMessage) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// enumNames names the constants of the enum types, each prefixed by its type's name.
func (p *pkgTypes) enumNames() {
	for _, t := range p.decls {
		if t.kind != kEnum {
			continue
		}
		for i := range t.values {
			v := t.values[i].value
			suffix := exported(v)
			if v == "" {
				suffix = "Empty"
			}
			t.values[i].name = p.names.unique(t.name + suffix)
		}
	}
}
