// Package nullable has a tool whose arguments and result are mcp.Nullable: a property left
// out, null or a value, as an API's optional property that a client clears with null
// (GitHub's "milestone": null removes an issue's milestone; no "milestone" keeps it).
package nullable

import "github.com/mcpgen/mcpgen/runtime/mcp"

// Milestone is what an issue may belong to.
type Milestone struct {
	Number int    `json:"number" jsonschema:"minimum=1"`
	Title  string `json:"title,omitempty"`
}

// Ref is an issue that may have a parent issue: a struct that contains itself, so through a
// pointer.
type Ref struct {
	Number int                `json:"number"`
	Parent mcp.Nullable[*Ref] `json:"parent,omitzero"`
}

// Update changes an issue: a property left out stays as it is, null clears it.
type Update struct {
	Number int `json:"number"`
	// The milestone; null removes it.
	Milestone mcp.Nullable[Milestone] `json:"milestone,omitzero"`
	// The assignee's login; null unassigns.
	Assignee mcp.Nullable[string] `json:"assignee,omitzero" jsonschema:"minLength=1,maxLength=39"`
	// The labels; null removes them all.
	Labels mcp.Nullable[[]string] `json:"labels,omitzero" jsonschema:"maxItems=3"`
	// The priority; 3 when left out.
	Priority mcp.Nullable[int] `json:"priority,omitzero" jsonschema:"minimum=1,default=3"`
	// Hours each person estimates; null withdraws an estimate.
	Estimates map[string]mcp.Nullable[float64] `json:"estimates,omitempty"`
	// The due date; without omitzero, encoding/json writes null when it is left out.
	Due mcp.Nullable[string] `json:"due" jsonschema:"format=date"`
	// The parent issue; null makes it a top-level issue.
	Parent mcp.Nullable[*Ref] `json:"parent,omitzero"`
}

// Change is what update_issue did: the update, as it was read.
type Change struct {
	Milestone mcp.Nullable[Milestone] `json:"milestone,omitzero"`
	// Only these two are assignees.
	Assignee  mcp.Nullable[string]             `json:"assignee,omitzero" jsonschema:"enum=octocat,enum=hubot"`
	Labels    mcp.Nullable[[]string]           `json:"labels,omitzero"`
	Priority  mcp.Nullable[int]                `json:"priority,omitzero"`
	Estimates map[string]mcp.Nullable[float64] `json:"estimates,omitempty"`
	Due       mcp.Nullable[string]             `json:"due"`
	Parent    mcp.Nullable[*Ref]               `json:"parent,omitzero"`
}

// Last is the update the tool was called with last, for the tests to read.
var Last Update

// UpdateIssue changes an issue's milestone, assignee, labels, priority and estimates.
//
//mcp:tool
func UpdateIssue(in Update) Change {
	Last = in
	return Change{Milestone: in.Milestone, Assignee: in.Assignee, Labels: in.Labels, Priority: in.Priority, Estimates: in.Estimates, Due: in.Due, Parent: in.Parent}
}
