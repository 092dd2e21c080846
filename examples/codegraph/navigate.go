package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpgen/mcpgen/examples/codegraph/graph"
)

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
