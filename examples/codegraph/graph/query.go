package graph

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Symbol is a name the graph knows, with its declaration when the project holds it.
type Symbol struct {
	ID        int64  `json:"-"`
	Project   int64  `json:"-"`
	Root      string `json:"-"`
	QName     string `json:"qualified_name"`
	Kind      string `json:"kind,omitempty"` // "" for a name the project only uses
	File      string `json:"file,omitempty"`
	Line      int    `json:"line,omitempty"`
	Col       int    `json:"col,omitempty"`
	EndLine   int    `json:"end_line,omitempty"`
	Signature string `json:"signature,omitempty"`
	Doc       string `json:"-"`
	parent    int64
	pkg       string // the declaring package's path
}

// ErrNotFound is what Resolve returns for a name the graph does not know.
type ErrNotFound struct {
	Name     string
	Projects int      // how many projects were searched
	Similar  []string // names that contain it
}

func (e *ErrNotFound) Error() string {
	msg := fmt.Sprintf("no symbol %q in the %d indexed project(s)", e.Name, e.Projects)
	if len(e.Similar) > 0 {
		msg += "; similar names: " + strings.Join(e.Similar, ", ")
	} else {
		msg += "; give a qualified name such as \"net/http.Client.Do\", \"http.Client.Do\" or \"Client.Do\", or index the project first (index_repository)"
	}
	return msg
}

// ErrAmbiguous is what Resolve returns for a name several declarations have.
type ErrAmbiguous struct {
	Name       string
	Candidates []string
}

func (e *ErrAmbiguous) Error() string {
	return fmt.Sprintf("%q names %d symbols: %s; give one of these qualified names", e.Name, len(e.Candidates), strings.Join(e.Candidates, ", "))
}

// Normalize writes the spellings of a method gopls and people use the graph's way:
// "(*net/http.Client).Do" and "net/http.(*Client).Do" are "net/http.Client.Do".
func Normalize(name string) string {
	name = strings.TrimSpace(name)
	name = strings.ReplaceAll(name, "(*", "")
	name = strings.ReplaceAll(name, "(", "")
	name = strings.ReplaceAll(name, ")", "")
	name = strings.TrimPrefix(name, "*")
	return name
}

const symbolColumns = `s.id, s.project_id, j.root, s.qualified_name, COALESCE(n.kind, ''), COALESCE(f.path, ''),
	COALESCE(n.line, 0), COALESCE(n.col, 0), COALESCE(n.end_line, 0), COALESCE(n.signature, ''), COALESCE(n.doc, ''), COALESCE(n.parent_id, 0), COALESCE(pk.path, '')`

const symbolFrom = ` FROM symbols s JOIN projects j ON j.id = s.project_id
	LEFT JOIN nodes n ON n.symbol_id = s.id LEFT JOIN files f ON f.id = n.file_id LEFT JOIN packages pk ON pk.id = n.package_id `

