// Package semantic ranks the chunks of a codebase (functions, methods, types, sections)
// against a question in words. With an embedding model (any OpenAI-compatible endpoint) it
// compares vectors: the cosine similarity of the question's vector and each chunk's. Without
// one it ranks lexically and says so: BM25 over the words of each chunk, with identifiers
// split at camelCase and snake_case, comments, and the file's path. Chunks are kept with the
// index, and vectors too, keyed by the chunk's text, so that only changed chunks are embedded
// again.
package semantic

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/gob"
	"fmt"
	"math"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
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

// Index holds the chunks of every text file (not vendored, not generated) of a tree.
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
	Path    string
	Size    int64
	ModTime int64
	Chunks  []chunkData
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

// Method names the ranking: BM25, or the embedding model.
func (s *Index) Method() string {
	if s.opts.Embedder != nil {
		return "embeddings: cosine similarity, " + s.opts.Embedder.Name()
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
		if f.Kind == index.Text && !f.Vendored && !f.Generated && f.Size <= s.opts.MaxFileSize {
			want = append(want, f)
		}
	}
	s.mu.Lock()
	present := make(map[string]bool, len(want))
	var todo []index.File
	for _, f := range want {
		present[f.Path] = true
		old := s.files[f.Path]
		if old == nil || old.Size != f.Size || old.ModTime != f.ModTime || paths[f.Path] {
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

	results := make([]*cutFile, len(todo))
	var wg sync.WaitGroup
	var next sync.Mutex
	i := 0
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
				results[k] = s.cut(todo[k])
			}
		}()
	}
	wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	cut := 0
	for _, cf := range results {
		if cf == nil {
			continue
		}
		cut++
		s.intern(cf)
		s.files[cf.fc.Path] = cf.fc
		s.dirty = true
	}
	return cut
}

// cutFile is a file cut into chunks, with each chunk's words before they are numbered.
type cutFile struct {
	fc     *fileChunks
	counts []map[string]int
}

