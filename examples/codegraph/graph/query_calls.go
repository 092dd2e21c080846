package graph

import (
	"context"
	"fmt"
)

// Caller is a function (or method, or package-level variable) that uses a symbol, and where.
type Caller struct {
	// The caller's qualified name.
	Caller string `json:"caller"`
	// Where it is declared.
	File  string `json:"file,omitempty"`
	Line  int    `json:"line,omitempty"`
	Col   int    `json:"col,omitempty"`
	Depth int    `json:"depth"`
	// Sites are its uses of the symbol (or, at depth 2 and more, of the callee at the depth
	// before).
	Sites []Site `json:"sites"`
}

// Callers are the functions that call sym, or use it otherwise (a function value may be
// called later; a call of an interface method may dispatch to it), grouped by caller;
// with depth > 1, their callers too, breadth first.
func (s *Store) Callers(ctx context.Context, sym Symbol, depth, limit int) ([]Caller, bool, error) {
	var out []Caller
	seen := map[int64]bool{sym.ID: true}
	frontier := []Symbol{sym}
	total := 0
	for d := 1; d <= depth && len(frontier) > 0; d++ {
		var next []Symbol
		for _, f := range frontier {
			sites, more, err := s.References(ctx, f, limit-total)
			if err != nil {
				return nil, false, err
			}
			var ids []int64
			for _, site := range sites {
				ids = append(ids, site.inID)
			}
			decls, err := s.declarations(ctx, ids)
			if err != nil {
				return nil, false, err
			}
			// A caller is a declaration: the init functions of a package share a name, and
			// each site belongs to the one whose lines hold it.
			type key struct {
				name string
				decl Symbol
			}
			byCaller := map[key]*Caller{}
			var order []key
			for _, site := range sites {
				k := key{name: site.In}
				for _, c := range decls[site.inID] {
					if c.File == site.File && c.Line <= site.Line && site.Line <= c.EndLine {
						k.decl = c
						break
					}
				}
				if k.decl.ID == 0 && len(decls[site.inID]) > 0 {
					k.decl = decls[site.inID][0]
				}
				c := byCaller[k]
				if c == nil {
					c = &Caller{Caller: site.In, File: k.decl.File, Line: k.decl.Line, Col: k.decl.Col, Depth: d}
					byCaller[k] = c
					order = append(order, k)
				}
				c.Sites = append(c.Sites, site)
			}
			for _, k := range order {
				out = append(out, *byCaller[k])
				if k.decl.ID != 0 && !seen[k.decl.ID] {
					seen[k.decl.ID] = true
					next = append(next, k.decl)
				}
			}
			total += len(sites)
			if more || total >= limit {
				return out, true, nil
			}
		}
		frontier = next
	}
	return out, false, nil
}

// declarations are the declarations of symbols, by symbol id (several for init functions).
func (s *Store) declarations(ctx context.Context, ids []int64) (map[int64][]Symbol, error) {
	out := map[int64][]Symbol{}
	uniq := map[int64]bool{}
	var todo []any
	for _, id := range ids {
		if !uniq[id] {
			uniq[id] = true
			todo = append(todo, id)
		}
	}
	for len(todo) > 0 {
		chunk := todo[:min(len(todo), 500)]
		todo = todo[len(chunk):]
		rows, err := s.ro.QueryContext(ctx, "SELECT "+symbolColumns+symbolFrom+"WHERE s.id IN ("+placeholders(len(chunk))+") AND n.id IS NOT NULL ORDER BY f.path, n.line", chunk...)
		if err != nil {
			return nil, err
		}
		syms, err := scanSymbols(rows)
		if err != nil {
			return nil, err
		}
		for _, sym := range syms {
			out[sym.ID] = append(out[sym.ID], sym)
		}
	}
	return out, nil
}

// Callee is a function or method a function calls.
type Callee struct {
	// The callee's qualified name.
	Callee string `json:"callee"`
	// Where it is declared, if the project holds it.
	File  string `json:"file,omitempty"`
	Line  int    `json:"line,omitempty"`
	Depth int    `json:"depth"`
	// Caller is the function at the depth before whose body makes the calls.
	Caller string `json:"caller"`
	// Sites are the calls, in the caller's body.
	Sites []Site `json:"sites"`
	// Dynamic says the callee is an interface method: the call dispatches to a method of
	// the value's type.
	Dynamic bool `json:"dynamic,omitempty"`
	// MayCall are the methods a dynamic call may reach: those of the project's types that
	// implement the interface (class hierarchy analysis).
	MayCall []string `json:"may_call,omitempty"`
}

