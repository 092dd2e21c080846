package errheaders

import (
	"context"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// Place is a struct with a header, used where a header cannot be.
type Place struct {
	Name string `json:"name" mcp:"header=Place"`
}

// Trip holds Place twice, and header names that differ only in case.
type Trip struct {
	From   Place  `json:"from"`
	To     Place  `json:"to"`
	Region string `json:"region" mcp:"header=Region"`
	Zone   string `json:"zone" mcp:"header=REGION"`
	Ext    string `json:"ext" jsonschema_extras:"x-mcp-header=region"`
	Via    Via    `json:"via"`
}

// Via is nested in Trip.
type Via struct {
	Area string `json:"area" mcp:"header=Region"`
}

// Plan travels.
//
//mcp:tool
func Plan(in Trip) error { return nil }

// Item is an element of lists and maps.
type Item struct {
	Sku string `json:"sku" mcp:"header=Sku"`
}

// Entry is a value of a map.
type Entry struct {
	Sku string `json:"sku" mcp:"header=Entry"`
}

// Node is recursive: its schema is a definition.
type Node struct {
	Label    string `json:"label" mcp:"header=Label"`
	Children []Node `json:"children,omitempty"`
}

// Leaf is reached through a nullable object.
type Leaf struct {
	Color string `json:"color" mcp:"header=Color"`
}

// Order reaches headers through lists, maps, a recursive type and a nullable object.
type Order struct {
	Items  []Item           `json:"items"`
	ByName map[string]Entry `json:"byName,omitempty"`
	Tree   *Node            `json:"tree,omitempty"`
	Leaf   *Leaf            `json:"leaf,omitempty" jsonschema:"nullable"`
}

// Submit orders.
//
//mcp:tool
func Submit(in Order) error { return nil }

// Walk takes a recursive type as its argument.
//
//mcp:tool
func Walk(in Node) error { return nil }

// Echo returns its place, whose header means nothing in a result.
//
//mcp:tool
func Echo(in struct{}) (Place, error) { return Place{}, nil }

// Topic is a prompt's argument.
type Topic struct {
	Subject string `json:"subject" mcp:"header=Subject"`
}

// Explain is a prompt.
//
//mcp:prompt
func Explain(in Topic) string { return "explain " + in.Subject }

// Key is a resource template's variable.
type Key struct {
	ID string `json:"id" mcp:"header=Id"`
}

// Record is a resource template.
//
//mcp:resource records://{id}
func Record(in Key) string { return in.ID }

// Answer is an elicitation form.
type Answer struct {
	Name string `json:"name" mcp:"header=Name"`
}

// Ask elicits an answer.
//
//mcp:tool
func Ask(ctx context.Context) (string, error) {
	a, _, err := mcp.Elicit[Answer](ctx, "your name?")
	return a.Name, err
}
