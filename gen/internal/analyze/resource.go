package analyze

import (
	"go/ast"
	"go/types"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/gen/internal/directive"
	"github.com/mcpgen/mcpgen/gen/internal/model"
	"github.com/mcpgen/mcpgen/gen/internal/schema"
)

var resourceRole = role{
	word:    "resource",
	takes:   "a resource takes (ctx context.Context, in T) with T a struct whose fields are the variables of its URI template; either may be left out",
	returns: "a resource returns (T, error) or T, with T a string (text), a []byte (binary), a struct or a pointer to one (its JSON), a type with its own MarshalJSON, an mcp.ResourceContents or a []mcp.ResourceContents",
	argOK:   isStructOrPointer,
	argWant: "a struct or a pointer to a struct",
	argHint: "put the URI template's variables in a struct, one field for each",
}

// uriVariable matches the variables of the URI templates the runtime serves: {name}, one
// path segment, and {+name}, the rest of the URI.
var uriVariable = regexp.MustCompile(`\{(\+?)([A-Za-z0-9_.]*)\}`)

// resourceOptions are the options of //mcp:resource: the URI first, then a name, a title
// and a MIME type.
var resourceOptions = &options[model.Resource]{
	verb: "resource",
	first: &firstArg[model.Resource]{what: "URI", noun: "resource",
		// A URI with a query may hold '=', which the directive parser splits on.
		takes: func(a directive.Arg) bool { return !a.HasValue || strings.Contains(a.Key, ":") },
		set: func(r *model.Resource, a directive.Arg) {
			r.URI = a.Key
			if a.HasValue {
				r.URI += "=" + a.Value
			}
		}},
	list: []option[model.Resource]{
		{key: "uri", set: func(r *model.Resource, v string) { r.URI = v }},
		{key: "name", set: func(r *model.Resource, v string) { r.Name = v },
			empty: func(r *model.Resource) string {
				return "the name defaults to the function's name in snake_case (" + r.Name + ")"
			}},
		{key: "title", set: func(r *model.Resource, v string) { r.Title = v }},
		{key: "mime", set: func(r *model.Resource, v string) { r.MIMEType = v },
			empty: func(*model.Resource) string { return "clients then guess the type" }},
		scopesOption(func(r *model.Resource, s []string) { r.Scopes = s }),
		iconOption(func(r *model.Resource, i model.Icon) { r.Icons = append(r.Icons, i) }),
	},
	usage: `write the URI first, then any of name=..., title="...", mime=..., scopes="...", icon="..."`,
}

// resource checks a function annotated with //mcp:resource.
func (a *analyzer) resource(fd *ast.FuncDecl, d directive.Directive) {
	r := &model.Resource{Name: snakeCase(fd.Name.Name), Description: a.description(fd, d, "resource")}
	resourceOptions.parse(a, d, r)
	if strings.Contains(r.URI, "{") {
		a.declared[templateTarget(r.URI)] = true
	}
	if !a.resourceURI(r, d) {
		return
	}
	s, ok := a.callable(fd, d, resourceRole)
	if !ok {
		return
	}
	r.Callable = s.Callable
	ok = a.resourceVars(r, fd, s)
	if s.out == nil {
		a.diags.Hintf(d.Pos, resourceRole.returns, "resource %s returns no contents", fd.Name.Name)
		return
	}
	if ok && a.resourceOut(r, fd, s) {
		a.decls = append(a.decls, r)
	}
}

// resourceURI checks the URI and finds the template's variables.
func (a *analyzer) resourceURI(r *model.Resource, d directive.Directive) bool {
	if r.URI == "" {
		a.diags.Hintf(d.Pos, "for example //mcp:resource config://app or //mcp:resource users://{id}/profile", "//mcp:resource needs a URI")
		return false
	}
	seen := map[string]bool{}
	for _, m := range uriVariable.FindAllStringSubmatch(r.URI, -1) {
		name := m[2]
		switch {
		case name == "":
			a.diags.Errorf(d.Pos, "URI template %s has an empty variable {}", r.URI)
			return false
		case seen[name]:
			a.diags.Errorf(d.Pos, "URI template %s uses the variable %s twice", r.URI, name)
			return false
		}
		seen[name] = true
		r.Vars = append(r.Vars, name)
	}
	rest := uriVariable.ReplaceAllString(r.URI, "x")
	if strings.ContainsAny(rest, "{}") {
		a.diags.Hintf(d.Pos, "a variable is {name} (one path segment) or {+name} (the rest of the URI)",
			"URI template %s has a variable form mcpgen does not support", r.URI)
		return false
	}
	if u, err := url.Parse(rest); err != nil || u.Scheme == "" {
		a.diags.Hintf(d.Pos, "a resource URI has a scheme, for example file:///notes.txt or config://app",
			"%s is not an absolute URI", r.URI)
		return false
	}
	return true
}

