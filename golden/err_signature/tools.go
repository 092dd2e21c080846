// Package errsignature has tools, resources, prompts and completions with signatures mcpgen
// does not accept.
package errsignature

import "context"

// In is an argument.
type In struct {
	X int `json:"x"`
}

// Out is a result.
type Out struct {
	Y int `json:"y"`
}

// TooMany has a signature mcpgen refuses.
//
//mcp:tool
func TooMany(ctx context.Context, a In, b In) error { return nil }

// NoContext has a signature mcpgen refuses.
//
//mcp:tool
func NoContext(a In, b In) error { return nil }

// TwoContexts has a signature mcpgen refuses.
//
//mcp:tool
func TwoContexts(ctx context.Context, other context.Context) error { return nil }

// NotStruct has a signature mcpgen refuses.
//
//mcp:tool
func NotStruct(ctx context.Context, name string) error { return nil }

// BadLast has a signature mcpgen refuses.
//
//mcp:tool
func BadLast() (Out, int) { return Out{}, 0 }

// ThreeResults has a signature mcpgen refuses.
//
//mcp:tool
func ThreeResults() (Out, Out, error) { return Out{}, Out{}, nil }

// Variadic has a signature mcpgen refuses.
//
//mcp:tool
func Variadic(ctx context.Context, opts ...In) error { return nil }

// Generic has a signature mcpgen refuses.
//
//mcp:tool
func Generic[T any](in T) error { return nil }

// Box is a generic type.
type Box[T any] struct{ V T }

// Open has a signature mcpgen refuses.
//
//mcp:tool
func (b Box[T]) Open() error { return nil }
