package index

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Search is one search of the tree.
type Search struct {
	Matcher *Matcher
	// Path limits the search to a directory or a file ("." for the whole tree).
	Path string
	Glob *Glob // nil: every file
	// IncludeVendored and IncludeGenerated search those files too.
	IncludeVendored, IncludeGenerated bool
	Max                               int // matches to return (at least 1)
	Context                           int // lines of context before and after each match
	// After continues a search after a match it returned (Cursor of its last hit).
	After string
	// Timeout bounds the search's time (0: none): past it, the search stops and returns what
	// it found so far, in order, with Result.Stopped set and a Cursor that goes on.
	Timeout time.Duration
}

// Hit is one matching line.
type Hit struct {
	Path   string
	Line   int
	Column int
	Text   string
	Before []string
	After  []string
}

// Skipped counts the files below the searched path that the search did not read, by why:
// every binary and too large one, and the vendored and generated ones that the index says
// may hold a match.
type Skipped struct {
	Reason  string // "binary", "too large", "vendored", "generated"
	Files   int
	Example string // one of them
}

// Result is what a search found.
type Result struct {
	Hits []Hit
	// More: there are more matches; Cursor continues after the last hit.
	More   bool
	Cursor string
	// FilesRead is how many files were read to find the hits; Candidates how many the
	// trigram index left to read (before the search stopped at Max).
	FilesRead, Candidates int
	Skipped               []Skipped
	// Scanned: the index was still being built, and the files were read directly.
	Scanned bool
	// Stopped: the search ran out of its time; Hits are what it found before, More is set
	// and Cursor goes on from where it stopped.
	Stopped bool
}

// maxLineLen bounds the text of a line in a hit: a minified file's line of a megabyte is
// cut around the match.
const maxLineLen = 400

// cursor is where a search continues: after line Line of file Path.
type cursor struct {
	Path string
	Line int
}

func encodeCursor(c cursor) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(c.Line) + ":" + c.Path))
}

func decodeCursor(s string) (cursor, error) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		if n, p, ok := strings.Cut(string(raw), ":"); ok {
			if line, err := strconv.Atoi(n); err == nil && line >= 0 {
				return cursor{Path: p, Line: line}, nil
			}
		}
	}
	return cursor{}, errors.New("cursor is not one this server returned: pass next_cursor from a previous result as it is")
}

// candidate is a file the search reads.
type candidate struct {
	path      string
	generated bool // known to be generated (only before the index is ready is it not known)
	scan      bool // not indexed yet: check for binary and generated when read
}

// Search runs s: the files the index leaves are read in path order, in parallel, until Max
// matches are found. Before the first build is done, it reads every file found so far
// instead (Result.Scanned).
func (ix *Index) Search(ctx context.Context, s *Search) (*Result, error) {
	var after cursor
	if s.After != "" {
		var err error
		if after, err = decodeCursor(s.After); err != nil {
			return nil, err
		}
	}
	if s.Max < 1 {
		s.Max = 1
	}
	res := &Result{}
	// sctx ends at the timeout too; ctx alone says the caller gave up.
	sctx, cancel := ctx, context.CancelFunc(func() {})
	if s.Timeout > 0 {
		sctx, cancel = context.WithTimeout(ctx, s.Timeout)
	}
	defer cancel()
	var cands []candidate
	var reached string // with the time out before every path was looked at: the path reached
	select {
	case <-ix.ready:
		if ix.err != nil {
			return nil, ix.err
		}
		ix.Sync()
		cands, reached = ix.candidates(sctx, s, after, res)
	default:
		cands = ix.scanCandidates(s, after, res)
		res.Scanned = true
	}
	res.Candidates = len(cands)
	stop, line := ix.verify(sctx, s, after, cands, res)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if stop != "" || reached != "" && !res.More {
		// Out of time: it goes on in the file it stopped in, after the lines it looked at,
		// or past the files the candidates were looked for in.
		c := cursor{Path: stop, Line: line}
		if stop == "" {
			c = cursor{Path: reached}
		}
		res.Stopped, res.More, res.Cursor = true, true, encodeCursor(c)
	}
	return res, nil
}

