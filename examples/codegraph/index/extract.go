package index

import (
	"bytes"
	"go/ast"
	"go/printer"
	"go/token"
	"go/types"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/mcpgen/mcpgen/examples/codegraph/graph"
)

// extractor turns type-checked packages into the graph's facts.
type extractor struct {
	root      string
	workspace map[string]bool // import paths of the project's packages
	fields    fieldOwners
	files     *fileCache
}

// unitFacts walks one package (its test variant, when it has tests in package p, so that
// the tests' calls and references are found too) and returns what it declares and uses.
// path is the package's path in the graph: its import path, or "p_test" for the external
// tests of p.
func (x *extractor) unitFacts(pkg *packages.Package, path, hash string) *graph.PackageFacts {
	f := &graph.PackageFacts{Path: path, Name: pkg.Name, Hash: hash}
	w := &walker{x: x, pkg: pkg, facts: f, files: map[string]int{}, unit: path}
	for _, e := range pkg.Errors {
		if len(f.Errors) == 20 {
			f.Errors = append(f.Errors, "...")
			break
		}
		f.Errors = append(f.Errors, e.Error())
	}
	for _, name := range pkg.GoFiles {
		w.file(name)
	}
	if len(pkg.GoFiles) > 0 {
		f.Dir = x.rel(filepath.Dir(pkg.GoFiles[0]))
	}
	pkgDoc := ""
	for _, file := range pkg.Syntax {
		if file.Doc != nil && pkgDoc == "" {
			pkgDoc = file.Doc.Text()
		}
	}
	f.Nodes = append(f.Nodes, graph.Node{Kind: "package", Name: pkg.Name, QName: path, File: -1,
		Exported: true, Signature: "package " + pkg.Name, Doc: pkgDoc})
	if pkg.TypesInfo == nil || pkg.Types == nil {
		return f
	}
	for _, file := range pkg.Syntax {
		w.syntax(file)
	}
	x.methodSets(pkg, f)
	return f
}

func (x *extractor) rel(name string) string {
	if r, err := filepath.Rel(x.root, name); err == nil {
		return filepath.ToSlash(r)
	}
	return filepath.ToSlash(name)
}

type walker struct {
	x     *extractor
	pkg   *packages.Package
	facts *graph.PackageFacts
	files map[string]int // absolute name -> index in facts.Files
	unit  string
}

// file is the index of a source file in the facts, added on first use.
func (w *walker) file(name string) int {
	if i, ok := w.files[name]; ok {
		return i
	}
	i := len(w.facts.Files)
	w.files[name] = i
	w.facts.Files = append(w.facts.Files, graph.File{
		Path:   w.x.rel(name),
		Lines:  w.x.files.lines(name),
		IsTest: strings.HasSuffix(name, "_test.go"),
	})
	return i
}

// pos is where p is in the package's own files: through //line directives where they lead
// to one (cgo's generated files), else where it is.
func (w *walker) pos(p token.Pos) (file, line, col int) {
	fset := w.pkg.Fset
	at := fset.PositionFor(p, true)
	if _, ok := w.files[at.Filename]; !ok {
		at = fset.PositionFor(p, false)
	}
	if _, ok := w.files[at.Filename]; !ok {
		return -1, 0, 0
	}
	return w.files[at.Filename], at.Line, at.Column
}

func (w *walker) node(kind string, id *ast.Ident, qname, parent string, end token.Pos, sig string, doc *ast.CommentGroup) {
	file, line, col := w.pos(id.Pos())
	_, endLine, _ := w.pos(end)
	w.facts.Nodes = append(w.facts.Nodes, graph.Node{
		Kind: kind, Name: id.Name, QName: qname, Parent: parent,
		File: file, Line: line, Col: col, EndLine: endLine,
		Exported: id.IsExported(), Signature: sig, Doc: doc.Text(),
	})
}

func (w *walker) edge(kind, src, dst string, at token.Pos) {
	if src == "" || dst == "" {
		return
	}
	file, line, col := -1, 0, 0
	if at.IsValid() {
		file, line, col = w.pos(at)
	}
	w.facts.Edges = append(w.facts.Edges, graph.Edge{Kind: kind, Src: src, Dst: dst, File: file, Line: line, Col: col})
}

func (w *walker) syntax(file *ast.File) {
	info := w.pkg.TypesInfo
	for _, spec := range file.Imports {
		if pn := info.PkgNameOf(spec); pn != nil {
			w.edge("imports", w.unit, pn.Imported().Path(), spec.Path.Pos())
		}
	}
	for _, decl := range file.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			w.funcDecl(d)
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				doc := d.Doc
				switch s := spec.(type) {
				case *ast.TypeSpec:
					if s.Doc != nil || len(d.Specs) > 1 {
						doc = s.Doc
					}
					w.typeSpec(d, s, doc)
				case *ast.ValueSpec:
					if s.Doc != nil || len(d.Specs) > 1 {
						doc = s.Doc
					}
					w.valueSpec(d, s, doc)
				}
			}
		}
	}
}

