// Package analyze turns a loaded package's directives into the checked model the emitter
// writes out: it reads each directive's options, checks the annotated functions' signatures
// and the types they use, and everything the generated file will rely on (unique names,
// header annotations, the names the file shares with the package). Every problem is a
// diagnostic with a position; the emitter has none left to find.
package analyze

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/gen/internal/diag"
	"github.com/mcpgen/mcpgen/gen/internal/directive"
	"github.com/mcpgen/mcpgen/gen/internal/model"
	"github.com/mcpgen/mcpgen/gen/internal/schema"
	"golang.org/x/tools/go/packages"
)

// funcDirectives are the directives on functions and methods, and what checks each.
var funcDirectives = map[string]func(a *analyzer, fd *ast.FuncDecl, d directive.Directive){
	"tool":     (*analyzer).tool,
	"resource": (*analyzer).resource,
	"prompt":   (*analyzer).prompt,
	"complete": (*analyzer).completion,
}

// typeDirectives are the directives on type declarations: //mcp:form here, //mcp:schema
// read with the type's doc comment by the source index (load.Source).
var typeDirectives = []string{"form", "schema"}

// analyzer holds one package's analysis.
type analyzer struct {
	pkg       *packages.Package
	diags     *diag.List
	builder   *schema.Builder
	decls     []model.Decl
	formTypes []*types.TypeName // marked //mcp:form
	receivers map[*types.TypeName]*model.Receiver
	declared  map[string]bool // prompts and templates with a directive, even one that failed (promptTarget, templateTarget)
}

// Package analyzes one package. Problems go to diags; the model is complete only when there
// are none.
func Package(pkg *packages.Package, src schema.Source, diags *diag.List) *model.Package {
	a := &analyzer{pkg: pkg, diags: diags, builder: schema.NewBuilder(diags, src, pkg.Types),
		receivers: map[*types.TypeName]*model.Receiver{}, declared: map[string]bool{}}
	before := diags.Len()
	a.scan()
	a.findForms()
	if len(a.decls) > 0 {
		a.checkNames()
		a.checkCompletions()
	}
	p := a.model()
	// What the file as a whole needs, once each declaration is right: a problem found
	// before has a position of its own, and would be found again here without one.
	if !p.Empty() && diags.Len() == before {
		a.checkInputSchemas(p)
		a.checkPredeclared(p)
	}
	return p
}

// of returns the declarations of one kind, typed.
func of[T model.Decl](decls []model.Decl) []T {
	var out []T
	for _, d := range decls {
		if t, ok := d.(T); ok {
			out = append(out, t)
		}
	}
	return out
}

// scan finds the package's directives and checks what each is on.
func (a *analyzer) scan() {
	for _, file := range a.pkg.Syntax {
		used := map[*ast.Comment]bool{}
		for _, decl := range file.Decls {
			if gd, ok := decl.(*ast.GenDecl); ok && gd.Tok == token.TYPE {
				for i, g := range typeDocs(gd) {
					for _, c := range directive.In(g) {
						switch {
						case strings.HasPrefix(c.Text, directive.SchemaPrefix):
							used[c] = true
						case directive.IsForm(c.Text):
							used[c] = true
							a.formDirective(gd, i, c)
						}
					}
				}
			}
			fd, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			var found []directive.Directive
			for _, c := range directive.In(fd.Doc) {
				used[c] = true
				d, problem, at := directive.Parse(c)
				switch {
				case problem != "":
					a.diags.Errorf(at, "//mcp:%s: %s", d.Verb, problem)
				case !slices.Contains(directive.Verbs, d.Verb):
					a.diags.Hintf(c.Slash, "the known directives are //mcp:"+strings.Join(directive.Verbs, ", //mcp:"), "unknown directive //mcp:%s", d.Verb)
				case slices.Contains(typeDirectives, d.Verb):
					a.diags.Hintf(c.Slash, "put it in the doc comment of the type it describes", "//mcp:%s is on a function", d.Verb)
				default:
					found = append(found, d)
				}
			}
			if len(found) > 1 {
				if x, y := found[0].Verb, found[1].Verb; x != y {
					a.diags.Hintf(found[1].Pos, "keep one directive; for both, write a second function that calls this one",
						"%s has both //mcp:%s and //mcp:%s, but a function can be only one of a tool, a resource, a prompt and a completion", fd.Name.Name, x, y)
				} else {
					a.diags.Hintf(found[1].Pos, "remove one of them", "%s has two //mcp:%s directives", fd.Name.Name, x)
				}
				continue
			}
			if len(found) == 1 {
				funcDirectives[found[0].Verb](a, fd, found[0])
			}
		}
		a.strayDirectives(file, used)
	}
}

