// Package diag collects the problems mcpgen finds in a user's code, so that one run reports
// all of them, sorted by position, in the file:line:col form editors and CI logs understand.
package diag

import (
	"cmp"
	"fmt"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
)

// Diagnostic is one problem at one position.
type Diagnostic struct {
	Pos     token.Position
	Message string
	Hint    string // optional: how to fix it
}

// Format renders the diagnostic as "file:line:col: message", with the file name relative to
// base when it lies below it, and the hint, if any, on an indented second line.
func (d Diagnostic) Format(base string) string {
	name := d.Pos.Filename
	if base != "" && filepath.IsAbs(name) {
		if rel, err := filepath.Rel(base, name); err == nil && !strings.HasPrefix(rel, "..") {
			name = rel
		}
	}
	var b strings.Builder
	if name != "" {
		b.WriteString(name)
		if d.Pos.Line > 0 {
			fmt.Fprintf(&b, ":%d", d.Pos.Line)
			if d.Pos.Column > 0 {
				fmt.Fprintf(&b, ":%d", d.Pos.Column)
			}
		}
		b.WriteString(": ")
	}
	b.WriteString(d.Message)
	if d.Hint != "" {
		b.WriteString("\n\thint: ")
		b.WriteString(d.Hint)
	}
	return b.String()
}

// List collects diagnostics. The zero value is not usable; call NewList.
type List struct {
	fset  *token.FileSet
	items []Diagnostic
}

// NewList returns an empty list resolving positions with fset.
func NewList(fset *token.FileSet) *List { return &List{fset: fset} }

// Errorf records a problem at pos.
func (l *List) Errorf(pos token.Pos, format string, args ...any) {
	l.Add(l.fset.Position(pos), "", format, args...)
}

// Hintf records a problem at pos with a hint on how to fix it.
func (l *List) Hintf(pos token.Pos, hint, format string, args ...any) {
	l.Add(l.fset.Position(pos), hint, format, args...)
}

// Add records a problem at an already resolved position.
func (l *List) Add(pos token.Position, hint, format string, args ...any) {
	l.items = append(l.items, Diagnostic{Pos: pos, Message: fmt.Sprintf(format, args...), Hint: hint})
}

// FileSet returns the file set positions are resolved with.
func (l *List) FileSet() *token.FileSet { return l.fset }

// Len returns how many problems have been recorded.
func (l *List) Len() int { return len(l.items) }

// Sorted returns the problems ordered by file, line and column, without duplicates.
func (l *List) Sorted() []Diagnostic {
	out := slices.Clone(l.items)
	slices.SortStableFunc(out, Compare)
	return slices.CompactFunc(out, func(a, b Diagnostic) bool { return a == b })
}

// Compare orders diagnostics by position, then message.
func Compare(a, b Diagnostic) int {
	return cmp.Or(
		cmp.Compare(a.Pos.Filename, b.Pos.Filename),
		cmp.Compare(a.Pos.Line, b.Pos.Line),
		cmp.Compare(a.Pos.Column, b.Pos.Column),
		cmp.Compare(a.Message, b.Message),
	)
}