// cut reads one file and cuts it into chunks with their words.
func (s *Index) cut(f index.File) *cutFile {
	src, err := s.src.FS().ReadFile(f.Path)
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
	out := &cutFile{fc: &fileChunks{Path: f.Path, Size: f.Size, ModTime: f.ModTime}}
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

// embedText is what a chunk's vector is computed from: its path and name, then its text,
// cut to what small embedding models take.
func embedText(p string, c chunk.Chunk, text string) string {
	head := p
	if c.Name != "" {
		head += ": " + c.Kind + " " + c.Name
	}
	out := head + "\n" + text
	if len(out) > 6000 {
		out = out[:6000]
	}
	return out
}

func sha256Of(s string) [16]byte {
	sum := sha256.Sum256([]byte(s))
	var h [16]byte
	copy(h[:], sum[:16])
	return h
}

// Hit is one chunk a query found.
type Hit struct {
	Path       string
	Kind, Name string
	Start, End int
	Score      float64
}

// Answer is what a query found, and how.
type Answer struct {
	Hits   []Hit
	Method string
	// Chunks is how many chunks were ranked; Embedded how many had a vector (embeddings
	// only).
	Chunks, Embedded int
}

// Search ranks the chunks below dir ("." for all) against query and returns the best max.
// progress, if not nil, is told of the chunks embedded while it waits.
func (s *Index) Search(ctx context.Context, query, dir string, max int, progress func(done, total int)) (*Answer, error) {
	select {
	case <-s.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if s.err != nil {
		return nil, s.err
	}
	s.src.Sync()
	s.mu.Lock()
	stale := s.stale
	s.stale = map[string]bool{}
	s.mu.Unlock()
	if len(stale) > 0 {
		s.refresh(ctx, stale)
	}
	if s.opts.Embedder != nil {
		return s.searchVectors(ctx, query, dir, max, progress)
	}
	return s.searchBM25(query, dir, max), nil
}

// searchBM25 ranks with Okapi BM25 (k1 = 1.2, b = 0.75).
func (s *Index) searchBM25(query, dir string, max int) *Answer {
	const k1, b = 1.2, 0.75
	s.mu.Lock()
	defer s.mu.Unlock()
	var terms []uint32
	Tokens(query, func(w string) {
		if id, ok := s.vocab[w]; ok {
			terms = append(terms, id)
		}
	})
	slices.Sort(terms)
	terms = slices.Compact(terms)
	ans := &Answer{Method: BM25Name}
	type cand struct {
		f   *fileChunks
		c   *chunkData
		tfs []uint16
	}
	var cands []cand
	df := make([]int, len(terms))
	var totalLen int64
	for _, f := range s.files {
		for k := range f.Chunks {
			c := &f.Chunks[k]
			ans.Chunks++
			totalLen += int64(c.Len)
			var tfs []uint16
			for j, t := range terms {
				if i, ok := slices.BinarySearch(c.Terms, t); ok {
					if tfs == nil {
						tfs = make([]uint16, len(terms))
					}
					tfs[j] = c.Freqs[i]
					df[j]++
				}
			}
			if tfs != nil && inDir(f.Path, dir) {
				cands = append(cands, cand{f, c, tfs})
			}
		}
	}
	if ans.Chunks == 0 {
		return ans
	}
	avg := float64(totalLen) / float64(ans.Chunks)
	n := float64(ans.Chunks)
	for _, cd := range cands {
		score := 0.0
		for j, tf := range cd.tfs {
			if tf == 0 {
				continue
			}
			idf := math.Log(1 + (n-float64(df[j])+0.5)/(float64(df[j])+0.5))
			f := float64(tf)
			score += idf * f * (k1 + 1) / (f + k1*(1-b+b*float64(cd.c.Len)/avg))
		}
		ans.Hits = append(ans.Hits, Hit{Path: cd.f.Path, Kind: cd.c.Kind, Name: cd.c.Name, Start: cd.c.Start, End: cd.c.End, Score: round(score)})
	}
	return top(ans, max)
}

func top(ans *Answer, max int) *Answer {
	sort.Slice(ans.Hits, func(i, j int) bool {
		a, b := ans.Hits[i], ans.Hits[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Start < b.Start
	})
	if len(ans.Hits) > max {
		ans.Hits = ans.Hits[:max]
	}
	return ans
}

func round(x float64) float64 { return math.Round(x*10000) / 10000 }

func inDir(p, dir string) bool {
	return dir == "." || p == dir || strings.HasPrefix(p, dir+"/")
}

// maxEmbedOnQuery bounds the chunks a query embeds itself when the background has not
// embedded them yet; past it, the query ranks the chunks that have vectors and says how many.
const maxEmbedOnQuery = 512

// embedBatch is how many texts go in one request to the endpoint.
const embedBatch = 32

func (s *Index) searchVectors(ctx context.Context, query, dir string, max int, progress func(done, total int)) (*Answer, error) {
	qv, err := s.opts.Embedder.Embed(ctx, []string{query})
	if err != nil {
		return nil, err
	}
	if err := s.embedMissing(ctx, maxEmbedOnQuery, progress); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ans := &Answer{Method: s.Method()}
	for _, f := range s.files {
		for k := range f.Chunks {
			c := &f.Chunks[k]
			ans.Chunks++
			v, ok := s.vectors[c.Hash]
			if !ok {
				continue
			}
			ans.Embedded++
			if !inDir(f.Path, dir) || len(v) != len(qv[0]) {
				continue
			}
			var dot float32
			for i, x := range v {
				dot += x * qv[0][i]
			}
			ans.Hits = append(ans.Hits, Hit{Path: f.Path, Kind: c.Kind, Name: c.Name, Start: c.Start, End: c.End, Score: round(float64(dot))})
		}
	}
	return top(ans, max), nil
}

// embedMissing computes the vectors chunks lack, in batches; with limit > 0 it does nothing
// when more than limit lack one.
func (s *Index) embedMissing(ctx context.Context, limit int, progress func(done, total int)) error {
	type job struct {
		path string
		c    chunkData
	}
	s.embedMu.Lock() // one at a time, so that no chunk is embedded twice
	defer s.embedMu.Unlock()
	s.mu.Lock()
	var jobs []job
	seen := map[[16]byte]bool{}
	for _, f := range s.files {
		for _, c := range f.Chunks {
			if _, ok := s.vectors[c.Hash]; !ok && !seen[c.Hash] {
				seen[c.Hash] = true
				jobs = append(jobs, job{f.Path, c})
			}
		}
	}
	s.mu.Unlock()
	if len(jobs) == 0 || limit > 0 && len(jobs) > limit {
		return nil
	}
	slices.SortFunc(jobs, func(a, b job) int {
		if c := strings.Compare(a.path, b.path); c != 0 {
			return c
		}
		return a.c.Start - b.c.Start
	})
	files := map[string][]string{}
	for start := 0; start < len(jobs); start += embedBatch {
		batch := jobs[start:min(start+embedBatch, len(jobs))]
		texts := make([]string, len(batch))
		for i, j := range batch {
			lines, ok := files[j.path]
			if !ok {
				src, err := s.src.FS().ReadFile(j.path)
				if err != nil {
					continue
				}
				lines = strings.Split(string(src), "\n")
				files = map[string][]string{j.path: lines} // keep one file's lines at a time
			}
			text := strings.Join(lines[min(j.c.Start-1, len(lines)):min(j.c.End, len(lines))], "\n")
			texts[i] = embedText(j.path, chunk.Chunk{Kind: j.c.Kind, Name: j.c.Name}, text)
		}
		vecs, err := s.opts.Embedder.Embed(ctx, texts)
		if err != nil {
			return err
		}
		s.mu.Lock()
		for i, j := range batch {
			s.vectors[j.c.Hash] = vecs[i]
		}
		s.vdirty = true
		s.mu.Unlock()
		if progress != nil {
			progress(min(start+embedBatch, len(jobs)), len(jobs))
		}
	}
	return nil
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

const (
	chunksFile    = "chunks.gob"
	formatVersion = 1
)

type savedChunks struct {
	Version int
	Root    string
	Words   []string
	Files   []*fileChunks
}

type savedVectors struct {
	Version int
	Model   string
	Vectors map[[16]byte][]float32
}

// vectorsFile is the file of one model's vectors.
func (s *Index) vectorsFile() string {
	h := sha256Of(s.opts.Embedder.Name())
	return fmt.Sprintf("vectors-%x.gob", h[:6])
}

func (s *Index) load() {
	if s.opts.Dir == "" {
		return
	}
	var sc savedChunks
	if err := readGob(filepath.Join(s.opts.Dir, chunksFile), &sc); err == nil && sc.Version == formatVersion && sc.Root == s.src.Root() {
		s.mu.Lock()
		s.words = sc.Words
		for i, w := range sc.Words {
			s.vocab[w] = uint32(i)
		}
		for _, f := range sc.Files {
			s.files[f.Path] = f
		}
		s.mu.Unlock()
	}
	if s.opts.Embedder != nil {
		var sv savedVectors
		if err := readGob(filepath.Join(s.opts.Dir, s.vectorsFile()), &sv); err == nil && sv.Version == formatVersion && sv.Model == s.opts.Embedder.Name() {
			s.mu.Lock()
			s.vectors = sv.Vectors
			s.mu.Unlock()
		}
	}
}

func (s *Index) save() {
	if s.opts.Dir == "" {
		return
	}
	s.mu.Lock()
	var chunks *savedChunks
	if s.dirty {
		chunks = &savedChunks{Version: formatVersion, Root: s.src.Root(), Words: slices.Clone(s.words)}
		for _, f := range s.files {
			chunks.Files = append(chunks.Files, f)
		}
		slices.SortFunc(chunks.Files, func(a, b *fileChunks) int { return strings.Compare(a.Path, b.Path) })
		s.dirty = false
	}
	var vecs *savedVectors
	if s.vdirty && s.opts.Embedder != nil {
		live := map[[16]byte][]float32{}
		for _, f := range s.files {
			for _, c := range f.Chunks {
				if v, ok := s.vectors[c.Hash]; ok {
					live[c.Hash] = v
				}
			}
		}
		vecs = &savedVectors{Version: formatVersion, Model: s.opts.Embedder.Name(), Vectors: live}
		s.vdirty = false
	}
	s.mu.Unlock()
	if chunks != nil {
		if err := writeGob(s.opts.Dir, chunksFile, chunks); err != nil {
			s.opts.Logf("semantic: chunks not saved: %v", err)
		}
	}
	if vecs != nil {
		if err := writeGob(s.opts.Dir, s.vectorsFile(), vecs); err != nil {
			s.opts.Logf("semantic: vectors not saved: %v", err)
		}
	}
}

func readGob(name string, v any) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	return gob.NewDecoder(bufio.NewReaderSize(f, 1<<20)).Decode(v)
}

func writeGob(dir, name string, v any) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, name+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriterSize(tmp, 1<<20)
	err = gob.NewEncoder(w).Encode(v)
	if err == nil {
		err = w.Flush()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, name))
}

// SavedSize returns the bytes the semantic index takes on disk.
func (s *Index) SavedSize() int64 {
	if s.opts.Dir == "" {
		return 0
	}
	var n int64
	entries, _ := os.ReadDir(s.opts.Dir)
	for _, e := range entries {
		if e.Name() == chunksFile || strings.HasPrefix(e.Name(), "vectors-") && path.Ext(e.Name()) == ".gob" {
			if info, err := e.Info(); err == nil {
				n += info.Size()
			}
		}
	}
	return n
}

func sqrt(x float64) float64 { return math.Sqrt(x) }
