package mcp

import "github.com/mcpgen/mcpgen/runtime/mcp/internal/uritemplate"

// ExpandURITemplate fills the variables of a URI template (RFC 6570, the operators "", +, #,
// ., /, ;, ? and &, with prefix modifiers; a variable is a single string) as a resource
// template's URI is filled: a variable without a value is left out, as the RFC says.
func ExpandURITemplate(template string, vars map[string]string) (string, error) {
	return uritemplate.Expand(template, vars)
}

// URITemplateVariables lists the variables of a URI template, in order, once each.
func URITemplateVariables(template string) []string { return uritemplate.Variables(template) }