// resourceVars checks that a template's argument struct has exactly its variables, each of a
// type a URI can spell.
func (a *analyzer) resourceVars(r *model.Resource, fd *ast.FuncDecl, s signature) bool {
	if !r.Template() {
		if s.arg != nil {
			a.diags.Hintf(s.argPos, "put {variables} in the URI to make it a template, or drop the argument",
				"resource %s has a fixed URI, so it takes no argument", fd.Name.Name)
			return false
		}
		return true
	}
	if s.arg == nil {
		a.diags.Hintf(s.Pos, "take a struct with a field for each variable: "+strings.Join(r.Vars, ", "),
			"resource template %s has variables, but %s takes no argument to receive them", r.URI, fd.Name.Name)
		return false
	}
	_, r.InPointer = types.Unalias(s.arg).(*types.Pointer)
	if r.In = a.input(s.arg, s.argPos, "a variable of resource template "+r.URI); r.In == nil {
		return false
	}
	ok := a.noRest(r.In.Object, "the variables of resource template "+r.URI)
	fields := map[string]bool{}
	for _, f := range r.In.Object.Fields {
		fields[f.Name] = true
		switch {
		case !slices.Contains(r.Vars, f.Name):
			a.diags.Hintf(f.Pos, "the variables are "+strings.Join(r.Vars, ", ")+"; a field's JSON name must be one of them",
				"field %s is not a variable of URI template %s", f.Name, r.URI)
			ok = false
		case !uriScalar(f.Type):
			a.diags.Hintf(f.Pos, "use a string, a number or a bool", "URI variable %s cannot have type %s: a URI holds it as text", f.Name, typeString(f.Type.Go))
			ok = false
		case f.Type.Kind == schema.Int || f.Type.Kind == schema.Uint || f.Type.Kind == schema.Float || f.Type.Kind == schema.Bool:
			r.Literal = append(r.Literal, f.Name)
		}
	}
	for _, v := range r.Vars {
		if !fields[v] {
			a.diags.Hintf(s.argPos, "add a field whose JSON name is "+v, "%s has no field for variable %s of URI template %s", typeString(s.arg), v, r.URI)
			ok = false
		}
	}
	return ok
}

// uriScalar reports whether a URI variable can become a value of t.
func uriScalar(t *schema.Type) bool {
	switch t.Kind {
	case schema.String, schema.Int, schema.Uint, schema.Float, schema.Bool:
		return !t.Quoted
	case schema.Text:
		return t.CanDecode
	}
	return false
}

// marshalsJSON reports whether t, or the type t points to, has a method
// MarshalJSON() ([]byte, error), on its value or its pointer.
func marshalsJSON(t types.Type) bool {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	if _, ok := types.Unalias(t).(*types.Named); !ok {
		return false
	}
	sel := types.NewMethodSet(types.NewPointer(t)).Lookup(nil, "MarshalJSON")
	if sel == nil {
		return false
	}
	sig := sel.Type().(*types.Signature)
	res := sig.Results()
	return sig.Params().Len() == 0 && res.Len() == 2 &&
		types.Identical(res.At(0).Type(), types.NewSlice(types.Typ[types.Byte])) &&
		types.Identical(res.At(1).Type(), types.Universe.Lookup("error").Type())
}

// resourceOut classifies what a resource function returns.
func (a *analyzer) resourceOut(r *model.Resource, fd *ast.FuncDecl, s signature) bool {
	r.OutGo = s.out
	if name, ok := runtimeType(s.out); ok && name == "ResourceContents" {
		r.Out = model.ResourceContents
		return true
	}
	if sl, ok := s.out.Underlying().(*types.Slice); ok {
		if name, ok := runtimeType(sl.Elem()); ok && name == "ResourceContents" {
			r.Out = model.ResourceList
			return true
		}
		if types.Identical(sl.Elem(), types.Typ[types.Byte]) {
			r.Out = model.ResourceBlob
			return true
		}
		if b, ok := sl.Elem().Underlying().(*types.Basic); ok && b.Kind() == types.Byte {
			a.diags.Hintf(s.outPos, "return []byte, or a type whose underlying type is []byte; convert the bytes in the function",
				"resource %s returns %s: binary contents are a []byte, and []%s cannot be converted to one", fd.Name.Name, typeString(s.out), typeString(sl.Elem()))
			return false
		}
	}
	if b, ok := s.out.Underlying().(*types.Basic); ok && b.Kind() == types.String {
		r.Out = model.ResourceText
		return true
	}
	if marshalsJSON(s.out) {
		// Its own JSON: the generated code calls its MarshalJSON, as encoding/json would.
		r.Out = model.ResourceMarshaler
		_, r.OutPointer = types.Unalias(s.out).(*types.Pointer)
		if r.MIMEType == "" {
			r.MIMEType = model.JSONMIMEType
		}
		return true
	}
	if isStructOrPointer(s.out) {
		// Its JSON, written by a generated encoder, as a tool's structured result is.
		r.Out = model.ResourceJSON
		_, r.OutPointer = types.Unalias(s.out).(*types.Pointer)
		if r.OutType = a.builder.Object(s.out, s.outPos); r.OutType == nil {
			return false
		}
		a.builder.CheckDirection(r.OutType, false)
		a.builder.RejectHeaders(r.OutType, "the contents of resource "+r.URI, "give the contents a type of their own, without the tag")
		if r.MIMEType == "" {
			r.MIMEType = model.JSONMIMEType
		}
		return true
	}
	a.diags.Hintf(s.outPos, resourceRole.returns, "resource %s returns %s, which mcpgen cannot turn into resource contents", fd.Name.Name, typeString(s.out))
	return false
}
