package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/examples/codesearch/internal/index"
	"github.com/mcpgen/mcpgen/examples/codesearch/internal/safepath"
)

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

// maxEntries bounds a listing; maxDirRead what is read of a directory to make it (sorted,
// directories first).
const (
	maxEntries = 5000
	maxDirRead = 100_000
)

// ListDirectory lists the files and directories in a directory of the codebase.
//
//mcp:tool list_directory title="List a directory" readonly idempotent openworld=false
func (c *Codebase) ListDirectory(ctx context.Context, in ListDirectoryInput) (DirectoryListing, error) {
	dir, err := safepath.Clean("path", in.Path)
	if err != nil {
		return DirectoryListing{}, err
	}
	info, err := c.ix.Stat(dir)
	if err != nil {
		return DirectoryListing{}, safepath.Explain("path", in.Path, err)
	}
	if !info.IsDir() {
		return DirectoryListing{}, fmt.Errorf("path %q is a file, not a directory: use read_file to read it", in.Path)
	}
	entries, more, err := c.ix.ReadDir(dir, maxDirRead)
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
			if c.ix.Ignored(rel, true) {
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
	if len(out.Entries) > maxEntries || more {
		out.Entries, out.Truncated = out.Entries[:min(len(out.Entries), maxEntries)], true
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
			if c.ix.Ignored(rel, false) {
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
	data, err := c.ix.ReadFile(clean, maxReadFile)
	if err != nil {
		return nil, readError(what, p, err)
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return nil, fmt.Errorf("%s %q is a binary file (%d bytes), not text", what, p, len(data))
	}
	return data, nil
}

// readError explains an error of reading the file p named for the argument what.
func readError(what, p string, err error) error {
	var tl *index.TooLargeError
	switch {
	case errors.As(err, &tl):
		return fmt.Errorf("%s %q is too large to read (%d bytes; the limit is %d)", what, p, tl.Size, tl.Limit)
	case errors.Is(err, index.ErrNotRegular):
		return fmt.Errorf("%s %q is not a regular file (a FIFO, a device or a socket): it is never read", what, p)
	}
	return safepath.Explain(what, p, err)
}

func validText(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }
