// Package index indexes a Go module or workspace into the code graph: go/packages loads and
// type-checks it (with its tests), and every declaration, reference, call, embedding and
// import becomes a row. Indexing is incremental by package: a package's hash covers its
// files and its dependencies' hashes, so a change reindexes the package and those that
// depend on it, and nothing else.
package index

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"go/types"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/tools/go/packages"

	"github.com/mcpgen/mcpgen/examples/codegraph/graph"
)

// Progress hears how an index run goes: done of total packages, and what it is doing.
type Progress func(done, total int, message string)

// Result says what an index run did.
type Result struct {
	Project  string        // its name
	Root     string        // its directory
	Packages int           // packages in the project now (an external test package counts as one)
	Indexed  []string      // packages indexed in this run (new or changed, or depending on a change)
	Removed  []string      // packages gone since the last run
	Broken   []string      // packages with errors (they are indexed as far as they type-check)
	Load     time.Duration // finding, parsing and type-checking packages
	Total    time.Duration
}

const loadMode = packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedImports |
	packages.NeedDeps | packages.NeedModule | packages.NeedTypesSizes

// Run indexes the module or workspace in dir into the store: from scratch the first time,
// then only what changed.
func Run(ctx context.Context, store *graph.Store, dir string, progress Progress) (*Result, error) {
	start := time.Now()
	if progress == nil {
		progress = func(int, int, string) {}
	}
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(root); err != nil {
		return nil, err
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", root)
	}
	goProject := inModule(root)
	sources := walkSources(root)
	if !goProject && len(sources) == 0 {
		return nil, fmt.Errorf("%s holds no source files codegraph indexes: Go in a module or workspace (there is no go.mod or go.work in it or above it), or %s",
			root, strings.Join(sitterLanguages(), ", "))
	}
	res := &Result{Project: projectName(root), Root: root}
	old, err := store.PackageHashes(ctx, root, "go")
	if err != nil {
		return nil, err
	}
	if !goProject {
		return runSitterOnly(ctx, store, root, sources, res, start, progress)
	}

	progress(0, 0, "listing packages in "+root)
	files := &fileCache{root: root, sums: map[string]fileSum{}}
	pkgs, err := load(ctx, root, loadMode, "./...")
	if errors.Is(err, errNoGoPackages) && len(sources) > 0 {
		return runSitterOnly(ctx, store, root, sources, res, start, progress) // a directory of a module without Go
	}
	if err != nil {
		return nil, err
	}
	meta := units(pkgs, files)
	var changed []string
	for path, u := range meta.units {
		if old[path] != u.hash {
			changed = append(changed, path)
		}
	}
	sort.Strings(changed)
	res.Packages = len(meta.units)

	var todo []*unit
	for _, path := range changed {
		todo = append(todo, meta.units[path])
	}
	var sizes types.Sizes
	for _, p := range pkgs {
		if p.TypesSizes != nil {
			sizes = p.TypesSizes
			break
		}
	}
	c := newChecker(sizes)
	if len(todo) > 0 {
		progress(0, len(todo), fmt.Sprintf("type-checking what the %d packages to index import", len(todo)))
		roots := make([]*packages.Package, len(todo))
		for i, u := range todo {
			roots[i] = u.pkg
		}
		if err := c.buildAPIs(ctx, roots); err != nil {
			return nil, err
		}
	}
	res.Load = time.Since(start)

	w, err := store.BeginIndex(ctx, root, res.Project)
	if err != nil {
		return nil, err
	}
	defer w.Rollback() // after Commit, it does nothing
	for path := range old {
		if _, ok := meta.units[path]; !ok {
			res.Removed = append(res.Removed, path)
			if err := w.RemovePackage(path); err != nil {
				return nil, err
			}
		}
	}
	sort.Strings(res.Removed)

	x := &extractor{root: root, workspace: meta.workspace, files: files}
	if err := x.run(ctx, c, todo, w, res, progress); err != nil {
		return nil, err
	}
	if err := x.sitterAll(ctx, store, sources, w, res, progress); err != nil {
		return nil, err
	}
	progress(len(res.Indexed), len(res.Indexed), "computing which types implement which interfaces")
	if err := w.Commit(); err != nil {
		return nil, err
	}
	res.Total = time.Since(start)
	return res, nil
}

