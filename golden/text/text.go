// Package text has tools whose structured results write their own text block, for clients
// and models that read the text rather than structuredContent.
package text

import (
	"fmt"
	"strconv"
)

// Hit is one matching line.
type Hit struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Text string `json:"text"`
}

// Hits are the lines that match a query.
type Hits struct {
	Hits []Hit `json:"hits"`
}

// AppendMCPText writes the hits as grep does, one per line: fewer tokens than their JSON.
func (h *Hits) AppendMCPText(b []byte) []byte {
	for _, hit := range h.Hits {
		b = append(b, hit.Path...)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(hit.Line), 10)
		b = append(b, ':')
		b = append(b, hit.Text...)
		b = append(b, '\n')
	}
	return b
}

// Query is what to search for.
type Query struct {
	Pattern string `json:"pattern"`
}

// Search finds the lines that hold a pattern.
//
//mcp:tool
func Search(q Query) Hits {
	return Hits{Hits: []Hit{{"a.go", 3, "func " + q.Pattern + "()"}, {"b.go", 10, q.Pattern + " := 1"}}}
}

// Tally is a count.
type Tally struct {
	N int `json:"n"`
}

// MCPText says the count in words.
func (t Tally) MCPText() string { return fmt.Sprintf("%d files", t.N) }

// Count counts files; its result is a pointer.
//
//mcp:tool
func Count() (*Tally, error) { return &Tally{N: 42}, nil }

// Level is a result with a rule it may break.
type Level struct {
	Value int `json:"value" jsonschema:"maximum=10"`
}

// MCPText writes the level.
func (l Level) MCPText() string { return "level " + strconv.Itoa(l.Value) }

// Raise returns a level, which breaks its output schema above 10.
//
//mcp:tool
func Raise(in Level) Level { return Level{Value: in.Value + 1} }

// Plain has no text of its own: its text block is its JSON.
type Plain struct {
	OK bool `json:"ok"`
}

// Ping answers.
//
//mcp:tool
func Ping() Plain { return Plain{OK: true} }
