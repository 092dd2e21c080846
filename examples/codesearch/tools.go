package main

//go:generate go tool mcpgen --snapshot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
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
	// EDIT." or @generated, lock files, minified bundles).
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
	Files  int    `json:"files"`
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
	res, err := c.ix.Search(ctx, &index.Search{
		Matcher: m, Path: dir, Glob: glob, IncludeVendored: in.IncludeVendored, IncludeGenerated: in.IncludeGenerated,
		Max: in.MaxResults, Context: in.ContextLines, After: in.Cursor,
	})
	if err != nil {
		return SearchCodeResult{}, err
	}
	out := SearchCodeResult{Truncated: res.More, NextCursor: res.Cursor, FilesSearched: res.FilesRead, Index: "ready"}
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
	info, err := c.ix.FS().Stat(clean)
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
}

// EmbeddingSearchResult holds the chunks that answer a question best.
type EmbeddingSearchResult struct {
	Results []ChunkMatch `json:"results"`
	// Method names the ranking: an embedding model and its endpoint, or BM25 (lexical)
	// when no model is configured.
	Method string `json:"method"`
	// How many chunks the codebase has.
	ChunksRanked int `json:"chunks_ranked"`
	// How many of them had a vector (with an embedding model).
	ChunksEmbedded int `json:"chunks_embedded,omitempty"`
}

