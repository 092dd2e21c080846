// Package bench compares mcpgen with the official Go SDK (github.com/modelcontextprotocol/go-sdk)
// on the same tool, served over the same in-memory stdio-like pipes and driven by the same
// client. It is a module of its own so that the SDK never enters mcpgen's dependencies.
//
//	cd bench && go test -bench . -count 10 | tee new.txt && benchstat new.txt
package bench

//go:generate go tool mcpgen

import (
	"context"
	"fmt"
)

// SearchInput is a search over a document index.
type SearchInput struct {
	// Query is the text to look for.
	Query string `json:"query" jsonschema:"minLength=1,maxLength=200"`
	// Limit is the largest number of hits to return.
	Limit int `json:"limit,omitempty" jsonschema:"minimum=1,maximum=100,default=10"`
	// Tags restrict the search to documents with all of them.
	Tags []string `json:"tags,omitempty" jsonschema:"maxItems=10"`
	// Exact asks for exact phrase matching.
	Exact bool `json:"exact,omitempty"`
	// Sort order of the hits.
	Sort string `json:"sort,omitempty" jsonschema:"enum=relevance,enum=date"`
}

// SearchResult holds the best hits.
type SearchResult struct {
	Hits  []Hit `json:"hits"`
	Total int   `json:"total"`
}

// Hit is one matching document.
type Hit struct {
	ID      string   `json:"id"`
	Title   string   `json:"title"`
	Score   float64  `json:"score"`
	Snippet string   `json:"snippet"`
	Tags    []string `json:"tags,omitempty"`
}

// Search finds documents. It returns fixed results: the benchmark measures the SDKs, not it.
//
//mcp:tool search readonly
func Search(ctx context.Context, in SearchInput) (SearchResult, error) {
	res := SearchResult{Total: 42}
	for i := range min(in.Limit, 5) {
		res.Hits = append(res.Hits, Hit{
			ID:      fmt.Sprint("doc-", i),
			Title:   "A document about " + in.Query,
			Score:   1 / float64(i+1),
			Snippet: "... the words of the query, in context, with <b>highlights</b> ...",
			Tags:    in.Tags,
		})
	}
	return res, nil
}