func scanSymbols(rows *sql.Rows) ([]Symbol, error) {
	defer rows.Close()
	var out []Symbol
	for rows.Next() {
		var s Symbol
		if err := rows.Scan(&s.ID, &s.Project, &s.Root, &s.QName, &s.Kind, &s.File, &s.Line, &s.Col, &s.EndLine, &s.Signature, &s.Doc, &s.parent, &s.pkg); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// Resolve finds the symbol a name means, in one project (0: any). The name may be
// qualified fully ("net/http.Client.Do"), from its package's name ("http.Client.Do"), from
// its type ("Client.Do"), or be the bare name ("Do"); a name several declarations have is an
// *ErrAmbiguous listing them, one none has an *ErrNotFound.
func (s *Store) Resolve(ctx context.Context, project int64, name string) (Symbol, error) {
	name = Normalize(name)
	if name == "" {
		return Symbol{}, fmt.Errorf("no name given")
	}
	// A declaration with exactly this name.
	rows, err := s.ro.QueryContext(ctx, "SELECT "+symbolColumns+symbolFrom+
		"WHERE s.qualified_name = ?1 AND (?2 = 0 OR s.project_id = ?2) ORDER BY n.kind IS NULL, s.project_id", name, project)
	if err != nil {
		return Symbol{}, err
	}
	exact, err := scanSymbols(rows)
	if err != nil {
		return Symbol{}, err
	}
	if len(exact) > 0 {
		return exact[0], nil // with its declaration when a project has one; the first init of several
	}
	// Declarations whose qualified name ends with it, at a boundary.
	last := name
	if i := strings.LastIndexAny(name, "./"); i >= 0 {
		last = name[i+1:]
	}
	rows, err = s.ro.QueryContext(ctx, "SELECT "+symbolColumns+symbolFrom+
		"WHERE n.name = ?1 AND (?2 = 0 OR s.project_id = ?2)", last, project)
	if err != nil {
		return Symbol{}, err
	}
	named, err := scanSymbols(rows)
	if err != nil {
		return Symbol{}, err
	}
	// A name that is whole within its package ("Square" for pkg.Square) wins over one that
	// only ends a longer one ("Square" for the embedded field pkg.Labeled.Square).
	var found, whole []Symbol
	seen := map[string]bool{}
	for _, c := range named {
		if (strings.HasSuffix(c.QName, "/"+name) || strings.HasSuffix(c.QName, "."+name)) && !seen[c.QName] {
			seen[c.QName] = true
			found = append(found, c)
			inPkg := strings.TrimPrefix(c.QName, c.pkg+".")
			pkgName := c.pkg[strings.LastIndex(c.pkg, "/")+1:]
			if inPkg == name || pkgName+"."+inPkg == name || strings.HasSuffix(c.QName, "/"+name) {
				whole = append(whole, c)
			}
		}
	}
	if len(whole) > 0 {
		found = whole
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		nf := &ErrNotFound{Name: name}
		s.ro.QueryRowContext(ctx, "SELECT count(*) FROM projects").Scan(&nf.Projects)
		rows, err := s.ro.QueryContext(ctx, "SELECT DISTINCT qualified_name FROM nodes WHERE qualified_name LIKE '%' || ?1 || '%' AND (?2 = 0 OR project_id = ?2) ORDER BY length(qualified_name) LIMIT 10", last, project)
		if err == nil {
			for rows.Next() {
				var q string
				if rows.Scan(&q) == nil {
					nf.Similar = append(nf.Similar, q)
				}
			}
			rows.Close()
		}
		return Symbol{}, nf
	}
	amb := &ErrAmbiguous{Name: name}
	for _, c := range found {
		amb.Candidates = append(amb.Candidates, c.QName)
	}
	sort.Strings(amb.Candidates)
	if len(amb.Candidates) > 20 {
		amb.Candidates = append(amb.Candidates[:20], fmt.Sprintf("and %d more", len(found)-20))
	}
	return Symbol{}, amb
}

// symbolByID is one symbol, with its declaration if any.
func (s *Store) symbolByID(ctx context.Context, id int64) (Symbol, error) {
	rows, err := s.ro.QueryContext(ctx, "SELECT "+symbolColumns+symbolFrom+"WHERE s.id = ?", id)
	if err != nil {
		return Symbol{}, err
	}
	syms, err := scanSymbols(rows)
	if err != nil || len(syms) == 0 {
		return Symbol{}, err
	}
	return syms[0], nil
}

// Corresponding are the methods that stand for method m through interface satisfaction:
// for a concrete method, the methods of the interfaces its type implements; for an interface
// method, those of the types that implement the interface and of the interfaces it
// implements. Calls of them may reach m (an interface call dispatches to it), which is also
// how gopls widens references and call hierarchy to such methods.
func (s *Store) Corresponding(ctx context.Context, m Symbol) ([]int64, error) {
	if m.Kind != "method" && m.Kind != "" {
		return nil, nil
	}
	rows, err := s.ro.QueryContext(ctx, `
		WITH me AS (SELECT type_id, method FROM method_sets WHERE method_id = ?1 AND type_id = ?2 LIMIT 1),
		rel AS (
			SELECT e.dst AS t FROM edges e, me WHERE e.src = me.type_id AND e.kind = 'implements'
			UNION SELECT e.src FROM edges e, me WHERE e.dst = me.type_id AND e.kind = 'implements'
		)
		SELECT DISTINCT ms.method_id FROM method_sets ms, me, rel
		WHERE ms.type_id = rel.t AND ms.method = me.method AND ms.method_id != ?1`, m.ID, m.parent)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// Site is a place in the source where a symbol is used.
type Site struct {
	// File, relative to the project's root.
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
	// Kind is "call" (a call of the symbol), "dispatch" (a call of a method that stands for it
	// through an interface: it may reach the symbol at run time) or "reference" (any other use:
	// a function value, a type in a declaration...).
	Kind string `json:"kind"`
	// Via is the method called or referred to, when it is not the symbol itself.
	Via string `json:"via,omitempty"`
	// In is the function, method or variable whose declaration holds the use.
	In   string `json:"in"`
	inID int64
}

// References are the uses of sym and of the methods that correspond to it, in file order.
func (s *Store) References(ctx context.Context, sym Symbol, limit int) ([]Site, bool, error) {
	targets, err := s.Corresponding(ctx, sym)
	if err != nil {
		return nil, false, err
	}
	targets = append([]int64{sym.ID}, targets...)
	args := make([]any, 0, len(targets)+1)
	for _, t := range targets {
		args = append(args, t)
	}
	in := placeholders(len(targets))
	// The references that are calls: one look-up, not one per reference.
	type place struct{ file, line, col int64 }
	calls := map[place]bool{}
	crows, err := s.ro.QueryContext(ctx, "SELECT file_id, line, col FROM edges WHERE kind = 'calls' AND dst IN ("+in+")", args...)
	if err != nil {
		return nil, false, err
	}
	for crows.Next() {
		var p place
		if err := crows.Scan(&p.file, &p.line, &p.col); err != nil {
			crows.Close()
			return nil, false, err
		}
		calls[p] = true
	}
	crows.Close()
	if err := crows.Err(); err != nil {
		return nil, false, err
	}
	q := `SELECT f.path, e.file_id, e.line, e.col, d.qualified_name, src.qualified_name, e.dst, e.src
		FROM edges e JOIN files f ON f.id = e.file_id JOIN symbols d ON d.id = e.dst JOIN symbols src ON src.id = e.src
		WHERE e.kind = 'references' AND e.dst IN (` + in + `)
		ORDER BY f.path, e.line, e.col LIMIT ?`
	rows, err := s.ro.QueryContext(ctx, q, append(args, limit+1)...)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	var out []Site
	for rows.Next() {
		var site Site
		var dst, fileID int64
		var via string
		if err := rows.Scan(&site.File, &fileID, &site.Line, &site.Col, &via, &site.In, &dst, &site.inID); err != nil {
			return nil, false, err
		}
		call := calls[place{fileID, int64(site.Line), int64(site.Col)}]
		switch {
		case call && dst == sym.ID:
			site.Kind = "call"
		case call:
			site.Kind = "dispatch"
		default:
			site.Kind = "reference"
		}
		if dst != sym.ID {
			site.Via = via
		}
		out = append(out, site)
	}
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	more := len(out) > limit
	if more {
		out = out[:limit]
	}
	return out, more, nil
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

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
			rows, err := s.ro.QueryContext(ctx, `SELECT e.dst, fl.path, e.line, e.col FROM edges e JOIN files fl ON fl.id = e.file_id
				WHERE e.src = ? AND e.kind = 'calls' ORDER BY fl.path, e.line, e.col`, f.ID)
			if err != nil {
				return nil, false, err
			}
			byCallee := map[int64]*Callee{}
			var order []int64
			for rows.Next() {
				var dst int64
				var site Site
				if err := rows.Scan(&dst, &site.File, &site.Line, &site.Col); err != nil {
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

// Implementations answers gopls's implementation question: for an interface, the types
// (concrete or interface) that implement it; for a concrete type, the interfaces it
// implements; for a method, the corresponding methods of those types.
func (s *Store) Implementations(ctx context.Context, sym Symbol) ([]Symbol, error) {
	var ids []int64
	switch sym.Kind {
	case "method":
		var err error
		if ids, err = s.Corresponding(ctx, sym); err != nil {
			return nil, err
		}
	default:
		iface := sym.Kind == "interface"
		if sym.Kind == "" {
			var n int
			s.ro.QueryRowContext(ctx, "SELECT count(*) FROM method_sets WHERE type_id = ? AND is_interface = 1", sym.ID).Scan(&n)
			iface = n > 0
		}
		q := "SELECT src FROM edges WHERE dst = ? AND kind = 'implements'"
		if !iface {
			q = "SELECT dst FROM edges WHERE src = ? AND kind = 'implements'"
		}
		rows, err := s.ro.QueryContext(ctx, q, sym.ID)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return nil, err
			}
			ids = append(ids, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	decls, err := s.declarations(ctx, ids)
	if err != nil {
		return nil, err
	}
	var out []Symbol
	for _, id := range ids {
		if d := decls[id]; len(d) > 0 {
			out = append(out, d[0])
			continue
		}
		t, err := s.symbolByID(ctx, id) // a type outside the project: its name only
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		return out[i].Line < out[j].Line
	})
	return out, nil
}

// Snippet is a declaration's source.
type Snippet struct {
	Source    string
	File      string
	LineStart int
	LineEnd   int
	Doc       string
}

// Source reads a declaration's lines (with its doc comment) from its file.
func (s *Store) Source(sym Symbol) (Snippet, error) {
	if sym.File == "" {
		return Snippet{}, fmt.Errorf("%s has no source in the indexed projects", sym.QName)
	}
	b, err := os.ReadFile(filepath.Join(sym.Root, filepath.FromSlash(sym.File)))
	if err != nil {
		return Snippet{}, err
	}
	lines := strings.SplitAfter(string(b), "\n")
	start, end := sym.Line, sym.EndLine
	if end < start {
		end = start
	}
	// The doc comment's lines come first.
	docLines := 0
	if sym.Doc != "" {
		docLines = strings.Count(strings.TrimSuffix(sym.Doc, "\n"), "\n") + 1
	}
	for start > 1 && docLines > 0 && strings.HasPrefix(strings.TrimSpace(lines[start-2]), "//") {
		start--
		docLines--
	}
	if start < 1 || end > len(lines) {
		return Snippet{}, fmt.Errorf("%s: lines %d-%d are beyond the file's %d: it changed since it was indexed (index_repository brings the graph up to date)", sym.File, start, end, len(lines))
	}
	return Snippet{
		Source:    strings.Join(lines[start-1:end], ""),
		File:      sym.File,
		LineStart: start,
		LineEnd:   end,
		Doc:       sym.Doc,
	}, nil
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
