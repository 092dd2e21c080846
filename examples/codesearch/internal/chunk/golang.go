package chunk

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
)

// goChunks parses Go source: one chunk per function, method and type (each spec of a
// grouped type declaration on its own), one per const, var and import declaration, and one
// for the package clause with the file's doc comment. Each starts at its doc comment. A file
// that does not parse gives what the parser recovered.
func goChunks(name string, src []byte) Result {
	fset := token.NewFileSet()
	f, _ := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
	r := Result{Chunker: "go/parser"}
	if f == nil {
		return r
	}
	// Positions as they are in the file, not as //line directives remap them.
	line := func(p token.Pos) int { return fset.PositionFor(p, false).Line }
	start := func(doc *ast.CommentGroup, p token.Pos) int {
		if doc != nil {
			return line(doc.Pos())
		}
		return line(p)
	}
	if f.Package.IsValid() {
		r.Chunks = append(r.Chunks, Chunk{Kind: "package", Name: f.Name.Name, StartLine: start(f.Doc, f.Package), EndLine: line(f.Name.End())})
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			c := Chunk{Kind: "function", Name: d.Name.Name, StartLine: start(d.Doc, d.Pos()), EndLine: line(d.End())}
			if d.Recv != nil && len(d.Recv.List) > 0 {
				c.Kind = "method"
				if recv := receiverName(d.Recv.List[0].Type); recv != "" {
					c.Name = recv + "." + d.Name.Name
				}
			}
			r.Chunks = append(r.Chunks, c)
		case *ast.GenDecl:
			switch d.Tok {
			case token.TYPE:
				if !d.Lparen.IsValid() && len(d.Specs) == 1 {
					ts := d.Specs[0].(*ast.TypeSpec)
					r.Chunks = append(r.Chunks, Chunk{Kind: typeKind(ts), Name: ts.Name.Name, StartLine: start(d.Doc, d.Pos()), EndLine: line(d.End())})
					continue
				}
				for _, s := range d.Specs {
					ts := s.(*ast.TypeSpec)
					r.Chunks = append(r.Chunks, Chunk{Kind: typeKind(ts), Name: ts.Name.Name, StartLine: start(ts.Doc, ts.Pos()), EndLine: line(ts.End())})
				}
			case token.CONST, token.VAR, token.IMPORT:
				kind := map[token.Token]string{token.CONST: "const", token.VAR: "var", token.IMPORT: "import"}[d.Tok]
				r.Chunks = append(r.Chunks, Chunk{Kind: kind, Name: specNames(d), StartLine: start(d.Doc, d.Pos()), EndLine: line(d.End())})
			}
		}
	}
	return r
}

// typeKind says what a type declares: struct, interface, or type.
func typeKind(ts *ast.TypeSpec) string {
	switch ts.Type.(type) {
	case *ast.StructType:
		return "struct"
	case *ast.InterfaceType:
		return "interface"
	}
	return "type"
}

// receiverName returns the type a method is declared on: T for t T, *T, T[K], *T[K, V].
func receiverName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// specNames names a const, var or import declaration by its first names.
func specNames(d *ast.GenDecl) string {
	var names []string
	for _, s := range d.Specs {
		switch s := s.(type) {
		case *ast.ValueSpec:
			for _, n := range s.Names {
				names = append(names, n.Name)
			}
		case *ast.ImportSpec:
			names = append(names, strings.Trim(s.Path.Value, "\"`"))
		}
	}
	if len(names) > 3 {
		return strings.Join(names[:3], ", ") + ", ..."
	}
	return strings.Join(names, ", ")
}
