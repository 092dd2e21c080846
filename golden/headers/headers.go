// Package headers has tool arguments that clients mirror into HTTP headers (x-mcp-header,
// revision 2026-07-28): each kind of field the mcp:"header=..." tag goes on, in nested and
// embedded structs, and the jsonschema_extras spelling.
package headers

import "context"

// Priority is how urgent a query is.
type Priority string

// The priorities.
const (
	Low  Priority = "low"
	High Priority = "high"
)

// Level is a numbered level, an int64 whose constants keep it small.
type Level int64

// The levels.
const (
	LevelOne Level = 1
	LevelTwo Level = 2
)

// Query is where and how to run a query.
type Query struct {
	// Region to run the query in.
	Region string `json:"region" jsonschema:"minLength=2" mcp:"header=Region"`
	// Tenant is optional: no header when it is absent.
	Tenant *string `json:"tenant,omitempty" mcp:"header=Tenant-Id"`
	// DryRun only plans the query.
	DryRun bool `json:"dryRun,omitempty" mcp:"header=Dry-Run"`
	// Shard is an integer narrow enough to mirror as it is.
	Shard int32 `json:"shard,omitempty" mcp:"header=Shard"`
	// Account is an int64 kept within ±(2^53-1) by its bounds.
	Account int64 `json:"account,omitempty" jsonschema:"minimum=1,maximum=9007199254740991" mcp:"header=Account"`
	// Cost is an unsigned int64 with a maximum.
	Cost uint64 `json:"cost,omitempty" jsonschema:"maximum=1000000" mcp:"header=Cost"`
	// Serial is an int64 sent as text, which a header holds exactly.
	Serial int64 `json:"serial,omitempty,string" mcp:"header=Serial"`
	// Priority is an enum; the header holds the value.
	Priority Priority `json:"priority,omitempty" mcp:"header=Priority"`
	// Level is an int64 enum of small values.
	Level Level `json:"level,omitempty" mcp:"header=Level"`
	// Zone uses the spelling invopop/jsonschema also reads.
	Zone string `json:"zone,omitempty" jsonschema_extras:"x-mcp-header=Zone,x-order=1"`
	// Target is nested: its cluster is /target/cluster.
	Target Target `json:"target"`
	// Route is nested behind a pointer.
	Route *Route `json:"route,omitempty"`
	Audit
	*Trace
	// Text is the query itself, not mirrored.
	Text string `json:"text"`
}

// Target says where a query runs.
type Target struct {
	// Cluster to run on.
	Cluster string `json:"cluster" mcp:"header=Cluster"`
	// Labels are not mirrored: only their holder's own properties can be.
	Labels map[string]string `json:"labels,omitempty"`
}

// Route is a path through the network.
type Route struct {
	Hop Hop `json:"hop"`
}

// Hop is one step of a route.
type Hop struct {
	// Gateway is two objects deep.
	Gateway string `json:"gateway" mcp:"header=Gateway"`
}

// Audit is embedded: its fields are properties of Query.
type Audit struct {
	// Actor is who runs the query.
	Actor string `json:"actor,omitempty" mcp:"header=Actor"`
}

// Trace is embedded through a pointer: its fields are optional properties of Query.
type Trace struct {
	// TraceID links the query to a trace.
	TraceID string `json:"traceId,omitempty" mcp:"header=Trace-Id"`
}

// Answer is what a query returns.
type Answer struct {
	Region string `json:"region"`
	Rows   int    `json:"rows"`
}

// RunQuery runs a query.
//
//mcp:tool run_query
func RunQuery(ctx context.Context, q Query) (Answer, error) {
	return Answer{Region: q.Region, Rows: len(q.Text)}, nil
}

// Move takes the same nested type as run_query: header names are unique per tool.
//
//mcp:tool move
func Move(in struct {
	Target Target `json:"target"`
}) string {
	return "moved to " + in.Target.Cluster
}
