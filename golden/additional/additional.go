// Package additional has a tool whose arguments and result are objects with properties and
// other members besides (JSON Schema's additionalProperties next to properties): a struct
// whose map field tagged mcp:"additionalProperties" holds the others, as mcpgen openapi
// writes them for an API's "properties" plus "additionalProperties".
package additional

// Color is a label's color.
type Color struct {
	Hex string `json:"hex" jsonschema:"pattern=^#[0-9a-f]{6}$"`
}

// Labels are a repository's labels by name, each with its color, and two properties of
// their own.
type Labels struct {
	Count int    `json:"count"`
	Owner string `json:"owner,omitempty" jsonschema:"maxLength=10"`
	// Colors are the labels: every member besides count and owner.
	Colors map[string]Color `json:"-" mcp:"additionalProperties"`
}

// Meta holds anything: no properties, and any value besides.
type Meta struct {
	Other map[string]any `json:"-" mcp:"additionalProperties"`
}

// Names are strings by key, with no properties of their own.
type Names struct {
	Rest map[string]string `json:"-" mcp:"additionalProperties"`
}

// Input is what echo reads.
type Input struct {
	Labels Labels `json:"labels"`
	Meta   *Meta  `json:"meta,omitempty"`
	Names  Names  `json:"names"`
	// Break writes a label named "count" into the result, which is a property: an error.
	Break bool `json:"break,omitempty"`
	// BadColor writes a label whose color breaks its pattern into the result: an error.
	BadColor bool `json:"bad_color,omitempty"`
}

// Output is what echo writes back.
type Output struct {
	Labels Labels `json:"labels"`
	Meta   *Meta  `json:"meta,omitempty"`
	Names  Names  `json:"names"`
}

// Last is the input echo was called with last, for the tests to read.
var Last Input

// Echo writes back the labels, meta and names it is given.
//
//mcp:tool
func Echo(in Input) Output {
	Last = in
	out := Output{Labels: in.Labels, Meta: in.Meta, Names: in.Names}
	if in.Break {
		out.Labels.Colors = map[string]Color{"count": {Hex: "#000000"}}
	}
	if in.BadColor {
		out.Labels.Colors = map[string]Color{"ok": {Hex: "#000000"}, "wrong": {Hex: "red"}}
	}
	return out
}
