package analyze

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"

	"github.com/mcpgen/mcpgen/gen/internal/directive"
	"github.com/mcpgen/mcpgen/gen/internal/model"
	"github.com/mcpgen/mcpgen/gen/internal/schema"
	"golang.org/x/tools/go/types/typeutil"
)

// findForms finds the types the package passes to mcp.Elicit, and those marked //mcp:form.
// No directive is needed for a call with a concrete type: the call says it all. Generic code
// that calls mcp.Elicit with a type parameter cannot be followed; the types it is used with
// carry //mcp:form.
func (a *analyzer) findForms() {
	type use struct {
		t   types.Type
		pos token.Pos
	}
	var uses []use
	for id, inst := range a.pkg.TypesInfo.Instances {
		fn, ok := a.pkg.TypesInfo.Uses[id].(*types.Func)
		if !ok || fn.Pkg() == nil || fn.Pkg().Path() != model.RuntimePath || fn.Name() != "Elicit" || inst.TypeArgs.Len() != 1 {
			continue
		}
		uses = append(uses, use{inst.TypeArgs.At(0), id.Pos()})
	}
	// In source order, so the first use of each type is where its problems are reported.
	slices.SortFunc(uses, func(x, y use) int { return a.bySource(x.pos, y.pos) })
	for _, obj := range a.formTypes {
		uses = append(uses, use{obj.Type(), obj.Pos()})
	}
	var seen typeutil.Map
	for _, u := range uses {
		if seen.At(u.t) != nil {
			continue
		}
		seen.Set(u.t, true)
		if typeParamIn(u.t) != nil {
			// Generic code elicits the types it is instantiated with: those need //mcp:form.
			continue
		}
		if !isStructOrPointer(u.t) {
			a.diags.Hintf(u.pos, "declare a struct whose fields are the form's fields",
				"mcp.Elicit needs a struct type, not %s", typeString(u.t))
			continue
		}
		if _, isPtr := types.Unalias(u.t).(*types.Pointer); isPtr {
			a.diags.Hintf(u.pos, "write mcp.Elicit[T] with the struct type itself; it returns a T",
				"mcp.Elicit is called with pointer type %s", typeString(u.t))
			continue
		}
		t := a.input(u.t, u.pos, "a field of elicitation form "+typeString(u.t))
		if t != nil && a.checkForm(t) {
			a.decls = append(a.decls, &model.Form{Type: t, Pos: u.pos})
		}
	}
}

// checkForm reports the fields a flat elicitation form cannot hold: the protocol allows
// strings, numbers, booleans and multi-selects of strings, with a few keywords each.
func (a *analyzer) checkForm(t *schema.Type) bool {
	ok := a.noRest(t.Object, "form "+typeString(t.Go))
	for _, f := range t.Object.Fields {
		ft := f.Type
		if ft.Kind == schema.Pointer {
			ft = ft.Elem // an optional field
		}
		bad := func(format string, args ...any) {
			a.diags.Hintf(f.Pos, "a form holds strings, numbers, booleans and multi-selects (slices of strings with enum values); check anything more in the tool",
				"field %s of form %s: "+format, append([]any{f.Name, typeString(t.Go)}, args...)...)
			ok = false
		}
		switch {
		case ft.Quoted || ft.Nullable:
			bad("a form field cannot be quoted or nullable")
			continue
		case ft.Kind == schema.Slice:
			if e := ft.Elem; e.Kind != schema.String || len(e.Rules.Enum) == 0 {
				bad("a list in a form must be a multi-select: a slice of strings with enum values")
			}
		case ft.Kind == schema.String || ft.Kind == schema.Text && ft.CanDecode:
		case ft.Kind == schema.Int || ft.Kind == schema.Uint || ft.Kind == schema.Float || ft.Kind == schema.Bool:
		default:
			bad("type %s cannot be a form field", typeString(ft.Go))
			continue
		}
		for _, msg := range schema.FormProblems(ft) {
			bad("%s", msg)
		}
	}
	return ok
}

// typeParamIn returns a type parameter that t is or is made of, or nil.
func typeParamIn(t types.Type) *types.TypeParam {
	switch t := types.Unalias(t).(type) {
	case *types.TypeParam:
		return t
	case *types.Pointer:
		return typeParamIn(t.Elem())
	case *types.Slice:
		return typeParamIn(t.Elem())
	case *types.Array:
		return typeParamIn(t.Elem())
	case *types.Map:
		if tp := typeParamIn(t.Key()); tp != nil {
			return tp
		}
		return typeParamIn(t.Elem())
	case *types.Named:
		for a := range t.TypeArgs().Types() {
			if tp := typeParamIn(a); tp != nil {
				return tp
			}
		}
	case *types.Struct:
		for i := range t.NumFields() {
			if tp := typeParamIn(t.Field(i).Type()); tp != nil {
				return tp
			}
		}
	}
	return nil
}

// formOptions: //mcp:form takes none.
var formOptions = &options[types.TypeName]{verb: "form", usage: "write //mcp:form alone on its line"}

// formDirective records a type declaration marked //mcp:form (the i-th of typeDocs: 0 is the
// declaration's own doc comment).
func (a *analyzer) formDirective(gd *ast.GenDecl, i int, c *ast.Comment) {
	d, problem, at := directive.Parse(c)
	if problem != "" {
		a.diags.Errorf(at, "//mcp:form: %s", problem)
		return
	}
	if len(d.Args) > 0 {
		formOptions.parse(a, d, nil)
		return
	}
	specs := gd.Specs
	if i > 0 {
		specs = specs[i-1 : i]
	} else if len(specs) != 1 {
		a.diags.Hintf(c.Slash, "put it in the doc comment of the type itself", "//mcp:form is on a group of type declarations")
		return
	}
	ts := specs[0].(*ast.TypeSpec)
	obj, ok := a.pkg.TypesInfo.Defs[ts.Name].(*types.TypeName)
	if !ok {
		return
	}
	if ts.TypeParams != nil {
		a.diags.Hintf(c.Slash, "mark the instantiations' own named types instead", "//mcp:form on generic type %s", ts.Name.Name)
		return
	}
	a.formTypes = append(a.formTypes, obj)
}

// noRest reports a struct that holds members besides its properties where there are only
// named ones: a form's fields, a prompt's arguments, a URI template's variables.
func (a *analyzer) noRest(o *schema.Object, what string) bool {
	if o.Rest == nil {
		return true
	}
	a.diags.Hintf(o.Rest.Pos, "remove the field, or its mcp tag",
		"field %s.%s: %s are named, one by one, so there are no others to hold", o.DisplayName(), o.Rest.Path[0].Name, what)
	return false
}
