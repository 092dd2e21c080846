package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/examples/codegraph/goplsref"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// agreementSymbols are the symbols of testdata/shapes on which codegraph's answers must be
// gopls's, and which questions to ask of each.
var agreementSymbols = []struct {
	name            string
	impl, hierarchy bool
}{
	{"Shape", true, false},
	{"Solid", true, false},
	{"Shape.Area", true, true},
	{"Square", true, false},
	{"Square.Area", true, true},
	{"Circle.Area", true, true},
	{"Labeled", true, false},
	{"Square.Side", false, false},
	{"Counter.Write", true, true},
	{"Total", false, true},
	{"Largest", false, true},
	{"Report", false, true},
	{"NewSquare", false, true},
	{"Map", false, true},
	{"Measure", false, false},
	{"example.com/shapes/cmd/shapes.main", false, true},
}

// TestGoplsAgreement asks gopls (a daemon, kept warm) and codegraph (through MCP) the same
// questions about the same symbols, and wants the same answers, as goplsref.Agreement
// defines them.
func TestGoplsAgreement(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	bin, err := goplsref.Install(ctx, filepath.Join("..", "..", ".cache"))
	if err != nil {
		t.Fatal(err)
	}
	dir := module(t)
	d, err := goplsref.Start(ctx, bin, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	c := server(t, false, false, nil, "-root", dir)
	call[IndexReport](t, c, "index_repository", map[string]any{"path": dir})

	for _, s := range agreementSymbols {
		t.Run(s.name, func(t *testing.T) {
			snip := call[CodeSnippet](t, c, "get_code_snippet", map[string]any{"qualified_name": s.name})
			at := goplsref.Pos{File: filepath.Join(dir, snip.FilePath), Line: snip.NameLine, Col: snip.NameCol}

			refs, err := d.References(ctx, at)
			if err != nil {
				t.Fatal(err)
			}
			compare(t, "references", goplsref.ReferenceSet(dir, refs), ourReferences(t, c, snip.QualifiedName))
			if s.impl {
				impls, err := d.Implementation(ctx, at)
				if err != nil {
					t.Fatal(err)
				}
				compare(t, "implementation", goplsref.ImplementationSet(dir, impls), ourImplementations(t, c, snip.QualifiedName))
			}
			if s.hierarchy {
				in, out, err := d.CallHierarchy(ctx, at)
				if err != nil {
					t.Fatal(err)
				}
				compare(t, "incoming calls", goplsref.IncomingSet(dir, in), ourIncoming(t, c, snip.QualifiedName))
				compare(t, "outgoing calls", goplsref.OutgoingSet(dir, out), ourOutgoing(t, c, snip.QualifiedName))
			}
		})
	}
}

func compare(t *testing.T, what string, gopls, ours goplsref.Set) {
	t.Helper()
	if len(gopls) == 0 && len(ours) == 0 {
		return
	}
	if diff := gopls.Diff(ours); len(diff) > 0 {
		t.Errorf("%s differ (- gopls only, + codegraph only):\n%s", what, strings.Join(diff, "\n"))
	}
}

func ourReferences(t *testing.T, c *mcp.Client, name string) goplsref.Set {
	r := call[ReferencesResult](t, c, "find_references", map[string]any{"qualified_name": name})
	s := goplsref.Set{}
	for _, site := range r.References {
		s.Add("%s:%d:%d", site.File, site.Line, site.Col)
	}
	return s
}

func ourImplementations(t *testing.T, c *mcp.Client, name string) goplsref.Set {
	r := call[ImplementationsResult](t, c, "find_implementations", map[string]any{"interface": name})
	s := goplsref.Set{}
	for _, sym := range r.Implementations {
		if sym.File != "" {
			s.Add("%s:%d:%d", sym.File, sym.Line, sym.Col)
		}
	}
	return s
}

func ourIncoming(t *testing.T, c *mcp.Client, name string) goplsref.Set {
	r := call[CallersResult](t, c, "find_callers", map[string]any{"qualified_name": name})
	s := goplsref.Set{}
	for _, caller := range r.Callers {
		for _, site := range caller.Sites {
			s.Add("%s:%d:%d <- %s:%d:%d", caller.File, caller.Line, caller.Col, site.File, site.Line, site.Col)
		}
	}
	return s
}

func ourOutgoing(t *testing.T, c *mcp.Client, name string) goplsref.Set {
	r := call[CalleesResult](t, c, "find_callees", map[string]any{"qualified_name": name})
	s := goplsref.Set{}
	for _, callee := range r.Callees {
		short := callee.Callee[strings.LastIndex(callee.Callee, ".")+1:]
		for _, site := range callee.Sites {
			s.Add("%s @ %s", short, fmt.Sprintf("%s:%d:%d", site.File, site.Line, site.Col))
		}
	}
	return s
}
