package gen

import (
	"go/ast"
	"go/types"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/gen/internal/schema"
	"github.com/mcpgen/mcpgen/internal/describe"
)

// Resource is one function annotated with //mcp:resource: a resource at a fixed URI, or,
// when the URI has {variables}, a resource template whose variables are the fields of the
// function's argument struct.
type Resource struct {
	Callable
	URI         string   // the URI, or the URI template
	Vars        []string // the template's variables; none for a fixed URI
	Name        string
	Title       string
	Description string
	MIMEType    string
	In          *schema.Type // the variables' struct, for a template
	InPointer   bool
	Literal     []string // variables whose fields are numbers or booleans
	Out         ResourceOut
	OutGo       types.Type
}

// ResourceOut is what a resource function returns.
type ResourceOut int

const (
	ResourceText     ResourceOut = iota // a string: text contents
	ResourceBlob                        // []byte: binary contents
	ResourceContents                    // mcp.ResourceContents
	ResourceList                        // []mcp.ResourceContents
)

// Template reports whether the resource is a template.
func (r *Resource) Template() bool { return len(r.Vars) > 0 }

var resourceRole = role{
	word:    "resource",
	takes:   "a resource takes (ctx context.Context, in T) with T a struct whose fields are the variables of its URI template; either may be left out",
	returns: "a resource returns (T, error) or T, with T a string (text), a []byte (binary), an mcp.ResourceContents or a []mcp.ResourceContents",
	argOK:   isStructOrPointer,
	argWant: "a struct or a pointer to a struct",
	argHint: "put the URI template's variables in a struct, one field for each",
}

// uriVariable matches the variables of the URI templates the runtime serves: {name}, one
// path segment, and {+name}, the rest of the URI.
var uriVariable = regexp.MustCompile(`\{(\+?)([A-Za-z0-9_.]*)\}`)

// resource checks a function annotated with //mcp:resource.
func (p *pkgGen) resource(fd *ast.FuncDecl, d directive) {
	r := &Resource{Name: snakeCase(fd.Name.Name), Description: describe.Description(fd.Name.Name, fd.Doc.Text())}
	for i, a := range d.args {
		switch {
		case (a.key == "name" || a.key == "mime") && a.hasValue && a.value == "":
			what := map[string]string{"name": "the name defaults to the function's name in snake_case (" + r.Name + ")", "mime": "clients then guess the type"}[a.key]
			p.diags.Hintf(a.pos, "write "+a.key+"=..., or leave the option out: "+what, "//mcp:resource option %s= has no value", a.key)
		case i == 0 && !a.hasValue || i == 0 && strings.Contains(a.key, ":"):
			// The URI; one with a query may hold '=', which the directive parser splits on.
			r.URI = a.key
			if a.hasValue {
				r.URI += "=" + a.value
			}
		case a.key == "uri" && a.hasValue:
			r.URI = a.value
		case a.key == "name" && a.hasValue:
			r.Name = a.value
		case a.key == "title" && a.hasValue:
			r.Title = a.value
		case a.key == "mime" && a.hasValue:
			r.MIMEType = a.value
		default:
			p.diags.Hintf(a.pos, `write the URI first, then any of name=..., title="...", mime=...`, "unknown //mcp:resource option %q", a.key)
		}
	}
	if strings.Contains(r.URI, "{") {
		p.declared[templateTarget(r.URI)] = true
	}
	if !p.resourceURI(r, d) {
		return
	}
	s, ok := p.callable(fd, d, resourceRole)
	if !ok {
		return
	}
	r.Callable = s.Callable
	ok = p.resourceVars(r, fd, s)
	if s.out == nil {
		p.diags.Hintf(d.pos, resourceRole.returns, "resource %s returns no contents", fd.Name.Name)
		return
	}
	if ok && p.resourceOut(r, fd, s) {
		p.resources = append(p.resources, r)
	}
}

