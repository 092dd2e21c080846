package analyze

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"
	"unicode"

	"github.com/mcpgen/mcpgen/gen/internal/directive"
	"github.com/mcpgen/mcpgen/gen/internal/model"
)

// toolOptions are the options of //mcp:tool: a name first, a title, and the hints.
var toolOptions = &options[model.Tool]{
	verb:  "tool",
	first: &firstArg[model.Tool]{what: "name", noun: "tool", takes: bare, set: func(t *model.Tool, a directive.Arg) { t.Name = a.Key }},
	list: []option[model.Tool]{
		{key: "readonly", flag: true, set: func(t *model.Tool, v string) { t.Hints.ReadOnly = boolValue(v) }},
		{key: "destructive", flag: true, set: func(t *model.Tool, v string) { t.Hints.Destructive = boolValue(v) }},
		{key: "idempotent", flag: true, set: func(t *model.Tool, v string) { t.Hints.Idempotent = boolValue(v) }},
		{key: "openworld", flag: true, set: func(t *model.Tool, v string) { t.Hints.OpenWorld = boolValue(v) }},
		{key: "task", values: []string{"optional", "required", "deferred"}, set: func(t *model.Tool, v string) { t.Task = v }},
		scopesOption(func(t *model.Tool, s []string) { t.Scopes = s }),
		{key: "title", set: func(t *model.Tool, v string) { t.Title = v }},
		{key: "name", set: func(t *model.Tool, v string) { t.Name = v }},
		iconOption(func(t *model.Tool, i model.Icon) { t.Icons = append(t.Icons, i) }),
	},
	usage: `options are: a name first, then title="...", readonly, destructive, idempotent, openworld (each may be =false), task (=optional, =required or =deferred), scopes="...", icon="..."`,
}

// bare takes an argument without a value.
func bare(a directive.Arg) bool { return !a.HasValue }

var toolRole = role{
	word:    "tool",
	takes:   "a tool takes (ctx context.Context, in T) with T a struct or a pointer to one; either may be left out",
	returns: "a tool returns (T, error), T alone, error alone, or nothing",
	argOK:   isStructOrPointer,
	argWant: "a struct or a pointer to a struct",
	argHint: "put the arguments in a struct: its fields become the tool's properties",
}

// tool checks a function annotated with //mcp:tool.
func (a *analyzer) tool(fd *ast.FuncDecl, d directive.Directive) {
	t := &model.Tool{Name: snakeCase(fd.Name.Name)}
	t.Description = a.description(fd, d, "tool")
	toolOptions.parse(a, d, t)
	if h := t.Hints; h.ReadOnly != nil && *h.ReadOnly && h.Destructive != nil && *h.Destructive {
		a.diags.Errorf(d.Pos, "a tool cannot be both readonly and destructive")
	}
	if !validName(t.Name) {
		a.diags.Hintf(d.Pos, "use 1 to 128 ASCII letters, digits, '_', '-' or '.'", "invalid tool name %q", t.Name)
	}
	c, ok := a.callable(fd, d, toolRole)
	if !ok {
		return
	}
	t.Callable = c.Callable
	if c.arg != nil {
		_, t.InPointer = types.Unalias(c.arg).(*types.Pointer)
		if t.In = a.builder.Argument(c.arg, c.argPos); t.In == nil {
			return
		}
		a.builder.CheckDirection(t.In, true)
		a.builder.CheckHeaders(t.In, t.Name)
	}
	if c.out != nil && !a.output(t, fd, c.out, c.outPos) {
		return
	}
	a.decls = append(a.decls, t)
}

// output classifies a tool's result type.
func (a *analyzer) output(t *model.Tool, fd *ast.FuncDecl, out types.Type, pos token.Pos) bool {
	t.OutGo = out
	elem := out
	if ptr, ok := types.Unalias(out).(*types.Pointer); ok {
		elem, t.OutPointer = ptr.Elem(), true
	}
	if name, ok := runtimeType(elem); ok {
		switch {
		case name == "CallToolResult":
			t.Out = model.OutResult
			return true
		case slices.Contains(contentTypes, name) && !t.OutPointer:
			t.Out = model.OutContent
			return true
		}
	}
	if s, ok := out.(*types.Slice); ok {
		if name, ok := runtimeType(s.Elem()); ok && name == "Content" {
			t.Out = model.OutContents
			return true
		}
	}
	if b, ok := out.Underlying().(*types.Basic); ok && b.Kind() == types.String {
		t.Out = model.OutText
		return true
	}
	if _, ok := elem.Underlying().(*types.Struct); ok {
		t.Out = model.OutStruct
		t.OutType = a.builder.Object(out, pos)
		if t.OutType != nil {
			a.builder.CheckDirection(t.OutType, false)
			a.builder.RejectHeaders(t.OutType, "the result of tool "+t.Name, "give the result a type of its own, without the tag")
		}
		textOK := a.resultText(t, elem)
		errorOK := a.resultIsError(t, elem)
		return t.OutType != nil && textOK && errorOK
	}
	field := "Value"
	switch elem.Underlying().(type) {
	case *types.Slice, *types.Array, *types.Map:
		field = "Items"
	}
	example := fmt.Sprintf("struct{ %s %s `json:\"%s\"` }", field, types.TypeString(out, types.RelativeTo(a.pkg.Types)), strings.ToLower(field))
	a.diags.Hintf(pos, "wrap it in a struct, whose fields become the structured output: "+example+"; or return a string (text) or an mcp content type",
		"tool %s returns %s, which mcpgen cannot turn into a tool result", fd.Name.Name, typeString(out))
	return false
}

