package gen

import (
	"go/ast"
	"go/token"
	"strconv"
	"strings"
)

// directivePrefix starts every mcpgen directive. Like //go:generate, it has no space after
// the slashes, which is what makes go/ast leave it out of doc comment text.
const directivePrefix = "//mcp:"

// verbs are the known directives: //mcp:tool, //mcp:resource, //mcp:prompt and
// //mcp:complete on functions, //mcp:schema and //mcp:form on types.
var verbs = []string{"tool", "resource", "prompt", "complete", "schema", "form"}

const (
	schemaDirective = directivePrefix + "schema "
	formDirective   = directivePrefix + "form"
)

// isForm reports whether a comment is a //mcp:form directive (and not //mcp:formal).
func isForm(text string) bool {
	return text == formDirective || strings.HasPrefix(text, formDirective+" ")
}

// directive is one parsed //mcp:verb line.
type directive struct {
	verb string
	args []directiveArg
	pos  token.Pos // of the leading //
}

// directiveArg is one argument: a bare word ("readonly", a tool name) or key=value, where the
// value may be a Go-quoted string (title="Current weather").
type directiveArg struct {
	key, value string
	hasValue   bool
	pos        token.Pos
}

// parseDirective parses a comment that starts with //mcp:. It returns a message describing a
// syntax problem and where it is, if there is one.
func parseDirective(c *ast.Comment) (d directive, problem string, at token.Pos) {
	text := c.Text[len(directivePrefix):]
	d.pos = c.Slash
	verbEnd := strings.IndexAny(text, " \t")
	if verbEnd < 0 {
		verbEnd = len(text)
	}
	d.verb = text[:verbEnd]
	base := c.Slash + token.Pos(len(directivePrefix))
	i := verbEnd
	for {
		for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
			i++
		}
		if i >= len(text) {
			return d, "", 0
		}
		a := directiveArg{pos: base + token.Pos(i)}
		start := i
		for i < len(text) && text[i] != ' ' && text[i] != '\t' && text[i] != '=' {
			i++
		}
		a.key = text[start:i]
		if i < len(text) && text[i] == '=' {
			a.hasValue = true
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
					return d, "unterminated quoted value", a.pos
				}
				v, err := strconv.Unquote(text[i : end+1])
				if err != nil {
					return d, "invalid quoted value " + text[i:end+1], a.pos
				}
				a.value = v
				i = end + 1
			} else {
				vstart := i
				for i < len(text) && text[i] != ' ' && text[i] != '\t' {
					i++
				}
				a.value = text[vstart:i]
			}
		}
		d.args = append(d.args, a)
	}
}

// directivesIn returns the //mcp: comments of a comment group.
func directivesIn(g *ast.CommentGroup) []*ast.Comment {
	if g == nil {
		return nil
	}
	var out []*ast.Comment
	for _, c := range g.List {
		if strings.HasPrefix(c.Text, directivePrefix) {
			out = append(out, c)
		}
	}
	return out
}

// looksLikeDirective spots a directive written with a space ("// mcp:tool"), which Go does
// not treat as a directive: it would end up in the tool's description instead.
func looksLikeDirective(c *ast.Comment) bool {
	rest, ok := strings.CutPrefix(c.Text, "//")
	if !ok {
		return false
	}
	rest = strings.TrimLeft(rest, " \t")
	if !strings.HasPrefix(rest, "mcp:") || strings.HasPrefix(c.Text, directivePrefix) {
		return false
	}
	verb, _, _ := strings.Cut(rest[len("mcp:"):], " ")
	for _, v := range verbs {
		if verb == v {
			return true
		}
	}
	return false
}
