// Package errload has a file that does not compile while mcpgen loads the package (it is
// built only with the mcpgen tag, so that the rest of the repository builds).
package errload

// In is an argument.
type In struct {
	X int `json:"x"`
}

// Run is a tool.
//
//mcp:tool
func Run(in In) error { return nil }