// resultText finds the method by which a tool's result type writes its own text block:
// AppendMCPText(b []byte) []byte, or MCPText() string. A method of either name with another
// signature is reported, since it was surely meant as one.
func (a *analyzer) resultText(t *model.Tool, elem types.Type) bool {
	methods := types.NewMethodSet(types.NewPointer(elem)) // a value's methods and its pointer's
	bytes := types.NewSlice(types.Typ[types.Byte])
	ok := true
	for _, want := range []struct {
		name        string
		params, res []types.Type
		sig         string
	}{
		{model.TextAppend, []types.Type{bytes}, []types.Type{bytes}, "func(b []byte) []byte"},
		{model.TextString, nil, []types.Type{types.Typ[types.String]}, "func() string"},
	} {
		sel := methods.Lookup(nil, want.name)
		if sel == nil {
			continue
		}
		sig := sel.Type().(*types.Signature)
		if !sameTypes(sig.Params(), want.params) || !sameTypes(sig.Results(), want.res) || sig.Variadic() {
			a.diags.Hintf(sel.Obj().Pos(), "write MCPText() string, or AppendMCPText(b []byte) []byte to append the text to b without allocating",
				"method %s of %s, the result of tool %s, must be %s to write the tool's text block; it is %s",
				want.name, typeString(elem), t.Name, want.sig, types.TypeString(sig, func(p *types.Package) string { return p.Name() }))
			ok = false
			continue
		}
		if t.Text == "" {
			t.Text = want.name // AppendMCPText first: it need not allocate
		}
	}
	return ok
}

// resultIsError finds the method by which a tool's result type says that a value reports a
// failure, MCPIsError() bool. A method of that name with another signature is reported.
func (a *analyzer) resultIsError(t *model.Tool, elem types.Type) bool {
	sel := types.NewMethodSet(types.NewPointer(elem)).Lookup(nil, model.IsErrorMethod)
	if sel == nil {
		return true
	}
	sig := sel.Type().(*types.Signature)
	if !sameTypes(sig.Params(), nil) || !sameTypes(sig.Results(), []types.Type{types.Typ[types.Bool]}) {
		a.diags.Hintf(sel.Obj().Pos(), "write MCPIsError() bool, true when the value reports a failure",
			"method %s of %s, the result of tool %s, must be func() bool to mark the result an error result; it is %s",
			model.IsErrorMethod, typeString(elem), t.Name, types.TypeString(sig, func(p *types.Package) string { return p.Name() }))
		return false
	}
	t.IsError = true
	return true
}

func sameTypes(tuple *types.Tuple, want []types.Type) bool {
	if tuple.Len() != len(want) {
		return false
	}
	for i, w := range want {
		if !types.Identical(tuple.At(i).Type(), w) {
			return false
		}
	}
	return true
}

// runtimeType reports whether t is a named type of the mcp runtime, and its name.
func runtimeType(t types.Type) (string, bool) {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() != model.RuntimePath {
		return "", false
	}
	return n.Obj().Name(), true
}

func isContext(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "context" && n.Obj().Name() == "Context"
}

func isError(t types.Type) bool {
	return types.Identical(t, types.Universe.Lookup("error").Type())
}

func isStructOrPointer(t types.Type) bool {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	_, ok := t.Underlying().(*types.Struct)
	return ok
}

// paramPositions returns the position of each parameter, one per name (or per unnamed type).
func paramPositions(fl *ast.FieldList) []token.Pos {
	var out []token.Pos
	for _, f := range fl.List {
		if len(f.Names) == 0 {
			out = append(out, f.Type.Pos())
			continue
		}
		for _, n := range f.Names {
			out = append(out, n.Pos())
		}
	}
	return out
}

func typeString(t types.Type) string {
	return types.TypeString(t, func(p *types.Package) string { return p.Name() })
}

// contentTypes are the runtime types a tool may return as a single content block.
var contentTypes = []string{"Content", "Text", "Image", "Audio", "ResourceLink", "EmbeddedResource"}

// snakeCase turns a Go name into the default tool name: GetWeather -> get_weather,
// HTTPServer -> http_server, ListIDs -> list_ids.
func snakeCase(name string) string {
	runes := []rune(name)
	var b strings.Builder
	for i, r := range runes {
		if unicode.IsUpper(r) && i > 0 {
			prev := runes[i-1]
			nextLower := i+1 < len(runes) && unicode.IsLower(runes[i+1])
			// A new word starts after a lower-case letter or digit, or at the last capital of
			// an acronym that is followed by a lower-case letter (HTTPServer: the S).
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || unicode.IsUpper(prev) && nextLower && !(i+2 == len(runes) && runes[i+1] == 's') {
				b.WriteByte('_')
			}
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// validName reports whether a tool or prompt name follows the MCP naming rules: 1 to 128
// characters, ASCII letters, digits, underscore, hyphen and dot.
func validName(name string) bool {
	if name == "" || len(name) > 128 {
		return false
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}
