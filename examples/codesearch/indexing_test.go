package main

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/examples/codesearch/internal/semantic"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// embeddings is an OpenAI-compatible endpoint for the tests: vectors of hashed word counts.
func embeddings(t *testing.T) (url string, fail func(bool)) {
	var mu sync.Mutex
	failing := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		f := failing
		mu.Unlock()
		if f {
			http.Error(w, "the model is not loaded", http.StatusInternalServerError)
			return
		}
		var req struct {
			Input []string `json:"input"`
		}
		body, _ := io.ReadAll(r.Body)
		json.Unmarshal(body, &req)
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var out struct {
			Data []item `json:"data"`
		}
		for i, text := range req.Input {
			v := make([]float32, 32)
			semantic.Tokens(text, func(w string) {
				h := fnv.New32a()
				h.Write([]byte(w))
				v[h.Sum32()%32]++
			})
			out.Data = append(out.Data, item{i, v})
		}
		json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1", func(b bool) { mu.Lock(); failing = b; mu.Unlock() }
}

func TestEmbeddingEndpoint(t *testing.T) {
	for _, transport := range []string{"memory", "stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			url, fail := embeddings(t)
			root := makeTree(t)
			c, _ := connect(t, transport, root, "--embed-url", url, "--embed-model", "hashed-words")
			var r EmbeddingSearchResult
			must(t, call(t, c, "search_by_embedding", map[string]any{"query": "add two numbers"}, &r))
			if !strings.Contains(r.Method, "hashed-words at "+url+"/embeddings") || r.ChunksEmbedded != r.ChunksRanked || len(r.Results) == 0 ||
				r.Results[0].Name != "Add" {
				t.Errorf("with an embedding model: %+v", r)
			}
			fail(true)
			err := call(t, c, "search_by_embedding", map[string]any{"query": "add two numbers"}, &r)
			if err == nil || !strings.Contains(err.Error(), "500 Internal Server Error") || !strings.Contains(err.Error(), "the model is not loaded") {
				t.Errorf("a failing endpoint: %v", err)
			}
		})
	}
}

// TestRestart checks that a second server on the same index directory loads it, and sees a
// file changed while no server ran.
func TestRestart(t *testing.T) {
	root := makeTree(t)
	dir := t.TempDir()
	run := func(query string) []string {
		c, err := mcp.Connect(context.Background(), &mcp.CommandTransport{Command: binary, Args: []string{"--index-dir", dir, root}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		var r SearchCodeResult
		must(t, call(t, c, "search_code", map[string]any{"query": query}, &r))
		return matchList(r)
	}
	if got := run("Add adds"); !slices.Equal(got, []string{"sample.go:16:4"}) {
		t.Fatalf("first run: %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "trigrams.idx")); err != nil {
		t.Fatalf("no index saved: %v", err)
	}
	must(t, os.WriteFile(filepath.Join(root, "sample.go"), []byte("package sample\n\n// Sub subtracts.\nfunc Sub(a, b int) int { return a - b }\n"), 0o644))
	if got := run("subtracts"); !slices.Equal(got, []string{"sample.go:3:8"}) {
		t.Errorf("after a change while stopped: %q", got)
	}
}

// TestSearchWhileIndexing checks a search that arrives before the index is built: it waits
// for the build as long as --wait says, telling the client its progress, then reads the
// files directly; once the index is built, searches go through it.
func TestSearchWhileIndexing(t *testing.T) {
	root := makeTree(t)
	srv, cb, err := newServer(root, config{indexDir: t.TempDir(), watch: false, maxFileSize: 16 << 20, wait: 600 * time.Millisecond, logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c, err := mcp.Connect(ctx, &mcp.MemoryTransport{Server: srv}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// The indexes are not running yet: the build has not begun.
	var mu sync.Mutex
	var notices []mcp.ProgressNotice
	pctx := mcp.WithProgress(ctx, func(n mcp.ProgressNotice) { mu.Lock(); notices = append(notices, n); mu.Unlock() })
	res, err := c.CallTool(pctx, "search_code", map[string]any{"query": "hello"})
	if err != nil || res.Err() != nil {
		t.Fatalf("search before the build: %v %v", err, res.Err())
	}
	var r SearchCodeResult
	json.Unmarshal(res.StructuredContent, &r)
	mu.Lock()
	if len(notices) < 2 || !strings.Contains(notices[0].Message, "indexing the codebase") {
		t.Errorf("progress while waiting: %+v", notices)
	}
	mu.Unlock()
	if !strings.HasPrefix(r.Index, "building") {
		t.Errorf("a search before the build says index %q", r.Index)
	}

	sctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		cb.serve(sctx, func(ctx context.Context) error { <-ctx.Done(); return nil })
	}()
	defer func() { cancel(); <-done }()
	must(t, call(t, c, "search_code", map[string]any{"query": "hello", "path": "notes"}, &r))
	if r.Index != "ready" || len(r.Matches) != 3 {
		t.Errorf("a search once the build began: index %q, %d matches", r.Index, len(r.Matches))
	}
}
