// Package langref compares the calls codegraph resolved, in the languages it parses with
// tree-sitter, with where each language's own tooling says they go (jedi for Python, the
// TypeScript compiler for TypeScript and JavaScript, javac for Java, libclang for C and C++,
// rustc for Rust): the referees of its precision and recall.
package langref

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Place is a file (relative to the project's root) and line.
type Place struct {
	File string
	Line int
}

// Site is where a call's name is: file, line and column (1-based, columns in bytes).
type Site struct {
	File      string
	Line, Col int
}

// RefCall is what the reference tool said of a call: the declarations it goes to, inside the
// project (none when the tool could not tell, or it goes outside).
type RefCall struct {
	Site    Site
	Name    string
	Targets []Place
	// Outside: the tool says it goes to a declaration outside the project (rustc says so of
	// every call it does not resolve into the crate; the other tools are not asked).
	Outside bool
}

// ReadRef reads the reference's JSON lines: {"file", "line", "col", "name", "targets":
// [[file, line], ...], "outside"}.
func ReadRef(r io.Reader) ([]RefCall, error) {
	var out []RefCall
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var j struct {
			File    string  `json:"file"`
			Line    int     `json:"line"`
			Col     int     `json:"col"`
			Name    string  `json:"name"`
			Targets [][]any `json:"targets"`
			Outside bool    `json:"outside"`
		}
		if err := json.Unmarshal(sc.Bytes(), &j); err != nil {
			return nil, fmt.Errorf("%s: %w", sc.Text(), err)
		}
		c := RefCall{Site: Site{j.File, j.Line, j.Col}, Name: j.Name, Outside: j.Outside}
		for _, t := range j.Targets {
			if len(t) == 2 {
				f, _ := t[0].(string)
				l, _ := t[1].(float64)
				c.Targets = append(c.Targets, Place{f, int(l)})
			}
		}
		out = append(out, c)
	}
	return out, sc.Err()
}

// Edge is a call codegraph resolved to a declaration of the project.
type Edge struct {
	Site       Site
	Target     Place
	Resolution string // scope or name
}

// Score is how codegraph's calls compare with the reference's, on the sites the reference
// lists.
type Score struct {
	Sites int // calls the reference looked at
	// Resolved: those the reference resolved to a declaration of the project.
	Resolved int
	// On the calls the reference resolved: TP, codegraph named one of its targets; FP, it
	// named another declaration; FN, it named none of them. FP counts too the calls the
	// reference says go outside the project and codegraph resolved into it (Outside).
	TP, FP, FN int
	Outside    int
	// Unconfirmed: calls codegraph resolved and the reference did not (jedi gives up on
	// some self.m() that codegraph finds in the class): neither right nor wrong here.
	Unconfirmed int
	// By resolution, the same counts for codegraph's scope and name edges.
	ByResolution map[string]*Score
	// Wrong lists a few false positives, for a person to read.
	Wrong []string
}

// Precision is TP / (TP + FP).
func (s *Score) Precision() float64 { return ratio(s.TP, s.TP+s.FP) }

// Recall is TP / (TP + FN).
func (s *Score) Recall() float64 { return ratio(s.TP, s.TP+s.FN) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

// Compare scores codegraph's edges against the reference, site by site.
func Compare(ref []RefCall, edges []Edge) *Score {
	ours := map[Site][]Edge{}
	for _, e := range edges {
		ours[e.Site] = append(ours[e.Site], e)
	}
	s := &Score{ByResolution: map[string]*Score{}}
	by := func(res string) *Score {
		if s.ByResolution[res] == nil {
			s.ByResolution[res] = &Score{}
		}
		return s.ByResolution[res]
	}
	for _, c := range ref {
		s.Sites++
		want := map[Place]bool{}
		for _, t := range c.Targets {
			want[t] = true
		}
		if len(want) > 0 {
			s.Resolved++
		}
		got := ours[c.Site]
		if len(want) == 0 {
			switch {
			case len(got) > 0 && c.Outside:
				s.Outside++
				s.FP++
				by(got[0].Resolution).FP++
				s.wrong(c, got[0])
			case len(got) > 0:
				s.Unconfirmed++
			}
			continue
		}
		// Overloads share a qualified name, so an edge reaches every declaration of the
		// name: it is right when one of them is the reference's.
		hit := false
		for _, e := range got {
			hit = hit || want[e.Target]
		}
		if len(got) > 0 {
			r := by(got[0].Resolution)
			if hit {
				s.TP++
				r.TP++
			} else {
				s.FP++
				r.FP++
				s.wrong(c, got[0])
			}
		}
		if !hit {
			s.FN++
		}
	}
	return s
}

// wrong keeps a false positive for a person to read, the first 20.
func (s *Score) wrong(c RefCall, e Edge) {
	if len(s.Wrong) >= 20 {
		return
	}
	ref := fmt.Sprint(c.Targets)
	if c.Outside {
		ref = "outside"
	}
	s.Wrong = append(s.Wrong, fmt.Sprintf("%s:%d:%d %s: codegraph %s:%d (%s), reference %s", c.Site.File, c.Site.Line, c.Site.Col, c.Name, e.Target.File, e.Target.Line, e.Resolution, ref))
}

// String is the score in a line.
func (s *Score) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d calls, %d resolved by the reference; precision %.3f, recall %.3f (TP %d, FP %d, FN %d; %d resolved by codegraph alone)",
		s.Sites, s.Resolved, s.Precision(), s.Recall(), s.TP, s.FP, s.FN, s.Unconfirmed)
	if s.Outside > 0 {
		fmt.Fprintf(&b, "; of the FP, %d calls the reference says go outside the project", s.Outside)
	}
	var keys []string
	for k := range s.ByResolution {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		r := s.ByResolution[k]
		fmt.Fprintf(&b, "; %s edges: precision %.3f (%d of %d)", k, r.Precision(), r.TP, r.TP+r.FP)
	}
	return b.String()
}
