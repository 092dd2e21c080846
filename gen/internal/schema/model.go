// Package schema derives, from Go types, how their values look in JSON: the shape, the
// property names encoding/json uses, and the constraints their jsonschema tags declare.
//
// The result, a tree of *Type, is the single source of truth for two outputs that must
// agree: the JSON Schema a client reads (Render) and the decoding and validation code mcpgen
// generates. Named struct types are shared between uses (a recursive type refers back to
// itself); every other node belongs to one use site, so that tags on one field never leak
// into another.
package schema

import (
	"go/token"
	"go/types"
	"math/big"
	"strconv"
)

// Kind is the JSON shape of a Go type.
type Kind uint8

// The shapes.
const (
	String     Kind = iota + 1
	Bool            // JSON boolean
	Int             // signed integer of Bits bits
	Uint            // unsigned integer of Bits bits
	Float           // float of Bits bits
	Bytes           // []byte, a base64 string
	Struct          // object with the properties of a Go struct
	Map             // object with arbitrary string keys
	Slice           // array of any length
	Array           // array of exactly Len elements
	Pointer         // optional (or, with the nullable tag, null) Elem
	Any             // any JSON value (interface{})
	Text            // a type with its own text form (encoding.TextMarshaler): a JSON string
	Custom          // a type with its own JSON form (json.Marshaler), with a declared schema
	Duration        // time.Duration: a string in time.ParseDuration syntax ("1h30m")
	RawJSON         // json.RawMessage: any JSON value, kept as its text
	JSONNumber      // json.Number: a JSON number, kept as its text
	// ThreeStates is the runtime's mcp.Nullable[T]: left out, null or an Elem (where a
	// pointer has two states: an optional argument a model may clear with null). Its rules
	// are Elem's.
	ThreeStates
)

// Type is one use of a Go type: its JSON shape plus the rules that apply at this site.
type Type struct {
	Kind     Kind
	Go       types.Type // the Go type as written at this site
	Bits     int        // Int, Uint, Float
	Elem     *Type      // Slice, Array, Map (values), Pointer
	Key      *Type      // Map: String, Int or Uint
	Len      int64      // Array
	Object   *Object    // Struct; shared by every use of the same struct type
	Rules    Rules
	Nullable bool   // null is accepted and stands for the zero value (nil for pointers)
	Quoted   bool   // the ",string" json option: the value travels inside a JSON string
	Doc      string // the doc comment of the named type, used when the field has none
	// EnumTitles are display titles of the values of an enum taken from a type's constants,
	// one for each value of Rules.Enum, from the constants' comments (when all have one).
	// Elicitation forms show them to the user.
	EnumTitles []string

	// Text and Custom types decode and encode themselves, through methods that may exist
	// for one direction only.
	CanDecode, CanEncode bool
	// Declared is the schema of a Custom type, declared by //mcp:schema on the type or by
	// a type= tag on the field: raw JSON, or "" if undeclared.
	Declared string

	enumFromConsts bool // Rules.Enum came from the type's constants, not from a tag
}

// Object is a Go struct type as encoding/json sees it: its visible fields, in order.
type Object struct {
	Go     types.Type // a *types.Named (or alias) or a *types.Struct literal
	Doc    string
	Fields []*Field
	// Rest holds the members besides the properties (the JSON Schema's
	// additionalProperties): a field map[string]V tagged json:"-" mcp:"additionalProperties";
	// nil when the struct has none, and then other members are refused.
	Rest      *Field
	Name      string // set by Prepare: unique in one generated file, usable in identifiers
	Recursive bool   // set by Prepare: on a cycle, so rendered once under $defs and referenced
}

// Members are the struct's fields and its Rest, for walks over the types it uses.
func (o *Object) Members() []*Field {
	if o.Rest == nil {
		return o.Fields
	}
	return append(o.Fields[:len(o.Fields):len(o.Fields)], o.Rest)
}