// candidates returns the files that may hold a match, in path order, and counts the files
// skipped.
// With ctx done before it looked at every file, it returns those found so far and the path
// of the file it reached.
func (ix *Index) candidates(ctx context.Context, s *Search, after cursor, res *Result) (out []candidate, reached string) {
	v := ix.view.Load()
	q := s.Matcher.Query()
	skips := map[string]*Skipped{}
	keep := func(f *File) bool {
		if !inPath(f.Path, s.Path) {
			return false
		}
		var reason string
		switch {
		case f.Kind != Text:
			reason = f.Kind.String()
		case f.Vendored && !s.IncludeVendored:
			reason = "vendored"
		case f.Generated && !s.IncludeGenerated:
			reason = "generated"
		}
		if reason != "" {
			if s.Glob.Match(f.Path) {
				sk := skips[reason]
				if sk == nil {
					sk = &Skipped{Reason: reason, Example: f.Path}
					skips[reason] = sk
				}
				sk.Files++
			}
			return false
		}
		return f.Path >= after.Path && s.Glob.Match(f.Path)
	}
	// Count what is skipped: binary and large files over the whole range, as nothing says
	// whether they match; vendored and generated ones where the trigrams say they may.
	lo, hi := pathRange(v.base.files, s.Path)
	docs, all := v.base.eval(q, uint32(lo), uint32(hi))
	for i, d := lo, 0; i < hi; i++ {
		for !all && d < len(docs) && int(docs[d]) < i {
			d++
		}
		if v.dead != nil && v.dead[i] {
			continue
		}
		f := &v.base.files[i]
		mayMatch := all || d < len(docs) && int(docs[d]) == i
		if f.Kind != Text || mayMatch && (f.Vendored && !s.IncludeVendored || f.Generated && !s.IncludeGenerated) {
			keep(f)
		}
	}
	next := func(yield func(int)) {
		if all {
			for i := lo; i < hi; i++ {
				yield(i)
			}
			return
		}
		for _, d := range docs {
			yield(int(d))
		}
	}
	j := 0
	addDelta := func(upTo string) {
		for ; j < len(v.delta) && (upTo == "" || v.delta[j].Path < upTo); j++ {
			d := v.delta[j]
			if !inPath(d.Path, s.Path) {
				continue
			}
			if d.Kind != Text || d.Vendored && !s.IncludeVendored || d.Generated && !s.IncludeGenerated {
				if d.Kind != Text || matchSet(q, d.tris) {
					keep(&d.File)
				}
				continue
			}
			if matchSet(q, d.tris) && keep(&d.File) {
				out = append(out, candidate{path: d.Path, generated: d.Generated})
			}
		}
	}
	looked := 0
	next(func(i int) {
		if v.dead != nil && v.dead[i] || reached != "" {
			return
		}
		f := &v.base.files[i]
		if looked++; looked%256 == 0 && ctx.Err() != nil { // a costly glob
			reached = f.Path
			return
		}
		if f.Kind != Text || f.Vendored && !s.IncludeVendored || f.Generated && !s.IncludeGenerated {
			return // counted above
		}
		addDelta(f.Path)
		if f.Path >= after.Path && s.Glob.Match(f.Path) {
			out = append(out, candidate{path: f.Path, generated: f.Generated})
		}
	})
	if reached == "" {
		addDelta("")
	}
	res.Skipped = sortedSkips(skips)
	return out, reached
}

func sortedSkips(m map[string]*Skipped) []Skipped {
	var out []Skipped
	for _, r := range []string{"binary", "too large", "vendored", "generated"} {
		if s := m[r]; s != nil {
			out = append(out, *s)
		}
	}
	return out
}

// scanCandidates returns every file the first build found, for a search that cannot wait
// for it.
func (ix *Index) scanCandidates(s *Search, after cursor, res *Result) []candidate {
	w := ix.walked.Load()
	if w == nil {
		return nil
	}
	var out []candidate
	skips := map[string]*Skipped{}
	for i := range *w {
		f := &(*w)[i]
		if !inPath(f.Path, s.Path) || !s.Glob.Match(f.Path) {
			continue
		}
		if f.Vendored && !s.IncludeVendored {
			sk := skips["vendored"]
			if sk == nil {
				sk = &Skipped{Reason: "vendored", Example: f.Path}
				skips["vendored"] = sk
			}
			sk.Files++
			continue
		}
		if f.Path >= after.Path {
			out = append(out, candidate{path: f.Path, scan: true})
		}
	}
	res.Skipped = sortedSkips(skips)
	return out
}

// fileHits is what one file gave.
type fileHits struct {
	hits []Hit
	read bool
	// stopped: the search's time ran out while the file was read; hits are those before,
	// in the lines it looked at.
	stopped bool
	lines   int
}

