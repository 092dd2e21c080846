package index

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"regexp/syntax"
)

// A trigram is three bytes of text, ASCII letters folded to lower case, as a 24-bit number.
// The index records which files hold each trigram; a search first narrows the files to those
// that hold the trigrams every match must contain, then reads only those.
type trigram = uint32

// lowerASCII folds an ASCII upper-case letter to lower case; other bytes are left alone,
// so that the index serves case-sensitive and case-insensitive searches alike.
func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// queryOp is the kind of a trigram query.
type queryOp uint8

const (
	qAll  queryOp = iota // every file may match: nothing narrows the search
	qNone                // no file can match
	qAnd                 // files with all of Tri and matching all of Sub
	qOr                  // files with any of Tri or matching any of Sub
)

// Query is a boolean query over trigrams that every file holding a match satisfies.
type Query struct {
	Op  queryOp
	Tri []trigram
	Sub []*Query
}

var (
	queryAll  = &Query{Op: qAll}
	queryNone = &Query{Op: qNone}
)

func (q *Query) String() string {
	switch q.Op {
	case qAll:
		return "+"
	case qNone:
		return "-"
	}
	var parts []string
	for _, t := range q.Tri {
		parts = append(parts, strings.Trim(string([]byte{byte(t >> 16), byte(t >> 8), byte(t)}), ""))
	}
	for _, s := range q.Sub {
		parts = append(parts, "("+s.String()+")")
	}
	sep := " "
	if q.Op == qOr {
		sep = "|"
	}
	return strings.Join(parts, sep)
}

func and(a, b *Query) *Query {
	switch {
	case a.Op == qNone || b.Op == qNone:
		return queryNone
	case a.Op == qAll:
		return b
	case b.Op == qAll:
		return a
	}
	out := &Query{Op: qAnd}
	for _, q := range []*Query{a, b} {
		if q.Op == qAnd {
			out.Tri = append(out.Tri, q.Tri...)
			out.Sub = append(out.Sub, q.Sub...)
		} else {
			out.Sub = append(out.Sub, q)
		}
	}
	slices.Sort(out.Tri)
	out.Tri = slices.Compact(out.Tri)
	return out
}

func or(a, b *Query) *Query {
	switch {
	case a.Op == qAll || b.Op == qAll:
		return queryAll
	case a.Op == qNone:
		return b
	case b.Op == qNone:
		return a
	}
	out := &Query{Op: qOr}
	for _, q := range []*Query{a, b} {
		if q.Op == qOr {
			out.Tri = append(out.Tri, q.Tri...)
			out.Sub = append(out.Sub, q.Sub...)
		} else if q.Op == qAnd && len(q.Tri) == 1 && len(q.Sub) == 0 {
			out.Tri = append(out.Tri, q.Tri[0])
		} else {
			out.Sub = append(out.Sub, q)
		}
	}
	slices.Sort(out.Tri)
	out.Tri = slices.Compact(out.Tri)
	return out
}

// stringQuery is the query that a file holds s: all of its trigrams. A string shorter than
// three bytes says nothing.
func stringQuery(s string) *Query {
	if len(s) < 3 {
		return queryAll
	}
	q := &Query{Op: qAnd}
	for i := 0; i+3 <= len(s); i++ {
		q.Tri = append(q.Tri, trigram(lowerASCII(s[i]))<<16|trigram(lowerASCII(s[i+1]))<<8|trigram(lowerASCII(s[i+2])))
	}
	slices.Sort(q.Tri)
	q.Tri = slices.Compact(q.Tri)
	return q
}

// setQuery is the query that a file holds one of the strings.
func setQuery(set []string) *Query {
	q := queryNone
	for _, s := range set {
		q = or(q, stringQuery(s))
	}
	return q
}

// Limits on the string sets of the analysis: past them, sets are turned into queries and
// shortened, which keeps the analysis linear in the size of the expression.
const (
	maxExact = 16 // strings in an exact set
	maxSet   = 32 // strings in a prefix or suffix set
	maxClass = 16 // characters of a class taken one by one
)

