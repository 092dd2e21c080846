package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/examples/codegraph/graph"
	"github.com/mcpgen/mcpgen/examples/codegraph/index"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

//go:generate go tool mcpgen

// Graph serves the code graph: its tools and resources are the methods below.
type Graph struct {
	store *graph.Store
	// indexing holds a token while an index run goes on: one at a time, since they share the
	// store's one writer; a run waits for the one before as long as its context allows.
	indexing chan struct{}
	// running is the index run going on, if any, so that a name not found while it runs
	// (the directories given at start are indexed while the server already answers) says so.
	running atomic.Pointer[indexRun]
	// QueryTimeout bounds each query the model writes; MaxRows, the rows it returns.
	QueryTimeout time.Duration
	MaxRows      int
	// SampleTimeout bounds the wait for the client's model.
	SampleTimeout time.Duration
}

// NewGraph serves the graph in store.
func NewGraph(store *graph.Store) *Graph {
	return &Graph{store: store, indexing: make(chan struct{}, 1), QueryTimeout: 10 * time.Second, MaxRows: 200, SampleTimeout: 2 * time.Minute}
}

// reindex runs an index run on dir once the one before has ended.
func (g *Graph) reindex(ctx context.Context, dir string, progress index.Progress) (*index.Result, error) {
	select {
	case g.indexing <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-g.indexing }()
	g.running.Store(&indexRun{dir: dir})
	defer g.running.Store(nil)
	return index.Run(ctx, g.store, dir, progress)
}

// indexRun is an index run in progress.
type indexRun struct {
	dir string
}

// whileIndexing adds to a name not found that an index run is going on, whose symbols the
// graph does not have yet: without it, a call made just after the server started says the
// name is not in the graph and to index the project, which is being done.
func (g *Graph) whileIndexing(err error) error {
	var nf *graph.ErrNotFound
	run := g.running.Load()
	if run == nil || !errors.As(err, &nf) {
		return err
	}
	return fmt.Errorf("%w; %s is being indexed now: its symbols are found once that ends, which list_projects shows",
		err, run.dir)
}

// ProjectInfo is an indexed project.
type ProjectInfo struct {
	// The module path, or the directory's name.
	Name string `json:"name"`
	// Root is the project's directory.
	Root      string `json:"root"`
	Packages  int    `json:"packages"`
	Files     int    `json:"files"`
	Nodes     int    `json:"nodes"`
	Edges     int    `json:"edges"`
	IndexedAt string `json:"indexed_at,omitempty"`
}

// ProjectList is the indexed projects.
type ProjectList struct {
	Projects []ProjectInfo `json:"projects"`
	Count    int           `json:"count"`
}

// ListProjects lists the indexed projects (Go modules or workspaces) with the sizes of their
// graphs.
//
//mcp:tool list_projects readonly
func (g *Graph) ListProjects(ctx context.Context) (ProjectList, error) {
	ps, err := g.store.Projects(ctx)
	if err != nil {
		return ProjectList{}, err
	}
	out := ProjectList{Projects: []ProjectInfo{}}
	for _, p := range ps {
		c, err := g.store.Counts(ctx, p.ID)
		if err != nil {
			return ProjectList{}, err
		}
		info := ProjectInfo{Name: p.Name, Root: p.Root, Packages: c.Packages, Files: c.Files, Nodes: c.Nodes, Edges: c.Edges}
		if !p.IndexedAt.IsZero() {
			info.IndexedAt = p.IndexedAt.Format(time.RFC3339)
		}
		out.Projects = append(out.Projects, info)
	}
	out.Count = len(out.Projects)
	return out, nil
}

// IndexInput names the directory to index.
type IndexInput struct {
	// Path of a Go module or workspace (the directory with go.mod or go.work).
	Path string `json:"path" jsonschema:"minLength=1"`
}