// verify reads the candidates in order, in parallel batches, until Max+1 hits are found
// (the one past Max tells that there are more). When ctx ends first, it keeps the hits of
// the files read through, in order, and of the first file it stopped in, and returns that
// file's path and how many of its lines it looked at. It looks at some of the first file
// however soon ctx ends, so that a search continued from where it stopped gets further.
func (ix *Index) verify(ctx context.Context, s *Search, after cursor, cands []candidate, res *Result) (stopPath string, stopLine int) {
	want := s.Max + 1
	workers := runtime.GOMAXPROCS(0)
	batch := 8
	var bufs sync.Pool
	stop := func() bool { return ctx.Err() != nil }
	for start := 0; start < len(cands) && len(res.Hits) < want; {
		if start > 0 && stop() {
			return cands[start].path, 0
		}
		end := min(start+batch, len(cands))
		out := make([]fileHits, end-start)
		var wg sync.WaitGroup
		var mu sync.Mutex
		next := start
		for range min(workers, end-start) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				buf, _ := bufs.Get().(*[]byte)
				if buf == nil {
					buf = new([]byte)
				}
				defer bufs.Put(buf)
				for {
					mu.Lock()
					i := next
					next++
					mu.Unlock()
					if i >= end {
						return
					}
					if i > 0 && stop() {
						out[i-start].stopped = true
						continue
					}
					out[i-start] = ix.matchFile(s, after, cands[i], want, buf, stop)
				}
			}()
		}
		wg.Wait()
		for k, fh := range out {
			if fh.read {
				res.FilesRead++
			}
			res.Hits = append(res.Hits, fh.hits...)
			if fh.stopped && len(res.Hits) < want {
				return cands[start+k].path, fh.lines
			}
			if len(res.Hits) >= want {
				break
			}
		}
		start = end
		batch = min(batch*2, 1024)
	}
	if len(res.Hits) > s.Max {
		res.Hits = res.Hits[:s.Max]
		res.More = true
		last := res.Hits[len(res.Hits)-1]
		res.Cursor = encodeCursor(cursor{Path: last.Path, Line: last.Line})
	}
	return "", 0
}

// matchFile reads one candidate (into buf, reused) and returns up to want of its matching
// lines.
func (ix *Index) matchFile(s *Search, after cursor, c candidate, want int, buf *[]byte, stop func() bool) fileHits {
	data, err := readRegular(ix.fsroot, c.path, ix.opts.MaxFileSize, buf)
	if err != nil {
		return fileHits{} // gone since it was indexed
	}
	fh := fileHits{read: true}
	if bytes.IndexByte(data, 0) >= 0 {
		return fh // binary now
	}
	if c.scan && !s.IncludeGenerated && isGenerated(c.path, data) {
		return fh
	}
	// Continuing in this file, it starts after the lines the cursor passed, without looking at
	// them again.
	skip, off := 0, 0
	if c.path == after.Path {
		for skip < after.Line && off < len(data) {
			nl := bytes.IndexByte(data[off:], '\n')
			if nl < 0 {
				off = len(data)
				break
			}
			off += nl + 1
			skip++
		}
	}
	done, lines := s.Matcher.Match(data[off:], stop, func(l Line) bool {
		l.Number, l.Start, l.End = l.Number+skip, l.Start+off, l.End+off
		h := Hit{Path: c.path, Line: l.Number, Column: l.Column, Text: lineText(data[l.Start:l.End], l.Column-1)}
		if s.Context > 0 {
			h.Before, h.After = contextLines(data, l.Start, l.End, s.Context)
		}
		fh.hits = append(fh.hits, h)
		return len(fh.hits) < want
	})
	fh.stopped, fh.lines = !done, skip+lines
	return fh
}

// contextLines returns up to n lines before and after the line at [start, end).
func contextLines(data []byte, start, end, n int) (before, after []string) {
	p := start
	for range n {
		if p == 0 {
			break
		}
		q := bytes.LastIndexByte(data[:p-1], '\n') + 1
		before = append(before, lineText(data[q:p-1], 0))
		p = q
	}
	for i, j := 0, len(before)-1; i < j; i, j = i+1, j-1 {
		before[i], before[j] = before[j], before[i]
	}
	p = end
	for range n {
		if p >= len(data) || p+1 >= len(data) {
			break
		}
		q := bytes.IndexByte(data[p+1:], '\n')
		if q < 0 {
			q = len(data)
		} else {
			q += p + 1
		}
		after = append(after, lineText(data[p+1:q], 0))
		p = q
	}
	return before, after
}

// lineText returns a line as valid UTF-8 without its carriage return, cut to maxLineLen
// bytes around col when longer.
func lineText(line []byte, col int) string {
	line = bytes.TrimSuffix(line, []byte{'\r'})
	if len(line) > maxLineLen {
		lo := max(0, min(col-maxLineLen/4, len(line)-maxLineLen))
		hi := lo + maxLineLen
		for lo > 0 && !utf8.RuneStart(line[lo]) {
			lo--
		}
		for hi < len(line) && !utf8.RuneStart(line[hi]) {
			hi++
		}
		s := strings.ToValidUTF8(string(line[lo:hi]), "\uFFFD")
		if lo > 0 {
			s = "…" + s
		}
		if hi < len(line) {
			s += fmt.Sprintf("… (line cut: %d bytes)", len(line))
		}
		return s
	}
	return strings.ToValidUTF8(string(line), "\uFFFD")
}
