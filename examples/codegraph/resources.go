package main

import (
	"context"
	"encoding/json"

	"github.com/mcpgen/mcpgen/examples/codegraph/graph"
)

// Schema is the graph's SQL schema, with comments on every table and column: what
// query_code_graph gives the model, and what a person writing queries needs.
//
//mcp:resource graph://schema name=schema mime=application/sql
func Schema() string { return graph.Schema }

// Projects is the indexed projects with the sizes of their graphs, as JSON.
//
//mcp:resource graph://projects name=projects mime=application/json
func (g *Graph) Projects(ctx context.Context) (string, error) {
	list, err := g.ListProjects(ctx)
	if err != nil {
		return "", err
	}
	b, err := json.MarshalIndent(list, "", "  ")
	return string(b), err
}