// IndexReport says what an index run did.
type IndexReport struct {
	Project string `json:"project"`
	Root    string `json:"root"`
	// Packages in the project (external test packages count as packages of their own).
	Packages int `json:"packages"`
	// Indexed is how many packages this run indexed: all of them the first time, then those
	// that changed or depend on a change.
	Indexed int `json:"indexed"`
	// Removed lists the packages gone since the last run.
	Removed []string `json:"removed,omitempty"`
	// Broken lists the packages with errors; they are indexed as far as they type-check.
	Broken  []string `json:"broken,omitempty"`
	Seconds float64  `json:"seconds"`
	Message string   `json:"message"`
}

// IndexRepository indexes (or reindexes) a Go module or workspace: every package with its
// tests, with the declarations, calls, references, implementations, embeddings and imports
// the type checker finds. The first run indexes everything; later runs only the packages
// whose files changed and those that depend on them. It reports its progress.
//
//mcp:tool index_repository task idempotent
func (g *Graph) IndexRepository(ctx context.Context, in IndexInput) (IndexReport, error) {
	res, err := g.reindex(ctx, in.Path, func(done, total int, msg string) {
		mcp.Progress(ctx, float64(done), float64(total), msg)
	})
	if err != nil {
		return IndexReport{}, err
	}
	r := IndexReport{
		Project: res.Project, Root: res.Root, Packages: res.Packages, Indexed: len(res.Indexed),
		Removed: res.Removed, Broken: res.Broken, Seconds: res.Total.Seconds(),
	}
	r.Message = fmt.Sprintf("Indexed %d of the %d packages of %s in %.1fs.", r.Indexed, r.Packages, r.Root, r.Seconds)
	if r.Indexed == 0 {
		r.Message = fmt.Sprintf("%s is up to date (%d packages).", r.Root, r.Packages)
	}
	return r, nil
}

// project is the id of the project a tool's project argument names (0 for every project).
func (g *Graph) project(ctx context.Context, name string) (int64, error) {
	if name == "" {
		return 0, nil
	}
	ps, err := g.store.Projects(ctx)
	if err != nil {
		return 0, err
	}
	var names []string
	for _, p := range ps {
		if p.Name == name || p.Root == name || filepath.Clean(name) == p.Root {
			return p.ID, nil
		}
		names = append(names, p.Name)
	}
	if len(names) == 0 {
		return 0, fmt.Errorf("no project is indexed yet: index one with index_repository")
	}
	return 0, fmt.Errorf("no project %q; the indexed projects are %s", name, strings.Join(names, ", "))
}

// resolve finds the symbol a tool's argument names.
func (g *Graph) resolve(ctx context.Context, project, name string) (graph.Symbol, error) {
	id, err := g.project(ctx, project)
	if err != nil {
		return graph.Symbol{}, err
	}
	sym, err := g.store.Resolve(ctx, id, name)
	return sym, g.whileIndexing(err)
}

// SymbolInput names a symbol.
type SymbolInput struct {
	// Qualified name of a function, method, type, field, variable or constant:
	// "net/http.Client.Do", or shorter when that is unambiguous: "http.Client.Do",
	// "Client.Do". Methods are Type.Method whatever the receiver ("(*T).M" works too).
	QualifiedName string `json:"qualified_name" jsonschema:"minLength=1"`
	// Project to look in (its name or root), when several are indexed.
	Project string `json:"project,omitempty"`
}

// CodeSnippet is a declaration's source.
type CodeSnippet struct {
	QualifiedName string `json:"qualified_name"`
	// Kind of declaration: func, method, struct, interface, type, alias, field, var, const.
	Kind       string `json:"kind,omitempty"`
	SourceCode string `json:"source_code"`
	// File, relative to the project's root.
	FilePath  string `json:"file_path"`
	LineStart int    `json:"line_start"`
	LineEnd   int    `json:"line_end"`
	// Line and column of the declared name.
	NameLine  int    `json:"name_line,omitempty"`
	NameCol   int    `json:"name_col,omitempty"`
	Signature string `json:"signature,omitempty"`
	Docstring string `json:"docstring"`
	Found     bool   `json:"found"`
	// Message says why nothing was found.
	Message string `json:"message,omitempty"`
}

