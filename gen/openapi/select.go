package openapi

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Selection chooses operations: by tag (tag:issues), method (GET), path (a glob: /repos/*;
// * matches any characters, / too) or operationId or tool name (anything else). An
// operation is selected when some Include selector matches it (or there are none) and no
// Exclude selector does.
type Selection struct {
	include, exclude []matcher
	text             string
}

type matcher func(t *Tool) bool

// NewSelection reads selectors.
func NewSelection(include, exclude []string) (*Selection, error) {
	s := &Selection{}
	for _, list := range []struct {
		in  []string
		out *[]matcher
	}{{include, &s.include}, {exclude, &s.exclude}} {
		for _, raw := range list.in {
			for sel := range strings.SplitSeq(raw, ",") {
				sel = strings.TrimSpace(sel)
				if sel == "" {
					continue
				}
				m, err := selector(sel)
				if err != nil {
					return nil, err
				}
				*list.out = append(*list.out, m)
			}
		}
	}
	var parts []string
	if len(include) > 0 {
		parts = append(parts, "--include "+strings.Join(include, ","))
	}
	if len(exclude) > 0 {
		parts = append(parts, "--exclude "+strings.Join(exclude, ","))
	}
	s.text = strings.Join(parts, " ")
	if s.text == "" {
		s.text = "all"
	}
	return s, nil
}

func (s *Selection) String() string { return s.text }

var httpMethods = []string{"GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE"}

func selector(sel string) (matcher, error) {
	switch {
	case strings.HasPrefix(sel, "tag:"):
		tag := strings.TrimPrefix(sel, "tag:")
		return func(t *Tool) bool {
			return slices.ContainsFunc(t.Op.Tags, func(x string) bool { return strings.EqualFold(x, tag) })
		}, nil
	case slices.Contains(httpMethods, strings.ToUpper(sel)) && strings.ToUpper(sel) == sel:
		return func(t *Tool) bool { return t.Op.Method == sel }, nil
	case strings.HasPrefix(sel, "/"):
		re, err := regexp.Compile("^" + strings.ReplaceAll(regexp.QuoteMeta(sel), `\*`, ".*") + "$")
		if err != nil {
			return nil, fmt.Errorf("selector %q: %v", sel, err)
		}
		return func(t *Tool) bool { return re.MatchString(t.Op.Path) }, nil
	}
	return func(t *Tool) bool { return t.Op.ID == sel || t.Name == sel }, nil
}

// Selects says whether the selection takes the tool's operation.
func (s *Selection) Selects(t *Tool) bool {
	in := len(s.include) == 0
	for _, m := range s.include {
		in = in || m(t)
	}
	for _, m := range s.exclude {
		if m(t) {
			return false
		}
	}
	return in
}