// strayDirectives reports the directives of a file that are not where they take effect,
// and comments that look like directives but are not.
func (a *analyzer) strayDirectives(file *ast.File, used map[*ast.Comment]bool) {
	for _, g := range file.Comments {
		for _, c := range g.List {
			switch {
			case (strings.HasPrefix(c.Text, directive.SchemaPrefix) || directive.IsForm(c.Text)) && !used[c]:
				a.diags.Hintf(c.Slash, "put it in the comment directly above a type declaration",
					"%s is not in the doc comment of a type", strings.Fields(c.Text)[0])
			case strings.HasPrefix(c.Text, directive.Prefix) && !used[c]:
				a.diags.Hintf(c.Slash, "put it in the comment directly above a func, with no blank line in between",
					"%s is not in the doc comment of a function or method", strings.Fields(c.Text)[0])
			case directive.LooksLike(c):
				a.diags.Hintf(c.Slash, "write it without a space: "+directive.Prefix+strings.TrimSpace(strings.TrimLeft(c.Text[2:], " \t"))[len("mcp:"):],
					"directive has a space after //, so Go treats it as an ordinary comment")
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

// model orders the declarations into the file's order and prepares the types they use.
func (a *analyzer) model() *model.Package {
	p := &model.Package{Path: a.pkg.PkgPath, Name: a.pkg.Name, Scope: a.pkg.Types.Scope()}
	var roots []*schema.Type
	for _, d := range a.decls {
		in, out := d.Types()
		roots = append(roots, in, out)
	}
	p.Objects = schema.Prepare(roots) // names the structs: forms are ordered by them
	for k := range model.NumKinds {
		decls := slices.DeleteFunc(slices.Clone(a.decls), func(d model.Decl) bool { return d.Kind() != k })
		slices.SortStableFunc(decls, fileOrder[k])
		p.Decls = append(p.Decls, decls...)
	}
	for _, r := range a.receivers {
		p.Receivers = append(p.Receivers, r)
	}
	slices.SortFunc(p.Receivers, func(x, y *model.Receiver) int { return cmp.Compare(x.Type.Obj().Name(), y.Type.Obj().Name()) })
	return p
}

// fileOrder orders the declarations of each kind in the generated file: by what names them,
// which does not depend on where they are declared.
var fileOrder = [model.NumKinds]func(x, y model.Decl) int{
	model.ToolKind:     func(x, y model.Decl) int { return cmp.Compare(x.(*model.Tool).Name, y.(*model.Tool).Name) },
	model.ResourceKind: func(x, y model.Decl) int { return cmp.Compare(x.(*model.Resource).URI, y.(*model.Resource).URI) },
	model.PromptKind:   func(x, y model.Decl) int { return cmp.Compare(x.(*model.Prompt).Name, y.(*model.Prompt).Name) },
	// Stable: completions of one argument stay in source order (checkNames sorted them so),
	// so that the first is the one the others are reported against.
	model.CompletionKind: func(x, y model.Decl) int {
		a, b := x.(*model.Completion), y.(*model.Completion)
		return cmp.Or(cmp.Compare(a.Prompt, b.Prompt), cmp.Compare(a.Template, b.Template), cmp.Compare(a.Argument, b.Argument))
	},
	model.FormKind: func(x, y model.Decl) int {
		return cmp.Compare(x.(*model.Form).Type.Object.Name, y.(*model.Form).Type.Object.Name)
	},
}

// displayName names an annotated function as Go code would: Func, or Type.Method.
func displayName(c *model.Callable) string {
	if c.Recv != nil {
		return c.Recv.Type.Obj().Name() + "." + c.Func.Name()
	}
	return c.Func.Name()
}

// bySource orders positions as they are in the source: by file name, then line and column.
// (token.Pos order across files depends on the order the files were loaded in.)
func (a *analyzer) bySource(x, y token.Pos) int {
	return diag.Compare(diag.Diagnostic{Pos: a.pkg.Fset.Position(x)}, diag.Diagnostic{Pos: a.pkg.Fset.Position(y)})
}

// where says where a declaration is, for messages that point at another one: file:line.
func (a *analyzer) where(pos token.Pos) string {
	at := a.pkg.Fset.Position(pos)
	return fmt.Sprintf("%s:%d", filepath.Base(at.Filename), at.Line)
}
