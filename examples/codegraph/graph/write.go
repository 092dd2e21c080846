package graph

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// PackageFacts is what the indexer found in one package (with its tests): the rows of the
// package's files, nodes, edges and method sets. Names are qualified names.
type PackageFacts struct {
	Language              string // "" for go
	Path, Name, Dir, Hash string
	Errors                []string
	Files                 []File
	Nodes                 []Node
	Edges                 []Edge
	MethodSets            []MethodRow
}

// File is a source file of a package.
type File struct {
	Path   string // relative to the project's root
	Lines  int
	IsTest bool
}

// Node is a declaration.
type Node struct {
	Kind, Name, QName string
	Parent            string // the type of a method or field, else ""
	File              int    // index in PackageFacts.Files, -1 for none
	Line, Col         int
	EndLine           int
	Exported          bool
	Signature, Doc    string
}

// Edge is a relation between two qualified names, written at a place in a file (File is an
// index in PackageFacts.Files, -1 for none).
type Edge struct {
	Kind      string
	Src, Dst  string
	File      int
	Line, Col int
	// Resolution is how exact the edge is: "" (or "typed") for the Go type checker's,
	// "scope" or "name" (the schema says what each means).
	Resolution string
}

// MethodRow is one method of a type's method set.
type MethodRow struct {
	Type        string
	IsInterface bool
	External    bool
	Method      string // types.Func.Id
	Fingerprint string
	MethodQName string
}

// Writer is one index run on a project: every change it makes is one transaction, which
// readers see when Commit ends it.
type Writer struct {
	ctx     context.Context
	db      *sql.DB
	tx      *sql.Tx
	project int64
	symbols map[string]int64
	newSym  *sql.Stmt
	nodes   *batch
	edges   *batch
	msets   *batch
	files   *sql.Stmt
	pkg     *sql.Stmt
}

// BeginIndex starts an index run on the project at root (an absolute directory), creating
// the project if it is new.
func (s *Store) BeginIndex(ctx context.Context, root, name string) (*Writer, error) {
	tx, err := s.rw.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	w := &Writer{ctx: ctx, db: s.rw, tx: tx, symbols: map[string]int64{}}
	if err := w.begin(root, name); err != nil {
		tx.Rollback()
		return nil, err
	}
	return w, nil
}

// Checkpoint commits what the run wrote so far and goes on in a new transaction: readers see
// it, and a run stopped later keeps it. The implements relation is recomputed at Commit only.
func (w *Writer) Checkpoint() error {
	if err := w.flush(); err != nil {
		return err
	}
	if err := w.tx.Commit(); err != nil {
		return err
	}
	tx, err := w.db.BeginTx(w.ctx, nil)
	if err != nil {
		return err
	}
	w.tx = tx
	for _, b := range []*batch{w.nodes, w.edges, w.msets} {
		b.full = nil // prepared in the transaction that ended
	}
	return w.prepare()
}

func (w *Writer) begin(root, name string) error {
	err := w.tx.QueryRowContext(w.ctx, "SELECT id FROM projects WHERE root = ?", root).Scan(&w.project)
	if err == sql.ErrNoRows {
		var res sql.Result
		res, err = w.tx.ExecContext(w.ctx, "INSERT INTO projects (name, root) VALUES (?, ?)", uniqueName(w.ctx, w.tx, name), root)
		if err == nil {
			w.project, err = res.LastInsertId()
		}
	}
	if err != nil {
		return err
	}
	rows, err := w.tx.QueryContext(w.ctx, "SELECT id, qualified_name FROM symbols WHERE project_id = ?", w.project)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var q string
		if err := rows.Scan(&id, &q); err != nil {
			return err
		}
		w.symbols[q] = id
	}
	if err := rows.Err(); err != nil {
		return err
	}
	w.nodes = newBatch(w, "nodes", "symbol_id, project_id, package_id, kind, name, qualified_name, parent_id, file_id, line, col, end_line, exported, signature, doc")
	w.edges = newBatch(w, "edges", "project_id, package_id, kind, src, dst, file_id, line, col, resolution")
	w.msets = newBatch(w, "method_sets", "project_id, package_id, type_id, is_interface, external, method, fingerprint, method_id")
	return w.prepare()
}

// prepare prepares the run's statements in its transaction.
func (w *Writer) prepare() (err error) {
	if w.newSym, err = w.tx.PrepareContext(w.ctx, "INSERT INTO symbols (project_id, qualified_name) VALUES (?, ?)"); err != nil {
		return err
	}
	if w.files, err = w.tx.PrepareContext(w.ctx, "INSERT INTO files (package_id, path, lines, is_test) VALUES (?, ?, ?, ?)"); err != nil {
		return err
	}
	w.pkg, err = w.tx.PrepareContext(w.ctx, "INSERT INTO packages (project_id, language, path, name, dir, hash, errors) VALUES (?, ?, ?, ?, ?, ?, ?)")
	return err
}

// uniqueName is name, or name with a number when another project has it already.
func uniqueName(ctx context.Context, tx *sql.Tx, name string) string {
	for i := 1; ; i++ {
		n := name
		if i > 1 {
			n = fmt.Sprintf("%s (%d)", name, i)
		}
		var x int
		if tx.QueryRowContext(ctx, "SELECT 1 FROM projects WHERE name = ?", n).Scan(&x) == sql.ErrNoRows {
			return n
		}
	}
}

// ProjectID is the project the run indexes.
func (w *Writer) ProjectID() int64 { return w.project }

// Hashes are the hashes of the project's packages in a language, by path.
func (w *Writer) Hashes(language string) (map[string]string, error) {
	rows, err := w.tx.QueryContext(w.ctx, "SELECT path, hash FROM packages WHERE project_id = ? AND language = ?", w.project, language)
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

// RemovePackage forgets a package and everything its source said.
func (w *Writer) RemovePackage(path string) error {
	var id int64
	err := w.tx.QueryRowContext(w.ctx, "SELECT id FROM packages WHERE project_id = ? AND path = ?", w.project, path).Scan(&id)
	if err == sql.ErrNoRows {
		return nil
	}
	if err != nil {
		return err
	}
	for _, q := range []string{
		"DELETE FROM edges WHERE package_id = ?",
		"DELETE FROM nodes WHERE package_id = ?",
		"DELETE FROM method_sets WHERE package_id = ?",
		"DELETE FROM files WHERE package_id = ?",
		"DELETE FROM packages WHERE id = ?",
	} {
		if _, err := w.tx.ExecContext(w.ctx, q, id); err != nil {
			return err
		}
	}
	return nil
}

// symbol is the id of a qualified name, made on first use.
func (w *Writer) symbol(q string) (int64, error) {
	if id, ok := w.symbols[q]; ok {
		return id, nil
	}
	res, err := w.newSym.ExecContext(w.ctx, w.project, q)
	if err != nil {
		return 0, err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, err
	}
	w.symbols[q] = id
	return id, nil
}

// WritePackage writes a package's facts in place of what its previous run wrote.
func (w *Writer) WritePackage(f *PackageFacts) error {
	if err := w.RemovePackage(f.Path); err != nil {
		return err
	}
	lang := f.Language
	if lang == "" {
		lang = "go"
	}
	res, err := w.pkg.ExecContext(w.ctx, w.project, lang, f.Path, f.Name, f.Dir, f.Hash, strings.Join(f.Errors, "\n"))
	if err != nil {
		return err
	}
	pkgID, err := res.LastInsertId()
	if err != nil {
		return err
	}
	fileIDs := make([]any, len(f.Files))
	for i, file := range f.Files {
		res, err := w.files.ExecContext(w.ctx, pkgID, file.Path, file.Lines, file.IsTest)
		if err != nil {
			return err
		}
		if fileIDs[i], err = res.LastInsertId(); err != nil {
			return err
		}
	}
	fileID := func(i int) any {
		if i < 0 {
			return nil
		}
		return fileIDs[i]
	}
	for _, n := range f.Nodes {
		sym, err := w.symbol(n.QName)
		if err != nil {
			return err
		}
		var parent any
		if n.Parent != "" {
			if parent, err = w.symbol(n.Parent); err != nil {
				return err
			}
		}
		var line, col, end any
		if n.File >= 0 {
			line, col, end = n.Line, n.Col, n.EndLine
		}
		if err := w.nodes.add(sym, w.project, pkgID, n.Kind, n.Name, n.QName, parent, fileID(n.File), line, col, end, n.Exported, n.Signature, n.Doc); err != nil {
			return err
		}
	}
	for _, e := range f.Edges {
		src, err := w.symbol(e.Src)
		if err != nil {
			return err
		}
		dst, err := w.symbol(e.Dst)
		if err != nil {
			return err
		}
		var line, col any
		if e.File >= 0 {
			line, col = e.Line, e.Col
		}
		res := e.Resolution
		if res == "" {
			res = "typed"
		}
		if err := w.edges.add(w.project, pkgID, e.Kind, src, dst, fileID(e.File), line, col, res); err != nil {
			return err
		}
	}
	for _, m := range f.MethodSets {
		typ, err := w.symbol(m.Type)
		if err != nil {
			return err
		}
		meth, err := w.symbol(m.MethodQName)
		if err != nil {
			return err
		}
		if err := w.msets.add(w.project, pkgID, typ, m.IsInterface, m.External, m.Method, m.Fingerprint, meth); err != nil {
			return err
		}
	}
	return nil
}

// Commit recomputes the implements relation over the whole project, records the time, and
// commits the run.
func (w *Writer) Commit() error {
	if err := w.flush(); err != nil {
		w.Rollback()
		return err
	}
	if err := w.implements(); err != nil {
		w.Rollback()
		return err
	}
	if _, err := w.tx.ExecContext(w.ctx, "UPDATE projects SET indexed_at = ? WHERE id = ?", time.Now().UTC().Format(time.RFC3339), w.project); err != nil {
		w.Rollback()
		return err
	}
	return w.tx.Commit()
}

func (w *Writer) flush() error {
	for _, b := range []*batch{w.nodes, w.edges, w.msets} {
		if err := b.flush(); err != nil {
			return err
		}
	}
	return nil
}

// Rollback abandons the run.
func (w *Writer) Rollback() { w.tx.Rollback() }

// batch inserts rows many at a time: one statement per row costs more than the row.
type batch struct {
	w       *Writer
	table   string
	columns string
	ncol    int
	full    *sql.Stmt
	args    []any
}

const batchRows = 256

func newBatch(w *Writer, table, columns string) *batch {
	return &batch{w: w, table: table, columns: columns, ncol: strings.Count(columns, ",") + 1}
}

func (b *batch) insert(rows int) string {
	one := "(" + strings.TrimSuffix(strings.Repeat("?,", b.ncol), ",") + ")"
	return "INSERT INTO " + b.table + " (" + b.columns + ") VALUES " + strings.TrimSuffix(strings.Repeat(one+",", rows), ",")
}

func (b *batch) add(values ...any) error {
	b.args = append(b.args, values...)
	if len(b.args) < batchRows*b.ncol {
		return nil
	}
	if b.full == nil {
		var err error
		if b.full, err = b.w.tx.PrepareContext(b.w.ctx, b.insert(batchRows)); err != nil {
			return err
		}
	}
	_, err := b.full.ExecContext(b.w.ctx, b.args...)
	b.args = b.args[:0]
	return err
}

func (b *batch) flush() error {
	if len(b.args) == 0 {
		return nil
	}
	_, err := b.w.tx.ExecContext(b.w.ctx, b.insert(len(b.args)/b.ncol), b.args...)
	b.args = b.args[:0]
	return err
}
