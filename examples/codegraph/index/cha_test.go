package index

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/callgraph/cha"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"

	"github.com/mcpgen/mcpgen/examples/codegraph/graph"
)

// The call graph codegraph answers with is golang.org/x/tools/go/callgraph/cha's, for the
// calls cha and codegraph both resolve: every call cha finds from a function of the module
// (to a function or method, directly or through an interface) is one of its callees in the
// graph, and every method the graph says an interface call may reach is a callee cha finds
// there. (cha also resolves calls of function values, to every function of the signature;
// codegraph lists where a function's value is taken instead, as a reference.)
func TestCallGraphIsCHA(t *testing.T) {
	ctx := context.Background()
	dir := copyModule(t)
	store, err := graph.Open(filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if _, err := Run(ctx, store, dir, nil); err != nil {
		t.Fatal(err)
	}

	cfg := &packages.Config{Dir: dir, Tests: true, Mode: packages.LoadAllSyntax}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		t.Fatal(err)
	}
	prog, _ := ssautil.AllPackages(pkgs, ssa.InstantiateGenerics)
	prog.Build()
	cg := cha.CallGraph(prog)
	x := &extractor{}
	const module = "example.com/shapes"

	// name is the qualified name of the declared function a function stands for: a closure
	// stands for the function it is in, an instance of a generic for the generic; "" for
	// wrappers and the like, and for what is not in the module.
	name := func(fn *ssa.Function) string {
		for fn.Parent() != nil {
			fn = fn.Parent()
		}
		if fn.Synthetic != "" || fn.Object() == nil {
			return ""
		}
		q := x.qname(fn.Object())
		if !strings.HasPrefix(q, module) {
			return ""
		}
		return q
	}
	type edge struct{ caller, callee string }
	chaEdges := map[edge]bool{}
	for fn, node := range cg.Nodes {
		if fn == nil {
			continue
		}
		caller := name(fn)
		if caller == "" {
			continue
		}
		for _, e := range node.Out {
			callee := e.Callee.Func
			if !e.Site.Common().IsInvoke() && e.Site.Common().StaticCallee() == nil {
				continue // a function value: cha's every function of the signature
			}
			if callee.Synthetic != "" && len(callee.Blocks) > 0 {
				// A wrapper of a promoted or pointer method: what it calls is the method.
				for _, b := range callee.Blocks {
					for _, in := range b.Instrs {
						if c, ok := in.(ssa.CallInstruction); ok && c.Common().StaticCallee() != nil {
							callee = c.Common().StaticCallee()
						}
					}
				}
			}
			if q := name(callee); q != "" {
				chaEdges[edge{caller, q}] = true
			}
		}
	}
	if len(chaEdges) < 10 {
		t.Fatalf("cha found only %d edges: %v", len(chaEdges), chaEdges)
	}

	ours := map[edge]bool{}
	callers := map[string]bool{}
	for e := range chaEdges {
		callers[e.caller] = true
	}
	for caller := range callers {
		sym, err := store.Resolve(ctx, 0, caller)
		if err != nil {
			t.Fatal(err)
		}
		callees, _, err := store.Callees(ctx, sym, 1, 1000)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range callees {
			ours[edge{caller, c.Callee}] = true
			for _, m := range c.MayCall {
				ours[edge{caller, m}] = true
				if !chaEdges[edge{caller, m}] {
					t.Errorf("codegraph says %s may call %s (through %s); cha does not", caller, m, c.Callee)
				}
			}
		}
	}
	var missing []string
	for e := range chaEdges {
		if !ours[e] {
			missing = append(missing, e.caller+" -> "+e.callee)
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		t.Errorf("calls cha finds and codegraph does not:\n%s", strings.Join(missing, "\n"))
	}
}
