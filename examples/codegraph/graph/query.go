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
	What     string   // "package" for ResolvePackage; "" for a symbol
	Projects int      // how many projects were searched
	Similar  []string // declarations whose names are like it: the same but for case, longer, or a typo away
}

func (e *ErrNotFound) Error() string {
	what := e.What
	if what == "" {
		what = "symbol"
	}
	msg := fmt.Sprintf("no %s %q in the %d indexed project(s)", what, e.Name, e.Projects)
	if len(e.Similar) > 0 {
		msg += "; did you mean " + strings.Join(e.Similar, ", ") + "?"
	} else if e.What == "package" {
		msg += "; give an import path such as \"net/http\", or its end (\"http\")"
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
	if i := strings.LastIndexAny(name, "./:"); i >= 0 { // ":" of Rust's and C++'s "::"
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
		if (strings.HasSuffix(c.QName, "/"+name) || strings.HasSuffix(c.QName, "."+name) || strings.HasSuffix(c.QName, "::"+name)) && !seen[c.QName] {
			seen[c.QName] = true
			found = append(found, c)
			inPkg := strings.TrimPrefix(strings.TrimPrefix(c.QName, c.pkg+"."), c.pkg+"::")
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
		if similar, err := s.Search(ctx, project, name, nil, 10); err == nil {
			for _, m := range similar {
				nf.Similar = append(nf.Similar, m.QName)
			}
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
	// A block comment (/** ... */ of Java and TypeScript) ends right above.
	if sym.Doc != "" && start > 1 && strings.HasSuffix(strings.TrimSpace(lines[start-2]), "*/") {
		for start > 1 {
			start--
			if strings.Contains(lines[start-1], "/*") {
				break
			}
		}
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
