// Package features has one of each resource, prompt, completion and elicitation form shape
// mcpgen supports, and a tool whose argument declares its schema in a file.
package features

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// Readme is the project's README.
//
//mcp:resource docs://readme title="Read me" mime=text/markdown
func Readme() string { return "# Features\n" }

// Logo is the project's logo.
//
//mcp:resource docs://logo.png name=logo mime=image/png icon="data:image/png;base64,iVBORw0KGgo= 16x16"
func Logo(ctx context.Context) ([]byte, error) { return []byte{0x89, 'P', 'N', 'G'}, nil }

// Query has a query string, whose '=' must not split the directive.
//
//mcp:resource search://all?sort=name mime=text/plain
func Query() mcp.ResourceContents {
	return mcp.ResourceContents{Text: "everything, by name"}
}

// Tree lists a directory as several contents.
//
//mcp:resource files://tree scopes=files:read
func Tree() ([]mcp.ResourceContents, error) {
	return []mcp.ResourceContents{{URI: "files://tree/a", Text: "a"}, {URI: "files://tree/b", Text: "b"}}, nil
}

// Kind is what an item is.
type Kind string

// The kinds.
const (
	Book  Kind = "book"
	Movie Kind = "movie"
)

// ItemRef names an item by kind and number, with its details optional.
type ItemRef struct {
	Kind    Kind `json:"kind"`
	ID      int  `json:"id" jsonschema:"minimum=1"`
	Details bool `json:"details"`
}

// Item is one item, as JSON: a struct's contents are its JSON, application/json.
//
//mcp:resource items://{kind}/{id}/{details}
func Item(ref ItemRef) (*ItemRef, error) {
	if ref.ID > 1000 {
		return nil, mcp.ErrResourceNotFound
	}
	return &ref, nil
}

// Stats are counts of the catalogue.
type Stats struct {
	Books  int      `json:"books"`
	Movies int      `json:"movies"`
	Newest *ItemRef `json:"newest,omitempty"`
	Note   string   `json:"note,omitempty"`
}

// Catalogue counts the items, as JSON.
//
//mcp:resource stats://catalogue
func Catalogue() Stats {
	return Stats{Books: 2, Movies: 1, Newest: &ItemRef{Kind: Movie, ID: 3}, Note: "say \"hi\""}
}

// Vendor counts the items, as JSON of a type of its own.
//
//mcp:resource stats://vendor mime=application/vnd.features+json
func Vendor() (*Stats, error) { return &Stats{Books: 2}, nil }

// Missing has no stats to give: a nil pointer, which is an error.
//
//mcp:resource stats://missing
func Missing() (*Stats, error) { return nil, nil }

// File is any file under files://, through {+path}.
type File struct {
	Path string `json:"path"`
}

// Store serves files; its methods are resources and completions of a value in hand.
type Store struct {
	Files map[string]string
}

// Read returns a stored file.
//
//mcp:resource files://{+path} name=file mime=text/plain
func (s *Store) Read(ctx context.Context, f File) (string, error) {
	text, ok := s.Files[f.Path]
	if !ok {
		return "", mcp.ErrResourceNotFound
	}
	return text, nil
}

// CompletePath suggests stored paths.
//
//mcp:complete resource="files://{+path}" arg=path
func (s *Store) CompletePath(ctx context.Context, prefix string) ([]string, error) {
	var out []string
	for p := range s.Files {
		if strings.HasPrefix(p, prefix) {
			out = append(out, p)
		}
	}
	return out, nil
}

// ReviewArgs are the arguments of the code review prompt.
type ReviewArgs struct {
	// Code to review.
	Code string `json:"code" jsonschema:"minLength=1"`
	// Focus of the review, such as "security".
	Focus *string `json:"focus,omitempty" jsonschema:"title=Focus area"`
	// Language of the code.
	Language Language `json:"language,omitempty"`
}

// Language is a programming language.
type Language string

// The languages.
const (
	Go     Language = "go"
	Python Language = "python"
)

// Review asks the model to review code.
//
//mcp:prompt code_review title="Code review" scopes="review, code:read" icon=https://example.com/review.svg
func Review(in ReviewArgs) string {
	focus := "anything"
	if in.Focus != nil {
		focus = *in.Focus
	}
	return fmt.Sprintf("Review this %s code, looking for %s:\n%s", in.Language, focus, in.Code)
}

// CompleteLanguage suggests languages.
//
//mcp:complete prompt=code_review arg=language
func CompleteLanguage(req mcp.CompletionRequest) []string {
	if strings.HasPrefix("go", req.Value) {
		return []string{"go"}
	}
	return []string{"python"}
}

// Suggestions are values to complete: a completion may return a named []string.
type Suggestions []string

// CompleteFocus suggests areas to focus on.
//
//mcp:complete prompt=code_review arg=focus
func CompleteFocus(prefix string) (Suggestions, error) {
	var out Suggestions
	for _, f := range []string{"performance", "security", "style"} {
		if strings.HasPrefix(f, prefix) {
			out = append(out, f)
		}
	}
	return out, nil
}

// Greeting is a prompt without arguments, as one message.
//
//mcp:prompt
func Greeting() mcp.PromptMessage {
	return mcp.PromptMessage{Role: mcp.RoleAssistant, Content: mcp.Text{Text: "Hello! What shall we build?"}}
}

