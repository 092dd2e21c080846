// Package zoo is mcpgen's catalogue of argument and result types: one case per kind of Go type
// and tag a developer would reasonably write, each served by an echo tool. Its tests compare
// the generated schemas with invopop/jsonschema, check that the generated validation agrees
// with a JSON Schema 2020-12 validator, and fuzz decoding.
package zoo

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Strings has string rules.
type Strings struct {
	// Plain is any string.
	Plain string `json:"plain"`
	// Short has between 2 and 5 characters, counted as code points.
	Short string `json:"short,omitempty" jsonschema:"minLength=2,maxLength=5"`
	// Code matches a pattern.
	Code string `json:"code,omitempty" jsonschema:"pattern=^[A-Z]{3}-[0-9]+$"`
	// Email is annotated with a format, which is not validated.
	Email string `json:"email,omitempty" jsonschema:"format=email"`
	// Color is one of three.
	Color string `json:"color,omitempty" jsonschema:"enum=red,enum=green,enum=blue"`
	// Greeting has a default and examples.
	Greeting string `json:"greeting,omitempty" jsonschema:"default=hello,example=hi,example=hey"`
}

// Bools has booleans.
type Bools struct {
	Flag bool `json:"flag"`
	// On defaults to true.
	On bool `json:"on,omitempty" jsonschema:"default=true"`
	// Maybe is optional.
	Maybe *bool `json:"maybe,omitempty"`
}

// SignedInts has every signed integer type.
type SignedInts struct {
	I8  int8  `json:"i8"`
	I16 int16 `json:"i16,omitempty"`
	I32 int32 `json:"i32,omitempty"`
	I64 int64 `json:"i64,omitempty"`
	I   int   `json:"i,omitempty"`
	// Percent is between 0 and 100.
	Percent int `json:"percent,omitempty" jsonschema:"minimum=0,maximum=100"`
}

// UnsignedInts has every unsigned integer type.
type UnsignedInts struct {
	U8  uint8  `json:"u8"`
	U16 uint16 `json:"u16,omitempty"`
	U32 uint32 `json:"u32,omitempty"`
	U64 uint64 `json:"u64,omitempty"`
	U   uint   `json:"u,omitempty"`
	// Port is a TCP port other than 0.
	Port uint16 `json:"port,omitempty" jsonschema:"minimum=1"`
}

// Floats has floats with bounds.
type Floats struct {
	F32 float32 `json:"f32"`
	F64 float64 `json:"f64,omitempty"`
	// Ratio is in [0, 1].
	Ratio float64 `json:"ratio,omitempty" jsonschema:"minimum=0,maximum=1"`
	// Open is in (0, 10).
	Open float64 `json:"open,omitempty" jsonschema:"exclusiveMinimum=0,exclusiveMaximum=10"`
	// Step is a multiple of 0.25.
	Step float64 `json:"step,omitempty" jsonschema:"multipleOf=0.25"`
}

// IntRules has integer limits written as tags, fractional ones too.
type IntRules struct {
	// Even is a multiple of 2.
	Even int `json:"even" jsonschema:"multipleOf=2"`
	// Above is more than 2.5, so at least 3.
	Above int8 `json:"above,omitempty" jsonschema:"exclusiveMinimum=2.5"`
	// Below is less than 7.
	Below uint32 `json:"below,omitempty" jsonschema:"exclusiveMaximum=7"`
	// Dozen is a multiple of 12 up to 120.
	Dozen int `json:"dozen,omitempty" jsonschema:"multipleOf=12,maximum=120"`
}

// Bytes carries binary data.
type Bytes struct {
	Data []byte `json:"data"`
	// Blob is optional.
	Blob []byte `json:"blob,omitempty"`
}

// Slices has lists with item rules.
type Slices struct {
	Names []string `json:"names"`
	// Tags has 1 to 3 unique items of at least 2 characters.
	Tags []string `json:"tags,omitempty" jsonschema:"minItems=1,maxItems=3,uniqueItems=true,minLength=2"`
	// Scores are each 0 to 10.
	Scores []int `json:"scores,omitempty" jsonschema:"minimum=0,maximum=10"`
	// Matrix is a list of lists.
	Matrix [][]float64 `json:"matrix,omitempty"`
}

// Arrays has fixed-length arrays.
type Arrays struct {
	Point [2]float64 `json:"point"`
	// RGB is three bytes, as numbers (only slices of bytes are base64).
	RGB [3]uint8 `json:"rgb,omitempty"`
	// Pair is two distinct names. (A fixed-length array is never left out, so its zero
	// value, two empty strings, would break uniqueItems: it is required.)
	Pair [2]string `json:"pair" jsonschema:"uniqueItems=true"`
}

// Key is a named string used as a map key.
type Key string