// ChunkMatch is one chunk of code and how well it answers.
type ChunkMatch struct {
	FilePath  string `json:"file_path"`
	Kind      string `json:"kind"`
	Name      string `json:"name,omitempty"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	// Score is the cosine similarity with an embedding model, the BM25 score without one:
	// higher is closer.
	Score float64 `json:"score"`
	// Content is the chunk's text (its first 40 lines).
	Content string `json:"content"`
}

// maxChunkPreview is how many lines of a chunk a semantic search returns.
const maxChunkPreview = 40

// SearchByEmbedding finds the functions, methods, types and sections that best answer a
// question in words, with a similarity score each. With an embedding model configured it
// compares vectors; without one it ranks with BM25 over identifiers, comments and paths,
// and its result says so.
//
//mcp:tool search_by_embedding title="Semantic code search" readonly idempotent openworld=false
func (c *Codebase) SearchByEmbedding(ctx context.Context, in EmbeddingSearchInput) (EmbeddingSearchResult, error) {
	dir, err := c.checkPath(ctx, "path", in.Path, true)
	if err != nil {
		return EmbeddingSearchResult{}, err
	}
	c.waitForIndex(ctx)
	ans, err := c.sem.Search(ctx, in.Query, dir, in.MaxResults, func(done, total int) {
		mcp.Progress(ctx, float64(done), float64(total), fmt.Sprintf("embedding chunks: %d of %d", done, total))
	})
	if err != nil {
		return EmbeddingSearchResult{}, err
	}
	out := EmbeddingSearchResult{Method: ans.Method, ChunksRanked: ans.Chunks, ChunksEmbedded: ans.Embedded}
	var file string
	var src []byte
	for _, h := range ans.Hits {
		if h.Path != file {
			file = h.Path
			src, _ = c.ix.FS().ReadFile(h.Path)
		}
		end := min(h.End, h.Start+maxChunkPreview-1)
		out.Results = append(out.Results, ChunkMatch{FilePath: h.Path, Kind: h.Kind, Name: h.Name, StartLine: h.Start, EndLine: h.End,
			Score: h.Score, Content: validText(chunk.Text(src, chunk.Chunk{StartLine: h.Start, EndLine: end}))})
	}
	return out, nil
}

// ListDirectoryInput names a directory.
type ListDirectoryInput struct {
	// Path of the directory, relative to the root of the codebase; "" or "." is the root.
	Path string `json:"path" jsonschema:"maxLength=4096"`
}

// DirectoryListing is what a directory holds, directories first, then files, by name.
type DirectoryListing struct {
	Path    string     `json:"path"`
	Entries []DirEntry `json:"entries"`
	// True when the directory holds more entries than were listed.
	Truncated bool `json:"truncated,omitempty"`
}

// DirEntry is one entry of a directory.
type DirEntry struct {
	Name string `json:"name"`
	// Path is relative to the root, for the other tools.
	Path string `json:"path"`
	Type string `json:"type" jsonschema:"enum=directory,enum=file,enum=symlink,enum=other"`
	// Size in bytes, for files.
	Size int64 `json:"size,omitempty"`
	// Why search_code leaves the file out by default: ignored (.gitignore), binary, too
	// large, vendored or generated.
	Note string `json:"note,omitempty"`
}

// maxEntries bounds a listing.
const maxEntries = 5000

// ListDirectory lists the files and directories in a directory of the codebase.
//
//mcp:tool list_directory title="List a directory" readonly idempotent openworld=false
func (c *Codebase) ListDirectory(ctx context.Context, in ListDirectoryInput) (DirectoryListing, error) {
	dir, err := safepath.Clean("path", in.Path)
	if err != nil {
		return DirectoryListing{}, err
	}
	f, err := c.ix.FS().Open(dir)
	if err != nil {
		return DirectoryListing{}, safepath.Explain("path", in.Path, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return DirectoryListing{}, safepath.Explain("path", in.Path, err)
	}
	if !info.IsDir() {
		return DirectoryListing{}, fmt.Errorf("path %q is a file, not a directory: use read_file to read it", in.Path)
	}
	entries, err := f.ReadDir(-1)
	if err != nil {
		return DirectoryListing{}, safepath.Explain("path", in.Path, err)
	}
	out := DirectoryListing{Path: dir}
	for _, e := range entries {
		if e.Name() == ".git" {
			continue
		}
		rel := path.Join(dir, e.Name())
		de := DirEntry{Name: e.Name(), Path: rel}
		switch t := e.Type(); {
		case t.IsDir():
			de.Type = "directory"
			if index.Ignored(c.ix.Root(), rel, true) {
				de.Note = "ignored"
			} else if index.Vendored(rel + "/x") {
				de.Note = "vendored"
			}
		case t&fs.ModeSymlink != 0:
			de.Type = "symlink"
		case t.IsRegular():
			de.Type = "file"
			if info, err := e.Info(); err == nil {
				de.Size = info.Size()
			}
			de.Note = c.fileNote(rel)
		default:
			de.Type = "other"
		}
		out.Entries = append(out.Entries, de)
	}
	slices.SortFunc(out.Entries, func(a, b DirEntry) int {
		if (a.Type == "directory") != (b.Type == "directory") {
			if a.Type == "directory" {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	if len(out.Entries) > maxEntries {
		out.Entries, out.Truncated = out.Entries[:maxEntries], true
	}
	return out, nil
}

// fileNote says why search_code leaves a file out by default, if it does.
func (c *Codebase) fileNote(rel string) string {
	f, ok := c.ix.Lookup(rel)
	switch {
	case !ok:
		select {
		case <-c.ix.Ready():
			if index.Ignored(c.ix.Root(), rel, false) {
				return "ignored"
			}
		default:
		}
		return ""
	case f.Kind != index.Text:
		return f.Kind.String()
	case f.Vendored:
		return "vendored"
	case f.Generated:
		return "generated"
	}
	return ""
}

// ReadFileInput names a file and, optionally, a range of its lines.
type ReadFileInput struct {
	// FilePath is relative to the root of the codebase.
	FilePath string `json:"file_path" jsonschema:"minLength=1,maxLength=4096"`
	// Offset is the first line to read, 1-based.
	Offset int `json:"offset,omitempty" jsonschema:"minimum=1,default=1"`
	// Limit is how many lines to read.
	Limit int `json:"limit,omitempty" jsonschema:"minimum=1,maximum=10000,default=2000"`
}

// Limits of read_file's output: lines longer than maxReadLine bytes are cut, and the whole
// text stops at maxReadBytes.
const (
	maxReadLine  = 4000
	maxReadBytes = 1 << 20
	maxReadFile  = 64 << 20
)

// ReadFile returns the text of a file of the codebase. When only part of it is returned
// (offset and limit, or a long file), the text starts with a header line
// "# Lines {start}-{end} of {total}".
//
//mcp:tool read_file title="Read a file" readonly idempotent openworld=false
func (c *Codebase) ReadFile(ctx context.Context, in ReadFileInput) (string, error) {
	lines, err := c.fileLines(ctx, "file_path", in.FilePath)
	if err != nil {
		return "", err
	}
	total := len(lines)
	if total == 0 {
		return "", nil
	}
	if in.Offset > total {
		return "", fmt.Errorf("offset %d is past the end of %s, which has %d lines", in.Offset, in.FilePath, total)
	}
	start := in.Offset
	end := min(total, start+in.Limit-1)
	var b strings.Builder
	for i := start; i <= end; i++ {
		line := lines[i-1]
		if len(line) > maxReadLine {
			line = line[:maxReadLine] + fmt.Sprintf(" … (line cut: %d bytes)", len(line))
		}
		if b.Len()+len(line) > maxReadBytes {
			end = i - 1
			break
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	text := validText(b.String())
	if start > 1 || end < total {
		text = fmt.Sprintf("# Lines %d-%d of %d\n", start, end, total) + text
	}
	return text, nil
}

// fileLines reads a text file of the codebase and splits it into lines.
func (c *Codebase) fileLines(ctx context.Context, what, p string) ([]string, error) {
	data, err := c.readText(ctx, what, p)
	if err != nil {
		return nil, err
	}
	s := strings.TrimSuffix(string(data), "\n")
	if s == "" {
		return nil, nil
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines, nil
}

// readText reads a text file of the codebase; binary and huge files are errors.
func (c *Codebase) readText(ctx context.Context, what, p string) ([]byte, error) {
	clean, err := c.checkPath(ctx, what, p, false)
	if err != nil {
		return nil, err
	}
	info, err := c.ix.FS().Stat(clean)
	if err != nil {
		return nil, safepath.Explain(what, p, err)
	}
	if info.Size() > maxReadFile {
		return nil, fmt.Errorf("%s %q is too large to read (%d bytes; the limit is %d)", what, p, info.Size(), maxReadFile)
	}
	data, err := c.ix.FS().ReadFile(clean)
	if err != nil {
		return nil, safepath.Explain(what, p, err)
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return nil, fmt.Errorf("%s %q is a binary file (%d bytes), not text", what, p, len(data))
	}
	return data, nil
}

func validText(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }

// ChunkFileInput names a file.
type ChunkFileInput struct {
	// FilePath is relative to the root of the codebase.
	FilePath string `json:"file_path" jsonschema:"minLength=1,maxLength=4096"`
}

// FileChunks is a file cut into chunks.
type FileChunks struct {
	FilePath string `json:"file_path"`
	Language string `json:"language,omitempty"`
	// How the file was cut: go/parser (Go's own parser); braces, indentation or headings
	// (a scanner for brace languages, Python and Markdown); lines (windows of 60 lines, for
	// files none of them knows).
	Chunker string      `json:"chunker"`
	Chunks  []CodeChunk `json:"chunks"`
}

// CodeChunk is one piece of a file: a function, method, type, class or section with its doc
// comment, or a window of lines.
type CodeChunk struct {
	FilePath string `json:"file_path"`
	// The kind of chunk: function, method, struct, interface, type, class, const, var,
	// import, package, section, lines...
	Kind string `json:"kind"`
	// Name is the declared name; Type.Method for methods.
	Name      string `json:"name,omitempty"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	Content   string `json:"content"`
}