// GetCodeSnippet returns the source of a declaration (with its doc comment), its file and
// line range; found is false, with the reason, when no declaration has the name.
//
//mcp:tool get_code_snippet readonly
func (g *Graph) GetCodeSnippet(ctx context.Context, in SymbolInput) (CodeSnippet, error) {
	out := CodeSnippet{QualifiedName: in.QualifiedName}
	sym, err := g.resolve(ctx, in.Project, in.QualifiedName)
	var nf *graph.ErrNotFound
	var amb *graph.ErrAmbiguous
	if errors.As(err, &nf) || errors.As(err, &amb) {
		out.Message = err.Error()
		return out, nil
	}
	if err != nil {
		return out, err
	}
	out.QualifiedName, out.Kind, out.Signature, out.NameLine, out.NameCol = sym.QName, sym.Kind, sym.Signature, sym.Line, sym.Col
	snip, err := g.store.Source(sym)
	if err != nil {
		out.Message = err.Error()
		return out, nil
	}
	out.SourceCode, out.FilePath, out.LineStart, out.LineEnd, out.Docstring = snip.Source, snip.File, snip.LineStart, snip.LineEnd, snip.Doc
	out.Found = true
	return out, nil
}

// DepthInput names a symbol and how far to follow calls.
type DepthInput struct {
	// Qualified name of a function or method, as for get_code_snippet.
	QualifiedName string `json:"qualified_name" jsonschema:"minLength=1"`
	// Depth of calls to follow: 1 for direct ones.
	Depth int `json:"depth,omitempty" jsonschema:"minimum=1,maximum=5,default=1"`
	// Project to look in, when several are indexed.
	Project string `json:"project,omitempty"`
}

// CallersResult lists the callers of a symbol.
type CallersResult struct {
	QualifiedName string         `json:"qualified_name"`
	Callers       []graph.Caller `json:"callers"`
	Count         int            `json:"count"`
	// Truncated says that there are more (the first 1000 uses are listed).
	Truncated bool `json:"truncated,omitempty"`
}

const maxSites = 1000

// FindCallers lists the functions that call a function or method, grouped by caller, with
// each call site. It is exact for calls as written; a call of an interface method the
// method implements is listed too, as "dispatch" (it may reach it), and so is every other
// use of it ("reference": a function value may be called later), so that no caller is
// missed. With depth > 1, the callers' callers too.
//
//mcp:tool find_callers readonly
func (g *Graph) FindCallers(ctx context.Context, in DepthInput) (CallersResult, error) {
	sym, err := g.resolve(ctx, in.Project, in.QualifiedName)
	if err != nil {
		return CallersResult{}, err
	}
	callers, more, err := g.store.Callers(ctx, sym, max(in.Depth, 1), maxSites)
	if err != nil {
		return CallersResult{}, err
	}
	if callers == nil {
		callers = []graph.Caller{}
	}
	return CallersResult{QualifiedName: sym.QName, Callers: callers, Count: len(callers), Truncated: more}, nil
}

// CalleesResult lists what a function calls.
type CalleesResult struct {
	QualifiedName string         `json:"qualified_name"`
	Callees       []graph.Callee `json:"callees"`
	Count         int            `json:"count"`
	Truncated     bool           `json:"truncated,omitempty"`
}

// FindCallees lists the functions and methods a function calls, with each call site, as the
// type checker resolves them: a call of an interface method is a call of that method, marked
// dynamic, with the methods of the project's types it may reach (class hierarchy analysis).
// With depth > 1, what those call too.
//
//mcp:tool find_callees readonly
func (g *Graph) FindCallees(ctx context.Context, in DepthInput) (CalleesResult, error) {
	sym, err := g.resolve(ctx, in.Project, in.QualifiedName)
	if err != nil {
		return CalleesResult{}, err
	}
	callees, more, err := g.store.Callees(ctx, sym, max(in.Depth, 1), maxSites)
	if err != nil {
		return CalleesResult{}, err
	}
	if callees == nil {
		callees = []graph.Callee{}
	}
	return CalleesResult{QualifiedName: sym.QName, Callees: callees, Count: len(callees), Truncated: more}, nil
}