// info is what the analysis knows of the strings a regular expression matches:
//   - exact: all of them, when few (nil when not known);
//   - otherwise prefix and suffix: sets that every match starts and ends with;
//   - match: a query every file holding a match satisfies.
type info struct {
	canEmpty bool
	exact    []string
	prefix   []string
	suffix   []string
	match    *Query
}

func (i info) prefixSet() []string {
	if i.exact != nil {
		return i.exact
	}
	return i.prefix
}

func (i info) suffixSet() []string {
	if i.exact != nil {
		return i.exact
	}
	return i.suffix
}

func anyChar() info { return info{prefix: []string{""}, suffix: []string{""}, match: queryAll} }
func anyString() info {
	return info{canEmpty: true, prefix: []string{""}, suffix: []string{""}, match: queryAll}
}
func emptyString() info {
	return info{canEmpty: true, exact: []string{""}, match: queryAll}
}

// RegexpQuery returns the trigram query for a regular expression as the matcher runs it
// (newlines already taken out of its classes).
func RegexpQuery(re *syntax.Regexp) *Query {
	i := analyze(re)
	q := i.match
	if i.exact != nil {
		return and(q, setQuery(i.exact))
	}
	return and(and(q, setQuery(i.prefix)), setQuery(i.suffix))
}

func analyze(re *syntax.Regexp) info {
	switch re.Op {
	case syntax.OpNoMatch:
		return info{match: queryNone}
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return emptyString()
	case syntax.OpLiteral:
		out := emptyString()
		for _, r := range re.Rune {
			out = concat(out, runeInfo(r, re.Flags&syntax.FoldCase != 0))
		}
		return out
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		return anyChar()
	case syntax.OpCharClass:
		return classInfo(re.Rune)
	case syntax.OpCapture:
		return analyze(re.Sub[0])
	case syntax.OpStar:
		return anyString()
	case syntax.OpQuest:
		x := analyze(re.Sub[0])
		if x.exact != nil {
			x.exact = union(x.exact, []string{""})
			x.canEmpty = true
			return simplify(x)
		}
		return anyString()
	case syntax.OpPlus:
		return plus(analyze(re.Sub[0]))
	case syntax.OpRepeat:
		if re.Min == 0 {
			return anyString()
		}
		return plus(analyze(re.Sub[0]))
	case syntax.OpConcat:
		out := emptyString()
		for _, sub := range re.Sub {
			out = concat(out, analyze(sub))
		}
		return out
	case syntax.OpAlternate:
		out := info{match: queryNone, exact: []string{}}
		for _, sub := range re.Sub {
			out = alternate(out, analyze(sub))
		}
		return out
	}
	return anyString()
}

// plus is x one or more times: it starts as x starts and ends as x ends.
func plus(x info) info {
	if x.exact != nil {
		x.match = and(x.match, setQuery(x.exact))
		x.prefix, x.suffix, x.exact = x.exact, x.exact, nil
	}
	return simplify(x)
}

// runeInfo is one character of a literal: with fold, every case of it.
func runeInfo(r rune, fold bool) info {
	variants := []rune{r}
	if fold {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			variants = append(variants, f)
		}
	}
	return info{exact: runeStrings(variants), match: queryAll}
}

// runeStrings spells runes as the index sees them: ASCII letters in lower case.
func runeStrings(runes []rune) []string {
	var set []string
	for _, r := range runes {
		var buf [utf8.UTFMax]byte
		n := utf8.EncodeRune(buf[:], r)
		for j := range n {
			buf[j] = lowerASCII(buf[j])
		}
		set = append(set, string(buf[:n]))
	}
	slices.Sort(set)
	return slices.Compact(set)
}

// classInfo is a character class: its characters one by one when they are few.
func classInfo(ranges []rune) info {
	var runes []rune
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		if len(runes)+int(hi-lo)+1 > maxClass*2 { // ASCII case pairs fold into one
			return anyChar()
		}
		for r := lo; r <= hi; r++ {
			runes = append(runes, r)
		}
	}
	if len(runes) == 0 {
		return info{match: queryNone}
	}
	set := runeStrings(runes)
	if len(set) > maxClass {
		return anyChar()
	}
	return info{exact: set, match: queryAll}
}

