package analyze

import (
	"go/types"
	"slices"
	"strings"
	"unicode"

	"github.com/mcpgen/mcpgen/gen/internal/model"
	"github.com/mcpgen/mcpgen/gen/internal/schema"
)

// checkNames reports names used twice (of tools, resources, templates and prompts) and
// package-level names that collide with the ones the generated file declares. It leaves the
// declarations in source order, so that model's stable sort keeps it among equals.
func (a *analyzer) checkNames() {
	// In source order, so that the second of two is the one reported.
	slices.SortStableFunc(a.decls, func(x, y model.Decl) int { return a.bySource(x.Where(), y.Where()) })

	firstOfEach(of[*model.Tool](a.decls), func(t *model.Tool) string { return t.Name }, func(t, prev *model.Tool) {
		a.diags.Hintf(t.Pos, "give one of them another name: //mcp:tool other_name",
			"duplicate tool name %q; %s at %s has it too", t.Name, displayName(&prev.Callable), a.where(prev.Pos))
	})
	resources := firstOfEach(of[*model.Resource](a.decls), func(r *model.Resource) string { return r.URI }, func(r, prev *model.Resource) {
		a.diags.Hintf(r.Pos, "give one of them another URI, or serve the URI from one function",
			"duplicate resource %s; %s at %s serves it too", r.URI, displayName(&prev.Callable), a.where(prev.Pos))
	})
	// Templates the same up to the names of their variables match the same URIs.
	templates := slices.DeleteFunc(resources, func(r *model.Resource) bool { return !r.Template() })
	firstOfEach(templates, func(r *model.Resource) string { return uriVariable.ReplaceAllString(r.URI, "{$1}") }, func(r, prev *model.Resource) {
		a.diags.Hintf(r.Pos, "a URI matches both, so one of them could never serve it; change the fixed parts of one template",
			"resource template %s matches the same URIs as %s, which %s at %s serves", r.URI, prev.URI, displayName(&prev.Callable), a.where(prev.Pos))
	})
	firstOfEach(of[*model.Prompt](a.decls), func(pr *model.Prompt) string { return pr.Name }, func(pr, prev *model.Prompt) {
		a.diags.Hintf(pr.Pos, "give one of them another name: //mcp:prompt other_name",
			"duplicate prompt name %q; %s at %s has it too", pr.Name, displayName(&prev.Callable), a.where(prev.Pos))
	})

	scope := a.pkg.Types.Scope()
	if obj := scope.Lookup(model.RegisterFunc); obj != nil {
		a.diags.Hintf(obj.Pos(), "rename it: the generated file declares "+model.RegisterFunc,
			"%s is already declared in package %s", model.RegisterFunc, a.pkg.Name)
	}
	for _, name := range scope.Names() {
		// Generated identifiers are GenPrefix followed by a capital: mcpgenCallX, mcpgenDecodeY.
		if rest, ok := strings.CutPrefix(name, model.GenPrefix); ok && rest != "" && unicode.IsUpper([]rune(rest)[0]) {
			obj := scope.Lookup(name)
			a.diags.Hintf(obj.Pos(), "rename it: names of the form "+model.GenPrefix+"Xxx are reserved for generated code",
				"%s uses the prefix reserved for mcpgen's generated identifiers", name)
		}
	}
}

// firstOfEach calls dup for each item whose key an earlier item has, with that earlier one,
// and returns the others: the first item of each key, in order.
func firstOfEach[T any](items []T, key func(T) string, dup func(item, prev T)) []T {
	first := map[string]T{}
	var out []T
	for _, it := range items {
		k := key(it)
		if prev, seen := first[k]; seen {
			dup(it, prev)
			continue
		}
		first[k] = it
		out = append(out, it)
	}
	return out
}

// noArguments is the input schema of a tool that takes no arguments, as the 2025-11-25 spec
// recommends: an object that must be empty.
const noArguments = `{
  "type": "object",
  "properties": {},
  "additionalProperties": false
}`

