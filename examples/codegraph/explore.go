package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpgen/mcpgen/examples/codegraph/graph"
)

// The tools a calling model answers free questions with itself, when the client offers no
// sampling (Claude Code and Cursor do not): SQL over the documented schema, symbol search,
// and a package's imports and importers.

// SQLInput is a query over the graph.
type SQLInput struct {
	// One SQLite SELECT (WITH ... SELECT and VALUES too) over the tables of graph://schema:
	// projects, packages, files, symbols, nodes, edges, method_sets, and the view edge_names
	// (edges with qualified names and file paths). Read-only; stopped after the server's
	// time limit.
	SQL string `json:"sql" jsonschema:"minLength=1"`
	// MaxRows bounds the rows returned.
	MaxRows int `json:"max_rows,omitempty" jsonschema:"minimum=1,maximum=1000,default=200"`
}

// SQLResult is what a query returned.
type SQLResult struct {
	Columns []string `json:"columns"`
	// Rows holds each row's values in the order of columns.
	Rows [][]any `json:"rows"`
	// Truncated says that more rows matched than were returned.
	Truncated bool   `json:"truncated,omitempty"`
	Summary   string `json:"summary"`
}

// QuerySQL runs one read-only SQLite SELECT over the code graph and returns its rows. The
// schema, with a comment on every table and column, is the resource graph://schema; in
// short: nodes (declarations: kind, name, qualified_name, file_id, line, signature, doc),
// edges (kind calls, references, implements, embeds, imports or defines, from src to dst,
// both symbols.id, at file_id, line, col), symbols (qualified_name), files (path), packages
// (path, name), and the view edge_names (kind, src, dst, file, line, col as names).
// Example: SELECT src, file, line FROM edge_names WHERE kind = 'calls' AND dst =
// 'net/http.Serve'. It runs on a connection SQLite opened read-only, in a time limit.
//
//mcp:tool query_sql readonly
func (g *Graph) QuerySQL(ctx context.Context, in SQLInput) (SQLResult, error) {
	limit := in.MaxRows
	if limit == 0 {
		limit = g.MaxRows
	}
	if err := g.waitForIndex(ctx); err != nil {
		return SQLResult{}, err
	}
	rows, err := g.store.Guarded(ctx, in.SQL, min(limit, 1000), g.QueryTimeout)
	if err != nil {
		return SQLResult{}, fmt.Errorf("%v%s", err, g.schemaHint(ctx, err))
	}
	return SQLResult{Columns: rows.Columns, Rows: rows.Values, Truncated: rows.Truncated,
		Summary: summary(len(rows.Values), rows.Truncated, rows.Columns)}, nil
}

// schemaHint adds the tables and their columns to an error that names a table or column the
// graph lacks, so that the model can write the query again without reading graph://schema.
func (g *Graph) schemaHint(ctx context.Context, err error) string {
	msg := err.Error()
	if !strings.Contains(msg, "no such column") && !strings.Contains(msg, "no such table") {
		return ""
	}
	cols, err := g.store.Columns(ctx)
	if err != nil {
		return ""
	}
	return "\nThe tables and their columns (graph://schema explains each):\n" + cols
}

// SearchInput is a name to look for.
type SearchInput struct {
	// A name or part of one, qualified or not: "Load", "packages.Lod", "http.Client.Do",
	// "user". Case does not matter; a typo or two is forgiven.
	Query string `json:"query" jsonschema:"minLength=1"`
	// Kind of declaration to keep: func, method, struct, interface, type, alias, field, var,
	// const, package, or class (any kind of type) and the other languages' kinds.
	Kind string `json:"kind,omitempty"`
	// Project to look in (its name or root), when several are indexed.
	Project string `json:"project,omitempty"`
	Limit   int    `json:"limit,omitempty" jsonschema:"minimum=1,maximum=200,default=20"`
}

// SearchResult is what a search found, best first.
type SearchResult struct {
	Query   string        `json:"query"`
	Matches []graph.Match `json:"matches"`
	Count   int           `json:"count"`
}

// SearchSymbols finds declarations by name, best first: the name exactly, then but for case,
// then names that begin with it, contain it, or are a typo or two away from it
// ("packages.Lod" finds golang.org/x/tools/go/packages.Load). A qualified query ranks first
// the declarations whose package (and type) match its qualifier.
//
//mcp:tool search_symbols readonly
func (g *Graph) SearchSymbols(ctx context.Context, in SearchInput) (SearchResult, error) {
	project, err := g.project(ctx, in.Project)
	if err != nil {
		return SearchResult{}, err
	}
	limit := in.Limit
	if limit == 0 {
		limit = 20
	}
	var kinds []string
	if in.Kind != "" {
		kinds = graph.ExpandKinds([]string{strings.ToLower(in.Kind)})
	}
	ms, err := g.store.Search(ctx, project, in.Query, kinds, limit)
	if err != nil {
		return SearchResult{}, err
	}
	if ms == nil {
		ms = []graph.Match{}
	}
	return SearchResult{Query: in.Query, Matches: ms, Count: len(ms)}, nil
}

// PackageInput names a package.
type PackageInput struct {
	// Import path of a package ("net/http"), or its end ("http"), or its name.
	Package string `json:"package" jsonschema:"minLength=1"`
	// Project to look in (its name or root), when several are indexed.
	Project string `json:"project,omitempty"`
}

// ImportsResult lists a package's imports or importers.
type ImportsResult struct {
	Package string `json:"package"`
	// Imports are what the package imports (find_imports) or the packages that import it
	// (find_importers), each with the import declarations.
	Imports []graph.Import `json:"imports"`
	Count   int            `json:"count"`
}

// FindImports lists the packages a package imports, tests' imports included (marked
// test_only when only tests import one), with where each import is.
//
//mcp:tool find_imports readonly
func (g *Graph) FindImports(ctx context.Context, in PackageInput) (ImportsResult, error) {
	p, err := g.resolvePackage(ctx, in)
	if err != nil {
		return ImportsResult{}, err
	}
	if !p.InProject {
		return ImportsResult{}, fmt.Errorf("%s is not a package of an indexed project: only its name is known (find_importers lists who imports it)", p.Path)
	}
	ims, err := g.store.Imports(ctx, p)
	return ImportsResult{Package: p.Path, Imports: ims, Count: len(ims)}, err
}

// FindImporters lists the project's packages that import a package (one of the project's,
// or one outside it such as "fmt"), with where.
//
//mcp:tool find_importers readonly
func (g *Graph) FindImporters(ctx context.Context, in PackageInput) (ImportsResult, error) {
	p, err := g.resolvePackage(ctx, in)
	if err != nil {
		return ImportsResult{}, err
	}
	ims, err := g.store.Importers(ctx, p)
	return ImportsResult{Package: p.Path, Imports: ims, Count: len(ims)}, err
}

func (g *Graph) resolvePackage(ctx context.Context, in PackageInput) (graph.PackageRef, error) {
	project, err := g.project(ctx, in.Project)
	if err != nil {
		return graph.PackageRef{}, err
	}
	p, err := g.store.ResolvePackage(ctx, project, in.Package)
	var nf *graph.ErrNotFound
	if errors.As(err, &nf) {
		return p, g.whileIndexing(err)
	}
	return p, err
}
