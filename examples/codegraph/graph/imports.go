package graph

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// Import is a package one package imports (or, for Importers, one that imports it).
type Import struct {
	Package string `json:"package"`
	// InProject says the package is one of the project's own (else only its name is known).
	InProject bool `json:"in_project"`
	// TestOnly says only test files import it.
	TestOnly bool         `json:"test_only,omitempty"`
	Sites    []ImportSite `json:"sites"`
}

// ImportSite is an import declaration.
type ImportSite struct {
	File string `json:"file"`
	Line int    `json:"line"`
}

// PackageRef is a package the graph knows: one of a project's, or one they import.
type PackageRef struct {
	ID        int64
	Project   int64
	Path      string
	InProject bool
}

// ResolvePackage finds the package a name means, in one project (0: any): its path
// ("net/http"), the end of its path ("http", "x/tools/go/packages"), or its name; the
// project's own packages and those they import.
func (s *Store) ResolvePackage(ctx context.Context, project int64, name string) (PackageRef, error) {
	name = strings.Trim(strings.TrimSpace(name), `"`)
	if name == "" {
		return PackageRef{}, fmt.Errorf("no package given")
	}
	rows, err := s.ro.QueryContext(ctx, `
		SELECT s.id, s.project_id, s.qualified_name, 1, p.name FROM packages p
		JOIN symbols s ON s.project_id = p.project_id AND s.qualified_name = p.path
		WHERE ?1 = 0 OR p.project_id = ?1
		UNION
		SELECT DISTINCT d.id, d.project_id, d.qualified_name, 0, '' FROM packages p
		JOIN symbols s ON s.project_id = p.project_id AND s.qualified_name = p.path
		JOIN edges e ON e.src = s.id AND e.kind = 'imports'
		JOIN symbols d ON d.id = e.dst
		WHERE (?1 = 0 OR p.project_id = ?1) AND d.qualified_name NOT IN (SELECT path FROM packages WHERE project_id = p.project_id)`, project)
	if err != nil {
		return PackageRef{}, err
	}
	defer rows.Close()
	// The best level of match wins: the path, then its end, then the package's name.
	var levels [3][]PackageRef
	var all []string
	for rows.Next() {
		var r PackageRef
		var pkgName string
		if err := rows.Scan(&r.ID, &r.Project, &r.Path, &r.InProject, &pkgName); err != nil {
			return PackageRef{}, err
		}
		all = append(all, r.Path)
		switch {
		case r.Path == name:
			levels[0] = append(levels[0], r)
		case strings.HasSuffix(r.Path, "/"+name):
			levels[1] = append(levels[1], r)
		case pkgName == name:
			levels[2] = append(levels[2], r)
		}
	}
	if err := rows.Err(); err != nil {
		return PackageRef{}, err
	}
	for _, l := range levels {
		paths := map[string]bool{}
		for _, r := range l {
			paths[r.Path] = true
		}
		switch {
		case len(paths) == 1:
			return l[0], nil
		case len(paths) > 1:
			amb := &ErrAmbiguous{Name: name}
			for p := range paths {
				amb.Candidates = append(amb.Candidates, p)
			}
			sort.Strings(amb.Candidates)
			return PackageRef{}, amb
		}
	}
	nf := &ErrNotFound{Name: name, What: "package"}
	s.ro.QueryRowContext(ctx, "SELECT count(*) FROM projects").Scan(&nf.Projects)
	lname := strings.ToLower(name)
	for _, p := range all {
		last := strings.ToLower(p[strings.LastIndex(p, "/")+1:])
		if _, ok := nameScore(last, name, lname); ok || strings.Contains(strings.ToLower(p), lname) {
			nf.Similar = append(nf.Similar, p)
		}
	}
	sort.Slice(nf.Similar, func(i, j int) bool { return len(nf.Similar[i]) < len(nf.Similar[j]) })
	nf.Similar = nf.Similar[:min(len(nf.Similar), 10)]
	return PackageRef{}, nf
}

// Imports are the packages p imports, by path, with where.
func (s *Store) Imports(ctx context.Context, p PackageRef) ([]Import, error) {
	return s.imports(ctx, p, `SELECT d.qualified_name, f.path, e.line, f.is_test,
		EXISTS (SELECT 1 FROM packages pk WHERE pk.project_id = e.project_id AND pk.path = d.qualified_name)
		FROM edges e JOIN symbols d ON d.id = e.dst JOIN files f ON f.id = e.file_id
		WHERE e.src = ? AND e.kind = 'imports' ORDER BY d.qualified_name, f.path, e.line`)
}

// Importers are the project's packages that import p, by path, with where.
func (s *Store) Importers(ctx context.Context, p PackageRef) ([]Import, error) {
	return s.imports(ctx, p, `SELECT src.qualified_name, f.path, e.line, f.is_test, 1
		FROM edges e JOIN symbols src ON src.id = e.src JOIN files f ON f.id = e.file_id
		WHERE e.dst = ? AND e.kind = 'imports' ORDER BY src.qualified_name, f.path, e.line`)
}

func (s *Store) imports(ctx context.Context, p PackageRef, query string) ([]Import, error) {
	rows, err := s.ro.QueryContext(ctx, query, p.ID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Import{}
	for rows.Next() {
		var pkg string
		var site ImportSite
		var test, inProject bool
		if err := rows.Scan(&pkg, &site.File, &site.Line, &test, &inProject); err != nil {
			return nil, err
		}
		if n := len(out); n == 0 || out[n-1].Package != pkg {
			out = append(out, Import{Package: pkg, InProject: inProject, TestOnly: true})
		}
		im := &out[len(out)-1]
		im.Sites = append(im.Sites, site)
		im.TestOnly = im.TestOnly && test
	}
	return out, rows.Err()
}

// CallSite is a call resolved to a declaration of the project: where it is, where what it
// calls is declared, and how it was resolved.
type CallSite struct {
	File           string
	Line, Col      int
	Resolution     string
	TargetFile     string
	TargetLine     int
	Caller, Callee string
}

// CallSites are the project's calls that reach its own declarations (those of a name
// declared several times, as overloads are, once per declaration).
func (s *Store) CallSites(ctx context.Context, project int64) ([]CallSite, error) {
	rows, err := s.ro.QueryContext(ctx, `SELECT f.path, e.line, e.col, e.resolution, tf.path, n.line, src.qualified_name, d.qualified_name
		FROM edges e JOIN files f ON f.id = e.file_id JOIN nodes n ON n.symbol_id = e.dst JOIN files tf ON tf.id = n.file_id
		JOIN symbols src ON src.id = e.src JOIN symbols d ON d.id = e.dst
		WHERE e.kind = 'calls' AND e.project_id = ?`, project)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []CallSite
	for rows.Next() {
		var c CallSite
		if err := rows.Scan(&c.File, &c.Line, &c.Col, &c.Resolution, &c.TargetFile, &c.TargetLine, &c.Caller, &c.Callee); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
