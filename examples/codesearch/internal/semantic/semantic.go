// Package semantic ranks the chunks of a codebase (functions, methods, types, sections)
// against a question in words. With an embedding model (any OpenAI-compatible endpoint) it
// compares vectors: the cosine similarity of the question's vector and each chunk's. Without
// one it ranks lexically and says so: BM25 over the words of each chunk, with identifiers
// split at camelCase and snake_case, comments, and the file's path. Chunks are kept with the
// index, and vectors too, keyed by the chunk's text, so that only changed chunks are embedded
// again.
package semantic

import (
	"context"
	"crypto/sha256"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/examples/codesearch/internal/chunk"
	"github.com/mcpgen/mcpgen/examples/codesearch/internal/index"
)

// Options configure an Index.
type Options struct {
	Dir      string   // where chunks and vectors are kept between runs; "" for none
	Embedder Embedder // nil: rank with BM25
	Logf     func(format string, args ...any)
	// MaxFileSize bounds the files cut into chunks (default 1 MiB).
	MaxFileSize int64
}

// BM25Name is the ranking used without an embedding model, as results name it.
const BM25Name = "bm25: lexical ranking over identifiers split at camelCase/snake_case, comments and paths (no embedding model configured)"

// Index holds the chunks of every text file of a tree that is not vendored: hand-written and
// generated (marked as such, and ranked below hand-written code).
type Index struct {
	src  *index.Index
	opts Options

	ready chan struct{}
	err   error

	embedMu sync.Mutex // held while chunks are embedded
	mu      sync.Mutex
	words   []string
	vocab   map[string]uint32
	files   map[string]*fileChunks
	stale   map[string]bool
	vectors map[[16]byte][]float32
	dirty   bool
	vdirty  bool
}

type fileChunks struct {
	Path      string
	Size      int64
	ModTime   int64
	Generated bool
	Chunks    []chunkData
}

type chunkData struct {
	Kind, Name string
	Start, End int
	Terms      []uint32 // sorted word numbers
	Freqs      []uint16 // how often each occurs
	Len        int32    // words in all
	Hash       [16]byte // of the text embedded, for its vector
}

// New returns the semantic index of the tree src indexes; Run builds it.
func New(src *index.Index, opts Options) *Index {
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	if opts.MaxFileSize <= 0 {
		opts.MaxFileSize = 1 << 20
	}
	s := &Index{src: src, opts: opts, ready: make(chan struct{}), vocab: map[string]uint32{}, files: map[string]*fileChunks{},
		stale: map[string]bool{}, vectors: map[[16]byte][]float32{}}
	src.OnChange(func(paths []string) {
		s.mu.Lock()
		for _, p := range paths {
			s.stale[p] = true
		}
		s.mu.Unlock()
	})
	return s
}

// Method names the default ranking: BM25 and the embedding model fused, or BM25 alone.
func (s *Index) Method() string {
	if s.opts.Embedder != nil {
		return "fusion of BM25 and embeddings (" + s.opts.Embedder.Name() + ") by reciprocal rank"
	}
	return BM25Name
}

// Ready is closed once the chunks are known.
func (s *Index) Ready() <-chan struct{} { return s.ready }

// Run cuts the tree into chunks once the text index is ready (keeping what was saved for
// files that did not change), embeds them in the background when a model is configured,
// and saves both on the way out.
func (s *Index) Run(ctx context.Context) error {
	select {
	case <-s.src.Ready():
	case <-ctx.Done():
		s.err = ctx.Err()
		close(s.ready)
		return ctx.Err()
	}
	if err := s.src.Err(); err != nil {
		s.err = err
		close(s.ready)
		return err
	}
	start := time.Now()
	s.load()
	n := s.refresh(ctx, nil)
	s.mu.Lock()
	total := 0
	for _, f := range s.files {
		total += len(f.Chunks)
	}
	s.mu.Unlock()
	s.opts.Logf("semantic: %d chunks of %d files (%d files cut anew) in %v", total, len(s.files), n, time.Since(start).Round(time.Millisecond))
	close(s.ready)
	s.save()
	defer s.save()
	if s.opts.Embedder != nil {
		if err := s.embedMissing(ctx, 0, nil); err != nil && ctx.Err() == nil {
			s.opts.Logf("semantic: embedding the chunks: %v (search_by_embedding embeds what it needs when asked)", err)
		}
		s.save()
	}
	<-ctx.Done()
	return nil
}

// refresh cuts the files that are new or changed since they were cut (all files, or only
// paths when given), and forgets those that are gone. It returns how many it cut.
func (s *Index) refresh(ctx context.Context, paths map[string]bool) int {
	var want []index.File
	for _, f := range s.src.Files() {
		if f.Kind == index.Text && !f.Vendored && f.Size <= s.opts.MaxFileSize {
			want = append(want, f)
		}
	}
	s.mu.Lock()
	present := make(map[string]bool, len(want))
	var todo []index.File
	for _, f := range want {
		present[f.Path] = true
		old := s.files[f.Path]
		if old == nil || old.Size != f.Size || old.ModTime != f.ModTime || old.Generated != f.Generated || paths[f.Path] {
			todo = append(todo, f)
		}
	}
	for p := range s.files {
		if !present[p] {
			delete(s.files, p)
			s.dirty = true
		}
	}
	s.mu.Unlock()

	// Each file's words are numbered as soon as it is cut, so that only the files being cut
	// hold their words as strings (all of Go's source held at once took 1 GB).
	var wg sync.WaitGroup
	var next sync.Mutex
	i, cut := 0, 0
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				next.Lock()
				k := i
				i++
				next.Unlock()
				if k >= len(todo) {
					return
				}
				cf := s.cut(todo[k])
				if cf == nil {
					continue
				}
				s.mu.Lock()
				s.intern(cf)
				s.files[cf.fc.Path] = cf.fc
				s.dirty = true
				cut++
				s.mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return cut
}

