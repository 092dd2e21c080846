package index

import (
	"bytes"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
)

// Matcher finds the lines of a text that match a search: a literal string or an RE2 regular
// expression, case-sensitive or not. A match lies within one line, as in grep: newlines are
// taken out of character classes, . never matches one, and ^ and $ match at the start and
// end of every line.
type Matcher struct {
	re    *regexp.Regexp
	query *Query
	// lit is a string every match contains, found first (with bytes.Index, or by its
	// rarest byte when case is ignored) before the regular expression runs on the line
	// around it; others are more such strings, which the line must hold too. lit is empty
	// when there is none.
	lit    needle
	others []needle
}

// needle is a string to find: as it is, or (fold) in lower case with ASCII case ignored.
type needle struct {
	b    []byte
	fold bool
	rare int // position of the rarest byte, where a case-insensitive search starts
}

func newNeedle(b []byte, fold bool) needle {
	return needle{b: b, fold: fold, rare: rarest(b)}
}

// index returns the first offset of n in hay, or -1.
func (n *needle) index(hay []byte) int {
	if n.fold {
		return n.foldIndex(hay)
	}
	return bytes.Index(hay, n.b)
}

// NewMatcher compiles a search.
func NewMatcher(query string, isRegexp, caseSensitive bool) (*Matcher, error) {
	if query == "" {
		return nil, fmt.Errorf("query is empty")
	}
	expr := query
	if !isRegexp {
		if strings.ContainsAny(query, "\n\r") {
			return nil, fmt.Errorf("query holds a line break: search_code matches within one line; search for one line at a time")
		}
		expr = regexp.QuoteMeta(query)
	}
	flags := syntax.PerlX | syntax.UnicodeGroups // not OneLine: ^ and $ match at every line
	if !caseSensitive {
		flags |= syntax.FoldCase
	}
	re, err := syntax.Parse(expr, flags)
	if err != nil {
		return nil, fmt.Errorf("query is not a valid RE2 regular expression: %v (set regex to false to search for the text as it is)", err)
	}
	if err := withinLines(re); err != nil {
		return nil, err
	}
	// Compiled from the tree as parsed: its text holds x{1000} once, where the simplified
	// tree's holds x a thousand times, each a class whose case folding String computes
	// anew (8 s for [\s\S]{1000}).
	compiled, err := regexp.Compile(re.String())
	if err != nil {
		return nil, fmt.Errorf("query is not a valid RE2 regular expression: %v", err)
	}
	re = re.Simplify()
	m := &Matcher{re: compiled, query: RegexpQuery(re)}
	needles := requiredNeedles(re, !caseSensitive)
	if len(needles) > 0 {
		m.lit, m.others = needles[0], needles[1:min(len(needles), 4)]
	}
	return m, nil
}

// withinLines makes re match within one line: newline taken out of every class, any
// character made any character but newline, and a literal newline refused.
func withinLines(re *syntax.Regexp) error {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if r == '\n' {
				return fmt.Errorf(`query matches a line break (\n): search_code matches within one line`)
			}
		}
	case syntax.OpAnyChar:
		re.Op = syntax.OpAnyCharNotNL
	case syntax.OpCharClass:
		var out []rune
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			if lo <= '\n' && '\n' <= hi {
				if lo < '\n' {
					out = append(out, lo, '\n'-1)
				}
				if hi > '\n' {
					out = append(out, '\n'+1, hi)
				}
				continue
			}
			out = append(out, lo, hi)
		}
		re.Rune = out
		if len(out) == 0 {
			re.Op = syntax.OpNoMatch
		}
	}
	for _, sub := range re.Sub {
		if err := withinLines(sub); err != nil {
			return err
		}
	}
	return nil
}

