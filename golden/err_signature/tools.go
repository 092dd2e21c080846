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

//mcp:tool
func TooMany(ctx context.Context, a In, b In) error { return nil }

//mcp:tool
func NoContext(a In, b In) error { return nil }

//mcp:tool
func TwoContexts(ctx context.Context, other context.Context) error { return nil }

//mcp:tool
func NotStruct(ctx context.Context, name string) error { return nil }

//mcp:tool
func BadLast() (Out, int) { return Out{}, 0 }

//mcp:tool
func ThreeResults() (Out, Out, error) { return Out{}, Out{}, nil }

//mcp:tool
func Variadic(ctx context.Context, opts ...In) error { return nil }

//mcp:tool
func Generic[T any](in T) error { return nil }

// Box is a generic type.
type Box[T any] struct{ V T }

//mcp:tool
func (b Box[T]) Open() error { return nil }
