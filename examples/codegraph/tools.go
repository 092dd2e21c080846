package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/examples/codegraph/graph"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

//go:generate go tool mcpgen

// Graph serves the code graph: its tools and resources are the methods below.
type Graph struct {
	store *graph.Store
	// indexing holds a token while an index run goes on: one at a time, since they share the
	// store's one writer; a run waits for the one before as long as its context allows.
	indexing chan struct{}
	// runs are the index runs going on or waiting for their turn (runs.go): a query waits
	// for them, so that it answers from a whole graph.
	mu   sync.Mutex
	runs []*indexRun
	// followCtx, once set, has every project indexed watched (followed) until it ends.
	followCtx context.Context
	followed  map[string]bool
	followers sync.WaitGroup
	// IndexWait bounds how long a query waits for an index run.
	IndexWait time.Duration
	// QueryTimeout bounds each query the model writes; MaxRows, the rows it returns.
	QueryTimeout time.Duration
	MaxRows      int
	// SampleTimeout bounds the wait for the client's model.
	SampleTimeout time.Duration
	// Policy is what clients may have indexed and written; the zero Policy allows neither.
	Policy Policy
}

// NewGraph serves the graph in store.
func NewGraph(store *graph.Store) *Graph {
	return &Graph{store: store, indexing: make(chan struct{}, 1), QueryTimeout: 10 * time.Second, MaxRows: 200, SampleTimeout: 2 * time.Minute,
		IndexWait: 10 * time.Minute}
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
	// Indexing lists the index runs going on, or waiting for their turn: queries wait for
	// them.
	Indexing []IndexState `json:"indexing,omitempty"`
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
	out.Indexing = g.indexingState()
	return out, nil
}

// IndexInput names the directory to index.
type IndexInput struct {
	// Path of a directory to index: a Go module or workspace (with go.mod or go.work), or any
	// directory of Python, JavaScript, TypeScript or Java sources.
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

// IndexRepository indexes (or reindexes) a directory: a Go module or workspace (every package
// with its tests, with the declarations, calls, references, implementations, embeddings and
// imports the type checker finds), and the Python, JavaScript, TypeScript and Java files in
// it (parsed by tree-sitter; each call says how it was resolved). The first run indexes
// everything; later runs only the packages whose files changed and those that depend on
// them. It reports its progress.
//
//mcp:tool index_repository task idempotent
func (g *Graph) IndexRepository(ctx context.Context, in IndexInput) (IndexReport, error) {
	if err := g.Policy.canIndex(in.Path); err != nil {
		return IndexReport{}, err
	}
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

// project is the id of the project a tool's project argument names (0 for every project),
// once no index run goes on.
func (g *Graph) project(ctx context.Context, name string) (int64, error) {
	if err := g.waitForIndex(ctx); err != nil {
		return 0, err
	}
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