// ImplementationsInput names an interface, a type or a method.
type ImplementationsInput struct {
	// Qualified name of an interface ("io.Writer"), a concrete type, or a method.
	Interface string `json:"interface" jsonschema:"minLength=1"`
	// Project to look in, when several are indexed.
	Project string `json:"project,omitempty"`
}

// ImplementationsResult lists the implementations.
type ImplementationsResult struct {
	QualifiedName   string         `json:"qualified_name"`
	Kind            string         `json:"kind,omitempty"`
	Implementations []graph.Symbol `json:"implementations"`
	Count           int            `json:"count"`
}

// FindImplementations lists, for an interface, the project's types that implement it
// (concrete types, by the method set of *T, and interfaces that include it); for a concrete
// type, the interfaces it implements; for a method, the corresponding methods of those types.
//
//mcp:tool find_implementations readonly
func (g *Graph) FindImplementations(ctx context.Context, in ImplementationsInput) (ImplementationsResult, error) {
	sym, err := g.resolve(ctx, in.Project, in.Interface)
	if err != nil {
		return ImplementationsResult{}, err
	}
	impls, err := g.store.Implementations(ctx, sym)
	if err != nil {
		return ImplementationsResult{}, err
	}
	if impls == nil {
		impls = []graph.Symbol{}
	}
	return ImplementationsResult{QualifiedName: sym.QName, Kind: sym.Kind, Implementations: impls, Count: len(impls)}, nil
}

// ReferencesResult lists the uses of a symbol.
type ReferencesResult struct {
	QualifiedName string       `json:"qualified_name"`
	References    []graph.Site `json:"references"`
	Count         int          `json:"count"`
	Truncated     bool         `json:"truncated,omitempty"`
}

// FindReferences lists every use of a symbol in the project, tests included, as gopls's
// references does: for a method, also the uses of the methods that correspond to it through
// interface satisfaction (marked with via).
//
//mcp:tool find_references readonly
func (g *Graph) FindReferences(ctx context.Context, in SymbolInput) (ReferencesResult, error) {
	sym, err := g.resolve(ctx, in.Project, in.QualifiedName)
	if err != nil {
		return ReferencesResult{}, err
	}
	refs, more, err := g.store.References(ctx, sym, maxSites)
	if err != nil {
		return ReferencesResult{}, err
	}
	if refs == nil {
		refs = []graph.Site{}
	}
	return ReferencesResult{QualifiedName: sym.QName, References: refs, Count: len(refs), Truncated: more}, nil
}

// PathInput names two functions.
type PathInput struct {
	// Qualified name of the function the path starts at.
	From string `json:"from" jsonschema:"minLength=1"`
	// Qualified name of the function it ends at.
	To string `json:"to" jsonschema:"minLength=1"`
	// Longest path to look for, in calls.
	MaxDepth int `json:"max_depth,omitempty" jsonschema:"minimum=1,maximum=12,default=6"`
	// Project to look in, when several are indexed.
	Project string `json:"project,omitempty"`
}

// CallPath is a chain of calls.
type CallPath struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Found bool   `json:"found"`
	// Path lists the functions from the first to the last: each calls the next, or (from an
	// interface method to a method of a type implementing it) may dispatch to it.
	Path []string `json:"path"`
}

// FindCallPath finds a shortest chain of calls from one function to another ("how does
// main reach os.Exit?"), through interface dispatch too.
//
//mcp:tool find_call_path readonly
func (g *Graph) FindCallPath(ctx context.Context, in PathInput) (CallPath, error) {
	from, err := g.resolve(ctx, in.Project, in.From)
	if err != nil {
		return CallPath{}, err
	}
	to, err := g.resolve(ctx, in.Project, in.To)
	if err != nil {
		return CallPath{}, err
	}
	if from.Project != to.Project {
		return CallPath{}, fmt.Errorf("%s and %s are in different projects", from.QName, to.QName)
	}
	path, err := g.store.CallPath(ctx, from, to, max(in.MaxDepth, 1))
	if err != nil {
		return CallPath{}, err
	}
	if path == nil {
		path = []string{}
	}
	return CallPath{From: from.QName, To: to.QName, Found: len(path) > 0, Path: path}, nil
}

