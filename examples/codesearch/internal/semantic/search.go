package semantic

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/mcpgen/mcpgen/examples/codesearch/internal/chunk"
)

// Hit is one chunk a query found.
type Hit struct {
	Path       string
	Kind, Name string
	Start, End int
	Score      float64
	Generated  bool // of a generated file
}

// Method is a way of ranking.
type Method string

const (
	// Default is Fusion with an embedding model, BM25 without one.
	Default Method = ""
	BM25    Method = "bm25"
	Vectors Method = "vectors"
	// Fusion ranks by BM25 and by vectors, and fuses the two rankings by reciprocal rank:
	// each chunk scores the sum of w/(60+rank) over the rankings it is in, w 1 for BM25 and
	// the model's FusionWeight (1 unless it says otherwise) for the vectors.
	Fusion Method = "fusion"
)

// GeneratedWeight is what the score of a chunk of a generated file is multiplied by, so that
// it ranks below hand-written code that answers as well.
const GeneratedWeight = 0.7

// vectorWeight is what the ranks by vectors count in the fusion.
func (s *Index) vectorWeight() float64 {
	if w, ok := s.opts.Embedder.(interface{ FusionWeight() float64 }); ok {
		return w.FusionWeight()
	}
	return 1
}

// rrfK is reciprocal rank fusion's constant: the 60 of its authors (Cormack, Clarke and
// Büttcher, 2009), which keeps the top of each ranking from dominating.
const rrfK = 60

// fuseDepth is how much of each ranking the fusion reads.
const fuseDepth = 1000

// Query is a question to rank the chunks against.
type Query struct {
	Text string
	// Dir limits the chunks to a directory or file ("." for all).
	Dir string
	// Max is how many hits to return.
	Max int
	// IncludeGenerated ranks the chunks of generated files too (below hand-written code);
	// without it they are left out, and the answer counts those that would have been given.
	IncludeGenerated bool
	Method           Method
	// Progress, if not nil, is told of the chunks embedded while the query waits for them.
	Progress func(done, total int)
}

// Answer is what a query found, and how.
type Answer struct {
	Hits   []Hit
	Method string
	// Chunks is how many chunks were ranked; Embedded how many had a vector (with a
	// model).
	Chunks, Embedded int
	// LeftOut are the chunks of generated files that would have been among the hits,
	// without IncludeGenerated.
	LeftOut []Hit
}

// Search ranks the chunks below q.Dir against q.Text and returns the best q.Max.
func (s *Index) Search(ctx context.Context, q Query) (*Answer, error) {
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
	method := q.Method
	if method == Default {
		method = BM25
		if s.opts.Embedder != nil {
			method = Fusion
		}
	}
	if method != BM25 && s.opts.Embedder == nil {
		return nil, fmt.Errorf("ranking by %s needs an embedding model", method)
	}
	var ans *Answer
	switch method {
	case BM25:
		ans = s.searchBM25(q.Text, q.Dir)
	case Vectors:
		var err error
		if ans, err = s.searchVectors(ctx, q.Text, q.Dir, q.Progress); err != nil {
			return nil, err
		}
	case Fusion:
		lex := s.searchBM25(q.Text, q.Dir)
		vec, err := s.searchVectors(ctx, q.Text, q.Dir, q.Progress)
		if err != nil {
			return nil, err
		}
		ans = fuse(lex, vec, s.vectorWeight())
		ans.Method = "fusion of BM25 and " + vec.Method + " (reciprocal rank)"
	default:
		return nil, fmt.Errorf("no ranking %q: bm25, vectors or fusion", method)
	}
	for i := range ans.Hits {
		if ans.Hits[i].Generated {
			ans.Hits[i].Score = math.Round(ans.Hits[i].Score*GeneratedWeight*1e6) / 1e6
		}
	}
	sortHits(ans.Hits)
	if !q.IncludeGenerated {
		kept := ans.Hits[:0]
		for _, h := range ans.Hits {
			switch {
			case !h.Generated:
				kept = append(kept, h)
			case len(kept) < q.Max:
				ans.LeftOut = append(ans.LeftOut, h)
			}
		}
		ans.Hits = kept
	}
	if len(ans.Hits) > q.Max {
		ans.Hits = ans.Hits[:q.Max]
	}
	return ans, nil
}

// fuse ranks by reciprocal rank fusion of two rankings (each sorted, best first), the
// second's ranks counting vectorWeight.
func fuse(a, b *Answer, vectorWeight float64) *Answer {
	type key struct {
		path  string
		start int
	}
	out := &Answer{Chunks: a.Chunks, Embedded: b.Embedded}
	at := map[key]int{}
	for li, ranking := range []*Answer{a, b} {
		w := 1.0
		if li == 1 {
			w = vectorWeight
		}
		for r, h := range ranking.Hits[:min(len(ranking.Hits), fuseDepth)] {
			k := key{h.Path, h.Start}
			i, ok := at[k]
			if !ok {
				i = len(out.Hits)
				at[k] = i
				h.Score = 0
				out.Hits = append(out.Hits, h)
			}
			out.Hits[i].Score += w / float64(rrfK+r+1)
		}
	}
	for i := range out.Hits {
		out.Hits[i].Score = math.Round(out.Hits[i].Score*1e6) / 1e6
	}
	return out
}

// searchBM25 ranks with Okapi BM25 (k1 = 1.2, b = 0.75), best first.
func (s *Index) searchBM25(query, dir string) *Answer {
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
		ans.Hits = append(ans.Hits, Hit{Path: cd.f.Path, Kind: cd.c.Kind, Name: cd.c.Name, Start: cd.c.Start, End: cd.c.End,
			Score: round(score), Generated: cd.f.Generated})
	}
	sortHits(ans.Hits)
	return ans
}

// sortHits sorts best first, then by path and line.
func sortHits(hits []Hit) {
	sort.Slice(hits, func(i, j int) bool {
		a, b := hits[i], hits[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Start < b.Start
	})
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

// searchVectors ranks by cosine similarity with the query's vector, best first.
func (s *Index) searchVectors(ctx context.Context, query, dir string, progress func(done, total int)) (*Answer, error) {
	qv, err := s.opts.Embedder.Embed(ctx, []string{query})
	if err != nil {
		return nil, err
	}
	if err := s.embedMissing(ctx, maxEmbedOnQuery, progress); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ans := &Answer{Method: "embeddings: cosine similarity, " + s.opts.Embedder.Name()}
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
			ans.Hits = append(ans.Hits, Hit{Path: f.Path, Kind: c.Kind, Name: c.Name, Start: c.Start, End: c.End, Score: round(float64(dot)), Generated: f.Generated})
		}
	}
	sortHits(ans.Hits)
	return ans, nil
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
				src, err := s.src.ReadFile(j.path, s.opts.MaxFileSize)
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
