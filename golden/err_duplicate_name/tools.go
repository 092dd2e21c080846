// Package errduplicatename declares the same tool name twice.
package errduplicatename

// Query is a search query.
type Query struct {
	Text string `json:"text"`
}

// Lookup finds something.
//
//mcp:tool
func Lookup(q Query) (string, error) { return q.Text, nil }

// Find finds something too, under the same name.
//
//mcp:tool lookup
func Find(q Query) (string, error) { return q.Text, nil }

// Store has a method whose default name is taken as well.
type Store struct{}

// Lookup on a store.
//
//mcp:tool
func (s *Store) Lookup(q Query) (string, error) { return q.Text, nil }
