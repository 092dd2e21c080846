package graph

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCheckReadOnly(t *testing.T) {
	for _, q := range []string{
		"SELECT 1",
		"  select * from nodes -- a comment; DROP TABLE nodes\n",
		"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n FROM r",
		"VALUES (1), (2)",
		"SELECT replace(name, 'a', 'b') FROM nodes",
		"SELECT 'DELETE FROM nodes; DROP TABLE x' AS text",
		`SELECT "update" FROM (SELECT 1 AS "update")`,
		"SELECT 1;",
		"SELECT /* ; INSERT */ 2",
	} {
		if err := checkReadOnly(q); err != nil {
			t.Errorf("%q: %v", q, err)
		}
	}
	for q, want := range map[string]string{
		"DELETE FROM nodes":                                             "begins with DELETE",
		"WITH x AS (SELECT 1) DELETE FROM nodes":                        "says DELETE",
		"WITH x AS (SELECT 1) INSERT INTO t SELECT 1":                   "says INSERT",
		"SELECT 1; DROP TABLE nodes":                                    "2 statements",
		"PRAGMA query_only = 0":                                         "begins with PRAGMA",
		"SELECT * FROM pragma_table_info('nodes'); PRAGMA query_only=0": "2 statements",
		"ATTACH 'x.db' AS x":                                            "begins with ATTACH",
		"VACUUM INTO '/tmp/copy.db'":                                    "begins with VACUUM",
		"REPLACE INTO nodes VALUES (1)":                                 "begins with REPLACE",
		"WITH x AS (SELECT 1) REPLACE INTO t VALUES(1)":                 "says REPLACE",
		"":                  "empty",
		"-- only a comment": "empty",
	} {
		err := checkReadOnly(q)
		if !errors.Is(err, ErrNotReadOnly) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", q, err, want)
		}
	}
}

func open(t *testing.T) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ctx := context.Background()
	w, err := s.BeginIndex(ctx, "/p", "p")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WritePackage(&PackageFacts{Path: "p", Name: "p", Hash: "h", Files: []File{{Path: "p.go", Lines: 3}},
		Nodes: []Node{{Kind: "func", Name: "F", QName: "p.F", File: 0, Line: 1, Col: 6, EndLine: 3}}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	return s
}

// The connection the model's queries use refuses writes even when the statement check is
// not there to stop them.
func TestReadOnlyConnection(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	for _, q := range []string{
		"DELETE FROM nodes",
		"INSERT INTO projects (name, root) VALUES ('x', 'y')",
		"CREATE TABLE x (y)",
		"CREATE TEMP TABLE x (y)",
	} {
		if _, err := s.ro.ExecContext(ctx, q); err == nil {
			t.Errorf("%s ran on the read-only connection", q)
		}
	}
	// Another database attached (which the statement check refuses too) is no way around it.
	conn, err := s.ro.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	other := filepath.Join(t.TempDir(), "other.db")
	if _, err := conn.ExecContext(ctx, "ATTACH ? AS m", other); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "CREATE TABLE m.x (y)"); err == nil {
		t.Error("wrote to an attached database on the read-only connection")
	}
	// SQLite does create the attached file, empty: one reason the statement check refuses
	// ATTACH before anything runs.
	if fi, err := os.Stat(other); err == nil && fi.Size() != 0 {
		t.Errorf("the read-only connection wrote %d bytes to an attached file", fi.Size())
	}
	var n int
	if err := s.ro.QueryRowContext(ctx, "SELECT count(*) FROM nodes").Scan(&n); err != nil || n != 1 {
		t.Errorf("nodes: %d, %v", n, err)
	}
}

func TestGuardedLimits(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	rows, err := s.Guarded(ctx, "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 10) SELECT n, 'x' AS s FROM r", 4, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if m := rows.Maps(); len(m) != 4 || !rows.Truncated || m[3]["n"] != int64(4) || m[0]["s"] != "x" || strings.Join(rows.Columns, ",") != "n,s" {
		t.Errorf("rows = %+v", rows)
	}
	start := time.Now()
	_, err = s.Guarded(ctx, "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r", 10, 200*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "stopped after 200ms") {
		t.Errorf("a query that never ends: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("stopping took %v", d)
	}
	// The store still answers afterwards.
	if _, err := s.Guarded(ctx, "SELECT 1", 1, time.Second); err != nil {
		t.Error(err)
	}
}

// A guarded query's memory is bounded: a string doubled in a recursive query stops at the
// length limit (before, it grew past a gigabyte until the time limit stopped it), and rows
// past the bytes a result may hold are left out.
func TestGuardedMemory(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	start := time.Now()
	_, err := s.Guarded(ctx, "WITH RECURSIVE r(s, n) AS (SELECT 'xxxxxxxx', 0 UNION ALL SELECT s || s, n + 1 FROM r WHERE n < 40) SELECT length(s) FROM r ORDER BY 1 DESC LIMIT 1", 10, 30*time.Second)
	if err == nil || !strings.Contains(err.Error(), "string or blob too big") {
		t.Errorf("a string doubled 40 times: %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the doubled string took %v to be refused", d)
	}
	rows, err := s.Guarded(ctx, "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 1000) SELECT n, printf('%.100000c', 'x') AS s FROM r", 1000, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(rows.Values); !rows.Truncated || n < 50 || n > 90 {
		t.Errorf("1000 rows of 100 kB: %d returned, truncated %v", n, rows.Truncated)
	}
}
