package emit

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/mcpgen/mcpgen/gen/internal/model"
)

// TestLocalsListed checks, in the committed generated files, that every variable generated code declares is in locals, which
// imports are aliased away from: a package imported under a local's name would be hidden by
// it. Receiver parameters of RegisterMCP are chosen against the imports instead.
func TestLocalsListed(t *testing.T) {
	var files []string
	for _, pattern := range []string{"../../../golden/*/" + model.DefaultFileName, "../../../examples/*/" + model.DefaultFileName} {
		m, _ := filepath.Glob(pattern)
		files = append(files, m...)
	}
	if len(files) < 6 {
		t.Fatalf("only %d generated files", len(files))
	}
	seen := map[string]bool{}
	for _, file := range files {
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Name.Name == model.RegisterFunc {
				continue
			}
			ast.Inspect(fd, func(n ast.Node) bool {
				var ids []*ast.Ident
				switch n := n.(type) {
				case *ast.Field:
					ids = n.Names
				case *ast.AssignStmt:
					if n.Tok == token.DEFINE {
						for _, x := range n.Lhs {
							ids = append(ids, x.(*ast.Ident))
						}
					}
				case *ast.RangeStmt:
					if n.Tok == token.DEFINE {
						for _, x := range []ast.Expr{n.Key, n.Value} {
							if id, ok := x.(*ast.Ident); ok {
								ids = append(ids, id)
							}
						}
					}
				case *ast.ValueSpec:
					ids = n.Names
				case *ast.StructType:
					return false // fields are not locals
				}
				for _, id := range ids {
					name := strings.TrimRight(strings.TrimRight(id.Name, "_"), "0123456789")
					if rest, ok := strings.CutPrefix(name, "has"); ok && rest != "" && unicode.IsUpper([]rune(rest)[0]) {
						continue // presence flags: hasName
					}
					if name != "" && !locals[name] && !seen[name] {
						seen[name] = true
						t.Errorf("%s: local %s is not in locals", file, id.Name)
					}
				}
				return true
			})
		}
	}
}

func TestLowerFirst(t *testing.T) {
	for in, want := range map[string]string{"Index": "index", "HTTPClient": "httpClient", "DB": "db", "X": "x", "clock": "clock"} {
		if got := lowerFirst(in); got != want {
			t.Errorf("lowerFirst(%q) = %q, want %q", in, got, want)
		}
	}
}
