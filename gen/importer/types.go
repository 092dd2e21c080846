package importer

// The Go types a generated package uses or declares, as the mapping of schemas makes them.

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
	kUnion // a struct of one pointer per JSON kind: a union of distinct JSON types
	kIface // an interface of one struct per branch: a union of objects
	// kOneOf is a union of objects as a struct of a pointer per branch, the one set chosen
	// as a kIface's is: a kIface becomes one in a Mapping, whose types mcpgen's generator
	// reads (it takes no interface fields).
	kOneOf
	// kBytes is a string of base64 ("contentEncoding": "base64") as []byte, in a Mapping: a
	// file of a multipart form, which mcpgen's generator reads and checks as base64.
	kBytes
)

// declared says whether the kind is a type the package declares.
func (k kind) declared() bool {
	return k == kStruct || k == kEnum || k == kUnion || k == kIface || k == kOneOf
}

// nilable says whether a value of the kind is nil when unset, so that it needs no pointer to
// be optional or null.
func (k kind) nilable() bool {
	return k == kSlice || k == kMap || k == kRaw || k == kIface || k == kBytes
}

// goType is a Go type the generated package uses or declares.
type goType struct {
	kind      kind
	name      string    // declared kinds: the name, given once the package's types are known
	elem      *goType   // kSlice, kMap
	nullElem  bool      // kSlice, kMap: an element may be null: *T, or a nil T of a nilable kind
	fields    []*field  // kStruct
	extra     *goType   // kStruct: the type of the members besides its properties (additionalProperties), or nil
	extraName string    // kStruct: the field of those members
	extraNull bool      // kStruct: those members may be null
	values    []enumVal // kEnum
	members   []*member // kUnion
	branches  []*branch // kIface
	tag       string    // kIface: the property that tells the branches apart; "" when the required properties do
	doc       string    // declared kinds: from the schema's title and description
	title     string    // declared kinds: the schema's title, a name for it
	rawKind   string    // kRaw: the JSON type the value has when the schema says ("object"), else ""
	why       string    // kRaw: why the schema fell back to it, for the field's comment; "" when it did not
	defs      []string  // declared kinds: the definitions ($defs/X) it is the type of, in the order met
	input     string    // a tool's input struct: its name (it is the tool's own, never shared)
	seq       int       // declared kinds: the order of creation, for determinism
}

type enumVal struct{ name, value string }

// extraMap is the type of a kStruct's field of the members besides its properties.
func (t *goType) extraMap() *goType {
	return &goType{kind: kMap, elem: t.extra, nullElem: t.extraNull}
}

// elemPointer says whether the elements of a kSlice or kMap are *T: they may be null and
// their type has no nil of its own (a nil slice, map or interface is null).
func (t *goType) elemPointer() bool {
	return t.nullElem && !t.elem.kind.nilable()
}

// field is a property of an object.
type field struct {
	name, key string
	t         *goType
	optional  bool // not required: left out when unset
	nullable  bool // may be null
	recursive bool // a struct that contains itself: a pointer, required or not
	fixed     bool // a required property of one allowed string (value): no Go field, always written
	value     string
	doc       string
	rules     string // a Mapping's: the jsonschema tag of its validation keywords
}

// pointer says whether the field is *T: optional or nullable scalars, structs, enums and unions
// of JSON types, but not both optional and nullable.
func (f *field) pointer() bool {
	if f.t.kind.nilable() || f.threeStates() {
		return false
	}
	return f.optional || f.nullable || f.recursive
}

// threeStates says whether the field is an mcp.Nullable[T]: optional and nullable, so that
// it may be left out, null or a value, which nil alone cannot tell apart (GitHub's
// "milestone": null removes the milestone; no "milestone" keeps it). json.RawMessage holds
// null itself.
func (f *field) threeStates() bool {
	return f.optional && f.nullable && !f.fixed && f.t.kind != kRaw
}

// member is one JSON type of a kUnion: a field of the union's struct.
type member struct {
	json string // "string", "integer", "number", "boolean", "object", "array"
	name string // String, Integer...
	t    *goType
	doc  string
}

// memberNames are the kUnion's fields, by JSON type, in the order the codec tries them.
var memberNames = map[string]string{"string": "String", "integer": "Integer", "number": "Number", "boolean": "Boolean", "object": "Object", "array": "Array"}

// branch is one object type of a kIface.
type branch struct {
	t        *goType
	values   []string // the values of the tag property that choose it
	required []string // without a tag: the properties whose presence chooses it
	hint     string   // a name for its type when inline: its title, tag value or property
}

// fallbackDoc says why a field or member of type t, or its elements, are json.RawMessage when
// the schema fell back to it: the reason mcpgen import -v lists, in the comment of the field.
func fallbackDoc(t *goType) string {
	what := "Left"
	for t.kind == kSlice || t.kind == kMap {
		what = map[kind]string{kSlice: "Its elements are left", kMap: "Its values are left"}[t.kind]
		t = t.elem
	}
	if t.kind != kRaw || t.why == "" {
		return ""
	}
	return what + " as json.RawMessage: " + t.why + "."
}

// jsonKind is the JSON type a Go type's values have, "" when several or any.
func jsonKind(t *goType) string {
	switch t.kind {
	case kString, kEnum, kTime, kBytes:
		return "string"
	case kInt:
		return "integer"
	case kFloat:
		return "number"
	case kBool:
		return "boolean"
	case kSlice:
		return "array"
	case kMap, kStruct, kIface, kOneOf:
		return "object"
	case kRaw:
		return t.rawKind
	}
	return ""
}
