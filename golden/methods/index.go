// Package methods has tools that are methods: of a pointer receiver holding state (a
// small search index) and of a value receiver.
package methods

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"
)

// Index is an in-memory full-text index of documents.
type Index struct {
	mu   sync.Mutex
	docs map[string]string
}

// NewIndex returns an empty index.
func NewIndex() *Index { return &Index{docs: map[string]string{}} }

// Query is what to search for.
type Query struct {
	// Text to find, matched case-insensitively.
	Text string `json:"text" jsonschema:"minLength=1"`
	// Limit on the number of hits.
	Limit int `json:"limit,omitempty" jsonschema:"minimum=1,maximum=50,default=10"`
}

// Hits are the documents that match a query.
type Hits struct {
	IDs   []string `json:"ids"`
	Total int      `json:"total"`
}

// Search finds the documents containing the query text.
//
//mcp:tool readonly
func (ix *Index) Search(ctx context.Context, q Query) (Hits, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	var hits Hits
	for id, text := range ix.docs {
		if strings.Contains(strings.ToLower(text), strings.ToLower(q.Text)) {
			hits.IDs = append(hits.IDs, id)
		}
	}
	slices.Sort(hits.IDs)
	hits.Total = len(hits.IDs)
	if len(hits.IDs) > q.Limit {
		hits.IDs = hits.IDs[:q.Limit]
	}
	return hits, nil
}

// Document is a document to index.
type Document struct {
	ID   string `json:"id" jsonschema:"pattern=^[a-z0-9-]+$"`
	Text string `json:"text"`
}

// Add indexes a document, replacing one with the same ID.
//
//mcp:tool add_document destructive=false idempotent
func (ix *Index) Add(doc *Document) error {
	if strings.TrimSpace(doc.Text) == "" {
		return errors.New("the document is empty")
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.docs[doc.ID] = doc.Text
	return nil
}

// Clock tells the time in one time zone.
type Clock struct {
	Zone *time.Location
}

// Now returns the current time on the clock, in RFC 3339 form.
//
//mcp:tool
func (c Clock) Now() string {
	return time.Now().In(c.Zone).Format(time.RFC3339)
}
