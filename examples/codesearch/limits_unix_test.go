//go:build unix

package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFilesReadWithinLimits: every file of the tree is read through the root and within
// limits, whoever reads it. A .gitignore or .git/info/exclude that links to a FIFO (outside
// the root) or to /dev/zero is not read (before, the index waited for the FIFO forever and
// list_directory read /dev/zero without end); a FIFO in the tree is refused by read_file and
// chunk_file (before, they waited for a writer); codebase://file/ refuses a file over
// read_file's limit of 64 MiB (before, it returned 70 MiB whole); chunk_file of a 15 MB
// line answers about 1 MiB and says what it cut (before, 31.5 MB).
func TestFilesReadWithinLimits(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	fifo := filepath.Join(outside, "fifo")
	must(t, syscall.Mkfifo(fifo, 0o644))
	must(t, syscall.Mkfifo(filepath.Join(root, "pipe"), 0o644))
	for _, d := range []string{".git/info", "fifo-dir", "zero-dir"} {
		must(t, os.MkdirAll(filepath.Join(root, d), 0o755))
	}
	must(t, os.Symlink(fifo, filepath.Join(root, ".git/info/exclude")))
	must(t, os.Symlink(fifo, filepath.Join(root, "fifo-dir/.gitignore")))
	must(t, os.Symlink("/dev/zero", filepath.Join(root, "zero-dir/.gitignore")))
	must(t, os.WriteFile(filepath.Join(root, "fifo-dir/a.go"), []byte("package a // needle\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "zero-dir/b.txt"), []byte("needle\n"), 0o644))
	long := strings.Repeat("a", 15_000_000) + "\n"
	must(t, os.WriteFile(filepath.Join(root, "long.txt"), []byte(long), 0o644))
	big, err := os.Create(filepath.Join(root, "big.txt"))
	must(t, err)
	must(t, big.Truncate(70<<20)) // sparse: 70 MiB that take no room
	big.Close()

	c, _ := connect(t, "stdio", root)
	within := func(what string, fn func(ctx context.Context)) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		start := time.Now()
		fn(ctx)
		if ctx.Err() != nil {
			t.Fatalf("%s did not answer in %v", what, time.Since(start))
		}
	}
	within("search_code", func(ctx context.Context) {
		res, err := c.CallTool(ctx, "search_code", map[string]any{"query": "needle"})
		if err != nil || res.Err() != nil {
			t.Fatalf("search_code: %v %v", err, res)
		}
		var r SearchCodeResult
		json.Unmarshal(res.StructuredContent, &r)
		if got := matchList(r); strings.Join(got, " ") != "fifo-dir/a.go:1:14 zero-dir/b.txt:1:1" {
			t.Errorf("search_code needle: %q", got)
		}
	})
	for _, dir := range []string{"", "fifo-dir", "zero-dir"} {
		within("list_directory "+dir, func(ctx context.Context) {
			res, err := c.CallTool(ctx, "list_directory", map[string]any{"path": dir})
			if err != nil || res.Err() != nil {
				t.Fatalf("list_directory %q: %v %v", dir, err, res)
			}
		})
	}
	for _, tool := range []string{"read_file", "chunk_file"} {
		within(tool+" of a FIFO", func(ctx context.Context) {
			res, err := c.CallTool(ctx, tool, map[string]any{"file_path": "pipe"})
			if err != nil {
				t.Fatal(err)
			}
			if err := res.Err(); err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("%s of a FIFO: %v", tool, err)
			}
		})
	}
	within("codebase://file/big.txt", func(ctx context.Context) {
		_, err := c.ReadResource(ctx, "codebase://file/big.txt")
		if err == nil || !strings.Contains(err.Error(), "too large to read (73400320 bytes; the limit is 67108864)") {
			t.Errorf("codebase://file/ of 70 MiB: %v", err)
		}
	})
	within("chunk_file of a 15 MB line", func(ctx context.Context) {
		res, err := c.CallTool(ctx, "chunk_file", map[string]any{"file_path": "long.txt"})
		if err != nil || res.Err() != nil {
			t.Fatalf("chunk_file: %v %v", err, res)
		}
		raw, _ := json.Marshal(res)
		var fc FileChunks
		json.Unmarshal(res.StructuredContent, &fc)
		if len(raw) > 100_000 || len(fc.Chunks) != 1 || !strings.Contains(fc.Chunks[0].Content, "(line cut: 15000000 bytes)") ||
			fc.ContentCut != "1 lines longer than 4000 bytes cut" {
			t.Errorf("chunk_file of a 15 MB line: %d bytes, content cut %q: %.300s", len(raw), fc.ContentCut, res.StructuredContent)
		}
	})
}