// Field is one property of a struct.
type Field struct {
	Path     []Step // the Go selectors from the struct to the field (more than one when embedded)
	Name     string // the JSON property name
	Type     *Type
	Required bool // must be present in input; always present in output
	OmitOut  Omit // when the encoder leaves the property out
	Doc      string
	Pos      token.Pos
	// Header is the name of the HTTP header that clients mirror the property into (the
	// x-mcp-header keyword of revision 2026-07-28), from the field's mcp:"header=..." tag
	// or its jsonschema_extras:"x-mcp-header=...". HeaderPos is where the name is written;
	// it is valid whenever the field asks for a header, even with an invalid name.
	Header    string
	HeaderPos token.Pos
}

// Step is one selector on the way to a field. Pointer is set when the selected field is an
// embedded pointer, which decoding must allocate and encoding must check for nil. Hidden is
// set for an embedded field that generated code cannot name (an unexported struct type of
// another package): its fields are selected as promoted fields instead, as if it were not
// on the path.
type Step struct {
	Name    string
	Pointer bool
	PtrTo   types.Type // the pointed-to type, when Pointer
	Hidden  bool

	v *types.Var
}

// Omit says when an output property is left out.
type Omit uint8

const (
	OmitNever Omit = iota
	OmitEmpty      // ,omitempty: false, 0, "", nil, and empty slices and maps
	OmitZero       // ,omitzero: the zero value (or IsZero() true)
	OmitNil        // a nil pointer without a tag asking for null
)

// Rules are the JSON Schema keywords that constrain or describe a value.
type Rules struct {
	Title            string
	Description      string // from jsonschema tags; overrides the doc comment
	Enum             []Value
	Const            *Value
	Default          *Value
	Defaults         []Value // the default of a list, from repeated default= items
	Examples         []Value
	Minimum          *Number
	Maximum          *Number
	ExclusiveMinimum *Number
	ExclusiveMaximum *Number
	MultipleOf       *Number
	MinLength        *uint64
	MaxLength        *uint64
	Pattern          string
	Format           string
	UniqueItems      bool
	MinItems         *uint64
	MaxItems         *uint64
	MinProperties    *uint64
	MaxProperties    *uint64
	ReadOnly         bool
	WriteOnly        bool
	Extras           []Extra
}

// Value is a JSON value from a tag, kept as JSON text and as the Go literal it stands for.
type Value struct {
	JSON string // e.g. "\"metric\"", "1", "true"
	Lit  any    // string, bool, int64, uint64 or float64
}

// Extra is a keyword from a jsonschema_extras tag.
type Extra struct {
	Key   string
	Value any // string, bool, or []any of them when the key repeats
}

// Number is a numeric bound, exact.
type Number struct {
	Text string   // as written in JSON
	Rat  *big.Rat // its value
}

// NewNumber parses a JSON number.
func NewNumber(text string) (*Number, bool) {
	if !isJSONNumber(text) {
		return nil, false
	}
	r, ok := new(big.Rat).SetString(text)
	if !ok {
		return nil, false
	}
	return &Number{Text: text, Rat: r}, true
}

// IntNumber returns the Number for an integer.
func IntNumber(n int64) *Number {
	return &Number{Text: strconv.FormatInt(n, 10), Rat: new(big.Rat).SetInt64(n)}
}

// UintNumber returns the Number for an unsigned integer.
func UintNumber(n uint64) *Number {
	return &Number{Text: strconv.FormatUint(n, 10), Rat: new(big.Rat).SetUint64(n)}
}

// IsInt reports whether the number is a whole number.
func (n *Number) IsInt() bool { return n.Rat.IsInt() }

// Float returns the number as the nearest float64.
func (n *Number) Float() float64 {
	f, _ := n.Rat.Float64()
	return f
}

func isJSONNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - j
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// Deref returns the type a chain of pointers (and mcp.Nullable) holds.
func (t *Type) Deref() *Type {
	for t.Kind == Pointer || t.Kind == ThreeStates {
		t = t.Elem
	}
	return t
}
