// Package errdirectives has directives that are malformed or misplaced.
package errdirectives

// In is an argument.
type In struct {
	X int `json:"x"`
}

// A second bare word is not an option.
//
//mcp:tool tool_a cached
func A(in In) error { return nil }

// Unknown option after a name.
//
//mcp:tool named readonly cache=10
func B(in In) error { return nil }

// Misspelled verb.
//
//mcp:tools
func C(in In) error { return nil }

// Contradictory hints and a bad hint value.
//
//mcp:tool readonly destructive idempotent=maybe
func D(in In) error { return nil }

// An invalid tool name.
//
//mcp:tool name="get weather"
func E(in In) error { return nil }

// Two directives.
//
//mcp:tool e1
//mcp:tool e2
func F(in In) error { return nil }

// An unterminated quote.
//
//mcp:tool title="Oops
func G(in In) error { return nil }

// A directive on a type.
//
//mcp:tool
type H struct{}

//mcp:tool

// I has its directive in a separate comment block.
func I(in In) error { return nil }

// J has a space after the slashes.
//
// mcp:tool
func J(in In) error { return nil }

// K misspells a hint, which must not become the tool's name.
//
//mcp:tool readOnly
func K(in In) error { return nil }

// L misspells a hint after a name.
//
//mcp:tool l idempotnet
func L(in In) error { return nil }

// M may run as a task, but not sometimes.
//
//mcp:tool m task=sometimes
func M(in In) error { return nil }

// N needs scopes, but names none.
//
//mcp:tool n scopes=
func N(in In) error { return nil }

// O quotes its name, which has a space: one diagnostic, about the quotes.
//
//mcp:tool "bad 6"
func O(in In) error { return nil }
