package main

//go:generate go tool mcpgen --snapshot

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpgen/mcpgen/examples/codesearch/internal/chunk"
	"github.com/mcpgen/mcpgen/examples/codesearch/internal/index"
	"github.com/mcpgen/mcpgen/examples/codesearch/internal/safepath"
	"github.com/mcpgen/mcpgen/examples/codesearch/internal/semantic"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// Codebase is the directory tree the server searches, with its indexes.
type Codebase struct {
	ix  *index.Index
	sem *semantic.Index
	// wait is how long a search waits for the first build of the index, telling the client
	// its progress, before it reads the files directly instead.
	wait time.Duration
	// searchTime bounds one search_code; searches bounds how many searches run at once.
	searchTime time.Duration
	searches   *limiter
}

// SearchCodeInput is a text or pattern search.
type SearchCodeInput struct {
	// Query is the text to find, or an RE2 regular expression (Go syntax) when regex is
	// true. A match lies within one line.
	Query string `json:"query" jsonschema:"minLength=1,maxLength=1000"`
	// MaxResults is the most matching lines to return. When there are more, the result
	// says truncated and gives next_cursor.
	MaxResults int `json:"max_results,omitempty" jsonschema:"minimum=1,maximum=1000,default=50"`
	// Path limits the search to a directory or a file, relative to the root of the
	// codebase.
	Path string `json:"path,omitempty" jsonschema:"maxLength=4096"`
	// Regex makes query an RE2 regular expression instead of literal text.
	Regex bool `json:"regex,omitempty"`
	// CaseSensitive matches letter case exactly; by default case is ignored.
	CaseSensitive bool `json:"case_sensitive,omitempty"`
	// FileGlob limits the search to files whose name matches (*.go, *.{ts,tsx}), or whose
	// path from the root matches when it holds a slash (cmd/**/*.go).
	FileGlob string `json:"file_glob,omitempty" jsonschema:"maxLength=1000"`
	// ContextLines is how many lines before and after each match to return.
	ContextLines int `json:"context_lines,omitempty" jsonschema:"minimum=0,maximum=10,default=2"`
	// IncludeVendored searches third-party code too (vendor, node_modules, third_party).
	IncludeVendored bool `json:"include_vendored,omitempty"`
	// IncludeGenerated searches generated files too (marked "Code generated ... DO NOT
	// EDIT." or @generated, lock files, minified bundles); without it, the result counts
	// those that may hold a match.
	IncludeGenerated bool `json:"include_generated,omitempty"`
	// Cursor continues a search where the previous result stopped: its next_cursor.
	Cursor string `json:"cursor,omitempty" jsonschema:"maxLength=8192"`
}

// SearchCodeResult holds the matching lines, in order of path and line.
type SearchCodeResult struct {
	Matches []CodeMatch `json:"matches"`
	// True when there are more matches than max_results: call again with cursor set to
	// next_cursor for the next ones.
	Truncated  bool   `json:"truncated"`
	NextCursor string `json:"next_cursor,omitempty"`
	// FilesSearched is how many files were read; the index left only files that can hold
	// a match.
	FilesSearched int `json:"files_searched"`
	// Skipped lists the files below the searched path that were not searched, and why.
	Skipped []SkippedFiles `json:"skipped,omitempty"`
	// How the search ran: "ready" (through the index), or, while the index was still
	// being built, by reading the files.
	Index string `json:"index"`
	// Partial says that the search ran out of its time before it was done, and how far it
	// got: the matches are those it found before, in order, and next_cursor goes on.
	Partial string `json:"partial,omitempty"`
}

// CodeMatch is one matching line.
type CodeMatch struct {
	// FilePath is relative to the root of the codebase.
	FilePath string `json:"file_path"`
	// The line's number, from 1.
	LineNumber int `json:"line_number"`
	// Column is where the first match in the line starts: 1-based, in bytes.
	Column int `json:"column"`
	// Line is the text of the line (very long lines are cut around the match).
	Line          string   `json:"line"`
	ContextBefore []string `json:"context_before,omitempty"`
	ContextAfter  []string `json:"context_after,omitempty"`
}

// SkippedFiles are files a search left out for one reason.
type SkippedFiles struct {
	// Why they were left out.
	Reason string `json:"reason" jsonschema:"enum=binary,enum=too large,enum=vendored,enum=generated"`
	// How many: every binary and too large file, and the vendored and generated files that
	// the index says may hold a match.
	Files int `json:"files"`
	// One of the files, as an example.
	Example string `json:"example"`
	// How to search them, where that is possible.
	Hint string `json:"hint,omitempty"`
}

