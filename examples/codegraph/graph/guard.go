package graph

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"

	"modernc.org/sqlite"
)

// Rows is the result of a query: its columns, and each row's values in their order.
type Rows struct {
	Columns   []string
	Values    [][]any
	Truncated bool // more rows matched than the limit
}

// Maps is each row as a map from column to value.
func (r *Rows) Maps() []map[string]any {
	out := make([]map[string]any, len(r.Values))
	for i, vals := range r.Values {
		row := make(map[string]any, len(r.Columns))
		for j, c := range r.Columns {
			row[c] = vals[j]
		}
		out[i] = row
	}
	return out
}

// The bounds on what a guarded query makes and returns.
const (
	maxValueBytes     = 16 << 20
	maxResultBytes    = 8 << 20
	sqliteLimitLength = 0 // SQLITE_LIMIT_LENGTH
)

// ErrNotReadOnly is what Guarded returns for SQL that is not one read-only statement.
var ErrNotReadOnly = errors.New("only one SELECT statement (or WITH ... SELECT) may run")

// Guarded runs SQL that someone else wrote (a model) and nobody checked. Three locks keep it
// from changing anything: the statement must be one SELECT (WITH and VALUES too) without
// PRAGMA, ATTACH or DETACH anywhere (they could lift the next lock or reach other files);
// it runs on a connection that SQLite opened read-only with query_only set, so the engine
// refuses a write even if the check missed one; and it is stopped after timeout, with at
// most maxRows rows and maxResultBytes of text read. Its memory is bounded too: no string
// or blob it makes may exceed maxValueBytes (SQLite's length limit on the connection; a
// string doubled in a recursive query would take gigabytes before the time ran out), and
// its sorts and temporary tables spill to disk (the read-only connections keep SQLite's
// default temp_store, files).
func (s *Store) Guarded(ctx context.Context, query string, maxRows int, timeout time.Duration) (*Rows, error) {
	if err := checkReadOnly(query); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	conn, err := s.ro.Conn(ctx)
	if err != nil {
		return nil, queryError(ctx, err, timeout)
	}
	defer conn.Close()
	if _, err := sqlite.Limit(conn, sqliteLimitLength, maxValueBytes); err != nil {
		return nil, err
	}
	rows, err := conn.QueryContext(ctx, query)
	if err != nil {
		return nil, queryError(ctx, err, timeout)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	out := &Rows{Columns: cols, Values: [][]any{}}
	size := 0
	for rows.Next() {
		if len(out.Values) == maxRows {
			out.Truncated = true
			break
		}
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, queryError(ctx, err, timeout)
		}
		for i := range vals {
			switch v := vals[i].(type) {
			case []byte:
				vals[i] = string(v)
				size += len(v)
			case string:
				size += len(v)
			default:
				size += 8
			}
		}
		if size > maxResultBytes {
			out.Truncated = true
			break
		}
		out.Values = append(out.Values, vals)
	}
	if err := rows.Err(); err != nil {
		return nil, queryError(ctx, err, timeout)
	}
	return out, nil
}

func queryError(ctx context.Context, err error, timeout time.Duration) error {
	if ctx.Err() == context.DeadlineExceeded {
		return fmt.Errorf("the query was stopped after %v (the time limit): %w", timeout, err)
	}
	return err
}

// checkReadOnly accepts one SELECT statement: it reads the SQL's tokens (skipping strings,
// quoted names and comments), and refuses a first word other than SELECT, WITH or VALUES,
// a statement after the first, and words that write or reach outside the database.
func checkReadOnly(q string) error {
	words, statements := sqlWords(q)
	if statements > 1 {
		return fmt.Errorf("%w; this SQL has %d statements", ErrNotReadOnly, statements)
	}
	if len(words) == 0 {
		return fmt.Errorf("%w; this SQL is empty", ErrNotReadOnly)
	}
	switch words[0].word {
	case "SELECT", "WITH", "VALUES":
	default:
		return fmt.Errorf("%w; this one begins with %s", ErrNotReadOnly, words[0].word)
	}
	for _, w := range words {
		switch w.word {
		case "INSERT", "UPDATE", "DELETE", "CREATE", "DROP", "ALTER", "ATTACH", "DETACH", "PRAGMA",
			"VACUUM", "REINDEX", "ANALYZE", "BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE", "UPSERT":
			return fmt.Errorf("%w; this one says %s", ErrNotReadOnly, w.word)
		case "REPLACE":
			if !w.call { // replace(x, y, z) is a string function
				return fmt.Errorf("%w; this one says REPLACE", ErrNotReadOnly)
			}
		}
	}
	return nil
}

type sqlWord struct {
	word string // upper case
	call bool   // followed by "("
}

// sqlWords are the bare words of SQL, and how many statements it holds.
func sqlWords(q string) ([]sqlWord, int) {
	var words []sqlWord
	statements, inStatement := 0, false
	r := []rune(q)
	for i := 0; i < len(r); {
		c := r[i]
		switch {
		case unicode.IsSpace(c):
			i++
			continue
		case c == '-' && i+1 < len(r) && r[i+1] == '-':
			for i < len(r) && r[i] != '\n' {
				i++
			}
			continue
		case c == '/' && i+1 < len(r) && r[i+1] == '*':
			i += 2
			for i+1 < len(r) && !(r[i] == '*' && r[i+1] == '/') {
				i++
			}
			i += 2
			continue
		case c == ';':
			inStatement = false
			i++
			continue
		}
		if !inStatement {
			inStatement = true
			statements++
		}
		switch {
		case c == '\'' || c == '"' || c == '`' || c == '[':
			end := c
			if c == '[' {
				end = ']'
			}
			i++
			for i < len(r) {
				if r[i] == end {
					if i+1 < len(r) && r[i+1] == end && end != ']' { // a doubled quote
						i += 2
						continue
					}
					break
				}
				i++
			}
			i++
		case unicode.IsLetter(c) || c == '_':
			j := i
			for j < len(r) && (unicode.IsLetter(r[j]) || unicode.IsDigit(r[j]) || r[j] == '_' || r[j] == '$') {
				j++
			}
			w := sqlWord{word: strings.ToUpper(string(r[i:j]))}
			k := j
			for k < len(r) && unicode.IsSpace(r[k]) {
				k++
			}
			w.call = k < len(r) && r[k] == '('
			words = append(words, w)
			i = j
		default:
			i++
		}
	}
	return words, statements
}

// Columns lists the graph's tables and views with their columns, one a line:
// "nodes: id, symbol_id, ...".
func (s *Store) Columns(ctx context.Context) (string, error) {
	rows, err := s.ro.QueryContext(ctx, `SELECT m.name, group_concat(p.name, ', ') FROM sqlite_master m, pragma_table_info(m.name) p
		WHERE m.type IN ('table', 'view') AND m.name NOT LIKE 'sqlite_%' GROUP BY m.name ORDER BY m.type, m.name`)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var table, cols string
		if err := rows.Scan(&table, &cols); err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "%s: %s\n", table, cols)
	}
	return b.String(), rows.Err()
}