// StringMaps has maps with string keys.
type StringMaps struct {
	Counts map[string]int `json:"counts"`
	// Labels has at most 2 entries.
	Labels map[Key]string `json:"labels,omitempty" jsonschema:"maxProperties=2"`
	// Nested maps to lists.
	Nested map[string][]string `json:"nested,omitempty"`
}

// IntMaps has maps with integer keys, written as decimal text.
type IntMaps struct {
	ByID map[int]string `json:"byId"`
	// Small has keys from 0 to 255.
	Small map[uint8]bool `json:"small,omitempty"`
}

// Anything holds values of any type.
type Anything struct {
	Value any            `json:"value"`
	Extra map[string]any `json:"extra,omitempty"`
	List  []any          `json:"list,omitempty"`
}

// Inner is a struct used inside others.
type Inner struct {
	// Name of the inner thing.
	Name  string `json:"name"`
	Count int    `json:"count,omitempty"`
}

// Pointers has optional values.
type Pointers struct {
	Text  *string `json:"text"`
	Num   *int    `json:"num,omitempty"`
	Inner *Inner  `json:"inner,omitempty"`
	// Must is a pointer that is required anyway.
	Must *Inner `json:"must" jsonschema:"required"`
}

// Nullables accept null where their tags say so.
type Nullables struct {
	// Note may be null, which leaves it nil.
	Note *string `json:"note" jsonschema:"nullable"`
	// Count may be null, which leaves it 0.
	Count int `json:"count" jsonschema:"nullable"`
}

// Nested has structs inside structs.
type Nested struct {
	Inner Inner `json:"inner"`
	// Anonymous is a struct without a name.
	Anonymous struct {
		X int `json:"x"`
		Y int `json:"y"`
	} `json:"anonymous"`
	Inners []Inner `json:"inners,omitempty"`
}

// Base is embedded by value.
type Base struct {
	// ID identifies the record.
	ID      string `json:"id" jsonschema:"minLength=1"`
	Version int    `json:"version,omitempty"`
}

// Meta is embedded by pointer.
type Meta struct {
	Author string `json:"author,omitempty"`
	// Created is promoted through the pointer, so it is optional.
	Created string `json:"created"`
}

// Embedded flattens embedded structs as encoding/json does.
type Embedded struct {
	Base
	*Meta
	Title string `json:"title"`
}

// Left and Right both have a field Name at the same depth.
type Left struct {
	Name string
	Only string `json:"only,omitempty"`
}

// Right has the conflicting Name too.
type Right struct {
	Name string
	// Y is named X by its tag, and so wins over the untagged X of Left2 at the same depth.
	Y string `json:"X,omitempty"`
}

// Left2 has an untagged field named X.
type Left2 struct {
	X string
}

// Conflicts has fields that hide each other by encoding/json's rules.
type Conflicts struct {
	Left
	Right
	Left2
	// Shallow hides the Only of Left, being less deep.
	Shallow string `json:"only,omitempty"`
}

type hidden struct {
	// Visible is exported, in an unexported embedded struct: encoding/json promotes it.
	Visible string `json:"visible"`
}

// Unexported has fields encoding/json leaves out.
type Unexported struct {
	hidden
	Public string `json:"public"`
	secret string
}

// Secret uses the unexported field, so that it is not unused.
func (u Unexported) Secret() string { return u.secret }

// JSONTags has the json tag forms.
type JSONTags struct {
	Renamed  string `json:"renamed_field"`
	Untagged string
	Omitted  string `json:"-"`
	// Dash is named "-", written "-,".
	Dash    string `json:"-,"`
	Invalid string `json:"a'b"` // not a name encoding/json accepts: the Go name is used
	Special string `json:"x.y-z,omitempty"`
}

// SchemaHidden has a field left out of the schema, and so out of the JSON.
type SchemaHidden struct {
	Shown  string `json:"shown"`
	Hidden string `json:"hidden" jsonschema:"-"`
}

// Tree is recursive through a slice of pointers.
type Tree struct {
	Label    string  `json:"label"`
	Children []*Tree `json:"children,omitempty"`
}

// Expr is mutually recursive with Term.
type Expr struct {
	Terms []Term `json:"terms"`
}

// Term is a number or a nested expression.
type Term struct {
	Value float64 `json:"value"`
	Sub   *Expr   `json:"sub,omitempty"`
}

// Formula holds mutually recursive types.
type Formula struct {
	Expr Expr `json:"expr"`
}

// Page is a generic page of items.
type Page[T any] struct {
	Items []T `json:"items"`
	// Next is the cursor of the next page.
	Next string `json:"next,omitempty"`
}

// Pair is generic in two types.
type Pair[K comparable, V any] struct {
	Key   K `json:"key"`
	Value V `json:"value"`
}

