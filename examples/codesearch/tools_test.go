package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/examples/codesearch/internal/semantic"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

func TestServer(t *testing.T) {
	for _, transport := range []string{"memory", "stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			root := makeTree(t)
			c, base := connect(t, transport, root)
			exercise(t, c, root)
			if transport == "http" {
				resp, err := http.Get(base + "/health")
				if err != nil {
					t.Fatal(err)
				}
				var h map[string]string
				json.NewDecoder(resp.Body).Decode(&h)
				resp.Body.Close()
				if h["status"] != "ok" || h["service"] != "codesearch" || h["version"] != info.Version || h["mode"] != "http" || h["index"] != "ready" {
					t.Errorf("GET /health: %v", h)
				}
			}
		})
	}
}

// exercise calls every tool, resource and completion of a server of the fixture.
func exercise(t *testing.T, c *mcp.Client, root string) {
	ctx := context.Background()
	tools, err := c.ListTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Name)
		if tool.Name != "read_file" && tool.OutputSchema == "" {
			t.Errorf("tool %s has no output schema", tool.Name)
		}
		if tool.Annotations.ReadOnlyHint == nil || !*tool.Annotations.ReadOnlyHint {
			t.Errorf("tool %s is not marked read-only", tool.Name)
		}
	}
	if want := []string{"chunk_file", "chunk_files", "list_directory", "read_file", "search_by_embedding", "search_code"}; !slices.Equal(names, want) {
		t.Errorf("tools %q, want %q", names, want)
	}

	t.Run("search_code", func(t *testing.T) {
		var r SearchCodeResult
		must(t, call(t, c, "search_code", map[string]any{"query": "hello"}, &r))
		want := []string{"notes/todo.txt:2:8", "notes/todo.txt:4:8", "notes/todo.txt:6:8", "sample.go:11:15", "sample.go:13:22", "very/deep/dir/x.txt:1:6", "web/app.ts:2:11"}
		if got := matchList(r); !slices.Equal(got, want) || r.Truncated || r.Index != "ready" {
			t.Errorf("hello:\n got %q (truncated %v, index %s)\nwant %q", got, r.Truncated, r.Index, want)
		}
		m := r.Matches[1]
		if m.Line != "line 4 HELLO" || !slices.Equal(m.ContextBefore, []string{"line 2 hello", "line 3"}) || !slices.Equal(m.ContextAfter, []string{"line 5", "line 6 hello"}) {
			t.Errorf("a match with context: %+v", m)
		}
		// The text block, as grep -n --column -C2 writes the lines, and the rest in words.
		res, err := c.CallTool(ctx, "search_code", map[string]any{"query": "hello"})
		if err != nil {
			t.Fatal(err)
		}
		const wantText = "notes/todo.txt-1-line 1\n" +
			"notes/todo.txt:2:8:line 2 hello\n" +
			"notes/todo.txt-3-line 3\n" +
			"notes/todo.txt:4:8:line 4 HELLO\n" +
			"notes/todo.txt-5-line 5\n" +
			"notes/todo.txt:6:8:line 6 hello\n" +
			"notes/todo.txt-7-line 7\n" +
			"--\n" +
			"sample.go-9-}\n" +
			"sample.go-10-\n" +
			"sample.go:11:15:// Greet says hello to g.Name.\n" +
			"sample.go-12-func (g *Greeter) Greet() string {\n" +
			"sample.go:13:22:\treturn fmt.Sprintf(\"hello, %s\", g.Name)\n" +
			"sample.go-14-}\n" +
			"sample.go-15-\n" +
			"--\n" +
			"very/deep/dir/x.txt:1:6:deep hello\n" +
			"--\n" +
			"web/app.ts-1-export function greet(name: string): string {\n" +
			"web/app.ts:2:11:  return `hello, ${name}`;\n" +
			"web/app.ts-3-}\n" +
			"\n7 matching lines; 4 files searched.\n" +
			"Not searched: 1 binary file (data.bin); 1 vendored file that may match (vendor/lib/lib.go: set include_vendored to search them); 1 generated file that may match (gen/gen.go: set include_generated to search them).\n"
		if text := res.Content[0].(mcp.Text).Text; text != wantText {
			t.Errorf("the text block of hello:\n%s\nwant\n%s", text, wantText)
		}
		var skipped []string
		for _, s := range r.Skipped {
			skipped = append(skipped, fmt.Sprintf("%s %d %s", s.Reason, s.Files, s.Example))
		}
		if want := []string{"binary 1 data.bin", "vendored 1 vendor/lib/lib.go", "generated 1 gen/gen.go"}; !slices.Equal(skipped, want) {
			t.Errorf("skipped %q, want %q", skipped, want)
		}

		must(t, call(t, c, "search_code", map[string]any{"query": "HELLO", "case_sensitive": true, "context_lines": 0}, &r))
		if got := matchList(r); !slices.Equal(got, []string{"notes/todo.txt:4:8"}) || r.Matches[0].ContextBefore != nil {
			t.Errorf("case-sensitive: %q %+v", got, r.Matches)
		}
		must(t, call(t, c, "search_code", map[string]any{"query": `func \(g \*\w+\) (\w+)`, "regex": true}, &r))
		if got := matchList(r); !slices.Equal(got, []string{"sample.go:12:1"}) {
			t.Errorf("regex: %q", got)
		}
		must(t, call(t, c, "search_code", map[string]any{"query": "hello", "path": "notes", "file_glob": "*.txt", "max_results": 2}, &r))
		if got := matchList(r); !slices.Equal(got, []string{"notes/todo.txt:2:8", "notes/todo.txt:4:8"}) || !r.Truncated || r.NextCursor == "" {
			t.Errorf("first page: %q truncated %v", got, r.Truncated)
		}
		var r2 SearchCodeResult
		must(t, call(t, c, "search_code", map[string]any{"query": "hello", "path": "notes", "file_glob": "*.txt", "max_results": 2, "cursor": r.NextCursor}, &r2))
		if got := matchList(r2); !slices.Equal(got, []string{"notes/todo.txt:6:8"}) || r2.Truncated {
			t.Errorf("second page: %q truncated %v", got, r2.Truncated)
		}
		must(t, call(t, c, "search_code", map[string]any{"query": "hello", "include_vendored": true, "include_generated": true, "file_glob": "*.go"}, &r))
		if got := matchList(r); !slices.Equal(got, []string{"gen/gen.go:3:16", "sample.go:11:15", "sample.go:13:22", "vendor/lib/lib.go:1:16"}) {
			t.Errorf("vendored and generated included: %q", got)
		}
		for _, bad := range []map[string]any{
			{"query": "("},                      // a bad regexp, taken literally
			{"query": "x(", "regex": true},      // a bad regexp
			{"query": "a", "max_results": 0},    // out of bounds
			{"query": "a", "cursor": "garbage"}, // not a cursor
			{"query": "a", "file_glob": "*.{go"},
			{"query": "a\nb"},
		} {
			err := call(t, c, "search_code", bad, &r)
			if bad["query"] == "(" {
				if err != nil {
					t.Errorf("a literal (: %v", err)
				}
				continue
			}
			if err == nil {
				t.Errorf("search_code %v: no error", bad)
			}
		}
	})

	t.Run("paths", func(t *testing.T) {
		// Every way out of the root is refused, by every tool that takes a path, and the
		// secret is never in an answer.
		escapes := []string{"../outside.txt", "notes/../../x", "/etc/passwd", root + "/sample.go", "secret-link.txt", "outside-dir/secret.txt", "sample\x00.go", `C:\Windows`}
		for _, p := range escapes {
			for _, tc := range []struct {
				tool string
				args map[string]any
			}{
				{"read_file", map[string]any{"file_path": p}},
				{"chunk_file", map[string]any{"file_path": p}},
				{"chunk_files", map[string]any{"file_paths": []string{"sample.go", p}}},
				{"list_directory", map[string]any{"path": p}},
				{"search_code", map[string]any{"query": "SECRET", "path": p}},
				{"search_by_embedding", map[string]any{"query": "secret", "path": p}},
			} {
				res, err := c.CallTool(ctx, tc.tool, tc.args)
				if err != nil {
					t.Fatalf("%s %q: %v", tc.tool, p, err)
				}
				raw, _ := json.Marshal(res)
				if strings.Contains(string(raw), "TOP SECRET") {
					t.Errorf("%s %q leaked the file outside the root: %s", tc.tool, p, raw)
				}
				if tc.tool == "chunk_files" && (p == "secret-link.txt" || p == "outside-dir/secret.txt") {
					// A link out is a file that cannot be read, reported per file.
					var r ChunkFilesResult
					json.Unmarshal(res.StructuredContent, &r)
					if len(r.Errors) != 1 || !strings.Contains(r.Errors[0].Error, "outside the root") {
						t.Errorf("chunk_files %q: %s", p, raw)
					}
					continue
				}
				err = res.Err()
				if err == nil {
					t.Errorf("%s %q: no error: %s", tc.tool, p, raw)
					continue
				}
				msg := err.Error()
				if !strings.Contains(msg, "outside the root") && !strings.Contains(msg, "absolute") && !strings.Contains(msg, "NUL") &&
					!strings.Contains(msg, "does not exist") {
					t.Errorf("%s %q: unclear error %q", tc.tool, p, msg)
				}
			}
		}
		var r SearchCodeResult
		must(t, call(t, c, "search_code", map[string]any{"query": "SECRET", "include_vendored": true, "include_generated": true}, &r))
		if len(r.Matches) != 0 {
			t.Errorf("the search followed a link out of the root: %+v", r.Matches)
		}
		var text string
		must(t, call(t, c, "read_file", map[string]any{"file_path": "web/sample-link.go", "limit": 1}, &text))
		if text != "# Lines 1-1 of 19\n// Package sample is searched by the tests.\n" {
			t.Errorf("a link within the root: %q", text)
		}
	})

	t.Run("list_directory", func(t *testing.T) {
		var l DirectoryListing
		must(t, call(t, c, "list_directory", map[string]any{"path": ""}, &l))
		var got []string
		for _, e := range l.Entries {
			got = append(got, strings.TrimSpace(fmt.Sprintf("%s %s %s", e.Type, e.Path, e.Note)))
		}
		want := []string{"directory build ignored", "directory gen", "directory notes", "directory vendor vendored", "directory very", "directory web",
			"file .gitignore", "file data.bin binary", "file debug.log ignored", "symlink outside-dir", "file sample.go", "symlink secret-link.txt"}
		if !slices.Equal(got, want) {
			t.Errorf("root:\n got %q\nwant %q", got, want)
		}
		must(t, call(t, c, "list_directory", map[string]any{"path": "very/deep"}, &l))
		if len(l.Entries) != 1 || l.Entries[0].Path != "very/deep/dir" {
			t.Errorf("very/deep: %+v", l)
		}
		if err := call(t, c, "list_directory", map[string]any{"path": "sample.go"}, &l); err == nil || !strings.Contains(err.Error(), "read_file") {
			t.Errorf("a file: %v", err)
		}
	})

	t.Run("read_file", func(t *testing.T) {
		var text string
		must(t, call(t, c, "read_file", map[string]any{"file_path": "notes/todo.txt"}, &text))
		if text != fixture["notes/todo.txt"] {
			t.Errorf("whole file: %q", text)
		}
		must(t, call(t, c, "read_file", map[string]any{"file_path": "notes/todo.txt", "offset": 2, "limit": 3}, &text))
		if text != "# Lines 2-4 of 7\nline 2 hello\nline 3\nline 4 HELLO\n" {
			t.Errorf("lines 2-4: %q", text)
		}
		must(t, call(t, c, "read_file", map[string]any{"file_path": "notes/todo.txt", "offset": 6}, &text))
		if text != "# Lines 6-7 of 7\nline 6 hello\nline 7\n" {
			t.Errorf("from line 6: %q", text)
		}
		if err := call(t, c, "read_file", map[string]any{"file_path": "notes/todo.txt", "offset": 8}, &text); err == nil || !strings.Contains(err.Error(), "has 7 lines") {
			t.Errorf("past the end: %v", err)
		}
		if err := call(t, c, "read_file", map[string]any{"file_path": "data.bin"}, &text); err == nil || !strings.Contains(err.Error(), "binary") {
			t.Errorf("binary: %v", err)
		}
		if err := call(t, c, "read_file", map[string]any{"file_path": "nope.go"}, &text); err == nil || !strings.Contains(err.Error(), `"nope.go" does not exist`) {
			t.Errorf("missing: %v", err)
		}
		if err := call(t, c, "read_file", map[string]any{"file_path": "notes"}, &text); err == nil || !strings.Contains(err.Error(), "directory") {
			t.Errorf("a directory: %v", err)
		}
	})

	t.Run("chunks", func(t *testing.T) {
		var fc FileChunks
		must(t, call(t, c, "chunk_file", map[string]any{"file_path": "sample.go"}, &fc))
		var got []string
		for _, ch := range fc.Chunks {
			got = append(got, fmt.Sprintf("%s %s %d-%d", ch.Kind, ch.Name, ch.StartLine, ch.EndLine))
		}
		want := []string{"package sample 1-2", "import fmt 4-4", "struct Greeter 6-9", "method Greeter.Greet 11-14", "function Add 16-19"}
		if fc.Chunker != "go/parser" || fc.Language != "go" || !slices.Equal(got, want) {
			t.Errorf("sample.go: %s %s\n got %q\nwant %q", fc.Language, fc.Chunker, got, want)
		}
		if ch := fc.Chunks[4]; ch.Content != "// Add adds two numbers.\nfunc Add(a, b int) int {\n\treturn a + b\n}" || ch.FilePath != "sample.go" {
			t.Errorf("chunk Add: %+v", ch)
		}
		var fcs ChunkFilesResult
		must(t, call(t, c, "chunk_files", map[string]any{"file_paths": []string{"web/app.ts", "missing.go", "notes/todo.txt"}}, &fcs))
		if len(fcs.Files) != 2 || fcs.Files[0].Chunks[0].Name != "greet" || fcs.Files[0].Chunks[0].EndLine != 3 ||
			fcs.Files[1].Chunker != "lines" || len(fcs.Errors) != 1 || fcs.Errors[0].FilePath != "missing.go" {
			t.Errorf("chunk_files: %+v", fcs)
		}
		if err := call(t, c, "chunk_files", map[string]any{"file_paths": []string{}}, &fcs); err == nil {
			t.Error("chunk_files of no files: no error")
		}
	})

	t.Run("search_by_embedding", func(t *testing.T) {
		var r EmbeddingSearchResult
		must(t, call(t, c, "search_by_embedding", map[string]any{"query": "greet people", "max_results": 2}, &r))
		if r.Method != semantic.BM25Name || len(r.Results) == 0 || r.Results[0].Name != "Greeter.Greet" && r.Results[0].Name != "Greeter" {
			t.Errorf("greet people: %+v", r)
		}
		if r.Results[0].Content == "" || r.Results[0].Score <= 0 {
			t.Errorf("a result without content or score: %+v", r.Results[0])
		}
		// Generated files are ranked, marked, and left out on request, saying so.
		must(t, call(t, c, "search_by_embedding", map[string]any{"query": "hello from generated code", "max_results": 3}, &r))
		if len(r.Results) == 0 || r.Results[0].FilePath != "gen/gen.go" || !r.Results[0].Generated || r.LeftOut != "" {
			t.Errorf("generated code: %+v", r)
		}
		must(t, call(t, c, "search_by_embedding", map[string]any{"query": "hello from generated code", "max_results": 3, "include_generated": false}, &r))
		if len(r.Results) > 0 && r.Results[0].FilePath == "gen/gen.go" || !strings.HasPrefix(r.LeftOut, "1 chunk of a generated file that ranks among the best 3 (gen/gen.go gen)") {
			t.Errorf("generated code left out: %+v", r)
		}
	})

	t.Run("resources", func(t *testing.T) {
		res, err := c.ListResources(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var uris []string
		for _, r := range res {
			uris = append(uris, r.URI)
		}
		if !slices.Equal(uris, []string{"codebase://files", "codebase://search"}) {
			t.Errorf("resources %q", uris)
		}
		tmpl, err := c.ListResourceTemplates(ctx)
		if err != nil || len(tmpl) != 1 || tmpl[0].URITemplate != "codebase://file/{+path}" {
			t.Errorf("templates %+v, %v", tmpl, err)
		}
		contents, err := c.ReadResource(ctx, "codebase://files")
		if err != nil || !strings.Contains(contents[0].Text, "\nsample.go\n") || strings.Contains(contents[0].Text, "build/") {
			t.Errorf("codebase://files: %+v, %v", contents, err)
		}
		contents, err = c.ReadResource(ctx, "codebase://search")
		if err != nil || !strings.Contains(contents[0].Text, "search_code") {
			t.Errorf("codebase://search: %+v, %v", contents, err)
		}
		contents, err = c.ReadResource(ctx, "codebase://file/web/app.ts")
		if err != nil || contents[0].Text != fixture["web/app.ts"] {
			t.Errorf("codebase://file/web/app.ts: %+v, %v", contents, err)
		}
		if _, err := c.ReadResource(ctx, "codebase://file/nope.txt"); err == nil || !strings.Contains(err.Error(), "not found") {
			t.Errorf("a missing file: %v", err)
		}
		if _, err := c.ReadResource(ctx, "codebase://file/secret-link.txt"); err == nil || strings.Contains(err.Error(), "TOP SECRET") {
			t.Errorf("a link out: %v", err)
		}
		comp, err := c.Complete(ctx, mcp.CompletionRef{ResourceTemplate: "codebase://file/{+path}"}, "path", "no", nil)
		if err != nil || !slices.Equal(comp.Values, []string{"notes/todo.txt"}) {
			t.Errorf("completion of no: %+v, %v", comp, err)
		}
	})

	t.Run("changes", func(t *testing.T) {
		// A file written on disk is found by the very next search.
		for i := range 5 {
			word := fmt.Sprintf("freshword%d", i)
			must(t, os.WriteFile(filepath.Join(root, "notes", "new.txt"), []byte("a\n"+word+"\n"), 0o644))
			var r SearchCodeResult
			must(t, call(t, c, "search_code", map[string]any{"query": word}, &r))
			if got := matchList(r); !slices.Equal(got, []string{"notes/new.txt:2:1"}) {
				t.Fatalf("edit %d: %q", i, got)
			}
		}
	})
}
