package index

import (
	"bytes"
	"fmt"
	"regexp"
	"regexp/syntax"
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
	// lit is a string every match contains (in lower case when fold), found with
	// bytes.Index before the regular expression runs on the line around it; empty when
	// there is none.
	lit  []byte
	rare int // position of lit's rarest byte, for a case-insensitive search
	fold bool
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
	re = re.Simplify()
	compiled, err := regexp.Compile(re.String())
	if err != nil {
		return nil, fmt.Errorf("query is not a valid RE2 regular expression: %v", err)
	}
	m := &Matcher{re: compiled, query: RegexpQuery(re), fold: !caseSensitive}
	m.lit = requiredLiteral(re, !caseSensitive)
	m.rare = rarest(m.lit)
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

// requiredLiteral returns the longest literal that every match of re contains, for a fast
// first pass; in lower case when fold. With fold, only the runs of letters that fold within
// ASCII can serve (not k or s, which fold to the Kelvin sign and the long s, nor non-ASCII
// letters): the longest such run of a literal is taken.
func requiredLiteral(re *syntax.Regexp, fold bool) []byte {
	var subs []*syntax.Regexp
	switch re.Op {
	case syntax.OpLiteral:
		subs = []*syntax.Regexp{re}
	case syntax.OpConcat:
		subs = re.Sub
	case syntax.OpCapture:
		return requiredLiteral(re.Sub[0], fold)
	}
	var best []byte
	for _, s := range subs {
		if s.Op != syntax.OpLiteral || (s.Flags&syntax.FoldCase != 0) != fold {
			continue
		}
		if !fold {
			if lit := []byte(string(s.Rune)); len(lit) > len(best) {
				best = lit
			}
			continue
		}
		var run []byte
		for _, r := range append(s.Rune, -1) {
			if r >= 0 && r < utf8RuneSelf && (unicode.SimpleFold(r) == r || asciiFoldOnly(r)) {
				run = append(run, lowerASCII(byte(r)))
				continue
			}
			if len(run) > len(best) {
				best = run
			}
			run = nil
		}
	}
	return best
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

// rarest returns the position in lit of its rarest byte.
func rarest(lit []byte) int {
	best, rank := 0, -1
	for i, c := range lit {
		r := strings.IndexByte(byteRank, c)
		if r < 0 {
			r = len(byteRank)
		}
		if r > rank {
			best, rank = i, r
		}
	}
	return best
}

// foldIndex returns the first offset of m.lit in hay, ASCII case ignored: it finds the
// needle's rarest byte in either case with bytes.IndexByte, then compares around it.
func (m *Matcher) foldIndex(hay []byte) int {
	n, r := len(m.lit), m.rare
	lo := m.lit[r]
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
		if equalFoldASCII(hay[start:start+n], m.lit) {
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

// Query returns the trigram query that narrows the files to read.
func (m *Matcher) Query() *Query { return m.query }

// Line is one matching line of a text.
type Line struct {
	Number int // 1-based
	Column int // 1-based byte offset of the first match in the line
	Start  int // offset of the line in the text
	End    int // offset of its end (its newline, or the end of the text)
}

// Match calls fn for each matching line of text in order, until fn returns false.
func (m *Matcher) Match(text []byte, fn func(Line) bool) {
	lineNo, counted := 1, 0 // lines counted up to offset counted
	pos := 0
	for pos < len(text) {
		var start int
		if len(m.lit) > 0 {
			var i int
			if m.fold {
				i = m.foldIndex(text[pos:])
			} else {
				i = bytes.Index(text[pos:], m.lit)
			}
			if i < 0 {
				return
			}
			start = pos + i
		} else {
			loc := m.re.FindIndex(text[pos:])
			if loc == nil {
				return
			}
			start = pos + loc[0]
			if start == len(text) && text[start-1] == '\n' {
				return // after the last newline there is no line
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
		if len(m.lit) > 0 {
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
			return
		}
		pos = le + 1
	}
}