// ReadFileInput names a file and the lines to read.
type ReadFileInput struct {
	// Path of a file in an indexed project: relative to its root, or absolute.
	FilePath string `json:"file_path" jsonschema:"minLength=1"`
	// Offset is how many lines to skip.
	Offset int `json:"offset,omitempty" jsonschema:"minimum=0"`
	// Limit on the lines returned.
	Limit int `json:"limit,omitempty" jsonschema:"minimum=1,maximum=5000,default=500"`
	// Project whose root a relative path starts at, when several are indexed.
	Project string `json:"project,omitempty"`
}

// ReadFile returns lines of a file of an indexed project, after a header
// "# Lines {start}-{end} of {total}".
//
//mcp:tool read_file readonly
func (g *Graph) ReadFile(ctx context.Context, in ReadFileInput) (string, error) {
	path, err := g.file(ctx, in.Project, in.FilePath)
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	lines := strings.SplitAfter(string(b), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	total := len(lines)
	if in.Offset > total || (in.Offset == total && total > 0) {
		return "", fmt.Errorf("offset %d is past the end of %s, which has %d lines", in.Offset, in.FilePath, total)
	}
	limit := in.Limit
	if limit == 0 {
		limit = 500
	}
	end := min(in.Offset+limit, total)
	text := strings.Join(lines[in.Offset:end], "")
	return fmt.Sprintf("# Lines %d-%d of %d\n%s", min(in.Offset+1, end), end, total, text), nil
}

// file is the absolute path of a file of an indexed project: one whose path, after
// symbolic links, is inside a project's root. Nothing else may be read or written.
func (g *Graph) file(ctx context.Context, project, name string) (string, error) {
	ps, err := g.store.Projects(ctx)
	if err != nil {
		return "", err
	}
	if len(ps) == 0 {
		return "", fmt.Errorf("no project is indexed yet: index one with index_repository")
	}
	id, err := g.project(ctx, project)
	if err != nil {
		return "", err
	}
	var candidates []string
	for _, p := range ps {
		if id != 0 && p.ID != id {
			continue
		}
		path := name
		if !filepath.IsAbs(path) {
			path = filepath.Join(p.Root, filepath.FromSlash(name))
		}
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			continue
		}
		root, err := filepath.EvalSymlinks(p.Root)
		if err != nil {
			continue
		}
		if rel, err := filepath.Rel(root, real); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			candidates = append(candidates, real)
		}
	}
	switch len(candidates) {
	case 0:
		return "", fmt.Errorf("%s is not a file of an indexed project (give a path relative to a project's root, or an absolute one inside it)", name)
	case 1:
		return candidates[0], nil
	}
	return "", fmt.Errorf("%s is in several projects (%s): say which with project", name, strings.Join(candidates, ", "))
}

// ReplaceInput says what to replace in a file.
type ReplaceInput struct {
	// Path of a file in an indexed project: relative to its root, or absolute.
	FilePath string `json:"file_path" jsonschema:"minLength=1"`
	// The exact text to replace: it must occur exactly once in the file.
	TargetCode string `json:"target_code" jsonschema:"minLength=1"`
	// The text to put in its place.
	ReplacementCode string `json:"replacement_code"`
	// Project whose root a relative path starts at, when several are indexed.
	Project string `json:"project,omitempty"`
}

// ReplaceReport says what a replacement did.
type ReplaceReport struct {
	Message  string `json:"message"`
	FilePath string `json:"file_path"`
	// Line where the replaced text began.
	Line int `json:"line"`
	// Packages that hold the file, reindexed after the change.
	Packages []string `json:"packages"`
	// TypeChecks says whether those packages still type-check.
	TypeChecks bool `json:"type_checks"`
	// Errors are the type errors if not.
	Errors []string `json:"errors,omitempty"`
}

