package openapi

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
)

// Drift names the operations that changed between the package's ToolsFile (its Operations
// table, each operation's digest) and tools: added, removed, changed. A package without the
// file has every tool added.
func Drift(toolsFile string, tools []*Tool) ([]string, error) {
	old := map[string][2]string{} // tool -> route, digest
	var oldOrder []string
	f, err := parser.ParseFile(token.NewFileSet(), toolsFile, nil, parser.SkipObjectResolution)
	if err == nil {
		ast.Inspect(f, func(n ast.Node) bool {
			vs, ok := n.(*ast.ValueSpec)
			if !ok || len(vs.Names) != 1 || vs.Names[0].Name != "Operations" || len(vs.Values) != 1 {
				return true
			}
			lit, ok := vs.Values[0].(*ast.CompositeLit)
			if !ok {
				return false
			}
			for _, e := range lit.Elts {
				row, ok := e.(*ast.CompositeLit)
				if !ok || len(row.Elts) != 3 {
					continue
				}
				var vals []string
				for _, x := range row.Elts {
					if bl, ok := x.(*ast.BasicLit); ok {
						s, _ := strconv.Unquote(bl.Value)
						vals = append(vals, s)
					}
				}
				if len(vals) == 3 {
					old[vals[0]] = [2]string{vals[1], vals[2]}
					oldOrder = append(oldOrder, vals[0])
				}
			}
			return false
		})
	}
	var changes []string
	seen := map[string]bool{}
	for _, t := range tools {
		seen[t.Name] = true
		route := t.Op.Method + " " + t.Op.Path
		o, ok := old[t.Name]
		switch {
		case !ok:
			changes = append(changes, fmt.Sprintf("added: %s (%s)", t.Name, route))
		case o[1] != t.Digest:
			changes = append(changes, fmt.Sprintf("changed: %s (%s)", t.Name, route))
		}
	}
	for _, name := range oldOrder {
		if !seen[name] {
			changes = append(changes, fmt.Sprintf("removed: %s (%s)", name, old[name][0]))
		}
	}
	slices.Sort(changes)
	return changes, nil
}
