// Package errdescriptions has a tool, a resource and a prompt without doc comments: a model
// would get no description of them.
package errdescriptions

//mcp:tool
func Undocumented() string { return "" }

//mcp:tool undocumented_too
func UndocumentedToo() string { return "" }

//mcp:resource config://app
func Config() string { return "" }

//mcp:prompt
func Greet() string { return "" }

// The directive alone is no description, nor is a blank line above it.

//mcp:tool
func Detached() string { return "" }

// Documented is described, so it is accepted.
//
//mcp:tool
func Documented() string { return "" }
