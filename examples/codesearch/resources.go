package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

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
	data, err := c.ix.ReadFile(clean, maxReadFile)
	if err != nil {
		return nil, readError("path", ref.Path, err)
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
