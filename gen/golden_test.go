package gen

import (
	"bytes"
	"flag"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	udiff "github.com/aymanbagabas/go-udiff"
	"golang.org/x/tools/imports"
)

var update = flag.Bool("update", false, "rewrite the expected outputs of the golden cases")

// goldenCases are the generator's end-to-end cases: each directory is a package whose
// expected output is its committed mcp_gen.go, or, for a package mcpgen must reject, its
// diagnostics.txt. The examples that are servers are cases too: their generated files are
// committed.
func goldenCases(t *testing.T) []string {
	var dirs []string
	for _, pattern := range []string{"../golden/*", "../examples/*"} {
		matches, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range matches {
			fi, err := os.Stat(m)
			if err != nil || !fi.IsDir() || m == "../golden/import" || m == "../golden/openapi" { // gen/importer's and gen/openapi's cases
				continue
			}
			// An example with neither is a client, which generates nothing.
			_, gen := os.Stat(filepath.Join(m, DefaultFileName))
			_, diags := os.Stat(filepath.Join(m, "diagnostics.txt"))
			if strings.HasPrefix(m, "../golden") || gen == nil || diags == nil {
				dirs = append(dirs, m)
			}
		}
	}
	if len(dirs) < 6 {
		t.Fatalf("only %d golden cases found", len(dirs))
	}
	return dirs
}

func TestGolden(t *testing.T) {
	for _, dir := range goldenCases(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			abs, err := filepath.Abs(dir)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Generate(Config{Dir: abs})
			if err != nil {
				t.Fatal(err)
			}
			var diags strings.Builder
			for _, d := range res.Diagnostics {
				diags.WriteString(d.Format(abs) + "\n")
			}
			diagFile := filepath.Join(dir, "diagnostics.txt")
			_, statErr := os.Stat(diagFile)
			if wantsDiags := statErr == nil; wantsDiags || len(res.Diagnostics) > 0 {
				if len(res.Files) != 0 {
					t.Errorf("files generated despite diagnostics")
				}
				compareGolden(t, diagFile, []byte(diags.String()))
				return
			}
			if len(res.Files) != 1 {
				t.Fatalf("%d files generated, want 1", len(res.Files))
			}
			f := res.Files[0]
			if filepath.Dir(f.Path) != abs || filepath.Base(f.Path) != DefaultFileName {
				t.Errorf("generated %s", f.Path)
			}
			if !bytes.HasPrefix(f.Content, []byte(Header+"\n")) {
				t.Errorf("generated file does not start with %q", Header)
			}
			if formatted, err := format.Source(f.Content); err != nil || !bytes.Equal(formatted, f.Content) {
				t.Errorf("generated file is not gofmt'd (%v)", err)
			}
			// The generator groups the imports itself, as goimports would.
			grouped, err := imports.Process(DefaultFileName, f.Content, &imports.Options{FormatOnly: true, Comments: true, TabIndent: true, TabWidth: 8})
			if err != nil || !bytes.Equal(grouped, f.Content) {
				t.Errorf("goimports would change the generated file's imports (%v)", err)
			}
			outputSchemasOnce(t, f.Content)
			compareGolden(t, f.Path, f.Content)

			again, err := Generate(Config{Dir: abs})
			if err != nil || len(again.Files) != 1 || !bytes.Equal(again.Files[0].Content, f.Content) {
				t.Errorf("a second run produced different output")
			}
		})
	}
}

func compareGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o666); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./gen -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the generator's output (go test ./gen -update rewrites it):\n%s",
			path, udiff.Unified("want", "got", string(want), string(got)))
	}
}

