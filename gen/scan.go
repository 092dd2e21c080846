package gen

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/gen/internal/schema"
	"github.com/mcpgen/mcpgen/internal/describe"
)

// scan finds the package's directives and turns each annotated function into a Tool.
func (p *pkgGen) scan() {
	for _, file := range p.pkg.Syntax {
		used := map[*ast.Comment]bool{}
		for _, decl := range file.Decls {
			if gd, ok := decl.(*ast.GenDecl); ok && gd.Tok == token.TYPE {
				// //mcp:schema belongs on type declarations; the source index has read it.
				// //mcp:form asks for a type's elicitation form.
				for i, g := range typeDocs(gd) {
					for _, c := range directivesIn(g) {
						switch {
						case strings.HasPrefix(c.Text, schemaDirective):
							used[c] = true
						case isForm(c.Text):
							used[c] = true
							p.formDirective(gd, i, c)
						}
					}
				}
			}
			fd, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			var found []directive
			for _, c := range directivesIn(fd.Doc) {
				used[c] = true
				d, problem, at := parseDirective(c)
				switch {
				case problem != "":
					p.errorf(at, "//mcp:%s: %s", d.verb, problem)
				case !slices.Contains(verbs, d.verb):
					p.diags.Hintf(c.Slash, "the known directives are //mcp:"+strings.Join(verbs, ", //mcp:"), "unknown directive //mcp:%s", d.verb)
				case d.verb == "schema" || d.verb == "form":
					p.diags.Hintf(c.Slash, "put it in the doc comment of the type it describes", "//mcp:%s is on a function", d.verb)
				default:
					found = append(found, d)
				}
			}
			if len(found) > 1 {
				if a, b := found[0].verb, found[1].verb; a != b {
					p.diags.Hintf(found[1].pos, "keep one directive; for both, write a second function that calls this one",
						"%s has both //mcp:%s and //mcp:%s, but a function can be only one of a tool, a resource, a prompt and a completion", fd.Name.Name, a, b)
				} else {
					p.diags.Hintf(found[1].pos, "remove one of them", "%s has two //mcp:%s directives", fd.Name.Name, a)
				}
				continue
			}
			if len(found) == 1 {
				switch found[0].verb {
				case "tool":
					p.tool(fd, found[0])
				case "resource":
					p.resource(fd, found[0])
				case "prompt":
					p.prompt(fd, found[0])
				case "complete":
					p.completion(fd, found[0])
				}
			}
		}
		for _, g := range file.Comments {
			for _, c := range g.List {
				switch {
				case (strings.HasPrefix(c.Text, schemaDirective) || isForm(c.Text)) && !used[c]:
					p.diags.Hintf(c.Slash, "put it in the comment directly above a type declaration",
						"%s is not in the doc comment of a type", strings.Fields(c.Text)[0])
				case strings.HasPrefix(c.Text, directivePrefix) && !used[c]:
					p.diags.Hintf(c.Slash, "put it in the comment directly above a func, with no blank line in between",
						"%s is not in the doc comment of a function or method", strings.Fields(c.Text)[0])
				case looksLikeDirective(c):
					p.diags.Hintf(c.Slash, "write it without a space: "+directivePrefix+strings.TrimSpace(strings.TrimLeft(c.Text[2:], " \t"))[len("mcp:"):],
						"directive has a space after //, so Go treats it as an ordinary comment")
				}
			}
		}
	}
}

// typeDocs returns the doc comments of a type declaration: its own and its specs'.
func typeDocs(gd *ast.GenDecl) []*ast.CommentGroup {
	docs := []*ast.CommentGroup{gd.Doc}
	for _, spec := range gd.Specs {
		docs = append(docs, spec.(*ast.TypeSpec).Doc)
	}
	return docs
}

// tool checks an annotated function and adds it to the package's tools.
func (p *pkgGen) tool(fd *ast.FuncDecl, d directive) {
	t := &Tool{Name: snakeCase(fd.Name.Name)}
	t.Description = describe.Description(fd.Name.Name, fd.Doc.Text())
	p.options(t, d)
	if !validToolName(t.Name) {
		p.diags.Hintf(d.pos, "use 1 to 128 ASCII letters, digits, '_', '-' or '.'", "invalid tool name %q", t.Name)
	}
	c, ok := p.callable(fd, d, toolRole)
	if !ok {
		return
	}
	t.Callable = c.Callable
	if c.arg != nil {
		_, t.InPointer = types.Unalias(c.arg).(*types.Pointer)
		if t.In = p.builder.Argument(c.arg, c.argPos); t.In == nil {
			return
		}
		p.builder.CheckDirection(t.In, true)
		p.builder.CheckHeaders(t.In, t.Name)
	}
	if c.out != nil && !p.output(t, fd, c.out, c.outPos) {
		return
	}
	p.tools = append(p.tools, t)
}