// checkInputSchemas renders each tool's schemas once, for the file and the snapshot, and
// checks the x-mcp-header annotations of its input schema as the runtime will when the tool
// is registered, reporting what it would refuse. The tags' own checks catch their mistakes
// first, with positions; this catches schemas declared with //mcp:schema, so that no
// generated file holds a tool that clients drop and the runtime panics on.
func (a *analyzer) checkInputSchemas(p *model.Package) {
	for _, t := range of[*model.Tool](p.Decls) {
		t.InputSchema = []byte(noArguments)
		if t.In != nil {
			t.InputSchema = schema.Render(t.In)
		}
		if t.Out == model.OutStruct {
			t.OutputSchema = schema.Render(t.OutType)
		}
		for _, problem := range schema.HeaderProblems(t.InputSchema) {
			a.diags.Hintf(t.Pos, "fix the schema declared with //mcp:schema, or mark the argument with a field tag mcp:\"header=Name\"",
				"tool %s: in its inputSchema, %s", t.Name, problem)
		}
	}
}

// alwaysPredeclared are the predeclared identifiers generated code may write whatever the
// package's types: nil, the flags' booleans, the builtins decoders and encoders call, and the
// types of the values the JSON codec reads and writes.
var alwaysPredeclared = []string{"nil", "true", "false", "len", "new", "append", "make",
	"string", "error", "bool", "byte", "int64", "uint64", "float64"}

// checkPredeclared reports declarations of the package that hide a predeclared identifier
// generated code uses: the generated file shares the package block, so it would refer to the
// package's declaration instead (a func named new, a type named string). They cannot be
// worked around, unlike names of locals, which the emitter avoids.
func (a *analyzer) checkPredeclared(p *model.Package) {
	used := map[string]bool{}
	for _, name := range alwaysPredeclared {
		used[name] = true
	}
	seen := map[*schema.Object]bool{}
	var walk func(t *schema.Type)
	walk = func(t *schema.Type) {
		for ; t != nil; t = t.Elem {
			predeclaredIn(t.Go, used)
			if t.Key != nil {
				predeclaredIn(t.Key.Go, used)
			}
			if t.Kind == schema.Struct && !seen[t.Object] {
				seen[t.Object] = true
				for _, f := range t.Object.Members() {
					walk(f.Type)
				}
			}
		}
	}
	for _, d := range p.Decls {
		in, out := d.Types()
		walk(in)
		walk(out)
	}
	names := make([]string, 0, len(used))
	for name := range used {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if obj := p.Scope.Lookup(name); obj != nil && types.Universe.Lookup(name) != nil {
			a.diags.Hintf(obj.Pos(), "rename it: the generated file shares the package's names, so it cannot refer to Go's "+name+" otherwise",
				"%s %s hides Go's predeclared %s, which the generated code needs", objectKind(obj), name, name)
		}
	}
}

// predeclaredIn adds the predeclared identifiers that writing type t takes: its basic types,
// and any for an empty interface, through pointers, lists, maps, type arguments and the
// fields of struct literals.
func predeclaredIn(t types.Type, used map[string]bool) {
	switch t := types.Unalias(t).(type) {
	case *types.Basic:
		used[t.Name()] = true
	case *types.Interface:
		if t.Empty() {
			used["any"] = true
		}
	case *types.Pointer:
		predeclaredIn(t.Elem(), used)
	case *types.Slice:
		predeclaredIn(t.Elem(), used)
	case *types.Array:
		predeclaredIn(t.Elem(), used)
	case *types.Map:
		predeclaredIn(t.Key(), used)
		predeclaredIn(t.Elem(), used)
	case *types.Named:
		for arg := range t.TypeArgs().Types() {
			predeclaredIn(arg, used)
		}
	case *types.Struct:
		for i := range t.NumFields() {
			predeclaredIn(t.Field(i).Type(), used)
		}
	}
}

// objectKind says what a package-level declaration is, for messages.
func objectKind(obj types.Object) string {
	switch obj.(type) {
	case *types.Func:
		return "func"
	case *types.TypeName:
		return "type"
	case *types.Const:
		return "const"
	}
	return "var"
}
