package semantic

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/examples/codesearch/internal/index"
)

func TestTokens(t *testing.T) {
	var got []string
	Tokens("parseHTTPRequest read_file_at XMLHttpRequest2 the x 42 files café_Bar", func(w string) { got = append(got, w) })
	want := []string{"parse", "http", "request", "parsehttprequest", "read", "file", "readfileat", "xml", "http", "request2",
		"xmlhttprequest2", "file", "café", "bar", "cafébar"}
	if !slices.Equal(got, want) {
		t.Errorf("Tokens:\n got %q\nwant %q", got, want)
	}
}

var tree = map[string]string{
	"net/retry.go": `package net

// RetryRequest sends an HTTP request again after a failure, with backoff.
func RetryRequest(req *Request, attempts int) error {
	for i := 0; i < attempts; i++ {
		backoff(i)
	}
	return nil
}

// Parse reads a URL.
func Parse(raw string) (*URL, error) { return nil, nil }
`,
	"store/cache.go": `package store

// Cache keeps values in memory with an expiry.
type Cache struct{ items map[string]item }

// Get returns a cached value.
func (c *Cache) Get(key string) (any, bool) { return nil, false }
`,
	"docs/guide.md":     "# Guide\n\nHow to configure logging.\n\n## Logging\n\nSet the log level with LOG_LEVEL.\n",
	"vendor/x/retry.go": "package x\n\n// RetryRequest in vendored code.\nfunc RetryRequest() {}\n",
}

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, content := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// run starts the text index and the semantic index of root until the test ends, or until
// the stop function it returns is called.
func run(t *testing.T, root string, opts Options) (*index.Index, *Index, func()) {
	t.Helper()
	ix, err := index.New(root, index.Options{Dir: opts.Dir, Watch: true, PollInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	s := New(ix, opts)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); ix.Run(ctx) }()
	go func() { defer wg.Done(); s.Run(ctx) }()
	var once sync.Once
	stop := func() { once.Do(func() { cancel(); wg.Wait(); ix.Close() }) }
	t.Cleanup(stop)
	return ix, s, stop
}

func names(a *Answer) []string {
	var out []string
	for _, h := range a.Hits {
		out = append(out, fmt.Sprintf("%s:%s", h.Path, h.Name))
	}
	return out
}

func TestBM25(t *testing.T) {
	root := writeTree(t, tree)
	_, s, _ := run(t, root, Options{})
	ctx := context.Background()
	ans, err := s.Search(ctx, Query{Text: "where are failed http requests retried", Dir: ".", Max: 3})
	if err != nil {
		t.Fatal(err)
	}
	if ans.Method != BM25Name || len(ans.Hits) == 0 || names(ans)[0] != "net/retry.go:RetryRequest" {
		t.Errorf("retry question: %q (%s)", names(ans), ans.Method)
	}
	for _, h := range ans.Hits {
		if strings.HasPrefix(h.Path, "vendor/") {
			t.Errorf("a vendored chunk was ranked: %+v", h)
		}
	}
	ans, _ = s.Search(ctx, Query{Text: "cache expiry", Dir: ".", Max: 1})
	if got := names(ans); !slices.Equal(got, []string{"store/cache.go:Cache"}) {
		t.Errorf("cache question: %q", got)
	}
	ans, _ = s.Search(ctx, Query{Text: "log level", Dir: "docs", Max: 5})
	if got := names(ans); len(got) == 0 || got[0] != "docs/guide.md:Logging" {
		t.Errorf("a question limited to docs: %q", got)
	}
	ans, _ = s.Search(ctx, Query{Text: "retry", Dir: "store", Max: 5})
	if len(ans.Hits) != 0 {
		t.Errorf("retry in store: %q", names(ans))
	}
}

// fakeEmbedder is an OpenAI-compatible endpoint whose vectors count words (hashed into 64
// dimensions), so that texts with the same words are close. It counts the texts it embeds.
type fakeEmbedder struct {
	mu    sync.Mutex
	texts int
	fail  bool
}

func (f *fakeEmbedder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/embeddings" || r.Header.Get("Authorization") != "Bearer sk-test" {
		http.Error(w, "wrong path or key", http.StatusNotFound)
		return
	}
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	json.NewDecoder(r.Body).Decode(&req)
	f.mu.Lock()
	fail := f.fail
	f.texts += len(req.Input)
	f.mu.Unlock()
	if fail {
		http.Error(w, `{"error":{"message":"model not loaded"}}`, http.StatusServiceUnavailable)
		return
	}
	type item struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	var out struct {
		Data []item `json:"data"`
	}
	for i, text := range req.Input {
		v := make([]float32, 64)
		Tokens(text, func(w string) {
			h := fnv.New32a()
			h.Write([]byte(w))
			v[h.Sum32()%64]++
		})
		out.Data = append(out.Data, item{Index: i, Embedding: v})
	}
	slices.Reverse(out.Data) // answers in any order, by index
	json.NewEncoder(w).Encode(out)
}

func (f *fakeEmbedder) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.texts
}