// SurgicalReplaceCode replaces one exact occurrence of a block of code in a file of an indexed
// project, writes the file atomically, reindexes the package, and reports whether it still
// type-checks. Zero or several occurrences change nothing and are reported.
//
//mcp:tool surgical_replace_code destructive
func (g *Graph) SurgicalReplaceCode(ctx context.Context, in ReplaceInput) (ReplaceReport, error) {
	path, err := g.file(ctx, in.Project, in.FilePath)
	if err != nil {
		return ReplaceReport{}, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return ReplaceReport{}, err
	}
	text := string(b)
	at, err := onlyOccurrence(text, in.TargetCode, in.FilePath)
	if err != nil {
		return ReplaceReport{}, err
	}
	text = text[:at] + in.ReplacementCode + text[at+len(in.TargetCode):]
	if err := writeAtomically(path, []byte(text)); err != nil {
		return ReplaceReport{}, err
	}
	r := ReplaceReport{FilePath: in.FilePath, Line: strings.Count(string(b[:at]), "\n") + 1, TypeChecks: true}
	root, err := g.rootOf(ctx, path)
	if err != nil {
		return ReplaceReport{}, err
	}
	if _, err = g.reindex(ctx, root, nil); err != nil {
		return ReplaceReport{}, fmt.Errorf("replaced the code in %s, but reindexing failed: %w", in.FilePath, err)
	}
	pkgs, err := g.store.PackagesOfFile(ctx, root, path)
	if err != nil {
		return ReplaceReport{}, err
	}
	r.Packages = []string{}
	for _, p := range pkgs {
		r.Packages = append(r.Packages, p.Path)
		if p.Errors != "" {
			r.TypeChecks = false
			r.Errors = append(r.Errors, strings.Split(p.Errors, "\n")...)
		}
	}
	r.Message = fmt.Sprintf("Successfully replaced code block in %s (line %d); its package still type-checks.", in.FilePath, r.Line)
	if !r.TypeChecks {
		r.Message = fmt.Sprintf("Replaced code block in %s (line %d), but its package no longer type-checks: see errors.", in.FilePath, r.Line)
	}
	return r, nil
}

// onlyOccurrence is where target occurs in text, if it occurs exactly once.
func onlyOccurrence(text, target, name string) (int, error) {
	at := strings.Index(text, target)
	if at < 0 {
		msg := fmt.Sprintf("target_code does not occur in %s; nothing was changed", name)
		if loose := strings.Index(squeeze(text), squeeze(target)); loose >= 0 {
			msg += " (it would, but for spacing: copy the text exactly, tabs and all, as read_file shows it)"
		}
		return 0, errors.New(msg)
	}
	lines := []int{strings.Count(text[:at], "\n") + 1}
	for from := at + 1; ; {
		next := strings.Index(text[from:], target)
		if next < 0 {
			break
		}
		from += next
		lines = append(lines, strings.Count(text[:from], "\n")+1)
		from++
	}
	if len(lines) > 1 {
		return 0, fmt.Errorf("target_code occurs %d times in %s (at lines %s); nothing was changed: include more of the surrounding code so that it occurs once",
			len(lines), name, strings.Trim(strings.Join(strings.Fields(fmt.Sprint(lines)), ", "), "[]"))
	}
	return at, nil
}

// squeeze drops all white space, to tell "differs only in spacing" from "absent".
func squeeze(s string) string {
	return strings.Join(strings.Fields(s), "")
}

// writeAtomically replaces a file by writing a new one beside it and renaming it over the
// old, so that a reader (or a crash) sees the old file or the new, never half of one.
func writeAtomically(path string, data []byte) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after the rename, there is nothing to remove
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(fi.Mode().Perm()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// rootOf is the root of the project that holds the file.
func (g *Graph) rootOf(ctx context.Context, path string) (string, error) {
	ps, err := g.store.Projects(ctx)
	if err != nil {
		return "", err
	}
	best := ""
	for _, p := range ps {
		root, err := filepath.EvalSymlinks(p.Root)
		if err != nil {
			continue
		}
		if strings.HasPrefix(path, root+string(filepath.Separator)) && len(root) > len(best) {
			best = p.Root
		}
	}
	if best == "" {
		return "", fmt.Errorf("%s is in no indexed project", path)
	}
	return best, nil
}
