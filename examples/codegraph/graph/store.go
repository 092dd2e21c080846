// Package graph keeps the code graph in SQLite (modernc.org/sqlite, a pure-Go build of it: no
// C compiler, nothing for the user to run): one file on disk, reused across restarts. The
// indexer writes through a single read-write connection; every query, and above all every
// query a model writes, runs on read-only connections (see Guarded).
package graph

import (
	"context"
	"database/sql"
	_ "embed"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// Schema is the graph's SQL schema, with the comments that document it for the model.
//
//go:embed schema.sql
var Schema string

// schemaVersion changes when Schema does in a way an existing file cannot follow: such a
// file is indexed again from scratch.
const schemaVersion = 2

// Store is an open graph database.
type Store struct {
	path string
	rw   *sql.DB // one connection: the indexer's writes
	ro   *sql.DB // read-only connections: the tools' queries and the model's
}

// Open opens (creating it if needed) the graph database at path.
func Open(path string) (*Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, err
	}
	// WAL lets readers go on while the indexer writes, and see its work when it commits.
	rw, err := sql.Open("sqlite", dsn(abs, "rwc",
		"journal_mode(WAL)", "synchronous(NORMAL)", "busy_timeout(10000)", "temp_store(MEMORY)", "cache_size(-65536)"))
	if err != nil {
		return nil, err
	}
	rw.SetMaxOpenConns(1)
	s := &Store{path: abs, rw: rw}
	if err := s.migrate(); err != nil {
		rw.Close()
		return nil, fmt.Errorf("%s: %w", abs, err)
	}
	// mode=ro opens the file read-only at the operating system's level; query_only makes
	// SQLite refuse every write on the connection too (also to attached databases).
	ro, err := sql.Open("sqlite", dsn(abs, "ro", "query_only(1)", "busy_timeout(10000)"))
	if err != nil {
		rw.Close()
		return nil, err
	}
	ro.SetMaxOpenConns(8)
	s.ro = ro
	return s, nil
}

// dsn is a SQLite URI for the file with the open mode and pragmas.
func dsn(path, mode string, pragmas ...string) string {
	q := url.Values{"mode": {mode}}
	for _, p := range pragmas {
		q.Add("_pragma", p)
	}
	return (&url.URL{Scheme: "file", Path: path, RawQuery: q.Encode()}).String()
}

// Close closes the database, folding its write-ahead log into the file.
func (s *Store) Close() error {
	_, err := s.rw.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
	return errors.Join(err, s.ro.Close(), s.rw.Close())
}

// Path is the database file.
func (s *Store) Path() string { return s.path }

// Size is the database's size on disk in bytes, once its write-ahead log is folded in.
func (s *Store) Size() int64 {
	s.rw.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
	var n int64
	for _, suffix := range []string{"", "-wal"} {
		if fi, err := os.Stat(s.path + suffix); err == nil {
			n += fi.Size()
		}
	}
	return n
}

func (s *Store) migrate() error {
	var v int
	if err := s.rw.QueryRow("PRAGMA user_version").Scan(&v); err != nil {
		return err
	}
	if v != 0 && v != schemaVersion {
		// An older layout: start again (the index is a cache of the source).
		for _, t := range []string{"edge_names"} {
			if _, err := s.rw.Exec("DROP VIEW IF EXISTS " + t); err != nil {
				return err
			}
		}
		for _, t := range []string{"method_sets", "edges", "nodes", "symbols", "files", "packages", "projects"} {
			if _, err := s.rw.Exec("DROP TABLE IF EXISTS " + t); err != nil {
				return err
			}
		}
	}
	if _, err := s.rw.Exec(Schema); err != nil {
		return err
	}
	_, err := s.rw.Exec(fmt.Sprintf("PRAGMA user_version = %d", schemaVersion))
	return err
}

// Project is an indexed directory.
type Project struct {
	ID        int64
	Name      string
	Root      string
	IndexedAt time.Time // zero until an index run ends
}

// Projects lists the projects, by name.
func (s *Store) Projects(ctx context.Context) ([]Project, error) {
	rows, err := s.ro.QueryContext(ctx, "SELECT id, name, root, COALESCE(indexed_at, '') FROM projects ORDER BY name")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ps []Project
	for rows.Next() {
		var p Project
		var at string
		if err := rows.Scan(&p.ID, &p.Name, &p.Root, &at); err != nil {
			return nil, err
		}
		p.IndexedAt, _ = time.Parse(time.RFC3339, at)
		ps = append(ps, p)
	}
	return ps, rows.Err()
}

// Counts are the sizes of a project's graph.
type Counts struct {
	Packages, Files, Nodes, Edges int
}

// Counts counts what a project holds.
func (s *Store) Counts(ctx context.Context, projectID int64) (Counts, error) {
	var c Counts
	err := s.ro.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM packages WHERE project_id = ?1),
		(SELECT count(*) FROM files JOIN packages p ON p.id = files.package_id WHERE p.project_id = ?1),
		(SELECT count(*) FROM nodes WHERE project_id = ?1),
		(SELECT count(*) FROM edges WHERE project_id = ?1)`, projectID).Scan(&c.Packages, &c.Files, &c.Nodes, &c.Edges)
	return c, err
}

// PackageHashes are the hashes of the packages of the project at root in the languages
// given (all when none), by path (none for a project never indexed).
func (s *Store) PackageHashes(ctx context.Context, root string, languages ...string) (map[string]string, error) {
	q := "SELECT p.path, p.hash FROM packages p JOIN projects j ON j.id = p.project_id WHERE j.root = ?"
	args := []any{root}
	if len(languages) > 0 {
		q += " AND p.language IN (" + placeholders(len(languages)) + ")"
		for _, l := range languages {
			args = append(args, l)
		}
	}
	rows, err := s.ro.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	h := map[string]string{}
	for rows.Next() {
		var p, x string
		if err := rows.Scan(&p, &x); err != nil {
			return nil, err
		}
		h[p] = x
	}
	return h, rows.Err()
}

// PackageInfo is a package's path and its type errors.
type PackageInfo struct {
	Path   string
	Errors string
}

// PackagesOfFile are the packages of the project at root that hold the file (an absolute
// path).
func (s *Store) PackagesOfFile(ctx context.Context, root, file string) ([]PackageInfo, error) {
	rel, err := filepath.Rel(root, file)
	if err != nil {
		return nil, err
	}
	if r, err := filepath.EvalSymlinks(root); err == nil {
		if rr, err := filepath.Rel(r, file); err == nil {
			rel = rr
		}
	}
	rows, err := s.ro.QueryContext(ctx, `SELECT p.path, p.errors FROM files f JOIN packages p ON p.id = f.package_id
		JOIN projects j ON j.id = p.project_id WHERE j.root = ? AND f.path = ? ORDER BY p.path`, root, filepath.ToSlash(rel))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []PackageInfo
	for rows.Next() {
		var p PackageInfo
		if err := rows.Scan(&p.Path, &p.Errors); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}