// checkpointEvery is how often a run commits what it wrote: a run stopped midway (the
// process ended, the client cancelled) keeps the packages it committed, and the next run
// indexes only the rest.
var checkpointEvery = 2 * time.Second

// run type-checks and extracts the packages to index on every CPU, and writes their facts
// in order (one connection writes). At most a few packages are in flight at once: each
// holds its syntax and type information only until its facts are made.
func (x *extractor) run(ctx context.Context, c *checker, todo []*unit, w *graph.Writer, res *Result, progress Progress) error {
	workers := runtime.GOMAXPROCS(0)
	facts := make([]chan *graph.PackageFacts, len(todo))
	for i := range facts {
		facts[i] = make(chan *graph.PackageFacts, 1)
	}
	next := make(chan int)
	written := make(chan struct{}, len(todo)) // a token per package written, for the window
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				u := todo[i]
				pkg := c.checkBodies(ctx, u.pkg)
				f := x.unitFacts(pkg, u.path, u.hash)
				x.fields.forget(pkg.Types)
				facts[i] <- f
			}
		}()
	}
	go func() {
		defer close(next)
		for i := range todo {
			if i >= 2*workers { // a window: no more than 2 per worker ahead of the writer
				select {
				case <-written:
				case <-ctx.Done():
					return
				}
			}
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	err := func() error {
		last := time.Now()
		for i, u := range todo {
			var f *graph.PackageFacts
			select {
			case f = <-facts[i]:
			case <-ctx.Done():
				return ctx.Err()
			}
			if err := w.WritePackage(f); err != nil {
				return fmt.Errorf("writing %s: %w", u.path, err)
			}
			written <- struct{}{}
			res.Indexed = append(res.Indexed, u.path)
			if len(f.Errors) > 0 {
				res.Broken = append(res.Broken, u.path)
			}
			progress(i+1, len(todo), "indexed "+u.path)
			if time.Since(last) > checkpointEvery {
				if err := w.Checkpoint(); err != nil {
					return err
				}
				last = time.Now()
			}
		}
		return nil
	}()
	cancel()
	wg.Wait()
	return err
}

var errNoGoPackages = errors.New("no Go packages")

// load lists the packages of root with go/packages, with the project's tests, without
// type-checking them (the checker does, in check.go).
func load(ctx context.Context, root string, mode packages.LoadMode, patterns ...string) ([]*packages.Package, error) {
	cfg := &packages.Config{Context: ctx, Dir: root, Mode: mode, Tests: true}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("loading the packages of %s: %w", root, err)
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("%s holds %w", root, errNoGoPackages)
	}
	for _, p := range pkgs {
		// "go list" itself failed on the pattern (no go.mod, say): nothing was loaded.
		if p.Name == "" && len(p.GoFiles) == 0 && len(p.Errors) > 0 && len(pkgs) == 1 {
			return nil, fmt.Errorf("loading the packages of %s: %v", root, p.Errors[0])
		}
	}
	return pkgs, nil
}