// Generics has instantiations of generic structs.
type Generics struct {
	Page Page[Inner]       `json:"page"`
	Pair Pair[string, int] `json:"pair"`
}

// Label is an alias of string.
type Label = string

// InnerAlias is an alias of a struct.
type InnerAlias = Inner

// Aliases uses type aliases.
type Aliases struct {
	Label Label      `json:"label"`
	Inner InnerAlias `json:"inner"`
}

// Times has text types of the standard library.
type Times struct {
	At time.Time `json:"at"`
	// Until is optional.
	Until *time.Time `json:"until,omitempty"`
	// Addr is an IP address (netip.Addr reads and writes text).
	Addr netip.Addr `json:"addr,omitempty"`
	// Day is a weekday, an enum of its constants: 0 (Sunday) to 6.
	Day time.Weekday `json:"day,omitempty"`
}

// Durations are written in Go's syntax.
type Durations struct {
	Timeout time.Duration `json:"timeout"`
	// Retry defaults to 30 seconds.
	Retry time.Duration `json:"retry,omitempty" jsonschema:"default=30s"`
}

// Color is an RGB color written as #rrggbb: its own text form.
type Color struct{ R, G, B uint8 }

// MarshalText writes #rrggbb.
func (c Color) MarshalText() ([]byte, error) {
	return fmt.Appendf(nil, "#%02x%02x%02x", c.R, c.G, c.B), nil
}

// UnmarshalText reads #rrggbb.
func (c *Color) UnmarshalText(b []byte) error {
	if _, err := fmt.Sscanf(string(b), "#%02x%02x%02x", &c.R, &c.G, &c.B); err != nil || len(b) != 7 {
		return errors.New("want a color as #rrggbb")
	}
	return nil
}

// TextTypes has a type of the user's with its own text form.
type TextTypes struct {
	Fg Color `json:"fg" jsonschema:"pattern=^#[0-9a-f]{6}$"`
	// Palette is a list of colors.
	Palette []Color `json:"palette,omitempty"`
}

// Money is an amount in cents written as a decimal string: its own JSON form.
//
//mcp:schema {"type": "string", "pattern": "^-?[0-9]+\\.[0-9]{2}$"}
type Money int64

// MarshalJSON writes "12.34".
func (m Money) MarshalJSON() ([]byte, error) {
	sign := ""
	if m < 0 {
		sign, m = "-", -m
	}
	return fmt.Appendf(nil, `"%s%d.%02d"`, sign, m/100, m%100), nil
}

var moneyText = regexp.MustCompile(`^-?[0-9]+\.[0-9]{2}$`)

// UnmarshalJSON reads "12.34", the form its declared schema describes.
func (m *Money) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil || !moneyText.MatchString(s) {
		return errors.New(`want an amount with two decimals, such as "12.34"`)
	}
	cents, err := strconv.ParseInt(strings.Replace(s, ".", "", 1), 10, 64)
	if err != nil {
		return errors.New("amount out of range")
	}
	*m = Money(cents)
	return nil
}

// Opaque encodes itself, and its schema is declared at the field.
type Opaque struct{ v string }

// MarshalJSON writes the value as a string.
func (o Opaque) MarshalJSON() ([]byte, error) { return json.Marshal(o.v) }

// UnmarshalJSON reads a string.
func (o *Opaque) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, &o.v) }

// CustomJSON has types with their own JSON form.
type CustomJSON struct {
	Price Money `json:"price"`
	// Token is described by tags on the field.
	Token Opaque `json:"token" jsonschema:"type=string,description=An opaque token."`
}

// Raw keeps JSON as it is.
type Raw struct {
	Payload json.RawMessage `json:"payload"`
}

// Numbers keeps numbers as their text.
type Numbers struct {
	Amount json.Number `json:"amount"`
}

// StringOption has values inside strings, by the json option ",string".
type StringOption struct {
	ID    int64   `json:"id,string"`
	Ratio float64 `json:"ratio,string,omitempty"`
	On    bool    `json:"on,string,omitempty"`
	// Name is a JSON string inside a string.
	Name string `json:"name,string,omitempty"`
	// Small is limited by its type, inside the string too.
	Small *uint8 `json:"small,string,omitempty"`
}

// Point is a comparable struct.
type Point struct{ X, Y int }

// OmitZero leaves zero values out of results.
type OmitZero struct {
	When  time.Time `json:"when,omitzero"`
	At    Point     `json:"at,omitzero"`
	Score float64   `json:"score,omitzero"`
	List  []string  `json:"list,omitzero"`
}

// Level is a named string with constants: an enum.
type Level string

// The levels.
const (
	Debug Level = "debug"
	Info  Level = "info"
	Error Level = "error"
)

// Priority is a named integer with constants.
type Priority int

