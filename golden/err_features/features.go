// Package errfeatures has resources, prompts, completions and forms that mcpgen must reject,
// each with a diagnostic at the right place.
package errfeatures

import (
	"context"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// NoURI has no URI.
//
//mcp:resource name=x
func NoURI() string { return "" }

// Relative is not an absolute URI.
//
//mcp:resource just/a/path
func Relative() string { return "" }

// Query uses a template operator mcpgen does not support.
//
//mcp:resource search://items{?q}
func Query() string { return "" }

// Fixed has a fixed URI but takes an argument.
//
//mcp:resource config://app
func Fixed(p Params) string { return "" }

// Params are template variables.
type Params struct {
	ID   string `json:"id"`
	Page int    `json:"page"`
}

// Missing has a template variable without a field.
//
//mcp:resource items://{id}/{rev}
func Missing(p Params) string { return "" }

// Tags has a variable of a type a URI cannot hold.
type Tags struct {
	Tags []string `json:"tags"`
}

// ListTags takes a list from a URI.
//
//mcp:resource tags://{tags}
func ListTags(t Tags) string { return "" }

// NoArgs is a template whose function takes nothing.
//
//mcp:resource users://{id}
func NoArgs() string { return "" }

// Count returns a number.
//
//mcp:resource count://all mime=text/plain color=blue
func Count() int { return 0 }

// Nothing returns nothing.
//
//mcp:resource nothing://here
func Nothing() {}

// Twice serves a URI another function serves.
//
//mcp:resource config://dup
func Twice() string { return "" }

// Again serves it too.
//
//mcp:resource config://dup
func Again() string { return "" }

// Numbers are prompt arguments that are not strings.
type Numbers struct {
	N int                  `json:"n"`
	S mcp.Nullable[string] `json:"s,omitzero"`
}

// Sum is a prompt with a number argument.
//
//mcp:prompt
func Sum(in Numbers) string { return "" }

// Silent is a prompt that returns nothing useful.
//
//mcp:prompt
func Silent() int { return 0 }

// Hello is a prompt.
//
//mcp:prompt hello tone=warm
func Hello() string { return "" }

// Hello2 has the same name.
//
//mcp:prompt hello
func Hello2() string { return "" }

// NoTarget names no prompt.
//
//mcp:complete arg=x
func NoTarget(v string) []string { return nil }

// Ghost completes a prompt that does not exist.
//
//mcp:complete prompt=ghost arg=x
func Ghost(v string) []string { return nil }

// WrongArg completes an argument the prompt does not have.
//
//mcp:complete prompt=hello arg=name
func WrongArg(v string) []string { return nil }

// BadParam takes an int.
//
//mcp:complete prompt=hello arg=x
func BadParam(v int) []string { return nil }

// BadResult returns a string.
//
//mcp:complete resource="items://{id}/{rev}" arg=id
func BadResult(v string) string { return "" }

// Nested is a form with a nested struct.
type Nested struct {
	Inner   struct{ A string } `json:"inner"`
	Pattern string             `json:"pattern" jsonschema:"pattern=^[a-z]+$"`
	Format  string             `json:"format" jsonschema:"format=hostname"`
	Ints    []int              `json:"ints"`
	Level   Level              `json:"level"`
}

// Level is a number enum.
type Level int

// The levels.
const (
	Low  Level = 1
	High Level = 2
)

// Ask elicits forms mcpgen cannot derive.
//
//mcp:tool
func Ask(ctx context.Context) error {
	_, _, err := mcp.Elicit[Nested](ctx, "nested")
	_, _, _ = mcp.Elicit[string](ctx, "a string")
	_, _, _ = mcp.Elicit[*Params](ctx, "a pointer")
	return err
}

// Generic elicits a type parameter: fine, the types it is used with carry //mcp:form.
func Generic[T any](ctx context.Context) {
	mcp.Elicit[T](ctx, "generic")
}

// Marked has //mcp:form but cannot be a form.
//
//mcp:form
type Marked struct {
	Inner struct{ A string } `json:"inner"`
}

//mcp:form
var notAType int

// Generic types cannot be marked.
//
//mcp:form
type GenericForm[T any] struct{ V T }

// NotObject declares a schema that is not an object.
//
//mcp:schema {"type": "array"}
type NotObject struct{}

// UnmarshalJSON reads it.
func (n *NotObject) UnmarshalJSON([]byte) error { return nil }

// UseNotObject takes it.
//
//mcp:tool
func UseNotObject(n NotObject) {}

// NoFile declares its schema in a file that is not there.
//
//mcp:schema file=missing.json
type NoFile struct{}

// UnmarshalJSON reads it.
func (n *NoFile) UnmarshalJSON([]byte) error { return nil }

// Wrapped is a generic form.
type Wrapped[T any] struct {
	Name string `json:"name"`
}

// AskWrapped elicits a generic type instantiated with a type parameter.
func AskWrapped[T any](ctx context.Context) {
	mcp.Elicit[Wrapped[T]](ctx, "wrapped")
}

// Octet is a named byte type.
type Octet byte

// Octets returns named bytes, which do not convert to []byte.
//
//mcp:resource octets://all
func Octets() []Octet { return nil }

// EmptyName has an empty name and MIME type.
//
//mcp:resource config://empty name= mime=
func EmptyName() string { return "" }

// Misspelled says what every directive does with a misspelled option: it suggests the one
// meant, from the directive's own table.
//
//mcp:resource config://misspelled mine=text/plain titel="Misspelled"
func Misspelled() string { return "" }

// MisspelledPrompt has a misspelled title.
//
//mcp:prompt misspelled Title="Misspelled"
func MisspelledPrompt() string { return "" }

// MisspelledCompletion completes a prompt argument, misspelled.
//
//mcp:complete promt=misspelled arg=topic
func MisspelledCompletion(value string) []string { return nil }

// Shouted is a form with an option.
//
//mcp:form required
type Shouted struct {
	Name string `json:"name"`
}

// Pictured has icons mcpgen cannot read: a path, a word it does not know, two themes.
//
//mcp:tool icon=/logo.png icon="https://example.com/a.png huge" icon="https://example.com/b.png light dark" icon=
func Pictured() {}

// Named are prompt arguments with a map for others, which prompts do not have.
type Named struct {
	Topic  string            `json:"topic"`
	Others map[string]string `json:"-" mcp:"additionalProperties"`
}

// Topical is a prompt of named arguments only.
//
//mcp:prompt
func Topical(in Named) string { return in.Topic }
