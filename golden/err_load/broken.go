//go:build mcpgen

package errload

// Broken does not type-check.
func Broken() int { return "not an int" }

var _ = undefinedThing
