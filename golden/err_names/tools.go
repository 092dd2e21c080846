// Package errnames declares names that the generated file needs.
package errnames

// RegisterMCP is written by hand here, but mcpgen generates it.
func RegisterMCP() {}

// mcpgenHelper uses the prefix reserved for generated identifiers.
func mcpgenHelper() {}

// In is an argument.
type In struct {
	X int `json:"x"`
}

// mcpgenerator is fine: generated names are mcpgen followed by a capital letter.
var mcpgenerator = 1

// Run is a tool.
//
//mcp:tool
func Run(in In) error { mcpgenHelper(); return nil }

var _ = mcpgenerator
