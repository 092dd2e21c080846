package semantic

import (
	"context"
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
