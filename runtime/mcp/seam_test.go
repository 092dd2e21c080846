package mcp

import (
	"go/ast"
	goparser "go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// transportFiles are the files of this package's own transports, by the start of their
// names: each may know its own types. Every other file is the core, which finds what a
// connection can do only through the exported optional interfaces (conn.go), as it must
// for a transport of another package.
var transportFiles = []string{"http", "sse", "stdio", "stdin", "lines", "maxconns", "client_http", "client_sse", "client_inbox", "client_stdio", "client_memory", "conn"}

func isTransportFile(name string) bool {
	return slices.ContainsFunc(transportFiles, func(prefix string) bool { return strings.HasPrefix(name, prefix) })
}

// The core asserts no transport's concrete type and names no transport of another package
// (issue 40, item 6): the client asserted *httpConn to learn how a failed write ends a
// call, and the core named the WebSocket transport. A transport of another package can do
// whatever one of this package's can.
func TestCoreNamesNoTransport(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	parsed := map[string]*ast.File{}
	transportTypes := map[string]string{} // type name -> its file
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := goparser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		parsed[name] = f
		if !isTransportFile(name) {
			continue
		}
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
				for _, s := range g.Specs {
					if ts := s.(*ast.TypeSpec); !ts.Name.IsExported() {
						transportTypes[ts.Name.Name] = name
					}
				}
			}
		}
	}
	for name, f := range parsed {
		if isTransportFile(name) {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			var types []ast.Expr
			switch n := n.(type) {
			case *ast.TypeAssertExpr:
				types = append(types, n.Type)
			case *ast.TypeSwitchStmt:
				for _, c := range n.Body.List {
					types = append(types, c.(*ast.CaseClause).List...)
				}
			case *ast.BasicLit:
				if s, err := strconv.Unquote(n.Value); err == nil && n.Kind == token.STRING && strings.EqualFold(s, "websocket") {
					t.Errorf("%s: the core names the WebSocket transport (%q): runtime/mcp/ws names itself (TransportName)", fset.Position(n.Pos()), s)
				}
			}
			for _, typ := range types {
				if star, ok := typ.(*ast.StarExpr); ok {
					typ = star.X
				}
				if id, ok := typ.(*ast.Ident); ok && transportTypes[id.Name] != "" {
					t.Errorf("%s: the core asserts %s, a type of the transport in %s: find what the connection can do through an optional interface (conn.go) instead", fset.Position(typ.Pos()), id.Name, transportTypes[id.Name])
				}
			}
			return true
		})
	}
	if len(parsed) == 0 {
		t.Fatal("no files read")
	}
}