// ChunkFile cuts a file into syntax-aware chunks: functions, methods and types with their doc
// comments (Go through go/parser; brace languages, Python and Markdown through a scanner),
// or windows of lines for other files.
//
//mcp:tool chunk_file title="Chunk a file" readonly idempotent openworld=false
func (c *Codebase) ChunkFile(ctx context.Context, in ChunkFileInput) (FileChunks, error) {
	return c.chunk(ctx, in.FilePath)
}

func (c *Codebase) chunk(ctx context.Context, p string) (FileChunks, error) {
	data, err := c.readText(ctx, "file_path", p)
	if err != nil {
		return FileChunks{}, err
	}
	clean, _ := safepath.Clean("file_path", p)
	r := chunk.File(clean, data)
	out := FileChunks{FilePath: clean, Language: r.Language, Chunker: r.Chunker}
	for _, ch := range r.Chunks {
		out.Chunks = append(out.Chunks, CodeChunk{FilePath: clean, Kind: ch.Kind, Name: ch.Name, StartLine: ch.StartLine, EndLine: ch.EndLine,
			Content: validText(chunk.Text(data, ch))})
	}
	return out, nil
}

// ChunkFilesInput names files.
type ChunkFilesInput struct {
	// FilePaths are relative to the root of the codebase.
	FilePaths []string `json:"file_paths" jsonschema:"minItems=1,maxItems=100"`
}

// ChunkFilesResult holds the chunks of each file, in the order asked.
type ChunkFilesResult struct {
	Files []FileChunks `json:"files"`
	// Errors lists the files that could not be cut, and why.
	Errors []FileError `json:"errors,omitempty"`
}

// FileError is a file that could not be read.
type FileError struct {
	FilePath string `json:"file_path"`
	Error    string `json:"error"`
}

// maxChunkBytes bounds the text chunk_files returns in one call.
const maxChunkBytes = 4 << 20

