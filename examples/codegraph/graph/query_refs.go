package graph

import (
	"context"
	"sort"
	"strings"
)

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
	In string `json:"in"`
	// Resolution is how exact the use is: typed (the Go type checker's), scope (through the
	// file's scopes and imports) or name (the only declaration of the name: a guess).
	Resolution string `json:"resolution"`
	inID       int64
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
	q := `SELECT f.path, e.file_id, e.line, e.col, d.qualified_name, src.qualified_name, e.dst, e.src, e.resolution
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
		if err := rows.Scan(&site.File, &fileID, &site.Line, &site.Col, &via, &site.In, &dst, &site.inID, &site.Resolution); err != nil {
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