// SearchCode searches the codebase for text or an RE2 regular expression, line by line, as
// grep does, through an index that reads only the files that can match. Results come in
// order of path and line with a few lines of context. .gitignore is honoured; binary files,
// vendored code and generated files are skipped (the result says which were).
//
//mcp:tool search_code title="Search code" readonly idempotent openworld=false
func (c *Codebase) SearchCode(ctx context.Context, in SearchCodeInput) (SearchCodeResult, error) {
	dir, err := c.checkPath(ctx, "path", in.Path, true)
	if err != nil {
		return SearchCodeResult{}, err
	}
	m, err := index.NewMatcher(in.Query, in.Regex, in.CaseSensitive)
	if err != nil {
		return SearchCodeResult{}, err
	}
	var glob *index.Glob
	if in.FileGlob != "" {
		if glob, err = index.CompileGlob(in.FileGlob); err != nil {
			return SearchCodeResult{}, err
		}
	}
	c.waitForIndex(ctx)
	leave, err := c.searches.enter(ctx, "search")
	if err != nil {
		return SearchCodeResult{}, err
	}
	defer leave()
	res, err := c.ix.Search(ctx, &index.Search{
		Matcher: m, Path: dir, Glob: glob, IncludeVendored: in.IncludeVendored, IncludeGenerated: in.IncludeGenerated,
		Max: in.MaxResults, Context: in.ContextLines, After: in.Cursor, Timeout: c.searchTime,
	})
	if err != nil {
		return SearchCodeResult{}, err
	}
	out := SearchCodeResult{Truncated: res.More, NextCursor: res.Cursor, FilesSearched: res.FilesRead, Index: "ready"}
	if res.Stopped {
		out.Partial = fmt.Sprintf("the search stopped after %v, the time one search may take, having read %d of the %d files that may match: "+
			"these are the matches before, in order; call again with next_cursor to go on, or narrow it (path, file_glob, a regular expression with a literal string)",
			c.searchTime, res.FilesRead, res.Candidates)
	}
	if res.Scanned {
		done, total := c.ix.Progress()
		out.Index = fmt.Sprintf("building (%d of %d files read): this search read the files directly", done, total)
	}
	for _, h := range res.Hits {
		out.Matches = append(out.Matches, CodeMatch{FilePath: h.Path, LineNumber: h.Line, Column: h.Column, Line: h.Text,
			ContextBefore: h.Before, ContextAfter: h.After})
	}
	for _, s := range res.Skipped {
		sk := SkippedFiles{Reason: s.Reason, Files: s.Files, Example: s.Example}
		switch s.Reason {
		case "vendored":
			sk.Hint = "set include_vendored to search them"
		case "generated":
			sk.Hint = "set include_generated to search them"
		}
		out.Skipped = append(out.Skipped, sk)
	}
	return out, nil
}

