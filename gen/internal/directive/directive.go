// Package directive reads mcpgen's directives, the //mcp:verb comments on functions and types,
// into verbs and arguments. What the arguments mean is the analysis's business.
package directive

import (
	"go/ast"
	"go/token"
	"slices"
	"strconv"
	"strings"
)

// Prefix starts every mcpgen directive. Like //go:generate, it has no space after the
// slashes, which is what makes go/ast leave it out of doc comment text.
const Prefix = "//mcp:"

// Verbs are the known directives: //mcp:tool, //mcp:resource, //mcp:prompt and
// //mcp:complete on functions, //mcp:schema and //mcp:form on types.
var Verbs = []string{"tool", "resource", "prompt", "complete", "schema", "form"}

const (
	// SchemaPrefix starts a //mcp:schema directive, whose argument is JSON, not options.
	SchemaPrefix = Prefix + "schema "
	formText     = Prefix + "form"
)

// IsForm reports whether a comment is a //mcp:form directive (and not //mcp:formal).
func IsForm(text string) bool {
	return text == formText || strings.HasPrefix(text, formText+" ")
}

// Directive is one parsed //mcp:verb line.
type Directive struct {
	Verb string
	Args []Arg
	Pos  token.Pos // of the leading //
}

// Arg is one argument: a bare word ("readonly", a tool name) or key=value, where the value
// may be a Go-quoted string (title="Current weather").
type Arg struct {
	Key, Value string
	HasValue   bool
	Pos        token.Pos
}

// Parse parses a comment that starts with //mcp:. It returns a message describing a syntax
// problem and where it is, if there is one.
func Parse(c *ast.Comment) (d Directive, problem string, at token.Pos) {
	text := c.Text[len(Prefix):]
	d.Pos = c.Slash
	verbEnd := strings.IndexAny(text, " \t")
	if verbEnd < 0 {
		verbEnd = len(text)
	}
	d.Verb = text[:verbEnd]
	if Prefix+d.Verb+" " == SchemaPrefix {
		return d, "", 0 // its argument is JSON, not options
	}
	base := c.Slash + token.Pos(len(Prefix))
	i := verbEnd
	for {
		for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
			i++
		}
		if i >= len(text) {
			return d, "", 0
		}
		a := Arg{Pos: base + token.Pos(i)}
		if text[i] == '"' {
			// A quoted word ("get weather") would split at its space into two arguments, each
			// wrong in its own way: say what is wrong once.
			quoted, _, _ := strings.Cut(text[i+1:], `"`)
			return d, `quoted argument "` + quoted + `": a name or an option is written bare (get_weather, readonly); only a value after = may be quoted (title="Current weather")`, a.Pos
		}
		start := i
		for i < len(text) && text[i] != ' ' && text[i] != '\t' && text[i] != '=' {
			i++
		}
		a.Key = text[start:i]
		if i < len(text) && text[i] == '=' {
			a.HasValue = true
			i++
			if i < len(text) && text[i] == '"' {
				end := i + 1
				for end < len(text) && text[end] != '"' {
					if text[end] == '\\' {
						end++
					}
					end++
				}
				if end >= len(text) {
					return d, "unterminated quoted value", a.Pos
				}
				v, err := strconv.Unquote(text[i : end+1])
				if err != nil {
					return d, "invalid quoted value " + text[i:end+1], a.Pos
				}
				a.Value = v
				i = end + 1
			} else {
				vstart := i
				for i < len(text) && text[i] != ' ' && text[i] != '\t' {
					i++
				}
				a.Value = text[vstart:i]
			}
		}
		d.Args = append(d.Args, a)
	}
}

// In returns the //mcp: comments of a comment group.
func In(g *ast.CommentGroup) []*ast.Comment {
	if g == nil {
		return nil
	}
	var out []*ast.Comment
	for _, c := range g.List {
		if strings.HasPrefix(c.Text, Prefix) {
			out = append(out, c)
		}
	}
	return out
}

// LooksLike spots a directive written with a space ("// mcp:tool"), which Go does not treat
// as a directive: it would end up in the tool's description instead.
func LooksLike(c *ast.Comment) bool {
	rest, ok := strings.CutPrefix(c.Text, "//")
	if !ok {
		return false
	}
	rest = strings.TrimLeft(rest, " \t")
	if !strings.HasPrefix(rest, "mcp:") || strings.HasPrefix(c.Text, Prefix) {
		return false
	}
	verb, _, _ := strings.Cut(rest[len("mcp:"):], " ")
	return slices.Contains(Verbs, verb)
}
