// Package names declares names that generated code uses too: package-level names of the
// packages it imports, types and functions named like its local variables, and Go names
// from which the same generated identifiers derive.
package names

import (
	stdcontext "context"
	"errors"
	"strings"

	"github.com/mcpgen/mcpgen/golden/names/args"
)

// Package-level names the generated file would import packages under.
var (
	context      = "not the package"
	mcp          = 1
	jsonwire     = 2
	utf8         = 3
	maps, slices = 4, 5
	mcpgen       = 6 // not a generated name (mcpgenXxx), so the user's to declare
)

// key is a map key type, named like the key decoders loop over.
type key string

// s is a string type, named like the variable decoders read strings into.
type s string

// list is a list type, named like the variable decoders build lists in.
type list []s

// In is an argument of types named like generated locals.
type In struct {
	Counts map[key]int `json:"counts"`
	Name   s           `json:"name" jsonschema:"minLength=1"`
	Tags   list        `json:"tags,omitempty" jsonschema:"maxLength=3"`
}

// Out is a result of types named like generated locals.
type Out struct {
	Counts map[key]s `json:"counts"`
	Name   s         `json:"name" jsonschema:"maxLength=5"`
}

// c is named like the tool call generated handlers take.
//
//mcp:tool
func c(ctx stdcontext.Context, in In) (Out, error) {
	out := Out{Counts: map[key]s{}, Name: in.Name}
	for k, n := range in.Counts {
		out.Counts[k] = s(strings.Repeat("+", n))
	}
	return out, nil
}

// in is named like the argument generated handlers decode.
//
//mcp:tool
func in(x In) string { return string(x.Name) + ":" + strings.Join(conv(x.Tags), ",") }

func conv(l list) []string {
	var out []string
	for _, t := range l {
		out = append(out, string(t))
	}
	return out
}

// S has a method Get, and SGet is a function: both derive the identifiers mcpgenCallSGet
// and mcpgenSGetInput.
type S struct{}

// Get is the method.
//
//mcp:tool s_get
func (S) Get() string { return "S.Get" }

// SGet is the function.
//
//mcp:tool sget
func SGet() string { return "SGet" }

// foo and Foo derive the same identifiers too.
//
//mcp:tool lower_foo
func foo() string { return "foo" }

// Foo is the other one.
//
//mcp:tool upper_foo
func Foo() string { return "Foo" }

// TokenInput's decoder, mcpgenDecodeTokenInput, is named like the input schema of tool
// DecodeToken.
type TokenInput struct {
	Token string `json:"token"`
}

// DecodeToken checks a token.
//
//mcp:tool
func DecodeToken(in TokenInput) (string, error) {
	if in.Token == "" {
		return "", errors.New("empty token")
	}
	return "ok " + in.Token, nil
}

var _ = []any{context, mcp, jsonwire, utf8, maps, slices, mcpgen}

// Pair is generic: the name of Pair[int] in generated identifiers is PairInt, like the type
// below, so one of them is PairInt2, like the type after it.
type Pair[T any] struct {
	Value T        `json:"value"`
	Next  *Pair[T] `json:"next,omitempty"`
}

// PairInt is named like Pair[int].
type PairInt struct {
	Next *PairInt `json:"next,omitempty"`
}

// PairInt2 is named like the second of them.
type PairInt2 struct {
	Next *PairInt2 `json:"next,omitempty"`
}

// Pairs are recursive types, so that their schema has a definition of each.
type Pairs struct {
	A Pair[int] `json:"a"`
	B PairInt   `json:"b"`
	C PairInt2  `json:"c"`
}

// CountPairs takes them.
//
//mcp:tool
func CountPairs(in Pairs) string { return "3" }

// Essay is a prompt whose argument is of package args, named like the decoder prompt
// handlers take: the import takes an alias.
//
//mcp:prompt
func Essay(in args.Topic) string { return "Write about " + in.Topic }