func concat(x, y info) info {
	var out info
	out.canEmpty = x.canEmpty && y.canEmpty
	out.match = and(x.match, y.match)
	if x.exact != nil && y.exact != nil && len(x.exact)*len(y.exact) <= maxExact {
		out.exact = cross(x.exact, y.exact)
		return simplify(out)
	}
	// Every match holds a suffix of x followed by a prefix of y: when there are few such
	// pairs, the trigrams across the boundary narrow the search too.
	if xs, yp := x.suffixSet(), y.prefixSet(); len(xs)*len(yp) <= maxSet {
		out.match = and(out.match, setQuery(cross(xs, yp)))
	}
	if x.exact != nil {
		out.prefix = crossShort(x.exact, y.prefixSet(), true)
	} else {
		out.prefix = x.prefix
	}
	if y.exact != nil {
		out.suffix = crossShort(x.suffixSet(), y.exact, false)
	} else {
		out.suffix = y.suffix
	}
	// What an exact set knew is now only in the prefix and suffix sets: keep it as a query.
	if x.exact != nil {
		out.match = and(out.match, setQuery(x.exact))
	}
	if y.exact != nil {
		out.match = and(out.match, setQuery(y.exact))
	}
	return simplify(out)
}

// crossShort is cross, but when the product would be too large it keeps the first set's
// strings alone (for prefixes) or the second's (for suffixes), which are still valid.
func crossShort(a, b []string, prefix bool) []string {
	if len(a)*len(b) <= maxSet {
		return cross(a, b)
	}
	if prefix {
		return a
	}
	return b
}

func alternate(x, y info) info {
	var out info
	out.canEmpty = x.canEmpty || y.canEmpty
	if x.exact != nil && y.exact != nil && len(x.exact)+len(y.exact) <= maxExact {
		out.exact = union(x.exact, y.exact)
		out.match = or(x.match, y.match)
		if x.match.Op == qNone {
			out.match = y.match
		}
		return simplify(out)
	}
	xm, ym := x.match, y.match
	if x.exact != nil {
		xm = and(xm, setQuery(x.exact))
	}
	if y.exact != nil {
		ym = and(ym, setQuery(y.exact))
	}
	out.match = or(xm, ym)
	out.prefix = union(x.prefixSet(), y.prefixSet())
	out.suffix = union(x.suffixSet(), y.suffixSet())
	return simplify(out)
}

// simplify keeps the sets within their limits: an exact set too large becomes a query and a
// prefix and suffix set; prefix and suffix sets too large are shortened to two bytes (still
// prefixes and suffixes of every match) after their trigrams went into the query.
func simplify(i info) info {
	if i.exact != nil && len(i.exact) > maxExact {
		i.match = and(i.match, setQuery(i.exact))
		i.prefix, i.suffix, i.exact = i.exact, i.exact, nil
	}
	if i.exact == nil {
		if len(i.prefix) > maxSet {
			i.match = and(i.match, setQuery(i.prefix))
			i.prefix = shorten(i.prefix, true)
		}
		if len(i.suffix) > maxSet {
			i.match = and(i.match, setQuery(i.suffix))
			i.suffix = shorten(i.suffix, false)
		}
		if len(i.prefix) > maxSet {
			i.prefix = []string{""}
		}
		if len(i.suffix) > maxSet {
			i.suffix = []string{""}
		}
	}
	return i
}

func shorten(set []string, prefix bool) []string {
	out := make([]string, 0, len(set))
	for _, s := range set {
		if len(s) > 2 {
			if prefix {
				s = s[:2]
			} else {
				s = s[len(s)-2:]
			}
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func cross(a, b []string) []string {
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+y)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func union(a, b []string) []string {
	out := append(append([]string{}, a...), b...)
	slices.Sort(out)
	return slices.Compact(out)
}
