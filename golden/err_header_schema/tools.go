// Package errheaderschema declares schemas whose x-mcp-header annotations clients would
// refuse, and the runtime too: mcpgen checks every inputSchema as they do.
package errheaderschema

import (
	"encoding/json"
	"errors"
)

// Query reads its own JSON, under a declared schema with bad annotations: one inside a
// list, a number, a name that is no HTTP header name, a name used twice and an integer
// without bounds.
//
//mcp:schema {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string", "x-mcp-header": "Tag"}}, "ratio": {"type": "number", "x-mcp-header": "Ratio"}, "bad": {"type": "string", "x-mcp-header": "a b"}, "region": {"type": "string", "x-mcp-header": "Region"}, "zone": {"type": "string", "x-mcp-header": "region"}, "count": {"type": "integer", "x-mcp-header": "Count"}}, "x-mcp-header": "Root"}
type Query struct{ raw json.RawMessage }

// UnmarshalJSON keeps the arguments.
func (q *Query) UnmarshalJSON(b []byte) error { q.raw = b; return nil }

// Search takes a Query.
//
//mcp:tool
func Search(q Query) error { return errors.New("no") }

// Money is an amount whose declared schema has an annotation in a oneOf.
//
//mcp:schema {"oneOf": [{"type": "string", "x-mcp-header": "Amount"}, {"type": "integer"}]}
type Money struct{ cents int64 }

// UnmarshalJSON reads an amount.
func (m *Money) UnmarshalJSON(b []byte) error { return nil }

// Price holds a Money, and a declared type that is mirrored correctly.
type Price struct {
	Amount Money `json:"amount"`
	Code   Code  `json:"code"`
}

// Code is a currency code, a string mirrored into a header by its declared schema.
//
//mcp:schema {"type": "string", "x-mcp-header": "Currency"}
type Code struct{ s string }

// UnmarshalJSON reads a code.
func (c *Code) UnmarshalJSON(b []byte) error { return nil }

// Pay takes a Price.
//
//mcp:tool
func Pay(p Price) error { return errors.New("no") }
