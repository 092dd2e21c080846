package graph

import (
	"context"
	"sort"
	"strings"
	"unicode/utf8"
)

// Match is a declaration a search found, and how well it matched.
type Match struct {
	QName     string `json:"qualified_name"`
	Kind      string `json:"kind"`
	File      string `json:"file,omitempty"`
	Line      int    `json:"line,omitempty"`
	Signature string `json:"signature,omitempty"`
	// How is how the name matched: "exact", "case" (but for case), "prefix", "contains", or
	// "fuzzy" (a few letters differ: a typo).
	How   string `json:"match"`
	score int
}

// Kinds a search may ask for by a word people use: "class" is any kind of type.
var kindWords = map[string][]string{
	"class": {"struct", "interface", "type", "alias", "class", "enum", "trait", "union"},
	"type":  {"struct", "interface", "type", "alias", "class", "enum", "trait", "union"},
	"func":  {"func", "function"},
}

// ExpandKinds turns kind words ("class", "type", "func") into the kinds nodes have.
func ExpandKinds(words []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range words {
		ks, ok := kindWords[w]
		if !ok {
			ks = []string{w}
		}
		for _, k := range ks {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}

// Search finds declarations by name, in one project (0: any), of the given kinds (none: any):
// the name exactly, then but for case, then names that begin with it, contain it, or differ
// from it by a typo or two. A qualified query ("packages.Lod", "http.Client.Do") also matches
// the qualifier against the declaration's package and type, and ranks those that match first.
func (s *Store) Search(ctx context.Context, project int64, query string, kinds []string, limit int) ([]Match, error) {
	query = Normalize(query)
	qual, name := "", query
	if i := strings.LastIndexAny(query, "./:"); i >= 0 {
		qual, name = strings.TrimRight(query[:i], ":"), query[i+1:]
	}
	if name == "" {
		return nil, nil
	}
	// Every distinct name (from the index on nodes.name), scored in Go: the graph of the
	// whole standard library has some 60,000, which takes milliseconds.
	rows, err := s.ro.QueryContext(ctx, "SELECT DISTINCT name FROM nodes WHERE ?1 = 0 OR project_id = ?1", project)
	if err != nil {
		return nil, err
	}
	lname := strings.ToLower(name)
	scored := map[string]int{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return nil, err
		}
		if sc, ok := nameScore(n, name, lname); ok {
			scored[n] = sc
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(scored) == 0 {
		return nil, nil
	}
	// The best-scoring names first: a name with thousands of declarations must not crowd
	// out the rest, and a few hundred names are plenty to rank.
	names := make([]string, 0, len(scored))
	for n := range scored {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if scored[names[i]] != scored[names[j]] {
			return scored[names[i]] < scored[names[j]]
		}
		return names[i] < names[j]
	})
	names = names[:min(len(names), 500)]
	args := []any{project}
	for _, n := range names {
		args = append(args, n)
	}
	q := `SELECT n.name, n.qualified_name, n.kind, COALESCE(f.path, ''), COALESCE(n.line, 0), n.signature, COALESCE(pk.path, '')
		FROM nodes n LEFT JOIN files f ON f.id = n.file_id LEFT JOIN packages pk ON pk.id = n.package_id
		WHERE (?1 = 0 OR n.project_id = ?1) AND n.name IN (` + placeholders(len(names)) + `)`
	if len(kinds) > 0 {
		q += " AND n.kind IN (" + placeholders(len(kinds)) + ")"
		for _, k := range kinds {
			args = append(args, k)
		}
	}
	rows, err = s.ro.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Match
	seen := map[string]bool{}
	for rows.Next() {
		var m Match
		var n, pkg string
		if err := rows.Scan(&n, &m.QName, &m.Kind, &m.File, &m.Line, &m.Signature, &pkg); err != nil {
			return nil, err
		}
		if seen[m.QName] {
			continue // the init functions of a package share a name
		}
		seen[m.QName] = true
		m.score = scored[n] * 10
		m.How = how(scored[n])
		if qual != "" {
			m.score += qualifierPenalty(strings.TrimSuffix(strings.TrimSuffix(m.QName, "."+n), "::"+n), qual)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.score != b.score {
			return a.score < b.score
		}
		if len(a.QName) != len(b.QName) {
			return len(a.QName) < len(b.QName)
		}
		return a.QName < b.QName
	})
	return out[:min(len(out), limit)], nil
}

// Scores of a name, best first. A fuzzy match scores scoreFuzzy plus its distance.
const (
	scoreExact = iota
	scoreCase
	scorePrefix
	scoreContains
	scoreFuzzy
)

func how(score int) string {
	switch score {
	case scoreExact:
		return "exact"
	case scoreCase:
		return "case"
	case scorePrefix:
		return "prefix"
	case scoreContains:
		return "contains"
	}
	return "fuzzy"
}

// nameScore says whether a declared name n matches the name searched for, and how well.
func nameScore(n, name, lname string) (int, bool) {
	if n == name {
		return scoreExact, true
	}
	ln := strings.ToLower(n)
	switch {
	case ln == lname:
		return scoreCase, true
	case strings.HasPrefix(ln, lname):
		return scorePrefix, true
	case strings.Contains(ln, lname):
		return scoreContains, true
	}
	// A typo: up to one edit in a short name, two in a longer one, three in a long one.
	allowed := 1
	switch l := utf8.RuneCountInString(name); {
	case l > 10:
		allowed = 3
	case l > 4:
		allowed = 2
	case l < 3:
		return 0, false
	}
	if d := distance(ln, lname, allowed); d <= allowed {
		return scoreFuzzy + d, true
	}
	return 0, false
}

// qualifierPenalty ranks how well a declaration's qualifier (its package path, and type for
// a method or field) matches the qualifier of the query: 0 when it ends with it at a
// boundary ("golang.org/x/tools/go/packages" for "packages"), more for a typo in it, most
// for no match.
func qualifierPenalty(have, want string) int {
	lh, lw := strings.ToLower(have), strings.ToLower(want)
	if lh == lw || strings.HasSuffix(lh, "/"+lw) || strings.HasSuffix(lh, "."+lw) || strings.HasSuffix(lh, "::"+lw) {
		return 0
	}
	// The package's name and a type: "http.Client" for "net/http.Client".
	if i := strings.LastIndex(lh, "/"); i >= 0 && lh[i+1:] == lw {
		return 0
	}
	if strings.Contains(lh, lw) {
		return 2
	}
	last := lh[strings.LastIndexAny(lh, "./")+1:]
	wlast := lw[strings.LastIndexAny(lw, "./")+1:]
	if d := distance(last, wlast, 2); d <= 2 {
		return 2 + d
	}
	return 9
}

// distance is the optimal string alignment distance of a and b (insertions, deletions,
// substitutions and swaps of two neighbours), or max+1 once it exceeds max.
func distance(a, b string, max int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d > max || -d > max {
		return max + 1
	}
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			best = min(best, v)
		}
		if best > max {
			return max + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