// Callees are the functions sym calls, as the type checker sees each call (a call of an
// interface method calls that method, and lists the methods it may reach); with depth > 1,
// what those call, breadth first.
func (s *Store) Callees(ctx context.Context, sym Symbol, depth, limit int) ([]Callee, bool, error) {
	var out []Callee
	seen := map[int64]bool{sym.ID: true}
	frontier := []Symbol{sym}
	for d := 1; d <= depth && len(frontier) > 0; d++ {
		var next []Symbol
		for _, f := range frontier {
			rows, err := s.ro.QueryContext(ctx, `SELECT e.dst, fl.path, e.line, e.col, e.resolution FROM edges e JOIN files fl ON fl.id = e.file_id
				WHERE e.src = ? AND e.kind = 'calls' ORDER BY fl.path, e.line, e.col`, f.ID)
			if err != nil {
				return nil, false, err
			}
			byCallee := map[int64]*Callee{}
			var order []int64
			for rows.Next() {
				var dst int64
				var site Site
				if err := rows.Scan(&dst, &site.File, &site.Line, &site.Col, &site.Resolution); err != nil {
					rows.Close()
					return nil, false, err
				}
				site.Kind, site.In = "call", f.QName
				c := byCallee[dst]
				if c == nil {
					c = &Callee{Depth: d, Caller: f.QName}
					byCallee[dst] = c
					order = append(order, dst)
				}
				c.Sites = append(c.Sites, site)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return nil, false, err
			}
			for _, id := range order {
				c := byCallee[id]
				callee, err := s.symbolByID(ctx, id)
				if err != nil {
					return nil, false, err
				}
				c.Callee, c.File, c.Line = callee.QName, callee.File, callee.Line
				if c.Dynamic, err = s.isInterfaceMethod(ctx, callee); err != nil {
					return nil, false, err
				}
				if c.Dynamic {
					impls, err := s.implementers(ctx, callee)
					if err != nil {
						return nil, false, err
					}
					c.MayCall = impls
				}
				out = append(out, *c)
				if !seen[id] {
					seen[id] = true
					next = append(next, callee)
				}
				if len(out) >= limit {
					return out, true, nil
				}
			}
		}
		frontier = next
	}
	return out, false, nil
}

func (s *Store) isInterfaceMethod(ctx context.Context, m Symbol) (bool, error) {
	var n int
	err := s.ro.QueryRowContext(ctx, "SELECT count(*) FROM method_sets WHERE method_id = ? AND is_interface = 1 LIMIT 1", m.ID).Scan(&n)
	return n > 0, err
}

// implementers are the concrete methods an interface method dispatches to.
func (s *Store) implementers(ctx context.Context, m Symbol) ([]string, error) {
	rows, err := s.ro.QueryContext(ctx, `SELECT DISTINCT c.qualified_name FROM method_sets i
		JOIN edges e ON e.dst = i.type_id AND e.kind = 'implements'
		JOIN method_sets ms ON ms.type_id = e.src AND ms.method = i.method AND ms.is_interface = 0
		JOIN symbols c ON c.id = ms.method_id
		WHERE i.method_id = ? AND i.is_interface = 1 ORDER BY c.qualified_name`, m.ID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var q string
		if err := rows.Scan(&q); err != nil {
			return nil, err
		}
		out = append(out, q)
	}
	return out, rows.Err()
}

// CallPath is a shortest chain of calls from one function to another, at most maxDepth
// calls long: each step a call as written, or the dispatch of an interface method to a
// method of a type that implements it. The search is one recursive query.
func (s *Store) CallPath(ctx context.Context, from, to Symbol, maxDepth int) ([]string, error) {
	rows, err := s.ro.QueryContext(ctx, `
		WITH RECURSIVE reach(node, depth) AS (
			SELECT ?1, 0
			UNION
			SELECT e.dst, r.depth + 1 FROM reach r JOIN edges e ON e.src = r.node AND e.kind = 'calls'
			WHERE r.depth < ?3
			UNION
			SELECT ms.method_id, r.depth + 1 FROM reach r
			JOIN method_sets i ON i.method_id = r.node AND i.is_interface = 1
			JOIN edges e ON e.dst = i.type_id AND e.kind = 'implements'
			JOIN method_sets ms ON ms.type_id = e.src AND ms.method = i.method AND ms.is_interface = 0
			WHERE r.depth < ?3
		)
		SELECT node, min(depth) FROM reach GROUP BY node`, from.ID, to.ID, maxDepth)
	if err != nil {
		return nil, err
	}
	depth := map[int64]int{}
	for rows.Next() {
		var n int64
		var d int
		if err := rows.Scan(&n, &d); err != nil {
			rows.Close()
			return nil, err
		}
		depth[n] = d
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	d, ok := depth[to.ID]
	if !ok {
		return nil, nil
	}
	// Walk back from the target through nodes one step nearer the start.
	path := []int64{to.ID}
	for cur := to.ID; d > 0; d-- {
		preds, err := s.predecessors(ctx, cur)
		if err != nil {
			return nil, err
		}
		found := false
		for _, p := range preds {
			if pd, ok := depth[p]; ok && pd == d-1 {
				path = append(path, p)
				cur, found = p, true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("call path: no step back from depth %d", d)
		}
	}
	names := make([]string, len(path))
	for i, id := range path {
		sym, err := s.symbolByID(ctx, id)
		if err != nil {
			return nil, err
		}
		names[len(path)-1-i] = sym.QName
	}
	return names, nil
}

func (s *Store) predecessors(ctx context.Context, id int64) ([]int64, error) {
	rows, err := s.ro.QueryContext(ctx, `
		SELECT src FROM edges WHERE dst = ?1 AND kind = 'calls'
		UNION
		SELECT i.method_id FROM method_sets ms
		JOIN edges e ON e.src = ms.type_id AND e.kind = 'implements'
		JOIN method_sets i ON i.type_id = e.dst AND i.method = ms.method AND i.is_interface = 1
		WHERE ms.method_id = ?1 AND ms.is_interface = 0
		ORDER BY 1`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var p int64
		if err := rows.Scan(&p); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}