// requiredNeedles returns strings that every match of re contains, longest first: the
// literals of its top-level sequence, and the longest common substring of each part whose
// strings the trigram analysis knows exactly (an alternation, a class of a few letters), in
// lower case and searched with case ignored. With fold, only runs of letters that fold within
// ASCII can serve (not k or s, which fold to the Kelvin sign and the long s, nor non-ASCII
// letters): the longest such run of a literal is taken.
func requiredNeedles(re *syntax.Regexp, fold bool) []needle {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	subs := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		subs = append(subs, re.Sub...)
	}
	var out []needle
	add := func(n needle) {
		if len(n.b) == 0 {
			return
		}
		for _, o := range out {
			if bytes.Equal(o.b, n.b) && o.fold == n.fold {
				return
			}
		}
		out = append(out, n)
	}
	for _, s := range subs {
		if s.Op == syntax.OpLiteral && (s.Flags&syntax.FoldCase != 0) == fold {
			if !fold {
				add(newNeedle([]byte(string(s.Rune)), false))
				continue
			}
			var run []byte
			for _, r := range append(s.Rune, -1) {
				if r >= 0 && r < utf8RuneSelf && (unicode.SimpleFold(r) == r || asciiFoldOnly(r)) {
					run = append(run, lowerASCII(byte(r)))
					continue
				}
				add(newNeedle(run, true)) // even one byte: bytes.IndexByte is far faster than the regexp
				run = nil
			}
			continue
		}
		if i := analyze(s); i.exact != nil {
			add(newNeedle(commonSubstring(i.exact), true))
		}
	}
	// The one to scan for first: an exact string of three bytes or more, the longest (its
	// search is vectorized); otherwise the case-insensitive one whose rarest byte is the
	// rarest, as that byte is what the scan stops at.
	slices.SortStableFunc(out, func(a, b needle) int {
		ea, eb := !a.fold && len(a.b) >= 3, !b.fold && len(b.b) >= 3
		switch {
		case ea != eb:
			if ea {
				return -1
			}
			return 1
		case ea:
			return len(b.b) - len(a.b)
		}
		if ra, rb := byteRarity(a.b[a.rare]), byteRarity(b.b[b.rare]); ra != rb {
			return rb - ra
		}
		return len(b.b) - len(a.b)
	})
	// A string inside one already looked for says nothing more.
	var kept []needle
	for _, n := range out {
		redundant := false
		for _, k := range kept {
			if n.fold && bytes.Contains(bytes.ToLower(k.b), n.b) || !n.fold && !k.fold && bytes.Contains(k.b, n.b) {
				redundant = true
				break
			}
		}
		if !redundant {
			kept = append(kept, n)
		}
	}
	return kept
}

// commonSubstring returns the longest string that all of set contain.
func commonSubstring(set []string) []byte {
	if len(set) == 0 {
		return nil
	}
	short := set[0]
	for _, s := range set {
		if len(s) < len(short) {
			short = s
		}
	}
	for n := len(short); n > 0; n-- {
		for i := 0; i+n <= len(short); i++ {
			sub := short[i : i+n]
			all := true
			for _, s := range set {
				if !strings.Contains(s, sub) {
					all = false
					break
				}
			}
			if all {
				return []byte(sub)
			}
		}
	}
	return nil
}

const utf8RuneSelf = 0x80

// asciiFoldOnly reports whether every case of the ASCII letter r is ASCII.
func asciiFoldOnly(r rune) bool {
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f >= utf8RuneSelf {
			return false
		}
	}
	return true
}

// byteRank orders ASCII bytes from the most frequent in source code to the least; a byte
// not in it is rarer still. A case-insensitive search looks for the needle's rarest byte
// first.
const byteRank = " etaoinsrlcdhupmfgy.,()_bw=;\"'/:-0x1vk{}[]2*jq#<>z&|!3456789+%?@$\\^~`"

// byteRarity is c's place in byteRank: higher is rarer.
func byteRarity(c byte) int {
	if r := strings.IndexByte(byteRank, lowerASCII(c)); r >= 0 {
		return r
	}
	return len(byteRank)
}

// rarest returns the position in lit of its rarest byte.
func rarest(lit []byte) int {
	best, rank := 0, -1
	for i, c := range lit {
		if r := byteRarity(c); r > rank {
			best, rank = i, r
		}
	}
	return best
}

