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

// ReadLate has a signature mcpgen refuses.
//
//mcp:resource items://{id}
func ReadLate(v Vars, ctx context.Context) (string, error) { return "", nil }

// GreetLate has a signature mcpgen refuses.
//
//mcp:prompt
func GreetLate(in struct {
	Name string `json:"name"`
}, ctx context.Context) string {
	return ""
}

// Report writes its text block as bytes, which MCPText does not.
type Report struct {
	N int `json:"n"`
}

// MCPText has the wrong result.
func (Report) MCPText() []byte { return nil }

// Summarize has a signature mcpgen refuses.
//
//mcp:tool
func Summarize() Report { return Report{} }

// Listing appends its text block to the wrong type.
type Listing struct {
	Names []string `json:"names"`
}

// AppendMCPText takes a string, not a []byte.
func (l *Listing) AppendMCPText(s string) []byte { return nil }

// List has a signature mcpgen refuses.
//
//mcp:tool
func List() (*Listing, error) { return nil, nil }

// Verdict says it is a failure with the wrong type.
type Verdict struct {
	OK bool `json:"ok"`
}

// MCPIsError returns an error, not a bool.
func (Verdict) MCPIsError() error { return nil }

// Judge has a result whose MCPIsError has the wrong signature.
//
//mcp:tool
func Judge() Verdict { return Verdict{} }