// The priorities.
const (
	Low Priority = iota + 1
	Medium
	High
)

// Enums has enums from constants and from tags.
type Enums struct {
	Level    Level    `json:"level"`
	Priority Priority `json:"priority,omitempty"`
	// Narrow replaces the constants with a tag.
	Narrow Level `json:"narrow,omitempty" jsonschema:"enum=debug,enum=info"`
	// Ratio is a float enum.
	Ratio float64 `json:"ratio,omitempty" jsonschema:"enum=0.5,enum=1"`
	// Yes is a boolean enum.
	Yes bool `json:"yes,omitempty" jsonschema:"enum=true"`
}

// Defaults are applied when a property is left out.
type Defaults struct {
	Name  string   `json:"name,omitempty" jsonschema:"default=anonymous"`
	Limit int      `json:"limit,omitempty" jsonschema:"default=10,minimum=1"`
	Scale float64  `json:"scale,omitempty" jsonschema:"default=1.5"`
	On    bool     `json:"on,omitempty" jsonschema:"default=true"`
	Tags  []string `json:"tags,omitempty" jsonschema:"default=a,default=b"`
	// Ptr points at its default.
	Ptr *int `json:"ptr,omitempty" jsonschema:"default=7"`
}

// Annotations are keywords that describe without constraining.
type Annotations struct {
	// ID is shown to people as "Identifier".
	ID string `json:"id" jsonschema:"title=Identifier,readOnly=true"`
	// Secret is write-only.
	Secret string `json:"secret,omitempty" jsonschema:"writeOnly=true"`
	// This comment is replaced by the description in the tag.
	Described string `json:"described,omitempty" jsonschema_description:"Said by the tag."`
	Extra     string `json:"extra,omitempty" jsonschema_extras:"x-order=1,x-kind=plain"`
	Count     int    `json:"count,omitempty" jsonschema:"example=3,example=5"`
}

// DeepNesting has collections inside collections.
type DeepNesting struct {
	Grid   [][]string          `json:"grid"`
	Groups map[string][]int    `json:"groups,omitempty"`
	Index  []map[string]*Inner `json:"index,omitempty"`
}

// Empty has no fields.
type Empty struct{}

// Escapes has text that needs escaping in Go, in JSON and in regular expressions.
type Escapes struct {
	// Quote says "hello", with `backquotes`, a \ backslash and a <tag>.
	Quote string `json:"quote"`
	// Comma matches a comma, escaped in the tag as \,.
	Comma string `json:"comma,omitempty" jsonschema:"pattern=^a\\,b$"`
	// Unicode is named in Japanese.
	Unicode string `json:"名前,omitempty" jsonschema:"minLength=1"`
}

// Required has properties required by tag.
type Required struct {
	// Opt would be optional, but the tag requires it.
	Opt string `json:"opt,omitempty" jsonschema:"required"`
	// Ptr would be optional, but the tag requires it.
	Ptr *string `json:"ptr" jsonschema:"required"`
}

// Extremes has the limits of 64-bit integers.
type Extremes struct {
	Min int64  `json:"min"`
	Max uint64 `json:"max"`
}

// Big has a field of every size, for the fuzzer.
type Big struct {
	Strings  Strings      `json:"strings"`
	Slices   Slices       `json:"slices,omitempty"`
	Maps     StringMaps   `json:"maps,omitempty"`
	Pointers *Pointers    `json:"pointers,omitempty"`
	Enums    *Enums       `json:"enums,omitempty"`
	Tree     *Tree        `json:"tree,omitempty"`
	Option   StringOption `json:"option,omitempty"`
}

// Mirrored has arguments that clients mirror into HTTP headers: with the mcp tag, and with
// the jsonschema_extras spelling that invopop reads too.
type Mirrored struct {
	// Region is mirrored into Mcp-Param-Region.
	Region string `json:"region" mcp:"header=Region"`
	// Shard is a narrow integer.
	Shard int16 `json:"shard,omitempty" mcp:"header=Shard"`
	// DryRun is an optional boolean.
	DryRun *bool `json:"dryRun,omitempty" mcp:"header=Dry-Run"`
	// Zone is written as invopop reads it.
	Zone string `json:"zone,omitempty" jsonschema_extras:"x-mcp-header=Zone"`
	// Place holds one more, a level down.
	Place struct {
		City string `json:"city" mcp:"header=City"`
	} `json:"place"`
}

// MirroredResult is Mirrored without its headers, which mean nothing in a result.
type MirroredResult struct {
	Region string `json:"region"`
	Shard  int16  `json:"shard,omitempty"`
	DryRun *bool  `json:"dryRun,omitempty"`
	Zone   string `json:"zone,omitempty"`
	Place  struct {
		City string `json:"city"`
	} `json:"place"`
}
