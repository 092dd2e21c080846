// Package errpredeclared declares functions named like Go's predeclared new and len, which
// the generated code needs; it cannot refer to them when the package hides them.
package errpredeclared

// In has an optional number, which a decoder allocates with new, and a list, which it
// counts with len.
type In struct {
	N    *int     `json:"n,omitempty"`
	Tags []string `json:"tags" jsonschema:"minItems=1"`
}

// new is a constructor named like Go's new.
func new() *In { return &In{} }

// len is named like Go's len.
func len(in *In) int { return 1 }

// max is named like Go's max, which generated code does not use.
func max(a, b int) int { return a }

// Run is a tool.
//
//mcp:tool
func Run(in In) string { return "" }

var _, _, _ = new, len, max
