package errsignature

import (
	"context"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// Resources, prompts and completions take a context.Context first too, or none at all.

// Vars are the variables of a resource template.
type Vars struct {
	ID string `json:"id"`
}

//mcp:complete prompt=greet arg=name
func CompleteLate(prefix string, ctx context.Context) ([]string, error) { return nil, nil }

//mcp:complete prompt=greet arg=name
func CompleteTwoContexts(ctx context.Context, other context.Context) []string { return nil }

//mcp:complete prompt=greet arg=name
func CompleteTooMany(ctx context.Context, req mcp.CompletionRequest, prefix string) []string {
	return nil
}

//mcp:resource items://{id}
func ReadLate(v Vars, ctx context.Context) (string, error) { return "", nil }

//mcp:prompt
func GreetLate(in struct {
	Name string `json:"name"`
}, ctx context.Context) string {
	return ""
}
