package gen

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"
)

// mcpfuncPath is the import path of the package of the quick path, mcpfunc.AddTool.
const mcpfuncPath = "github.com/mcpgen/mcpgen/runtime/mcpfunc"

// funcNotes are notes on the tools a package registers with mcpfunc.AddTool, the quick path
// that derives schemas and decodes arguments by reflection on every call, when the function
// is declared in the package with no directive: one //mcp:tool line in its doc comment
// makes generated code do that work instead. Only a named function or method qualifies: a
// function literal has no doc comment to put the line in.
func funcNotes(pkg *packages.Package, fset *token.FileSet) []Diagnostic {
	if pkg.TypesInfo == nil || pkg.Types == nil {
		return nil
	}
	decls := map[token.Pos]*ast.FuncDecl{}
	for _, f := range pkg.Syntax {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				decls[fd.Name.Pos()] = fd
			}
		}
	}
	var notes []Diagnostic
	for _, f := range pkg.Syntax {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 3 || !isQuickTool(pkg.TypesInfo, call.Fun) {
				return true
			}
			fn := funcObject(pkg.TypesInfo, call.Args[2])
			if fn == nil || fn.Pkg() != pkg.Types {
				return true
			}
			decl := decls[fn.Pos()]
			if decl == nil || hasDirective(decl.Doc) {
				return true
			}
			name := toolName(pkg.TypesInfo, call.Args[1])
			directive := "//mcp:tool"
			if name != "" {
				directive += " " + name
			}
			at, tool := fset.Position(decl.Pos()), decl.Name.Name
			if name != "" {
				tool = fmt.Sprintf("%q", name)
			}
			where := fmt.Sprintf("in the doc comment of %s (%s:%d)", funcName(decl), filepath.Base(at.Filename), at.Line)
			if strings.TrimSpace(decl.Doc.Text()) == "" {
				// A tool without a doc comment is an error: say so before the user meets it.
				where = fmt.Sprintf("above %s (%s:%d), under a doc comment (the tool's description, which it needs),", funcName(decl), filepath.Base(at.Filename), at.Line)
			}
			notes = append(notes, Diagnostic{
				Pos:     fset.Position(call.Pos()),
				Message: fmt.Sprintf("note: tool %s is registered with mcpfunc.AddTool, which derives its schema and decodes its arguments by reflection on every call", tool),
				Hint: fmt.Sprintf("%s %s makes generated code do it, faster, with the doc comments as descriptions; %s then registers it, in place of this call",
					directive, where, RegisterFunc),
			})
			return true
		})
	}
	slices.SortFunc(notes, func(a, b Diagnostic) int {
		return cmp.Or(cmp.Compare(a.Pos.Filename, b.Pos.Filename), cmp.Compare(a.Pos.Offset, b.Pos.Offset))
	})
	return notes
}

// isQuickTool reports whether fun is the runtime's mcpfunc.AddTool, instantiated or not:
// found by the function's package path and name, however the package is imported.
func isQuickTool(info *types.Info, fun ast.Expr) bool {
	switch f := fun.(type) {
	case *ast.IndexExpr:
		fun = f.X
	case *ast.IndexListExpr:
		fun = f.X
	}
	var id *ast.Ident
	switch f := fun.(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel
	default:
		return false
	}
	obj, ok := info.Uses[id].(*types.Func)
	return ok && obj.Name() == "AddTool" && obj.Pkg() != nil && obj.Pkg().Path() == mcpfuncPath
}

// funcObject is the declared function or method an expression names, or nil.
func funcObject(info *types.Info, e ast.Expr) *types.Func {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		fn, _ := info.Uses[e].(*types.Func)
		return fn
	case *ast.SelectorExpr:
		if sel := info.Selections[e]; sel != nil && sel.Kind() == types.MethodVal {
			fn, _ := sel.Obj().(*types.Func)
			return fn
		}
		fn, _ := info.Uses[e.Sel].(*types.Func) // a package's function
		return fn
	}
	return nil
}

// toolName is the Name of a tool literal (mcp.Tool{Name: "x", ...}) when it is a constant.
func toolName(info *types.Info, e ast.Expr) string {
	lit, ok := ast.Unparen(e).(*ast.CompositeLit)
	if !ok {
		return ""
	}
	for _, elt := range lit.Elts {
		kv, ok := elt.(*ast.KeyValueExpr)
		if key, isIdent := kv.Key.(*ast.Ident); !ok || !isIdent || key.Name != "Name" {
			continue
		}
		if tv, ok := info.Types[kv.Value]; ok && tv.Value != nil && tv.Value.Kind() == constant.String {
			return constant.StringVal(tv.Value)
		}
	}
	return ""
}

func hasDirective(doc *ast.CommentGroup) bool {
	if doc == nil {
		return false
	}
	for _, c := range doc.List {
		if strings.HasPrefix(c.Text, "//mcp:") {
			return true
		}
	}
	return false
}

func funcName(decl *ast.FuncDecl) string {
	if decl.Recv == nil || len(decl.Recv.List) == 0 {
		return decl.Name.Name
	}
	t := decl.Recv.List[0].Type
	if star, ok := t.(*ast.StarExpr); ok {
		t = star.X
	}
	switch r := t.(type) {
	case *ast.IndexExpr:
		t = r.X
	case *ast.IndexListExpr:
		t = r.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + decl.Name.Name
	}
	return decl.Name.Name
}