func (w *walker) funcDecl(d *ast.FuncDecl) {
	obj, _ := w.pkg.TypesInfo.Defs[d.Name].(*types.Func)
	src := w.unit
	if obj != nil && d.Name.Name != "_" {
		kind, parent := "func", ""
		q := w.unit + "." + d.Name.Name
		if d.Recv != nil {
			kind = "method"
			t := typeName(obj.Signature().Recv().Type())
			if t == nil {
				return
			}
			parent = w.x.qname(t)
			q = parent + "." + d.Name.Name
		}
		header := *d
		header.Doc, header.Body = nil, nil
		w.node(kind, d.Name, q, parent, d.End(), w.print(&header), d.Doc)
		if parent != "" {
			w.edge("defines", parent, q, d.Name.Pos())
		} else {
			w.edge("defines", w.unit, q, d.Name.Pos())
		}
		src = q
	}
	w.uses(d, src)
}

func (w *walker) print(n any) string {
	var b bytes.Buffer
	if err := printer.Fprint(&b, w.pkg.Fset, n); err != nil {
		return ""
	}
	return b.String()
}

func (w *walker) typeSpec(d *ast.GenDecl, s *ast.TypeSpec, doc *ast.CommentGroup) {
	info := w.pkg.TypesInfo
	obj, _ := info.Defs[s.Name].(*types.TypeName)
	if obj == nil || s.Name.Name == "_" || !packageLevel(obj) {
		w.uses(s, w.unit)
		return
	}
	q := w.unit + "." + s.Name.Name
	kind, sig := "type", "type "+s.Name.Name
	switch {
	case s.Assign.IsValid():
		kind = "alias"
		sig += " = " + w.print(s.Type)
	default:
		switch t := s.Type.(type) {
		case *ast.StructType:
			kind, sig = "struct", sig+" struct"
			w.structFields(q, t)
		case *ast.InterfaceType:
			kind, sig = "interface", sig+" interface"
			w.interfaceMethods(q, t)
		default:
			sig += " " + w.print(s.Type)
		}
	}
	if s.TypeParams != nil {
		sig = strings.Replace(sig, "type "+s.Name.Name, "type "+s.Name.Name+typeParams(s.TypeParams), 1)
	}
	w.node(kind, s.Name, q, "", s.End(), sig, doc)
	w.edge("defines", w.unit, q, s.Name.Pos())
	w.uses(s, q)
}

// typeParams spells type parameters for a signature: "[K comparable, V any]".
func typeParams(fl *ast.FieldList) string {
	var out []string
	for _, f := range fl.List {
		var names []string
		for _, n := range f.Names {
			names = append(names, n.Name)
		}
		out = append(out, strings.Join(names, ", ")+" "+types.ExprString(f.Type))
	}
	return "[" + strings.Join(out, ", ") + "]"
}

func (w *walker) structFields(typ string, st *ast.StructType) {
	info := w.pkg.TypesInfo
	for _, field := range st.Fields.List {
		doc := field.Doc
		if doc == nil {
			doc = field.Comment
		}
		names := field.Names
		if len(names) == 0 {
			if id := embeddedIdent(field.Type); id != nil {
				names = []*ast.Ident{id}
				// The embedded field is the object its type's name defines (the checker
				// records no expression types: Info.Types is the largest of its maps).
				if v, ok := info.Defs[id].(*types.Var); ok {
					if t := typeName(v.Type()); t != nil {
						w.edge("embeds", typ, w.x.qname(t), id.Pos())
					}
				}
			}
		}
		for _, id := range names {
			v, _ := info.Defs[id].(*types.Var)
			if v == nil || id.Name == "_" {
				continue
			}
			q := typ + "." + id.Name
			w.node("field", id, q, typ, field.End(), id.Name+" "+types.ExprString(field.Type), doc)
			w.edge("defines", typ, q, id.Pos())
		}
	}
}

// embeddedIdent is the name an embedded field takes from its type: T, *T, p.T, T[int].
func embeddedIdent(e ast.Expr) *ast.Ident {
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return x
		case *ast.StarExpr:
			e = x.X
		case *ast.SelectorExpr:
			return x.Sel
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		default:
			return nil
		}
	}
}