func TestEmbeddingsEndpoint(t *testing.T) {
	fake := &fakeEmbedder{}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	root := writeTree(t, tree)
	dir := t.TempDir()
	emb := &OpenAI{URL: srv.URL + "/v1", Model: "fake-words", APIKey: "sk-test"}
	ctx := context.Background()

	var chunks int
	func() {
		_, s, stop := run(t, root, Options{Dir: dir, Embedder: emb})
		defer stop() // which saves the vectors
		ans, err := s.Search(ctx, Query{Text: "retry request backoff", Dir: ".", Max: 2})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(ans.Method, "fake-words at "+srv.URL+"/v1/embeddings") || ans.Embedded != ans.Chunks || names(ans)[0] != "net/retry.go:RetryRequest" {
			t.Errorf("vector search: %q, %s, %d of %d embedded", names(ans), ans.Method, ans.Embedded, ans.Chunks)
		}
		if ans.Hits[0].Score <= 0 || ans.Hits[0].Score > 1.0001 {
			t.Errorf("a cosine similarity of %v", ans.Hits[0].Score)
		}
		chunks = ans.Chunks
	}()
	embedded := fake.count()
	if embedded < chunks+1 {
		t.Fatalf("%d texts embedded for %d chunks and a query", embedded, chunks)
	}

	// A restart with one file changed embeds the query and that file's changed chunks only.
	os.WriteFile(filepath.Join(root, "store/cache.go"), []byte(tree["store/cache.go"]+"\n// Len counts the items.\nfunc (c *Cache) Len() int { return 0 }\n"), 0o644)
	before := fake.count()
	_, s, _ := run(t, root, Options{Dir: dir, Embedder: emb})
	if _, err := s.Search(ctx, Query{Text: "count items", Dir: ".", Max: 3}); err != nil {
		t.Fatal(err)
	}
	if got := fake.count() - before; got != 2 { // the new Len method, and the query
		t.Errorf("after a restart with one new method, %d texts were embedded, want 2", got)
	}

	// The endpoint failing is an error naming it and its answer.
	fake.mu.Lock()
	fake.fail = true
	fake.mu.Unlock()
	_, err := s.Search(ctx, Query{Text: "anything", Dir: ".", Max: 3})
	if err == nil || !strings.Contains(err.Error(), "503 Service Unavailable") || !strings.Contains(err.Error(), "model not loaded") ||
		!strings.Contains(err.Error(), srv.URL) {
		t.Errorf("a failing endpoint: %v", err)
	}
}

func TestOpenAIErrors(t *testing.T) {
	ctx := context.Background()
	bad := func(body string) *httptest.Server {
		return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, body) }))
	}
	for _, c := range []struct {
		body, want string
	}{
		{`not json`, "not an embeddings response"},
		{`{"data":[]}`, "answered 0 embeddings for 2 inputs"},
		{`{"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[1]}]}`, "index 0"},
		{`{"data":[{"index":0,"embedding":[1]},{"index":1,"embedding":[1,2]}]}`, "different lengths"},
	} {
		srv := bad(c.body)
		_, err := (&OpenAI{URL: srv.URL, Model: "m"}).Embed(ctx, []string{"a", "b"})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("answer %s: err = %v, want %q", c.body, err, c.want)
		}
		srv.Close()
	}
	srv := bad("")
	srv.Close()
	if _, err := (&OpenAI{URL: srv.URL, Model: "m"}).Embed(ctx, []string{"a"}); err == nil || !strings.Contains(err.Error(), "cannot be reached") {
		t.Errorf("no server: %v", err)
	}
}

// TestGeneratedFiles: chunks of generated files are ranked (before: they were not indexed,
// so net/http's HTTP/2, all in h2_bundle.go, was found by no question, whatever its path),
// below a hand-written chunk that answers the same; without IncludeGenerated they are left
// out, and the answer names them.
func TestGeneratedFiles(t *testing.T) {
	files := map[string]string{
		"h2/bundle.go": "// Code generated by bundle. DO NOT EDIT.\n\npackage h2\n\n// readFrameHeader checks the frame size limit.\nfunc readFrameHeader() {}\n",
		"h2/frame.go":  "package h2\n\n// checkFrame checks the frame size limit.\nfunc checkFrame() {}\n",
	}
	for p, c := range tree {
		files[p] = c
	}
	_, s, _ := run(t, writeTree(t, files), Options{})
	ctx := context.Background()
	ans, err := s.Search(ctx, Query{Text: "frame size limit", Dir: ".", Max: 5, IncludeGenerated: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(ans); len(got) < 2 || !slices.Equal(got[:2], []string{"h2/frame.go:checkFrame", "h2/bundle.go:readFrameHeader"}) || !ans.Hits[1].Generated || ans.Hits[0].Generated {
		t.Errorf("with generated files: %q", got)
	}
	ans, _ = s.Search(ctx, Query{Text: "frame size limit", Dir: "h2/bundle.go", Max: 5, IncludeGenerated: true})
	if got := names(ans); !slices.Equal(got, []string{"h2/bundle.go:readFrameHeader"}) {
		t.Errorf("in the generated file: %q", got)
	}
	ans, _ = s.Search(ctx, Query{Text: "frame size limit", Dir: ".", Max: 5})
	if got := names(ans); len(got) == 0 || got[0] != "h2/frame.go:checkFrame" || slices.Contains(got, "h2/bundle.go:readFrameHeader") ||
		len(ans.LeftOut) != 1 || ans.LeftOut[0].Name != "readFrameHeader" {
		t.Errorf("without generated files: %q, left out %+v", got, ans.LeftOut)
	}
}
