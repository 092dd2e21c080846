package index

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"runtime"
	"sort"
	"sync"

	"golang.org/x/tools/go/packages"
)

// The type checker, run by the indexer rather than by go/packages, so that memory stays
// bounded: go/packages keeps every package's syntax and type information until the whole
// load ends (2.2 to 3.9 GB for the standard library). Here each package is checked twice:
// once without function bodies, for the packages that import it (its API: what an importer
// needs, which stays until the run ends), and, if it is one the run indexes, once more with
// bodies, whose syntax and information are dropped as soon as its nodes and edges are made.

// checker type-checks the packages of a go/packages graph (loaded without types).
type checker struct {
	fset  *token.FileSet // the APIs'
	sizes types.Sizes
	mu    sync.Mutex
	api   map[*packages.Package]*apiPkg
}

type apiPkg struct {
	done  chan struct{}
	types *types.Package
}

func newChecker(sizes types.Sizes) *checker {
	if sizes == nil {
		sizes = types.SizesFor("gc", runtime.GOARCH)
	}
	return &checker{fset: token.NewFileSet(), sizes: sizes, api: map[*packages.Package]*apiPkg{}}
}

// buildAPIs checks, without function bodies, every package the roots import (directly or
// not), in dependency order, on every CPU.
func (c *checker) buildAPIs(ctx context.Context, roots []*packages.Package) error {
	var order []*packages.Package
	seen := map[*packages.Package]bool{}
	var visit func(p *packages.Package)
	visit = func(p *packages.Package) {
		if seen[p] {
			return
		}
		seen[p] = true
		paths := make([]string, 0, len(p.Imports))
		for path := range p.Imports {
			paths = append(paths, path)
		}
		sort.Strings(paths)
		for _, path := range paths {
			visit(p.Imports[path])
		}
		order = append(order, p)
	}
	for _, r := range roots {
		for _, imp := range r.Imports {
			visit(imp)
		}
	}
	c.mu.Lock()
	var todo []*packages.Package
	for _, p := range order {
		if c.api[p] == nil {
			c.api[p] = &apiPkg{done: make(chan struct{})}
			todo = append(todo, p)
		}
	}
	c.mu.Unlock()
	next := make(chan *packages.Package)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range next {
				a := c.api[p]
				a.types = c.checkAPI(ctx, p)
				close(a.done)
			}
		}()
	}
	var err error
feed:
	for _, p := range todo {
		select {
		case next <- p:
		case <-ctx.Done():
			err = ctx.Err()
			break feed
		}
	}
	close(next)
	wg.Wait()
	return err
}

// apiOf is the API of p, once it is checked.
func (c *checker) apiOf(ctx context.Context, p *packages.Package) (*types.Package, error) {
	c.mu.Lock()
	a := c.api[p]
	c.mu.Unlock()
	if a == nil {
		return nil, fmt.Errorf("%s was not type-checked", p.PkgPath)
	}
	select {
	case <-a.done:
		return a.types, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// checkAPI checks p without function bodies. A package that does not check is what the
// checker made of it: an importer sees what it could.
func (c *checker) checkAPI(ctx context.Context, p *packages.Package) *types.Package {
	if p.PkgPath == "unsafe" {
		return types.Unsafe
	}
	var files []*ast.File
	for _, name := range p.CompiledGoFiles {
		f, _ := parseFile(c.fset, name, false)
		if f != nil {
			files = append(files, f)
		}
	}
	pkg, _ := c.check(ctx, c.fset, p, files, nil, nil)
	return pkg
}

// checkBodies checks p with its function bodies, and returns a copy of p with its syntax,
// types and information (Defs, Uses, Implicits: what the extractor reads), in a file set of
// its own, which nothing keeps once the copy is dropped.
func (c *checker) checkBodies(ctx context.Context, p *packages.Package) *packages.Package {
	fset := token.NewFileSet()
	cp := *p
	cp.Fset = fset
	cp.Errors = append([]packages.Error(nil), p.Errors...)
	for _, name := range p.CompiledGoFiles {
		f, err := parseFile(fset, name, true)
		if err != nil {
			cp.Errors = append(cp.Errors, packages.Error{Msg: err.Error(), Kind: packages.ParseError})
		}
		if f != nil {
			cp.Syntax = append(cp.Syntax, f)
		}
	}
	info := &types.Info{Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}, Implicits: map[ast.Node]types.Object{}}
	cp.Types, _ = c.check(ctx, fset, p, cp.Syntax, info, func(err error) {
		if len(cp.Errors) <= 20 { // the extractor keeps 20
			cp.Errors = append(cp.Errors, packages.Error{Msg: err.Error(), Kind: packages.TypeError})
		}
	})
	cp.TypesInfo = info
	return &cp
}

func (c *checker) check(ctx context.Context, fset *token.FileSet, p *packages.Package, files []*ast.File, info *types.Info, report func(error)) (*types.Package, error) {
	conf := &types.Config{
		Sizes: c.sizes,
		Importer: importerFunc(func(path string) (*types.Package, error) {
			imp, ok := p.Imports[path]
			if !ok {
				return nil, fmt.Errorf("%s does not import %s", p.PkgPath, path)
			}
			return c.apiOf(ctx, imp)
		}),
		Error: func(err error) {
			if report != nil {
				report(err)
			}
		},
	}
	if p.Module != nil && p.Module.GoVersion != "" {
		conf.GoVersion = "go" + p.Module.GoVersion
	}
	pkg := types.NewPackage(p.PkgPath, p.Name)
	err := types.NewChecker(conf, fset, pkg, info).Files(files)
	return pkg, err
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// parseFile parses a source file, with its comments and function bodies or without either.
func parseFile(fset *token.FileSet, name string, bodies bool) (*ast.File, error) {
	src, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	if bodies {
		return parser.ParseFile(fset, name, src, parser.AllErrors|parser.ParseComments|parser.SkipObjectResolution)
	}
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if f != nil {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				fd.Body = nil
			}
		}
	}
	return f, err
}