// options applies a directive's arguments: an optional name, then key=value options and flags.
func (p *pkgGen) options(t *Tool, d directive) {
	hints := map[string]**bool{
		"readonly": &t.Hints.ReadOnly, "destructive": &t.Hints.Destructive,
		"idempotent": &t.Hints.Idempotent, "openworld": &t.Hints.OpenWorld,
	}
	for i, a := range d.args {
		if hint, ok := hints[a.key]; ok {
			v := true
			if a.hasValue {
				switch a.value {
				case "true":
				case "false":
					v = false
				default:
					p.errorf(a.pos, "%s=%s: want true or false", a.key, a.value)
					continue
				}
			}
			*hint = &v
			continue
		}
		near := nearOption(a.key)
		switch {
		case a.key == "title" && a.hasValue:
			t.Title = a.value
		case a.key == "name" && a.hasValue:
			t.Name = a.value
		case !a.hasValue && i == 0 && near == "":
			t.Name = a.key
		case !a.hasValue && i == 0:
			// A misspelled hint would otherwise silently become the tool's name.
			p.diags.Hintf(a.pos, "options are lower-case; to name the tool "+a.key+", write name="+a.key,
				"//mcp:tool option %q looks like %q", a.key, near)
		case near != "":
			p.diags.Hintf(a.pos, "did you mean "+near+"?", "unknown //mcp:tool option %q", a.key)
		default:
			p.diags.Hintf(a.pos, "options are: a name first, then title=\"...\", readonly, destructive, idempotent, openworld (each may be =false)",
				"unknown //mcp:tool option %q", a.key)
		}
	}
	if h := t.Hints; h.ReadOnly != nil && *h.ReadOnly && h.Destructive != nil && *h.Destructive {
		p.errorf(d.pos, "a tool cannot be both readonly and destructive")
	}
}

// toolOptions are the option words of //mcp:tool; the first four are the hints.
var toolOptions = []string{"readonly", "destructive", "idempotent", "openworld", "title", "name"}

// nearOption returns the option a word seems to misspell, or "": any option in another case,
// or a hint one or two typos away (long, unusual words that are unlikely tool names).
func nearOption(word string) string {
	for i, opt := range toolOptions {
		if word == opt {
			continue
		}
		if strings.EqualFold(word, opt) || i < 4 && schema.Distance(strings.ToLower(word), opt) <= 2 {
			return opt
		}
	}
	return ""
}

// output classifies a tool's result type.
func (p *pkgGen) output(t *Tool, fd *ast.FuncDecl, out types.Type, pos token.Pos) bool {
	t.OutGo = out
	elem := out
	if ptr, ok := types.Unalias(out).(*types.Pointer); ok {
		elem, t.OutPointer = ptr.Elem(), true
	}
	if name, ok := runtimeType(elem); ok {
		switch {
		case name == "CallToolResult":
			t.Out = OutResult
			return true
		case slices.Contains(contentTypes, name) && !t.OutPointer:
			t.Out = OutContent
			return true
		}
	}
	if s, ok := out.(*types.Slice); ok {
		if name, ok := runtimeType(s.Elem()); ok && name == "Content" {
			t.Out = OutContents
			return true
		}
	}
	if b, ok := out.Underlying().(*types.Basic); ok && b.Kind() == types.String {
		t.Out = OutText
		return true
	}
	if _, ok := elem.Underlying().(*types.Struct); ok {
		t.Out = OutStruct
		t.OutType = p.builder.Object(out, pos)
		if t.OutType != nil {
			p.builder.CheckDirection(t.OutType, false)
			p.builder.RejectHeaders(t.OutType, "the result of tool "+t.Name, "give the result a type of its own, without the tag")
		}
		return t.OutType != nil
	}
	field := "Value"
	switch elem.Underlying().(type) {
	case *types.Slice, *types.Array, *types.Map:
		field = "Items"
	}
	example := fmt.Sprintf("struct{ %s %s `json:\"%s\"` }", field, types.TypeString(out, types.RelativeTo(p.pkg.Types)), strings.ToLower(field))
	p.diags.Hintf(pos, "wrap it in a struct, whose fields become the structured output: "+example+"; or return a string (text) or an mcp content type",
		"tool %s returns %s, which mcpgen cannot turn into a tool result", fd.Name.Name, typeString(out))
	return false
}

// runtimeType reports whether t is a named type of the mcp runtime, and its name.
func runtimeType(t types.Type) (string, bool) {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() != RuntimePath {
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

// objects lists the structs a tool's argument (or result) uses, for emitting decoders
// (or encoders).
func objects(t *schema.Type, seen map[*schema.Object]bool, out *[]*schema.Object) {
	if t == nil {
		return
	}
	if t.Kind == schema.Struct {
		if seen[t.Object] {
			return
		}
		seen[t.Object] = true
		*out = append(*out, t.Object)
		for _, f := range t.Object.Fields {
			objects(f.Type, seen, out)
		}
		return
	}
	objects(t.Elem, seen, out)
}