// waitForIndex waits for the first build of the index, for at most c.wait, telling the
// client how far it got if it asked for progress.
func (c *Codebase) waitForIndex(ctx context.Context) {
	select {
	case <-c.ix.Ready():
		return
	default:
	}
	deadline := time.NewTimer(c.wait)
	defer deadline.Stop()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		done, total := c.ix.Progress()
		mcp.Progress(ctx, float64(done), float64(total), fmt.Sprintf("indexing the codebase: %d of %d files read", done, total))
		select {
		case <-c.ix.Ready():
			return
		case <-deadline.C:
			return
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// checkPath checks a path argument and returns it clean; with mayBeDir, a directory is
// fine too. It must exist, within the root.
func (c *Codebase) checkPath(ctx context.Context, what, p string, mayBeDir bool) (string, error) {
	clean, err := safepath.Clean(what, p)
	if err != nil {
		return "", err
	}
	info, err := c.ix.Stat(clean)
	if err != nil {
		return "", safepath.Explain(what, p, err)
	}
	if info.IsDir() && !mayBeDir {
		return "", fmt.Errorf("%s %q is a directory: use list_directory to see what it holds", what, p)
	}
	return clean, nil
}

// EmbeddingSearchInput is a question about the code, in words.
type EmbeddingSearchInput struct {
	// Query is what to look for, in words: "where are HTTP requests retried".
	Query string `json:"query" jsonschema:"minLength=1,maxLength=2000"`
	// MaxResults is how many chunks to return, best first.
	MaxResults int `json:"max_results,omitempty" jsonschema:"minimum=1,maximum=50,default=10"`
	// Path limits the search to a directory or a file, relative to the root.
	Path string `json:"path,omitempty" jsonschema:"maxLength=4096"`
	// IncludeGenerated ranks the chunks of generated files too ("Code generated ... DO NOT
	// EDIT.", @generated), below hand-written code that answers as well; false leaves them
	// out, and the result says which would have been given.
	IncludeGenerated *bool `json:"include_generated,omitempty" jsonschema:"default=true"`
}

// EmbeddingSearchResult holds the chunks that answer a question best.
type EmbeddingSearchResult struct {
	Results []ChunkMatch `json:"results"`
	// Method names the ranking: BM25 fused with an embedding model (the built-in one, or
	// the endpoint of --embed-url), or BM25 alone (lexical) when there is no model.
	Method string `json:"method"`
	// How many chunks the codebase has.
	ChunksRanked int `json:"chunks_ranked"`
	// How many of them had a vector (with an embedding model).
	ChunksEmbedded int `json:"chunks_embedded,omitempty"`
	// LeftOut says what the ranking left out that would have been among the results:
	// chunks of generated files, with include_generated false. Vendored code is never
	// ranked.
	LeftOut string `json:"left_out,omitempty"`
}

// ChunkMatch is one chunk of code and how well it answers.
type ChunkMatch struct {
	FilePath  string `json:"file_path"`
	Kind      string `json:"kind"`
	Name      string `json:"name,omitempty"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	// Score is higher for a closer chunk: with an embedding model, the fused score of its
	// ranks by BM25 and by vectors (the sum of w/(60+rank), w 1 for BM25 and 0.5 for the
	// built-in model's vectors); without one, the BM25 score. A chunk of a generated file
	// scores 0.7 of that.
	Score float64 `json:"score"`
	// Generated: the chunk is of a generated file.
	Generated bool `json:"generated,omitempty"`
	// Content is the chunk's text (its first 40 lines).
	Content string `json:"content"`
}

// maxChunkPreview is how many lines of a chunk a semantic search returns.
const maxChunkPreview = 40

// SearchByEmbedding finds the functions, methods, types and sections that best answer a
// question in words, with a score each: ranked by an embedding model's vectors and by BM25
// over identifiers, comments and paths, the two rankings fused (without a model, BM25
// alone, and the result says so). Generated files rank below hand-written code.
//
//mcp:tool search_by_embedding title="Semantic code search" readonly idempotent openworld=false
func (c *Codebase) SearchByEmbedding(ctx context.Context, in EmbeddingSearchInput) (EmbeddingSearchResult, error) {
	dir, err := c.checkPath(ctx, "path", in.Path, true)
	if err != nil {
		return EmbeddingSearchResult{}, err
	}
	c.waitForIndex(ctx)
	leave, err := c.searches.enter(ctx, "search")
	if err != nil {
		return EmbeddingSearchResult{}, err
	}
	defer leave()
	ans, err := c.sem.Search(ctx, semantic.Query{Text: in.Query, Dir: dir, Max: in.MaxResults, IncludeGenerated: in.IncludeGenerated == nil || *in.IncludeGenerated,
		Progress: func(done, total int) {
			mcp.Progress(ctx, float64(done), float64(total), fmt.Sprintf("embedding chunks: %d of %d", done, total))
		}})
	if err != nil {
		return EmbeddingSearchResult{}, err
	}
	out := EmbeddingSearchResult{Method: ans.Method, ChunksRanked: ans.Chunks, ChunksEmbedded: ans.Embedded}
	if n := len(ans.LeftOut); n > 0 {
		ex := ans.LeftOut[0]
		out.LeftOut = fmt.Sprintf("%d chunks of generated files that rank among the best %d (such as %s %s): set include_generated to see them", n, in.MaxResults, ex.Path, ex.Name)
		if n == 1 {
			out.LeftOut = fmt.Sprintf("1 chunk of a generated file that ranks among the best %d (%s %s): set include_generated to see it", in.MaxResults, ex.Path, ex.Name)
		}
	}
	var file string
	var src []byte
	for _, h := range ans.Hits {
		if h.Path != file {
			file = h.Path
			src, _ = c.ix.ReadFile(h.Path, maxReadFile)
		}
		end := min(h.End, h.Start+maxChunkPreview-1)
		out.Results = append(out.Results, ChunkMatch{FilePath: h.Path, Kind: h.Kind, Name: h.Name, StartLine: h.Start, EndLine: h.End,
			Score: h.Score, Generated: h.Generated, Content: validText(chunk.Text(src, chunk.Chunk{StartLine: h.Start, EndLine: end}))})
	}
	return out, nil
}