// outputSchemasOnce fails when two constants that tools name as their OutputSchema hold the
// same text: an output schema several tools have is declared once (a large API's file had
// each a hundred times).
func outputSchemasOnce(t *testing.T, src []byte) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), DefaultFileName, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	consts := map[string]string{}
	outputs := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ValueSpec:
			if len(n.Names) == 1 && len(n.Values) == 1 {
				if lit, ok := n.Values[0].(*ast.BasicLit); ok {
					consts[n.Names[0].Name] = lit.Value
				}
			}
		case *ast.KeyValueExpr:
			if key, ok := n.Key.(*ast.Ident); ok && key.Name == "OutputSchema" {
				if id, ok := n.Value.(*ast.Ident); ok {
					outputs[id.Name] = true
				}
			}
		}
		return true
	})
	declaredBy := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(outputs)) {
		text, ok := consts[name]
		if !ok {
			continue
		}
		if other, dup := declaredBy[text]; dup {
			t.Errorf("output schemas %s and %s are the same text, declared twice", other, name)
		}
		declaredBy[text] = name
	}
}

func docOf(d ast.Decl) *ast.CommentGroup {
	switch d := d.(type) {
	case *ast.FuncDecl:
		return d.Doc
	case *ast.GenDecl:
		return d.Doc
	}
	return nil
}

// TestOutputIgnoresDeclarationOrder copies golden cases with their declarations reversed
// and expects the same generated file: everything emitted is sorted first.
func TestOutputIgnoresDeclarationOrder(t *testing.T) {
	for _, name := range []string{"features", "headers", "methods", "names", "receivers", "shapes", "types"} {
		t.Run(name, func(t *testing.T) {
			src := filepath.Join("..", "golden", name)
			want, err := os.ReadFile(filepath.Join(src, DefaultFileName))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll("testdata", 0o777); err != nil {
				t.Fatal(err)
			}
			dir, err := os.MkdirTemp("testdata", "shuffled-"+name)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(dir) })
			// Files other than Go sources (schemas that //mcp:schema file= reads) come along.
			others, _ := filepath.Glob(filepath.Join(src, "*.json"))
			for _, file := range others {
				data, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, filepath.Base(file)), data, 0o666); err != nil {
					t.Fatal(err)
				}
			}
			files, _ := filepath.Glob(filepath.Join(src, "*.go"))
			for _, file := range files {
				if strings.HasSuffix(file, "_test.go") || filepath.Base(file) == DefaultFileName {
					continue
				}
				text, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				fset := token.NewFileSet()
				f, err := parser.ParseFile(fset, file, text, parser.ParseComments)
				if err != nil {
					t.Fatal(err)
				}
				// Imports stay first; every other declaration, with its doc comment, goes in
				// reverse order. (Moving AST nodes would detach their comments.)
				header := -1
				var chunks []string
				for _, d := range f.Decls {
					if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
						continue
					}
					start := d.Pos()
					if doc := docOf(d); doc != nil {
						start = doc.Pos()
					}
					if header < 0 {
						header = fset.Position(start).Offset
					}
					chunks = append(chunks, string(text[fset.Position(start).Offset:fset.Position(d.End()).Offset]))
				}
				slices.Reverse(chunks)
				var buf bytes.Buffer
				buf.Write(text[:header])
				buf.WriteString(strings.Join(chunks, "\n\n") + "\n")
				if len(chunks) > 1 && bytes.Equal(buf.Bytes(), text) {
					t.Fatalf("%s was not reordered", file)
				}
				if err := os.WriteFile(filepath.Join(dir, filepath.Base(file)), buf.Bytes(), 0o666); err != nil {
					t.Fatal(err)
				}
			}
			abs, _ := filepath.Abs(dir)
			res, err := Generate(Config{Dir: abs})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Diagnostics) > 0 || len(res.Files) != 1 {
				t.Fatalf("diagnostics %v, %d files", res.Diagnostics, len(res.Files))
			}
			if got := res.Files[0].Content; !bytes.Equal(got, want) {
				t.Errorf("reordering declarations changed the output:\n%s", udiff.Unified("in order", "reversed", string(want), string(got)))
			}
		})
	}
}