// inModule reports whether dir is in a module or workspace.
func inModule(dir string) bool {
	for {
		for _, f := range []string{"go.mod", "go.work"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
				return true
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		dir = parent
	}
}

// projectName is the module's path, or the directory's name.
func projectName(root string) string {
	if b, err := os.ReadFile(filepath.Join(root, "go.mod")); err == nil {
		if p := modfile.ModulePath(b); p != "" {
			return p
		}
	}
	return filepath.Base(root)
}

// A unit is what the graph calls a package: a package with its in-package tests (its test
// variant, when it has one), or the external tests of a package ("p_test").
type unit struct {
	path       string // in the graph
	importPath string // what go list takes: p for both
	pkg        *packages.Package
	hash       string
}

type loaded struct {
	units     map[string]*unit
	workspace map[string]bool // import paths of the project's packages
}

// units picks the units of the project's packages from a load, and hashes them.
func units(roots []*packages.Package, files *fileCache) *loaded {
	l := &loaded{units: map[string]*unit{}, workspace: map[string]bool{}}
	plain := map[string]*packages.Package{}
	packages.Visit(roots, nil, func(p *packages.Package) {
		if p.ID == p.PkgPath {
			plain[p.PkgPath] = p
		}
	})
	for _, p := range roots {
		if strings.HasSuffix(p.ID, ".test") && p.Name == "main" {
			continue // the generated test main
		}
		forTest := ""
		if i := strings.Index(p.ID, " ["); i >= 0 {
			forTest = strings.TrimSuffix(p.ID[i+2:], ".test]")
		}
		switch {
		case forTest == "":
			l.workspace[p.PkgPath] = true
			if _, ok := l.units[p.PkgPath]; !ok {
				l.units[p.PkgPath] = &unit{path: p.PkgPath, importPath: p.PkgPath, pkg: p}
			}
		case forTest == p.PkgPath: // p [p.test]: p with its tests
			l.workspace[p.PkgPath] = true
			l.units[p.PkgPath] = &unit{path: p.PkgPath, importPath: p.PkgPath, pkg: p}
		case p.PkgPath == forTest+"_test": // p_test [p.test]
			l.workspace[p.PkgPath] = true
			l.units[p.PkgPath] = &unit{path: p.PkgPath, importPath: forTest, pkg: p}
		}
	}
	h := &hasher{files: files, workspace: l.workspace, plain: plain, memo: map[*packages.Package]string{}, units: l.units}
	for _, u := range l.units {
		u.hash = h.unit(u)
	}
	return l
}

// hasher hashes packages: a package's hash covers its files' contents (for the project's
// packages; the size and time of the others') and its imports' hashes, so it changes when
// anything it depends on does.
type hasher struct {
	files     *fileCache
	workspace map[string]bool
	plain     map[string]*packages.Package
	memo      map[*packages.Package]string
	units     map[string]*unit
	unitMemo  map[string]string
}

func (h *hasher) pkg(p *packages.Package) string {
	if s, ok := h.memo[p]; ok {
		return s
	}
	h.memo[p] = "" // an import cycle (only in broken code) ends here
	s := h.sum(p, func(imp *packages.Package) string { return h.pkg(imp) })
	h.memo[p] = s
	return s
}

func (h *hasher) unit(u *unit) string {
	if h.unitMemo == nil {
		h.unitMemo = map[string]string{}
	}
	if s, ok := h.unitMemo[u.path]; ok {
		return s
	}
	h.unitMemo[u.path] = ""
	s := h.sum(u.pkg, func(imp *packages.Package) string {
		if imp.PkgPath == u.importPath && u.path != u.importPath {
			return h.unit(h.units[u.importPath]) // the external tests of p import p with its tests
		}
		if p, ok := h.plain[imp.PkgPath]; ok {
			imp = p // a test variant of a dependency stands for the dependency
		}
		return h.pkg(imp)
	})
	h.unitMemo[u.path] = s
	return s
}

func (h *hasher) sum(p *packages.Package, imported func(*packages.Package) string) string {
	d := sha256.New()
	fmt.Fprintf(d, "codegraph 1 %s %s %s\n", runtime.Version(), p.PkgPath, p.Name)
	names := append([]string(nil), p.GoFiles...)
	sort.Strings(names)
	for _, name := range names {
		if h.workspace[p.PkgPath] {
			s := h.files.sum(name)
			fmt.Fprintf(d, "%s %x\n", name, s.sum)
		} else if fi, err := os.Stat(name); err == nil {
			fmt.Fprintf(d, "%s %d %d\n", name, fi.Size(), fi.ModTime().UnixNano())
		}
	}
	if p.Module != nil {
		fmt.Fprintf(d, "module %s %s\n", p.Module.Path, p.Module.Version)
	}
	paths := make([]string, 0, len(p.Imports))
	for path := range p.Imports {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	for _, path := range paths {
		fmt.Fprintf(d, "import %s %s\n", path, imported(p.Imports[path]))
	}
	return hex.EncodeToString(d.Sum(nil))
}

// fileCache reads each source file once: its hash and line count.
type fileCache struct {
	root string
	mu   sync.Mutex
	sums map[string]fileSum
}

type fileSum struct {
	sum   [32]byte
	lines int
}

func (c *fileCache) sum(name string) fileSum {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.sums[name]; ok {
		return s
	}
	b, err := os.ReadFile(name)
	var s fileSum
	if err == nil {
		s.sum = sha256.Sum256(b)
		s.lines = bytes.Count(b, []byte("\n"))
		if len(b) > 0 && b[len(b)-1] != '\n' {
			s.lines++
		}
	} else {
		s.sum = sha256.Sum256([]byte(err.Error()))
	}
	c.sums[name] = s
	return s
}

func (c *fileCache) lines(name string) int { return c.sum(name).lines }
