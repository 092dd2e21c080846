package main

import (
	"context"
	"fmt"

	"github.com/mcpgen/mcpgen/examples/codesearch/internal/chunk"
	"github.com/mcpgen/mcpgen/examples/codesearch/internal/safepath"
)

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