// ChunkFiles cuts several files into chunks, as chunk_file does for one.
//
//mcp:tool chunk_files title="Chunk files" readonly idempotent openworld=false
func (c *Codebase) ChunkFiles(ctx context.Context, in ChunkFilesInput) (ChunkFilesResult, error) {
	for i, p := range in.FilePaths {
		if _, err := safepath.Clean(fmt.Sprintf("file_paths[%d]", i), p); err != nil {
			return ChunkFilesResult{}, err
		}
	}
	var out ChunkFilesResult
	size := 0
	for _, p := range in.FilePaths {
		if size > maxChunkBytes {
			out.Errors = append(out.Errors, FileError{FilePath: p, Error: "not cut: this result reached its size limit; ask for fewer files at a time"})
			continue
		}
		fc, err := c.chunk(ctx, p)
		if err != nil {
			if ctx.Err() != nil {
				return ChunkFilesResult{}, ctx.Err()
			}
			out.Errors = append(out.Errors, FileError{FilePath: p, Error: err.Error()})
			continue
		}
		for _, ch := range fc.Chunks {
			size += len(ch.Content)
		}
		out.Files = append(out.Files, fc)
	}
	return out, nil
}

// Files lists every file of the codebase the index knows, one path per line, relative to the
// root (files left out by .gitignore are not listed).
//
//mcp:resource codebase://files name=files title="Files of the codebase" mime=text/plain
func (c *Codebase) Files(ctx context.Context) (string, error) {
	select {
	case <-c.ix.Ready():
	case <-ctx.Done():
		return "", ctx.Err()
	}
	var b strings.Builder
	for _, f := range c.ix.Files() {
		b.WriteString(f.Path)
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// SearchHelp tells how to search the codebase with this server's tools.
//
//mcp:resource codebase://search name=search title="How to search the codebase" mime=text/markdown
func (c *Codebase) SearchHelp(ctx context.Context) (string, error) {
	state := "ready"
	select {
	case <-c.ix.Ready():
	default:
		done, total := c.ix.Progress()
		state = fmt.Sprintf("being built: %d of %d files read", done, total)
	}
	st := c.ix.Stats()
	return fmt.Sprintf(searchHelp, c.ix.Root(), state, st.TextFiles, st.Files, c.sem.Method()), nil
}

const searchHelp = `# Searching %s

The index is %s (%d text files of %d).

- **search_code** finds lines: literal text by default, an RE2 regular expression with
  ` + "`regex: true`" + `; case is ignored unless ` + "`case_sensitive: true`" + `. Narrow it with ` + "`path`" + `
  (a directory or file) and ` + "`file_glob`" + ` (` + "`*.go`" + `, ` + "`src/**/*.{ts,tsx}`" + `). Results come by path and
  line, ` + "`max_results`" + ` at a time (50); pass ` + "`next_cursor`" + ` as ` + "`cursor`" + ` for more. Files in
  .gitignore are never searched; binary, vendored and generated files are skipped unless
  ` + "`include_vendored`" + ` or ` + "`include_generated`" + ` is set, and the result lists what was skipped.
- **search_by_embedding** answers a question in words with the best chunks (functions,
  methods, types, sections) and a score each. Ranking: %s.
- **list_directory**, **read_file** (` + "`offset`" + ` and ` + "`limit`" + ` in lines; a partial read starts with
  ` + "`# Lines start-end of total`" + `), **chunk_file** and **chunk_files** explore and cut files.
- Every path is relative to the root; absolute paths, ".." and links leading outside are refused.
- The resource ` + "`codebase://files`" + ` lists every file; ` + "`codebase://file/{path}`" + ` reads one.
`

// FileRef names a file of the codebase in a resource URI.
type FileRef struct {
	// Path of the file, relative to the root.
	Path string `json:"path" jsonschema:"minLength=1"`
}

// File is one file of the codebase: text, or binary contents base64-encoded.
//
//mcp:resource codebase://file/{+path} name=file title="A file of the codebase"
func (c *Codebase) File(ctx context.Context, ref FileRef) ([]mcp.ResourceContents, error) {
	clean, err := c.checkPath(ctx, "path", ref.Path, false)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, mcp.ErrResourceNotFound
		}
		return nil, err
	}
	data, err := c.ix.FS().ReadFile(clean)
	if err != nil {
		return nil, safepath.Explain("path", ref.Path, err)
	}
	uri := "codebase://file/" + clean
	if bytes.IndexByte(data, 0) >= 0 {
		return []mcp.ResourceContents{{URI: uri, MIMEType: "application/octet-stream", Blob: data}}, nil
	}
	return []mcp.ResourceContents{{URI: uri, MIMEType: "text/plain; charset=utf-8", Text: validText(string(data))}}, nil
}

// CompletePath suggests the paths of files that start with what was typed.
//
//mcp:complete resource="codebase://file/{+path}" arg=path
func (c *Codebase) CompletePath(prefix string) []string {
	var out []string
	for _, f := range c.ix.Files() {
		if strings.HasPrefix(f.Path, prefix) {
			out = append(out, f.Path)
		}
	}
	return out
}
