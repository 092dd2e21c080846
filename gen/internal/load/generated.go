package load

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/gen/internal/model"
	"golang.org/x/tools/go/packages"
)

// A package whose last directive is gone no longer needs its generated file, but code may
// still call its RegisterMCP: main.go of a server, a test, another package. Removing the file
// would break that code, and with it the next go generate. So while code of the main module
// calls it, the generated file keeps a RegisterMCP that adds nothing; once nothing does, the
// file is removed.

// undefinedRegister matches the type error of a call of the package's own RegisterMCP, which
// is left out while loading.
var undefinedRegister = regexp.MustCompile(`^undefined: ` + model.RegisterFunc + `$`)

// KeepRegister reports whether a package without directives gets a RegisterMCP that adds
// nothing: when it does not declare one itself, and its code calls it, or its generated file
// is there and code of the main module calls it (the package's own files, tests too, or files
// of other packages that import it).
func KeepRegister(pkg *packages.Package, dir, path string) bool {
	if pkg.Types.Scope().Lookup(model.RegisterFunc) != nil {
		return false
	}
	for _, e := range pkg.Errors {
		if e.Kind == packages.TypeError && undefinedRegister.MatchString(e.Msg) {
			return true
		}
	}
	return IsGenerated(path) && registerCalled(pkg, dir)
}

func registerCalled(pkg *packages.Package, dir string) bool {
	// The package's own files, test files included (they were not loaded).
	own, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, file := range own {
		if IsGenerated(file) {
			continue
		}
		if f := parseFile(file, 0); f != nil && (f.Name.Name == pkg.Name && callsUnqualified(f) || callsVia(f, pkg)) {
			return true
		}
	}
	if pkg.Name == "main" || pkg.Module == nil || pkg.Module.Dir == "" {
		return false // a command cannot be imported
	}
	// Files of the module that import the package. Nested modules, vendor directories and
	// those the go command ignores (.hidden, _hidden) are not part of it; nor, in practice,
	// node_modules.
	root := pkg.Module.Dir
	found := false
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case found:
			return filepath.SkipAll
		case err != nil:
			return nil // unreadable: not part of the build either
		case d.IsDir() && path != root:
			name := d.Name()
			if name == "vendor" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
		case !d.IsDir() && strings.HasSuffix(path, ".go"):
			if f := parseFile(path, parser.ImportsOnly); f != nil && importsPath(f, pkg.PkgPath) {
				found = callsVia(parseFile(path, 0), pkg)
			}
		}
		return nil
	})
	return found
}

func parseFile(path string, mode parser.Mode) *ast.File {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, mode|parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	return f
}

func importsPath(f *ast.File, path string) bool {
	for _, imp := range f.Imports {
		if p, err := strconv.Unquote(imp.Path.Value); err == nil && p == path {
			return true
		}
	}
	return false
}

// callsUnqualified reports whether a file of the package refers to RegisterMCP by itself:
// not as a selector (x.RegisterMCP is a method or another package's function), nor as the
// name of a declaration, a field or a key.
func callsUnqualified(f *ast.File) bool {
	other := map[*ast.Ident]bool{}
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			other[n.Sel] = true
		case *ast.FuncDecl:
			other[n.Name] = true
		case *ast.Field:
			for _, id := range n.Names {
				other[id] = true
			}
		case *ast.KeyValueExpr:
			if id, ok := n.Key.(*ast.Ident); ok {
				other[id] = true
			}
		case *ast.Ident:
			found = found || n.Name == model.RegisterFunc && !other[n]
		}
		return !found
	})
	return found
}

// callsVia reports whether a file that may import the package names its RegisterMCP: as
// name.RegisterMCP, or unqualified through a dot import.
func callsVia(f *ast.File, pkg *packages.Package) bool {
	if f == nil {
		return false
	}
	for _, imp := range f.Imports {
		if p, err := strconv.Unquote(imp.Path.Value); err != nil || p != pkg.PkgPath {
			continue
		}
		name := pkg.Name
		if imp.Name != nil {
			name = imp.Name.Name
		}
		switch name {
		case "_":
			continue
		case ".":
			if callsUnqualified(f) {
				return true
			}
			continue
		}
		found := false
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == model.RegisterFunc {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == name {
					found = true
				}
			}
			return !found
		})
		if found {
			return true
		}
	}
	return false
}

// IsGenerated reports whether a file exists and starts with mcpgen's header.
func IsGenerated(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(model.Header))
	n, _ := io.ReadFull(f, head)
	return bytes.Equal(head[:n], []byte(model.Header))
}
