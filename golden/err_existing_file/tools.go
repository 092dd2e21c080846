// Package errexistingfile has a hand-written file where mcpgen would write its output.
package errexistingfile

// In is an argument.
type In struct {
	X int `json:"x"`
}

// Run is a tool.
//
//mcp:tool
func Run(in In) error { return helper() }
