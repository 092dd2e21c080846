// Package notes is an mcpgen server whose tools live in a package of their own, not in
// package main, so that Go clients can reuse its types: mcpgen import ./examples/notes
// writes a typed client (package notesclient, beside this file) whose methods take and
// return the very structs declared here, with no copies to drift apart.
//
// The server command is cmd/notes:
//
//	go run ./examples/notes/cmd/notes
package notes

//go:generate go tool mcpgen
//go:generate go tool mcpgen import . -o notesclient

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// Priority says how soon a note needs attention.
type Priority string

// The priorities.
const (
	Low    Priority = "low"
	Normal Priority = "normal"
	High   Priority = "high"
)

// NewNote is a note to add.
type NewNote struct {
	// Title is a line that names the note.
	Title string `json:"title" jsonschema:"minLength=1,maxLength=200"`
	// Body is the note's text.
	Body string `json:"body,omitempty"`
	// Priority of the note; normal when left out.
	Priority Priority `json:"priority,omitempty" jsonschema:"default=normal"`
	// Tags to find the note by.
	Tags []string `json:"tags,omitempty" jsonschema:"uniqueItems=true"`
	// Due is when the note needs to be done, if ever.
	Due *time.Time `json:"due,omitempty"`
}

// Note is a stored note.
type Note struct {
	ID       int        `json:"id"`
	Title    string     `json:"title"`
	Body     string     `json:"body,omitempty"`
	Priority Priority   `json:"priority"`
	Tags     []string   `json:"tags,omitempty"`
	Due      *time.Time `json:"due,omitempty"`
	Created  time.Time  `json:"created"`
}

// Query says which notes to find.
type Query struct {
	// Text that the title or body contains, ignoring case; every note when empty.
	Text string `json:"text,omitempty"`
	// Tag the notes carry.
	Tag string `json:"tag,omitempty"`
	// AtLeast is the lowest priority to list.
	AtLeast Priority `json:"atLeast,omitempty"`
	// Limit on the notes listed.
	Limit int `json:"limit,omitempty" jsonschema:"minimum=1,maximum=100,default=20"`
}

// Found is the notes a query found, most urgent first.
type Found struct {
	Notes []Note `json:"notes"`
	// More says whether notes beyond the limit matched.
	More bool `json:"more"`
}

// NoteRef names a note.
type NoteRef struct {
	// ID of the note.
	ID int `json:"id" jsonschema:"minimum=1"`
}

// Confirmation is the user's answer to a question before something is done that cannot be
// undone.
type Confirmation struct {
	// Confirm does it.
	Confirm bool `json:"confirm"`
}

// Book keeps the notes of one server process.
type Book struct {
	mu    sync.Mutex
	notes []Note
	last  int // the last id given
	now   func() time.Time
}

// NewBook returns an empty notebook; now is the clock (nil: time.Now).
func NewBook(now func() time.Time) *Book {
	if now == nil {
		now = time.Now
	}
	return &Book{now: now}
}

// Add stores a note and returns it with its id.
//
//mcp:tool add_note title="Add a note"
func (b *Book) Add(ctx context.Context, in NewNote) (Note, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := Note{ID: b.last + 1, Title: strings.TrimSpace(in.Title), Body: in.Body, Priority: in.Priority, Tags: in.Tags, Due: in.Due, Created: b.now().UTC().Truncate(time.Second)}
	if n.Title == "" {
		return Note{}, fmt.Errorf("the title must not be blank")
	}
	b.notes = append(b.notes, n)
	b.last = n.ID
	return n, nil
}

// Delete deletes a note, once the user has confirmed it: the server asks the client's user
// (elicitation), and a client that cannot ask keeps its notes.
//
//mcp:tool delete_note title="Delete a note" destructive
func (b *Book) Delete(ctx context.Context, in NoteRef) (string, error) {
	n, ok := b.get(in.ID)
	if !ok {
		return "", fmt.Errorf("there is no note %d", in.ID)
	}
	answer, action, err := mcp.Elicit[Confirmation](ctx, fmt.Sprintf("Delete note %d, %q?", n.ID, n.Title))
	if err != nil {
		return "", err // in a stateless request, mcp.ErrInputRequired: the user is asked, and the call comes back
	}
	if action != mcp.Accept || !answer.Confirm {
		return fmt.Sprintf("kept note %d", n.ID), nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.notes = slices.DeleteFunc(b.notes, func(m Note) bool { return m.ID == in.ID })
	return fmt.Sprintf("deleted note %d", n.ID), nil
}

func (b *Book) get(id int) (Note, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, n := range b.notes {
		if n.ID == id {
			return n, true
		}
	}
	return Note{}, false
}

var rank = map[Priority]int{Low: 0, Normal: 1, High: 2}

// Find lists the notes that match a query, most urgent first, then oldest first.
//
//mcp:tool find_notes title="Find notes" readonly
func (b *Book) Find(ctx context.Context, q Query) (Found, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	text := strings.ToLower(q.Text)
	var found []Note
	for _, n := range b.notes {
		if text != "" && !strings.Contains(strings.ToLower(n.Title+"\n"+n.Body), text) ||
			q.Tag != "" && !slices.Contains(n.Tags, q.Tag) ||
			q.AtLeast != "" && rank[n.Priority] < rank[q.AtLeast] {
			continue
		}
		found = append(found, n)
	}
	slices.SortStableFunc(found, func(a, b Note) int { return rank[b.Priority] - rank[a.Priority] })
	res := Found{Notes: found}
	if len(found) > q.Limit {
		res.Notes, res.More = found[:q.Limit], true
	}
	if res.Notes == nil {
		res.Notes = []Note{}
	}
	return res, nil
}
