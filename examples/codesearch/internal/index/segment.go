package index

import (
	"encoding/binary"
	"slices"
	"sort"
	"strings"
)

// segment is an immutable trigram index of files sorted by path: for each trigram, the
// numbers (positions in files) of the files that hold it, delta-encoded as varints.
type segment struct {
	files []File
	tris  []trigram // sorted
	offs  []uint32  // postings of tris[i] are post[offs[i]:offs[i+1]]
	post  []byte
}

// lookup returns the encoded postings of t, or nil.
func (s *segment) lookup(t trigram) []byte {
	i, ok := slices.BinarySearch(s.tris, t)
	if !ok {
		return nil
	}
	return s.post[s.offs[i]:s.offs[i+1]]
}

// decode appends the file numbers of an encoded posting list to dst.
func decode(dst []uint32, p []byte) []uint32 {
	var doc uint32
	for len(p) > 0 {
		d, n := binary.Uvarint(p)
		p = p[n:]
		doc += uint32(d)
		dst = append(dst, doc)
	}
	return dst
}

// pathRange returns the numbers [lo, hi) of the files at or below dir ("." for all).
func pathRange(files []File, dir string) (lo, hi int) {
	if dir == "." {
		return 0, len(files)
	}
	lo = sort.Search(len(files), func(i int) bool { return files[i].Path >= dir })
	hi = sort.Search(len(files), func(i int) bool { return files[i].Path >= dir+"0" }) // '0' follows '/'
	return lo, hi
}

// inPath reports whether rel is dir or lies below it.
func inPath(rel, dir string) bool {
	return dir == "." || rel == dir || strings.HasPrefix(rel, dir+"/")
}

// eval returns the sorted numbers of the files in [lo, hi) that may satisfy q; all reports
// that q narrows nothing.
func (s *segment) eval(q *Query, lo, hi uint32) (docs []uint32, all bool) {
	switch q.Op {
	case qAll:
		return nil, true
	case qNone:
		return nil, false
	case qAnd:
		var lists [][]uint32
		for _, t := range q.Tri {
			p := s.lookup(t)
			if p == nil {
				return nil, false
			}
			lists = append(lists, clip(decode(nil, p), lo, hi))
		}
		for _, sub := range q.Sub {
			d, all := s.eval(sub, lo, hi)
			if !all {
				lists = append(lists, d)
			}
		}
		if len(lists) == 0 {
			return nil, true
		}
		slices.SortFunc(lists, func(a, b []uint32) int { return len(a) - len(b) })
		out := lists[0]
		for _, l := range lists[1:] {
			out = intersect(out, l)
		}
		return out, false
	case qOr:
		var out []uint32
		for _, t := range q.Tri {
			out = unite(out, clip(decode(nil, s.lookup(t)), lo, hi))
		}
		for _, sub := range q.Sub {
			d, all := s.eval(sub, lo, hi)
			if all {
				return nil, true
			}
			out = unite(out, d)
		}
		return out, false
	}
	return nil, true
}

func clip(l []uint32, lo, hi uint32) []uint32 {
	i, _ := slices.BinarySearch(l, lo)
	j, _ := slices.BinarySearch(l, hi)
	return l[i:j]
}

func intersect(a, b []uint32) []uint32 {
	out := a[:0:0]
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

func unite(a, b []uint32) []uint32 {
	if len(a) == 0 {
		return b
	}
	if len(b) == 0 {
		return a
	}
	out := make([]uint32, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			out = append(out, a[i])
			i++
		case a[i] > b[j]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// matchSet reports whether a file with the sorted trigrams tris may satisfy q.
func matchSet(q *Query, tris []trigram) bool {
	switch q.Op {
	case qAll:
		return true
	case qNone:
		return false
	case qAnd:
		for _, t := range q.Tri {
			if _, ok := slices.BinarySearch(tris, t); !ok {
				return false
			}
		}
		for _, sub := range q.Sub {
			if !matchSet(sub, tris) {
				return false
			}
		}
		return true
	case qOr:
		for _, t := range q.Tri {
			if _, ok := slices.BinarySearch(tris, t); ok {
				return true
			}
		}
		for _, sub := range q.Sub {
			if matchSet(sub, tris) {
				return true
			}
		}
		return false
	}
	return true
}

// segmentBuilder builds a segment from files added in path order.
type segmentBuilder struct {
	// slot maps a trigram to its list, plus one (0: none yet), in pages of 256 by the
	// trigram's first two bytes: a lookup per trigram of every file is the build's hot
	// loop, and this is faster than a map.
	slot  [1 << 16]*[256]int32
	lists []postList
	tris  []trigram // in the order first seen
}

type postList struct {
	last uint32
	buf  []byte
}

func newSegmentBuilder() *segmentBuilder { return &segmentBuilder{} }

// add records that file number doc holds tris; docs come in increasing order.
func (b *segmentBuilder) add(doc uint32, tris []trigram) {
	for _, t := range tris {
		page := b.slot[t>>8]
		if page == nil {
			page = new([256]int32)
			b.slot[t>>8] = page
		}
		i := page[t&0xff] - 1
		if i < 0 {
			i = int32(len(b.lists))
			page[t&0xff] = i + 1
			b.lists = append(b.lists, postList{buf: binary.AppendUvarint(nil, uint64(doc)), last: doc})
			b.tris = append(b.tris, t)
			continue
		}
		l := &b.lists[i]
		l.buf = binary.AppendUvarint(l.buf, uint64(doc-l.last))
		l.last = doc
	}
}

func (b *segmentBuilder) index(t trigram) int32 { return b.slot[t>>8][t&0xff] - 1 }

func (b *segmentBuilder) finish(files []File) *segment {
	s := &segment{files: files, tris: slices.Clone(b.tris)}
	slices.Sort(s.tris)
	size := 0
	for _, l := range b.lists {
		size += len(l.buf)
	}
	s.post = make([]byte, 0, size)
	s.offs = make([]uint32, 0, len(s.tris)+1)
	for _, t := range s.tris {
		s.offs = append(s.offs, uint32(len(s.post)))
		s.post = append(s.post, b.lists[b.index(t)].buf...)
	}
	s.offs = append(s.offs, uint32(len(s.post)))
	return s
}

// extractor finds the distinct trigrams of texts; one per goroutine.
type extractor struct {
	seen []uint64 // a bit per trigram
}

func newExtractor() *extractor { return &extractor{seen: make([]uint64, 1<<24/64)} }

// trigrams returns the distinct trigrams of text, in no order, leaving out those across a
// newline: a match never spans lines.
func (e *extractor) trigrams(text []byte) []trigram {
	var out []trigram
	if len(text) < 3 {
		return nil
	}
	c0, c1 := lowerASCII(text[0]), lowerASCII(text[1])
	for _, c := range text[2:] {
		c2 := lowerASCII(c)
		if c0 != '\n' && c1 != '\n' && c2 != '\n' {
			t := trigram(c0)<<16 | trigram(c1)<<8 | trigram(c2)
			if w, bit := t/64, uint64(1)<<(t%64); e.seen[w]&bit == 0 {
				e.seen[w] |= bit
				out = append(out, t)
			}
		}
		c0, c1 = c1, c2
	}
	for _, t := range out {
		e.seen[t/64] = 0
	}
	return out
}
