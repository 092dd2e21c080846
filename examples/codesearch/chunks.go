package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"

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
	// How the file was cut: go/parser (Go's own parser); tree-sitter (the grammars of C,
	// C++, C#, Java, Kotlin, Scala, Swift, Rust, JavaScript, TypeScript, PHP, Python and
	// Ruby); braces, indentation or headings (scanners, for other brace languages, and
	// Markdown); lines (windows of 60 lines, for files none of them knows).
	Chunker string      `json:"chunker"`
	Chunks  []CodeChunk `json:"chunks"`
	// ContentCut says what the chunks' content leaves out, if anything: lines longer than
	// 4000 bytes are cut, and past 1 MiB of content in one answer the chunks come without it
	// (read_file with offset and limit reads them).
	ContentCut string `json:"content_cut,omitempty"`
}

// CodeChunk is one piece of a file: a function, method, type, class or section with its doc
// comment, or a window of lines.
type CodeChunk struct {
	FilePath string `json:"file_path"`
	// The kind of chunk: function, method, class, struct, interface, trait, impl, enum,
	// type, const, var, module, namespace, macro, import, package, code (other top-level
	// statements), section, lines...
	Kind string `json:"kind"`
	// Name is the declared name; Type.Method for methods.
	Name      string `json:"name,omitempty"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	Content   string `json:"content"`
}

// ChunkFile cuts a file into syntax-aware chunks: functions, methods and types with their doc
// comments (Go through go/parser; C, C++, C#, Java, Kotlin, Scala, Swift, Rust, JavaScript,
// TypeScript, PHP, Python and Ruby through tree-sitter; other brace languages and Markdown
// through a scanner), or windows of lines for other files.
//
//mcp:tool chunk_file title="Chunk a file" readonly idempotent openworld=false
func (c *Codebase) ChunkFile(ctx context.Context, in ChunkFileInput) (FileChunks, error) {
	out, _, err := c.chunk(ctx, in.FilePath, maxChunkContent)
	return out, err
}

// maxChunkContent bounds the content of the chunks of one answer of chunk_file.
const maxChunkContent = maxReadBytes

// chunk cuts the file at p, with at most budget bytes of content in all, and returns the
// bytes of content it gave.
func (c *Codebase) chunk(ctx context.Context, p string, budget int) (FileChunks, int, error) {
	data, err := c.readText(ctx, "file_path", p)
	if err != nil {
		return FileChunks{}, 0, err
	}
	clean, _ := safepath.Clean("file_path", p)
	r := chunk.File(clean, data)
	out := FileChunks{FilePath: clean, Language: r.Language, Chunker: r.Chunker}
	lines := lineStarts(data)
	used, linesCut, without := 0, 0, 0
	for _, ch := range r.Chunks {
		cc := CodeChunk{FilePath: clean, Kind: ch.Kind, Name: ch.Name, StartLine: ch.StartLine, EndLine: ch.EndLine}
		if without == 0 {
			text, cut := chunkText(data, lines, ch.StartLine, ch.EndLine)
			if used+len(text) > budget {
				without++
			} else {
				cc.Content, used, linesCut = text, used+len(text), linesCut+cut
			}
		} else {
			without++
		}
		out.Chunks = append(out.Chunks, cc)
	}
	var notes []string
	if linesCut > 0 {
		notes = append(notes, fmt.Sprintf("%d lines longer than %d bytes cut", linesCut, maxReadLine))
	}
	if without > 0 {
		notes = append(notes, fmt.Sprintf("the last %d chunks without content, past the %d bytes of content one answer holds: read them with read_file (offset and limit)", without, budget))
	}
	out.ContentCut = strings.Join(notes, "; ")
	return out, used, nil
}

// lineStarts returns where each line of data starts, and one more: where a line after the
// last would start (past its newline, real or not).
func lineStarts(data []byte) []int {
	starts := []int{0}
	for i, b := range data {
		if b == '\n' && i+1 < len(data) {
			starts = append(starts, i+1)
		}
	}
	if len(data) > 0 && data[len(data)-1] == '\n' {
		return append(starts, len(data))
	}
	return append(starts, len(data)+1)
}

// chunkText returns lines [from, to] of data (1-based), valid UTF-8, each cut to
// maxReadLine bytes as read_file cuts it, and how many were cut.
func chunkText(data []byte, starts []int, from, to int) (string, int) {
	var b strings.Builder
	cut := 0
	for l := max(from, 1); l <= to && l < len(starts); l++ {
		line := data[starts[l-1] : starts[l]-1]
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if len(line) > maxReadLine {
			cut++
			b.Write(line[:maxReadLine])
			fmt.Fprintf(&b, " … (line cut: %d bytes)", len(line))
		} else {
			b.Write(line)
		}
		if l < to && l+1 < len(starts) {
			b.WriteByte('\n')
		}
	}
	return validText(b.String()), cut
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
		if size >= maxChunkBytes {
			out.Errors = append(out.Errors, FileError{FilePath: p, Error: "not cut: this result reached its size limit; ask for fewer files at a time"})
			continue
		}
		fc, used, err := c.chunk(ctx, p, min(maxChunkContent, maxChunkBytes-size))
		if err != nil {
			if ctx.Err() != nil {
				return ChunkFilesResult{}, ctx.Err()
			}
			out.Errors = append(out.Errors, FileError{FilePath: p, Error: err.Error()})
			continue
		}
		size += used
		out.Files = append(out.Files, fc)
	}
	return out, nil
}
