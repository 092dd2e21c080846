// Package errschemadirective has //mcp:schema directives that are malformed or misplaced.
package errschemadirective

// Bad declares a schema that is not JSON.
//
//mcp:schema {"type": string}
type Bad struct{}

// Fn has a schema directive, which belongs on types.
//
//mcp:schema {"type": "string"}
func Fn() {}

//mcp:schema {"type": "string"}

// Loose is not what the directive above is attached to.
var Loose int

// Plain is encoded from its fields, so a declared schema would lie about it.
//
//mcp:schema {"type": "string"}
type Plain struct {
	A int `json:"a"`
}

// Use takes Plain.
//
//mcp:tool
func Use(in Plain) error { return nil }