// foldIndex returns the first offset of n in hay, ASCII case ignored: it finds the
// needle's rarest byte in either case with bytes.IndexByte, then compares around it.
func (nd *needle) foldIndex(hay []byte) int {
	n, r := len(nd.b), nd.rare
	lo := nd.b[r]
	up := lo
	if 'a' <= lo && lo <= 'z' {
		up = lo - 'a' + 'A'
	}
	for off := 0; off+n <= len(hay); {
		seg := hay[off+r : len(hay)-(n-1-r)] // where the rare byte may be with the needle fitting
		i := bytes.IndexByte(seg, lo)
		if up != lo {
			lim := seg
			if i >= 0 {
				lim = seg[:i]
			}
			if j := bytes.IndexByte(lim, up); j >= 0 {
				i = j
			}
		}
		if i < 0 {
			return -1
		}
		start := off + i
		if equalFoldASCII(hay[start:start+n], nd.b) {
			return start
		}
		off = start + 1
	}
	return -1
}

// equalFoldASCII reports whether b equals lower (in lower case) with ASCII case ignored.
func equalFoldASCII(b, lower []byte) bool {
	for i, c := range b {
		if lowerASCII(c) != lower[i] {
			return false
		}
	}
	return true
}

// othersIn reports whether line holds every other required string, which is cheaper to
// ask than the regular expression.
func (m *Matcher) othersIn(line []byte) bool {
	for i := range m.others {
		if m.others[i].index(line) < 0 {
			return false
		}
	}
	return true
}

// Query returns the trigram query that narrows the files to read.
func (m *Matcher) Query() *Query { return m.query }

// Line is one matching line of a text.
type Line struct {
	Number int // 1-based
	Column int // 1-based byte offset of the first match in the line
	Start  int // offset of the line in the text
	End    int // offset of its end (its newline, or the end of the text)
}

// matchBlock is how much text a regular expression without a literal is run over at a
// time (whole lines, so no match is cut): between blocks, and every few lines a literal
// finds, Match asks whether to stop.
const matchBlock = 4 << 10

// Match calls fn for each matching line of text in order, until fn returns false, or until
// stop (if not nil) returns true, which it asks often enough that a search stops within
// milliseconds whatever its regular expression costs, but not before it looked at some of
// the text. It reports whether it went through the text (or fn ended it), and when stopped,
// how many lines it looked at.
func (m *Matcher) Match(text []byte, stop func() bool, fn func(Line) bool) (done bool, lines int) {
	lineNo, counted := 1, 0 // lines counted up to offset counted
	pos := 0
	stopped := func() bool {
		if stop == nil || !stop() {
			return false
		}
		lines = lineNo - 1 + bytes.Count(text[counted:pos], []byte{'\n'})
		return true
	}
	for n := 0; pos < len(text); n++ {
		if n%64 == 63 && stopped() {
			return false, lines
		}
		var start int
		if len(m.lit.b) > 0 {
			i := m.lit.index(text[pos:])
			if i < 0 {
				return true, 0
			}
			start = pos + i
		} else {
			end := len(text)
			if pos+matchBlock < end {
				if nl := bytes.IndexByte(text[pos+matchBlock:], '\n'); nl >= 0 {
					end = pos + matchBlock + nl
				}
			}
			loc := m.re.FindIndex(text[pos:end])
			if loc == nil {
				if end == len(text) {
					return true, 0
				}
				pos = end + 1
				if stopped() {
					return false, lines
				}
				continue
			}
			start = pos + loc[0]
			if start == len(text) && text[start-1] == '\n' {
				return true, 0 // after the last newline there is no line
			}
		}
		ls := bytes.LastIndexByte(text[:start], '\n') + 1
		le := bytes.IndexByte(text[start:], '\n')
		if le < 0 {
			le = len(text)
		} else {
			le += start
		}
		line := text[ls:le]
		col := start - ls
		if len(m.lit.b) > 0 {
			if !m.othersIn(line) {
				pos = le + 1
				continue
			}
			loc := m.re.FindIndex(line)
			if loc == nil {
				pos = le + 1
				continue
			}
			col = loc[0]
		}
		lineNo += bytes.Count(text[counted:ls], []byte{'\n'})
		counted = ls
		if !fn(Line{Number: lineNo, Column: col + 1, Start: ls, End: le}) {
			return true, 0
		}
		pos = le + 1
	}
	return true, 0
}