// Conversation is a prompt of several messages.
//
//mcp:prompt
func Conversation(ctx context.Context) ([]mcp.PromptMessage, error) {
	return []mcp.PromptMessage{
		{Role: mcp.RoleUser, Content: mcp.Text{Text: "Hi"}},
		{Role: mcp.RoleAssistant, Content: mcp.Text{Text: "Hello"}},
	}, nil
}

// Full is a prompt that sets the whole result.
//
//mcp:prompt
func Full(ctx context.Context) (*mcp.GetPromptResult, error) {
	return nil, errors.New("not today")
}

// Preferences is a form with every kind of field elicitation allows.
type Preferences struct {
	// Name to call the user by.
	Name string `json:"name" jsonschema:"minLength=1,maxLength=40"`
	// Email to write to.
	Email string `json:"email,omitempty" jsonschema:"format=email"`
	// Age in years.
	Age *int `json:"age,omitempty" jsonschema:"minimum=0,maximum=150"`
	// Newsletter subscription.
	Newsletter bool `json:"newsletter,omitempty" jsonschema:"default=false"`
	// Theme of the interface.
	Theme Theme `json:"theme,omitempty" jsonschema:"default=dark"`
	// Topics of interest.
	Topics []Topic `json:"topics,omitempty" jsonschema:"maxItems=2"`
}

// Theme is a color theme; each constant's comment is its title.
type Theme string

// The themes.
const (
	Light Theme = "light" // Light theme
	Dark  Theme = "dark"  // Dark theme
)

// Topic is a subject, without titles.
type Topic string

// The topics.
const (
	Go1     Topic = "go"
	Rust    Topic = "rust"
	Haskell Topic = "haskell"
)

// Onboard asks the user for their preferences.
//
//mcp:tool
func Onboard(ctx context.Context) (string, error) {
	p, action, err := mcp.Elicit[Preferences](ctx, "Tell us about yourself")
	if err != nil || action != mcp.Accept {
		return string(action), err
	}
	return fmt.Sprintf("%s likes %v", p.Name, p.Topics), nil
}

// Consent is elicited only from generic code, so mcpgen cannot see it at a call; //mcp:form
// asks for its form.
//
//mcp:form
type Consent struct {
	// Agree to the terms.
	Agree bool `json:"agree"`
	// Terms agreed to: a legacy titled enum of one value, whose enumNames is still a list.
	Terms string `json:"terms,omitempty" jsonschema:"enum=basic" jsonschema_extras:"enumNames=Basic terms"`
}

// confirm elicits any form and reports whether the user accepted it.
func confirm[T any](ctx context.Context, message string) (T, bool, error) {
	v, action, err := mcp.Elicit[T](ctx, message)
	return v, action == mcp.Accept, err
}

// AskConsent asks the user to agree to the terms.
//
//mcp:tool
func AskConsent(ctx context.Context) (string, error) {
	c, ok, err := confirm[Consent](ctx, "Do you agree?")
	if err != nil || !ok {
		return "no answer", err
	}
	return fmt.Sprintf("agree=%v", c.Agree), nil
}

// Range is an argument that reads its own JSON against the schema it declares in a file.
//
//mcp:schema file=range.schema.json
type Range struct {
	From, To int
}

// UnmarshalJSON reads [from, to] with from <= to.
func (r *Range) UnmarshalJSON(data []byte) error {
	var v struct {
		From int `json:"from"`
		To   int `json:"to"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	if v.From > v.To {
		return errors.New("/to: must not be less than /from")
	}
	r.From, r.To = v.From, v.To
	return nil
}

// Span measures a range.
//
//mcp:tool
func Span(r Range) int64String { return int64String(fmt.Sprint(r.To - r.From)) }

type int64String string

// Midpoint is the middle of a range, which it takes by pointer.
//
//mcp:tool
func Midpoint(r *Range) string { return fmt.Sprint((r.From + r.To) / 2) }

// Reindex rebuilds the search index, which takes a while: it runs as a task for clients
// that support tasks.
//
//mcp:tool task
func Reindex(ctx context.Context) (string, error) { return "reindexed", ctx.Err() }

// Export writes every file out, only ever as a task.
//
//mcp:tool task=required readonly scopes="files:read export" icon="https://example.com/export.png image/png 48x48 96x96 light" icon="https://example.com/export-dark.svg any dark"
func Export() string { return "exported" }

// Shelf encodes itself: a resource returns what its MarshalJSON writes.
type Shelf struct{ books []string }

// MarshalJSON writes the shelf as an array of titles.
func (s *Shelf) MarshalJSON() ([]byte, error) {
	if s.books == nil {
		return []byte("[]"), nil
	}
	return json.Marshal(s.books)
}

// Broken is a value whose MarshalJSON writes what is not JSON.
type Broken struct{}

// MarshalJSON writes half an object.
func (Broken) MarshalJSON() ([]byte, error) { return []byte(`{"half":`), nil }

// Books is the shelf's titles, in its own encoding.
//
//mcp:resource shelf://books
func Books() Shelf { return Shelf{books: []string{"Dune", "Emma"}} }

// Torn is a resource whose type encodes itself badly: an error, not invalid contents.
//
//mcp:resource shelf://torn
func Torn() (*Broken, error) { return &Broken{}, nil }