func (w *walker) interfaceMethods(typ string, it *ast.InterfaceType) {
	info := w.pkg.TypesInfo
	for _, field := range it.Methods.List {
		doc := field.Doc
		if doc == nil {
			doc = field.Comment
		}
		if len(field.Names) == 0 {
			if id := embeddedIdent(field.Type); id != nil {
				if tn, ok := info.Uses[id].(*types.TypeName); ok {
					if t := typeName(tn.Type()); t != nil && types.IsInterface(t.Type()) {
						w.edge("embeds", typ, w.x.qname(t), field.Type.Pos())
					}
				}
			}
			continue
		}
		for _, id := range field.Names {
			if _, ok := info.Defs[id].(*types.Func); !ok || id.Name == "_" {
				continue
			}
			q := typ + "." + id.Name
			w.node("method", id, q, typ, field.End(), id.Name+strings.TrimPrefix(types.ExprString(field.Type), "func"), doc)
			w.edge("defines", typ, q, id.Pos())
		}
	}
}

func (w *walker) valueSpec(d *ast.GenDecl, s *ast.ValueSpec, doc *ast.CommentGroup) {
	info := w.pkg.TypesInfo
	kind := "var"
	if d.Tok == token.CONST {
		kind = "const"
	}
	src := w.unit
	for _, id := range s.Names {
		obj := info.Defs[id]
		if obj == nil || id.Name == "_" || !packageLevel(obj) {
			continue
		}
		q := w.unit + "." + id.Name
		sig := kind + " " + id.Name + " " + types.TypeString(obj.Type(), types.RelativeTo(w.pkg.Types))
		if c, ok := obj.(*types.Const); ok {
			if v := c.Val().ExactString(); len(v) <= 80 {
				sig += " = " + v
			}
		}
		w.node(kind, id, q, "", s.End(), sig, doc)
		w.edge("defines", w.unit, q, id.Pos())
		if src == w.unit {
			src = q // what the initializer uses, the first name uses (gopls's caller is the spec)
		}
	}
	w.uses(s, src)
}

// uses records the references (and calls) in n, made by src.
func (w *walker) uses(n ast.Node, src string) {
	info := w.pkg.TypesInfo
	calls := map[*ast.Ident]bool{}
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if id := calleeIdent(n.Fun); id != nil {
				switch obj := info.Uses[id].(type) {
				case *types.Func:
					calls[id] = true
				case *types.Builtin:
					if obj.Pkg() != nil {
						calls[id] = true
					}
				}
			}
		case *ast.Ident:
			obj := info.Uses[n]
			if obj == nil {
				return true
			}
			dst := w.x.qname(obj)
			if dst == "" {
				return true
			}
			if _, ok := obj.(*types.Builtin); !ok {
				w.edge("references", src, dst, n.Pos())
			}
			if calls[n] {
				w.edge("calls", src, dst, n.Pos())
			}
		}
		return true
	})
}

// calleeIdent is the name a call expression calls: f, x.f, pkg.f, f[int], (f).
func calleeIdent(e ast.Expr) *ast.Ident {
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return x
		case *ast.SelectorExpr:
			return x.Sel
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		default:
			return nil
		}
	}
}

// methodSets records the method sets of the package's package-level types, and of the
// interfaces of the packages it imports from outside the project.
func (x *extractor) methodSets(pkg *packages.Package, f *graph.PackageFacts) {
	add := func(tn *types.TypeName, external bool) {
		t := tn.Type()
		iface := types.IsInterface(t)
		if external && !iface {
			return
		}
		mt := t
		if !iface {
			mt = types.NewPointer(t)
		}
		ms := types.NewMethodSet(mt)
		q := x.qname(tn)
		for i := range ms.Len() {
			m, ok := ms.At(i).Obj().(*types.Func)
			if !ok {
				continue
			}
			mq := x.qname(m)
			if mq == "" {
				continue
			}
			f.MethodSets = append(f.MethodSets, graph.MethodRow{
				Type: q, IsInterface: iface, External: external,
				Method: m.Id(), Fingerprint: fingerprint(m.Signature()), MethodQName: mq,
			})
		}
	}
	scope := pkg.Types.Scope()
	for _, name := range scope.Names() {
		if tn, ok := scope.Lookup(name).(*types.TypeName); ok && !tn.IsAlias() {
			add(tn, false)
		}
	}
	for _, imp := range pkg.Types.Imports() {
		if x.workspace[imp.Path()] {
			continue
		}
		s := imp.Scope()
		for _, name := range s.Names() {
			if tn, ok := s.Lookup(name).(*types.TypeName); ok && tn.Exported() && !tn.IsAlias() {
				add(tn, true)
			}
		}
	}
}
