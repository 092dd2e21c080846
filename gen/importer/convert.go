package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// JSON Schema (2020-12, and the draft-07 that many servers still write) made into Go types.
// The mapping, which the table in docs/typed-clients.md documents:
//
//	type string                 string; with format date-time, time.Time; with contentEncoding
//	                            base64, in a Mapping, []byte
//	type string with enum       a named string type with a constant per value (of one value:
//	                            string)
//	type integer / number       int64 / float64
//	type boolean                bool
//	type array                  []T of items ([]json.RawMessage without items); []*T when an
//	                            item may be null (a map's values likewise)
//	type object with properties a named struct; properties in the schema's order; a required
//	                            property of one allowed string is written, not a field
//	type object, only additionalProperties: a schema   map[string]T
//	properties and additionalProperties: a schema      the struct, with a map of the others
//	$ref to a JSON Pointer within the schema            the type of the schema there, recursion included
//	anyOf/oneOf of T and null, type [T, "null"], "nullable": true   T, as a pointer
//	anyOf/oneOf of distinct JSON types, a type list   a struct of a pointer per type (unions.go)
//	anyOf/oneOf of objects told apart by a discriminator, a property's values or their
//	required properties         an interface, with a struct per branch (unions.go)
//	properties beside anyOf/oneOf   the union, each object branch with the properties too
//	items beside anyOf/oneOf    the union, each array branch with the items too: of one
//	                            array and null, a nullable []T
//	allOf of objects            one struct of all their properties (allof.go)
//	allOf of one schema, of scalars   that schema, the narrowest
//	oneOf/anyOf/allOf that only constrain (no type, properties...)   what the rest of the schema makes
//	anything else (allOf of objects and other types, objects nothing tells apart, no type,
//	a free-form object) json.RawMessage
//
// Optional properties are pointers (scalars, structs, enums, unions of JSON types) or nil
// (slices, maps, interfaces, json.RawMessage) and are left out of the JSON when unset; an
// optional property that may be null is an mcp.Nullable[T] (left out, null or a value);
// required ones are values; readOnly and writeOnly properties are optional.

// converter turns the schemas of one tool's input or output into types, which the package
// then merges by shape and names (shapes.go).
type converter struct {
	pkg       *pkgTypes
	root      json.RawMessage // for $ref
	where     string          // "tool get_weather input", for fallbacks
	refs      map[string]refType
	resolving map[string]bool // pointers being converted for a $ref: a cycle that meets no object
	fallbacks *[]string
	rules     bool // read the validation keywords of properties (field.rules); base64 strings are []byte
}

// refType is the type of the schema at a pointer.
type refType struct {
	t    *goType
	null bool
}

// pkgTypes is every type a generated package declares.
type pkgTypes struct {
	names namer
	made  []*goType // every declared type, in the order made
	decls []*goType // after finish: the types the package declares, in order
}