// cutFile is a file cut into chunks, with each chunk's words before they are numbered.
type cutFile struct {
	fc     *fileChunks
	counts []map[string]int
}

// cut reads one file and cuts it into chunks with their words.
func (s *Index) cut(f index.File) *cutFile {
	src, err := s.src.ReadFile(f.Path, s.opts.MaxFileSize)
	if err != nil {
		return nil
	}
	r := chunk.File(f.Path, src)
	text := string(src)
	// starts[i] is where line i+1 begins; one more for the end.
	starts := []int{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	if starts[len(starts)-1] != len(text) {
		starts = append(starts, len(text)+1)
	}
	out := &cutFile{fc: &fileChunks{Path: f.Path, Size: f.Size, ModTime: f.ModTime, Generated: f.Generated}}
	pathWords := map[string]int{}
	Tokens(f.Path, func(w string) { pathWords[w]++ })
	for _, c := range r.Chunks {
		counts := map[string]int{}
		from, to := starts[min(c.StartLine-1, len(starts)-1)], starts[min(c.EndLine, len(starts)-1)]
		text := text[from:max(from, to-1)]
		Tokens(text, func(w string) { counts[w]++ })
		Tokens(c.Name, func(w string) { counts[w] += 3 }) // the declared name counts most
		for w := range pathWords {
			counts[w]++
		}
		out.fc.Chunks = append(out.fc.Chunks, chunkData{Kind: c.Kind, Name: c.Name, Start: c.StartLine, End: c.EndLine,
			Hash: sha256Of(embedText(f.Path, c, text))})
		out.counts = append(out.counts, counts)
	}
	return out
}

// intern numbers the words of a cut file's chunks (s.mu held).
func (s *Index) intern(cf *cutFile) {
	type tf struct {
		id uint32
		n  int
	}
	for k, counts := range cf.counts {
		var list []tf
		total := 0
		for w, n := range counts {
			id, ok := s.vocab[w]
			if !ok {
				w = strings.Clone(w) // w may share a file's text
				id = uint32(len(s.words))
				s.vocab[w] = id
				s.words = append(s.words, w)
			}
			list = append(list, tf{id, n})
			total += n
		}
		slices.SortFunc(list, func(a, b tf) int { return int(a.id) - int(b.id) })
		c := &cf.fc.Chunks[k]
		c.Terms = make([]uint32, len(list))
		c.Freqs = make([]uint16, len(list))
		for j, t := range list {
			c.Terms[j] = t.id
			c.Freqs[j] = uint16(min(t.n, math.MaxUint16))
		}
		c.Len = int32(total)
	}
}

// embedText is what a chunk's vector is computed from: its path, kind and name, then the
// head of its text, its doc comment and first line of code (the signature), cut to what
// small embedding models take. The head says what the chunk is for; the body adds words
// that say how, which blur that (with the built-in word vectors, on the evaluation's subset:
// vectors alone answered 8 of 25 questions from whole chunks, 15 from their heads), and
// costs a model that reads every token far more.
func embedText(p string, c chunk.Chunk, text string) string {
	head := p
	if c.Name != "" {
		head += ": " + c.Kind + " " + c.Name
	}
	out := head + "\n" + chunkHead(text)
	if len(out) > 6000 {
		out = out[:6000]
	}
	return out
}

// chunkHead returns the comment lines that start a chunk and its first line of code.
func chunkHead(text string) string {
	end := 0
	for end < len(text) {
		nl := strings.IndexByte(text[end:], '\n')
		line := text[end:]
		if nl >= 0 {
			line = text[end : end+nl]
		}
		t := strings.TrimSpace(line)
		end += len(line) + 1
		comment := strings.HasPrefix(t, "//") || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "/*") || strings.HasPrefix(t, "*") || t == ""
		if !comment {
			break
		}
	}
	return text[:min(end, len(text))]
}

func sha256Of(s string) [16]byte {
	sum := sha256.Sum256([]byte(s))
	var h [16]byte
	copy(h[:], sum[:16])
	return h
}

// EmbedAll computes the vectors every chunk lacks, and waits for them.
func (s *Index) EmbedAll(ctx context.Context, progress func(done, total int)) error {
	if s.opts.Embedder == nil {
		return nil
	}
	return s.embedMissing(ctx, 0, progress)
}

// Chunks returns how many chunks the index holds.
func (s *Index) Chunks() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, f := range s.files {
		n += len(f.Chunks)
	}
	return n
}

func sqrt(x float64) float64 { return math.Sqrt(x) }
