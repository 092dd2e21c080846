package load

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpgen/mcpgen/gen/internal/model"
	"golang.org/x/tools/go/packages"
)

// Files type-checks a package whose Go files are all given (by absolute path, in dir), in
// this process: only the packages they import are loaded, from export data. Packages has the
// go command compile the package itself for its export data, which for a generated package
// of a large API (mcpgen openapi's of GitHub's: 7.5 MB of Go) costs more than all the rest.
func Files(cfg Config, dir string, files map[string][]byte, fset *token.FileSet) (*packages.Package, error) {
	tags := append([]string{model.BuildTag}, cfg.BuildTags...)
	build := []string{"-tags=" + strings.Join(tags, ",")}
	// The package's import path and module, without compiling anything.
	meta, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedModule | packages.NeedFiles,
		Dir: dir, Env: cfg.Env, Overlay: files, BuildFlags: build}, ".")
	if err != nil {
		return nil, fmt.Errorf("loading packages: %w", err)
	}
	if len(meta) != 1 {
		return nil, fmt.Errorf("no package in %s", dir)
	}
	m := meta[0]
	if len(m.Errors) > 0 {
		return nil, fmt.Errorf("%s", m.Errors[0].Msg)
	}
	pkg := &packages.Package{ID: m.ID, Name: m.Name, PkgPath: m.PkgPath, Dir: dir, Module: m.Module, Fset: fset,
		IgnoredFiles: m.IgnoredFiles}
	paths := slices.Sorted(slices.Values(m.GoFiles)) // those given, and any others of the package on disk
	srcs := make([]any, len(paths))
	imports := map[string]bool{}
	for i, path := range paths {
		if data, ok := files[path]; ok {
			srcs[i] = data
		}
		// The imports first (a file's head): the go command loads their export data while
		// the files are parsed.
		f, err := parser.ParseFile(token.NewFileSet(), path, srcs[i], parser.ImportsOnly|parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, spec := range f.Imports {
			if p, err := strconv.Unquote(spec.Path.Value); err == nil {
				imports[p] = true
			}
		}
	}
	deps := map[string]*types.Package{}
	var depsErr error
	var wg sync.WaitGroup
	if list := slices.Sorted(maps.Keys(imports)); len(list) > 0 {
		wg.Go(func() {
			loaded, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedTypes, Dir: dir, Env: cfg.Env, BuildFlags: build}, list...)
			if err != nil {
				depsErr = fmt.Errorf("loading packages: %w", err)
				return
			}
			for _, l := range loaded {
				if len(l.Errors) > 0 {
					depsErr = fmt.Errorf("%s: %s", l.PkgPath, l.Errors[0].Msg)
					return
				}
				deps[l.PkgPath] = l.Types
			}
		})
	}
	for i, path := range paths {
		f, err := parser.ParseFile(fset, path, srcs[i], parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			wg.Wait()
			return nil, err
		}
		pkg.Syntax = append(pkg.Syntax, f)
		pkg.GoFiles = append(pkg.GoFiles, path)
	}
	pkg.CompiledGoFiles = pkg.GoFiles
	wg.Wait()
	if depsErr != nil {
		return nil, depsErr
	}
	pkg.TypesInfo = &types.Info{
		Types:      map[ast.Expr]types.TypeAndValue{},
		Defs:       map[*ast.Ident]types.Object{},
		Uses:       map[*ast.Ident]types.Object{},
		Implicits:  map[ast.Node]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
		Scopes:     map[ast.Node]*types.Scope{},
		Instances:  map[*ast.Ident]types.Instance{},
	}
	conf := types.Config{
		Importer: importerFunc(func(path string) (*types.Package, error) {
			if p, ok := deps[path]; ok {
				return p, nil
			}
			return nil, fmt.Errorf("package %s was not loaded", path)
		}),
		Sizes: types.SizesFor("gc", "amd64"), IgnoreFuncBodies: cfg.DeclarationsOnly,
		Error: func(err error) {
			te, _ := err.(types.Error)
			pkg.Errors = append(pkg.Errors, packages.Error{Pos: te.Fset.Position(te.Pos).String(), Msg: te.Msg, Kind: packages.TypeError})
		},
	}
	pkg.Types, _ = conf.Check(pkg.PkgPath, fset, pkg.Syntax, pkg.TypesInfo)
	pkg.TypesSizes = conf.Sizes
	return pkg, nil
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }
