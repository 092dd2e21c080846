// Package types exercises the mapping from Go types to JSON Schema and the generated
// validation: nesting, collections, pointers, embedding, recursion, generics and tags.
package types

import (
	"context"
	"time"

	"github.com/mcpgen/mcpgen/golden/types/geo"
)

// Level is how loud a message is.
type Level string

// Page is one page of a listing.
type Page[T any] struct {
	Items []T `json:"items"`
	// Next is the cursor of the next page, if any.
	Next string `json:"next,omitempty"`
}

// List is a generic alias of a slice.
type List[T any] = []T

// PageOf is a generic alias of a generic struct.
type PageOf[T any] = Page[T]

// Octet is a named byte type: a []Octet is base64 in JSON, like a []byte.
type Octet byte

// Base holds fields shared by several messages.
type Base struct {
	// ID identifies the message.
	ID   string `json:"id" jsonschema:"minLength=3"`
	Kind string `json:"kind,omitempty"`
}

// Meta is embedded by pointer: its fields are optional, since the pointer may be nil.
type Meta struct {
	Source string `json:"source,omitempty"`
	// Kind is promoted too: its JSON name differs from the "kind" tag of Base.Kind.
	Kind string
}

// Node is a tree.
type Node struct {
	Name     string  `json:"name"`
	Children []*Node `json:"children,omitempty"`
}

// Expr and Term are mutually recursive.
type Expr struct {
	Terms []Term `json:"terms"`
}

// Term is a value or a nested expression.
type Term struct {
	Value float64 `json:"value"`
	Sub   *Expr   `json:"sub,omitempty"`
}

// Input has a field of every kind mcpgen maps.
type Input struct {
	Base
	*Meta
	// Title of the message, shown to people.
	Title    string         `json:"title" jsonschema:"title=Title,maxLength=80,example=Hello"`
	Level    Level          `json:"level,omitempty" jsonschema:"enum=debug,enum=info,enum=error,default=info"`
	Count    uint8          `json:"count"`
	Delta    int16          `json:"delta,omitempty" jsonschema:"exclusiveMinimum=-5,exclusiveMaximum=5.5"`
	Ratio    float32        `json:"ratio,omitempty" jsonschema:"minimum=0,maximum=1"`
	Big      int64          `json:"big,omitempty"`
	Enabled  *bool          `json:"enabled"`
	Tags     []string       `json:"tags,omitempty" jsonschema:"minItems=1,maxItems=3,minLength=2"`
	Point    [2]float64     `json:"point,omitempty"`
	Labels   map[string]int `json:"labels,omitempty" jsonschema:"maxProperties=2"`
	Extra    map[string]any `json:"extra,omitempty"`
	Payload  []byte         `json:"payload,omitempty"`
	Octets   []Octet        `json:"octets,omitempty"`
	Anything any            `json:"anything,omitempty"`
	Tree     *Node          `json:"tree,omitempty"`
	Pages    Page[Node]     `json:"pages"`
	Names    List[string]   `json:"names,omitempty" jsonschema:"maxItems=2"`
	Counts   *PageOf[int]   `json:"counts,omitempty"`
	Weekday  time.Weekday   `json:"weekday,omitempty" jsonschema:"maximum=6"`
	Note     *string        `json:"note" jsonschema:"nullable"`
	Required *int           `json:"required" jsonschema:"required"`
	Nested   struct {
		Depth int `json:"depth" jsonschema:"description=How deep."`
	} `json:"nested"`
	Comma string `json:"comma,omitempty" jsonschema:"pattern=^a\\,b$" jsonschema_extras:"x-order=1,x-order=2"`
	// Formula is an expression.
	Formula *Expr `json:"formula,omitempty"`
	// Place is a node of another package.
	Place  *geo.Node `json:"place,omitempty"`
	Site   *geo.Site `json:"site,omitempty"`
	Hidden string    `json:"-"`
	Skip   string    `jsonschema:"-"`
	secret string
}

// Output echoes what a tool was given.
type Output struct {
	Input
	Seen int `json:"seen"`
}

// Echo returns its input, to exercise both the decoder and the encoder.
//
//mcp:tool
func Echo(ctx context.Context, in Input) (Output, error) {
	return Output{Input: in, Seen: len(in.Tags)}, nil
}
