// Package errtypes has types and tags mcpgen rejects, one problem per field.
package errtypes

import (
	"errors"

	"github.com/mcpgen/mcpgen/golden/err_types/other"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// Point is a struct: not a map key JSON can have, and not comparable as list items go.
type Point struct{ X, Y int }

type inner struct {
	Z int `json:"z"`
}

// Blob is not comparable and has no IsZero method.
type Blob struct{ Data []byte }

// Document encodes itself, and nobody declared its schema.
type Document struct{ body string }

// MarshalJSON writes the body.
func (d Document) MarshalJSON() ([]byte, error) { return []byte(`"` + d.body + `"`), nil }

// UnmarshalJSON reads the body.
func (d *Document) UnmarshalJSON(b []byte) error { d.body = string(b); return nil }

// WriteOnly can only be written.
type WriteOnly struct{}

// MarshalText writes nothing.
func (WriteOnly) MarshalText() ([]byte, error) { return nil, nil }

// ReadOnly can only be read.
type ReadOnly struct{}

// UnmarshalText reads nothing.
func (*ReadOnly) UnmarshalText([]byte) error { return nil }

// Flat has one problem per field.
type Flat struct {
	ByPoint map[Point]string `json:"byPoint"`
	*inner
	Blob     Blob                            `json:"blob,omitzero"`
	Doc      Document                        `json:"doc"`
	Points   []Point                         `json:"points" jsonschema:"uniqueItems"`
	Tags     []string                        `json:"tags,omitempty" jsonschema:"minLength=3,default=ab,default=abc"`
	Few      []int                           `json:"few,omitempty" jsonschema:"maxItems=1,default=1,default=2"`
	Range    int                             `json:"range" jsonschema:"minimum=10,maximum=5"`
	Uniq     []string                        `json:"uniq" jsonschema:"uniqueItems=maybe"`
	Choice   string                          `json:"choice" jsonschema:"oneof_required=a"`
	Other    other.Exported                  `json:"other"`
	Unread   WriteOnly                       `json:"unread"`
	Props    Point                           `json:"props" jsonschema:"minProperties=1"`
	TextBool ReadOnly                        `json:"textBool" jsonschema:"default=x"`
	Cleared  mcp.Nullable[*string]           `json:"cleared,omitzero"`
	Twice    mcp.Nullable[mcp.Nullable[int]] `json:"twice,omitzero"`
}

// Take takes all of that.
//
//mcp:tool
func Take(in Flat) error { return errors.New("unreachable") }

// Result has a type that cannot be written.
type Result struct {
	Value ReadOnly `json:"value"`
}

// Give returns it.
//
//mcp:tool
func Give() (Result, error) { return Result{}, nil }

// SelfEncoding is a struct that encodes itself: its properties are not its fields.
type SelfEncoding struct{ A int }

// MarshalJSON writes a number.
func (s SelfEncoding) MarshalJSON() ([]byte, error) { return []byte("1"), nil }

// UnmarshalJSON reads anything.
func (s *SelfEncoding) UnmarshalJSON([]byte) error { return nil }

// Self takes it as its arguments.
//
//mcp:tool
func Self(in SelfEncoding) error { return nil }

// Embeds has structs of another package that embed unexported structs.
type Embeds struct {
	Both    other.Both    `json:"both"`
	Pointer other.Pointer `json:"pointer"`
}

// Embedded takes them.
//
//mcp:tool
func Embedded(in Embeds) error { return nil }

// Others has fields for the members besides its properties that cannot hold them.
type Others struct {
	A int `json:"a"`
	// Keys of a map of other members are strings.
	ByNumber map[int]string `json:"-" mcp:"additionalProperties"`
	// Not a map.
	List []string `json:"-" mcp:"additionalProperties"`
	// Rules on them are not read.
	Tagged map[string]string `json:"-" mcp:"additionalProperties" jsonschema:"maxLength=3"`
	Rest   map[string]string `json:"-" mcp:"additionalProperties"`
	// A second one.
	More map[string]int `json:"-" mcp:"additionalProperties"`
}

// Rest takes them.
//
//mcp:tool
func Rest(in Others) error { return nil }