// resourceURI checks the URI and finds the template's variables.
func (p *pkgGen) resourceURI(r *Resource, d directive) bool {
	if r.URI == "" {
		p.diags.Hintf(d.pos, "for example //mcp:resource config://app or //mcp:resource users://{id}/profile", "//mcp:resource needs a URI")
		return false
	}
	seen := map[string]bool{}
	for _, m := range uriVariable.FindAllStringSubmatch(r.URI, -1) {
		name := m[2]
		switch {
		case name == "":
			p.errorf(d.pos, "URI template %s has an empty variable {}", r.URI)
			return false
		case seen[name]:
			p.errorf(d.pos, "URI template %s uses the variable %s twice", r.URI, name)
			return false
		}
		seen[name] = true
		r.Vars = append(r.Vars, name)
	}
	rest := uriVariable.ReplaceAllString(r.URI, "x")
	if strings.ContainsAny(rest, "{}") {
		p.diags.Hintf(d.pos, "a variable is {name} (one path segment) or {+name} (the rest of the URI)",
			"URI template %s has a variable form mcpgen does not support", r.URI)
		return false
	}
	if u, err := url.Parse(rest); err != nil || u.Scheme == "" {
		p.diags.Hintf(d.pos, "a resource URI has a scheme, for example file:///notes.txt or config://app",
			"%s is not an absolute URI", r.URI)
		return false
	}
	return true
}

// resourceVars checks that a template's argument struct has exactly its variables, each of a
// type a URI can spell.
func (p *pkgGen) resourceVars(r *Resource, fd *ast.FuncDecl, s signature) bool {
	if !r.Template() {
		if s.arg != nil {
			p.diags.Hintf(s.argPos, "put {variables} in the URI to make it a template, or drop the argument",
				"resource %s has a fixed URI, so it takes no argument", fd.Name.Name)
			return false
		}
		return true
	}
	if s.arg == nil {
		p.diags.Hintf(s.Pos, "take a struct with a field for each variable: "+strings.Join(r.Vars, ", "),
			"resource template %s has variables, but %s takes no argument to receive them", r.URI, fd.Name.Name)
		return false
	}
	_, r.InPointer = types.Unalias(s.arg).(*types.Pointer)
	if r.In = p.input(s.arg, s.argPos, "a variable of resource template "+r.URI); r.In == nil {
		return false
	}
	ok := true
	fields := map[string]bool{}
	for _, f := range r.In.Object.Fields {
		fields[f.Name] = true
		switch {
		case !slices.Contains(r.Vars, f.Name):
			p.diags.Hintf(f.Pos, "the variables are "+strings.Join(r.Vars, ", ")+"; a field's JSON name must be one of them",
				"field %s is not a variable of URI template %s", f.Name, r.URI)
			ok = false
		case !uriScalar(f.Type):
			p.diags.Hintf(f.Pos, "use a string, a number or a bool", "URI variable %s cannot have type %s: a URI holds it as text", f.Name, typeString(f.Type.Go))
			ok = false
		case f.Type.Kind == schema.Int || f.Type.Kind == schema.Uint || f.Type.Kind == schema.Float || f.Type.Kind == schema.Bool:
			r.Literal = append(r.Literal, f.Name)
		}
	}
	for _, v := range r.Vars {
		if !fields[v] {
			p.diags.Hintf(s.argPos, "add a field whose JSON name is "+v, "%s has no field for variable %s of URI template %s", typeString(s.arg), v, r.URI)
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

// resourceOut classifies what a resource function returns.
func (p *pkgGen) resourceOut(r *Resource, fd *ast.FuncDecl, s signature) bool {
	r.OutGo = s.out
	if name, ok := runtimeType(s.out); ok && name == "ResourceContents" {
		r.Out = ResourceContents
		return true
	}
	if sl, ok := s.out.Underlying().(*types.Slice); ok {
		if name, ok := runtimeType(sl.Elem()); ok && name == "ResourceContents" {
			r.Out = ResourceList
			return true
		}
		if types.Identical(sl.Elem(), types.Typ[types.Byte]) {
			r.Out = ResourceBlob
			return true
		}
		if b, ok := sl.Elem().Underlying().(*types.Basic); ok && b.Kind() == types.Byte {
			p.diags.Hintf(s.outPos, "return []byte, or a type whose underlying type is []byte; convert the bytes in the function",
				"resource %s returns %s: binary contents are a []byte, and []%s cannot be converted to one", fd.Name.Name, typeString(s.out), typeString(sl.Elem()))
			return false
		}
	}
	if b, ok := s.out.Underlying().(*types.Basic); ok && b.Kind() == types.String {
		r.Out = ResourceText
		return true
	}
	p.diags.Hintf(s.outPos, resourceRole.returns, "resource %s returns %s, which mcpgen cannot turn into resource contents", fd.Name.Name, typeString(s.out))
	return false
}