func newConverter(pkg *pkgTypes, root json.RawMessage, where string, fallbacks *[]string) *converter {
	return &converter{pkg: pkg, root: root, where: where, refs: map[string]refType{}, resolving: map[string]bool{}, fallbacks: fallbacks}
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

// declare records a type the package declares.
func (p *pkgTypes) declare(t *goType) *goType {
	t.seq = len(p.made)
	p.made = append(p.made, t)
	return t
}

func (c *converter) fallback(path, why string) *goType {
	*c.fallbacks = append(*c.fallbacks, fmt.Sprintf("%s %s: %s: json.RawMessage", c.where, orRoot(path), why))
	return &goType{kind: kRaw, why: why}
}

func orRoot(path string) string {
	if path == "" {
		return "/"
	}
	return path
}

// convert maps the schema at path (a JSON Pointer from the root, without its #) to a type;
// nullable says whether the value may be null.
func (c *converter) convert(raw json.RawMessage, path string) (t *goType, nullable bool) {
	s, err := parseSchema(raw)
	if err != nil {
		return c.fallback(path, "not a schema: "+err.Error()), false
	}
	if s.Ref != "" {
		t, n := c.ref(s.Ref, path)
		_, null := s.types() // {"$ref": ..., "nullable": true}
		return t, n || null
	}
	if allShapeless(s.AllOf) {
		s.AllOf = nil
	}
	if allShapeless(s.OneOf) {
		s.OneOf = nil
	}
	if allShapeless(s.AnyOf) {
		s.AnyOf = nil
	}
	alts, word := s.OneOf, "oneOf"
	switch {
	case len(s.OneOf) > 0 && len(s.AnyOf) > 0:
		return c.fallback(path, "oneOf and anyOf together"), false
	case len(s.AnyOf) > 0:
		alts, word = s.AnyOf, "anyOf"
	}
	switch {
	case len(alts) > 0 && len(s.AllOf) > 0:
		return c.fallback(path, "allOf beside oneOf or anyOf"), false
	case len(s.AllOf) > 0:
		merged, at, null, why := mergeAllOf(c.root, raw, path)
		if why != "" {
			return c.fallback(path, why), null
		}
		t, n := c.convert(merged, at)
		return t, n || null
	}
	if len(alts) > 0 {
		var paths []string
		for i := range alts {
			paths = append(paths, fmt.Sprintf("%s/%s/%d", path, word, i))
		}
		var shared json.RawMessage
		if len(s.Properties) > 0 || len(s.Items) > 0 {
			shared = sharedPart(raw) // shared properties or items, and variants: each variant of their type has them
		}
		t, n := c.union(s, alts, shared, paths, path, true)
		_, null := s.types() // {"type": ["string", "integer", "null"], "oneOf": [...]}
		return t, n || null
	}
	types, null := s.types()
	if null {
		s.Enum = slices.DeleteFunc(slices.Clone(s.Enum), func(v json.RawMessage) bool { return string(bytes.TrimSpace(v)) == "null" })
	}
	if len(types) == 0 {
		switch {
		case len(s.Properties) > 0:
			types = []string{"object"}
		case len(s.Enum) > 0 && allStrings(s.Enum), isString(s.Const):
			types = []string{"string"}
		default:
			if _, listedNull := s.typeList(); listedNull {
				return c.fallback(path, "always null"), true
			}
			return c.fallback(path, "no type"), null
		}
	}
	if len(types) > 1 {
		var paths []string
		for i := range types {
			paths = append(paths, fmt.Sprintf("%s/type/%d", path, i))
		}
		t, n := c.union(s, splitTypes(raw, types), nil, paths, path, false)
		return t, n || null
	}
	switch types[0] {
	case "string":
		switch {
		case len(s.Enum) > 1 && allStrings(s.Enum):
			return c.enum(s), null
		case s.Format == "date-time":
			return &goType{kind: kTime}, null
		case s.ContentEncoding == "base64" && c.rules:
			return &goType{kind: kBytes}, null
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
		elem, elemNull := c.convert(s.Items, path+"/items")
		return &goType{kind: kSlice, elem: elem, nullElem: elemNull && elem.kind != kRaw}, null
	case "object":
		if len(s.Properties) == 0 {
			ap := bytes.TrimSpace(s.AdditionalProperties)
			if len(ap) > 0 && ap[0] == '{' {
				elem, elemNull := c.convert(s.AdditionalProperties, path+"/additionalProperties")
				return &goType{kind: kMap, elem: elem, nullElem: elemNull && elem.kind != kRaw}, null
			}
			t := c.fallback(path, "an object of any properties")
			t.rawKind = "object"
			return t, null
		}
		t := c.pkg.declare(&goType{kind: kStruct, doc: docOf(s), title: s.Title})
		// Known before its fields are read, so that a $ref to it (from within: a recursive
		// schema) finds it.
		if key := "#" + path; c.refs[key].t == nil {
			c.refs[key] = refType{t: t, null: null}
		}
		names := c.fields(t, s, path)
		if ap := bytes.TrimSpace(s.AdditionalProperties); len(ap) > 0 && ap[0] == '{' {
			// Members besides the properties, of a schema: kept in a map beside them.
			var null bool
			t.extra, null = c.convert(s.AdditionalProperties, path+"/additionalProperties")
			t.extraNull = null && t.extra.kind != kRaw
			t.extraName = names.unique("AdditionalProperties")
		}
		return t, null
	case "null":
		return c.fallback(path, "always null"), true
	}
	return c.fallback(path, "type "+types[0]), null
}

// fields fills a struct with the properties of s, and returns the names its fields took.
func (c *converter) fields(t *goType, s *schema, path string) namer {
	names := namer{}
	for _, key := range s.order {
		raw := s.Properties[key]
		f := &field{key: key, optional: !s.required(key)}
		if ps, err := parseSchema(raw); err == nil {
			f.doc = fieldDoc(ps)
			if v, ok := fixedValue(ps); ok && !f.optional {
				f.fixed, f.value = true, v
				t.fields = append(t.fields, f)
				continue
			}
		}
		f.name = names.unique(exported(key))
		f.t, f.nullable = c.convert(raw, path+"/properties/"+escapeToken(key))
		if c.rules {
			f.rules = c.tagRules(raw, f.t, f.optional)
		}
		t.fields = append(t.fields, f)
	}
	return names
}

// ref resolves a $ref: a JSON Pointer within the root schema.
func (c *converter) ref(ref, path string) (*goType, bool) {
	tokens, err := pointerTokens(ref)
	if err != nil {
		return c.fallback(path, "$ref "+ref+": "+err.Error()), false
	}
	key := pointerOf(tokens)
	if r, ok := c.refs[key]; ok {
		return r.t, r.null
	}
	if c.resolving[key] {
		return c.fallback(path, "$ref "+ref+": a cycle of references that meets no object"), false
	}
	raw, err := resolvePointer(c.root, tokens)
	if err != nil {
		return c.fallback(path, "$ref "+ref+": "+err.Error()), false
	}
	c.resolving[key] = true
	t, null := c.convert(raw, strings.TrimPrefix(key, "#"))
	delete(c.resolving, key)
	if name := defName(tokens); name != "" && t.kind.declared() && !slices.Contains(t.defs, name) {
		t.defs = append(t.defs, name)
	}
	c.refs[key] = refType{t: t, null: null}
	return t, null
}

func (c *converter) enum(s *schema) *goType {
	t := c.pkg.declare(&goType{kind: kEnum, doc: docOf(s), title: s.Title})
	for _, raw := range s.Enum {
		var v string
		json.Unmarshal(raw, &v)
		if !slices.ContainsFunc(t.values, func(e enumVal) bool { return e.value == v }) {
			t.values = append(t.values, enumVal{value: v})
		}
	}
	return t
}
