package docscheck

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/internal/spelling"
)

var (
	schemeRE     = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
	lineAnchorRE = regexp.MustCompile(`^L([0-9]+)(?:-L([0-9]+))?$`)
)

// repoLinks says which absolute links lead into a repository on this machine: those that
// start with url, whose rest is a path from root.
type repoLinks struct {
	url, root string
}

// checkLinks checks that every relative link of p leads somewhere: a file or directory in
// the repository, and, with a #fragment, a heading of a Markdown file or a line of another.
// Links with a scheme (https:, mailto:) are not followed, but for those into repo.
func checkLinks(root string, p *page, pages map[string]*page, repo repoLinks) []Problem {
	var problems []Problem
	bad := func(l link, format string, args ...any) {
		problems = append(problems, Problem{p.path, l.line, "link " + strconv.Quote(l.dest) + ": " + fmt.Sprintf(format, args...)})
	}
	for _, l := range p.links {
		if l.dest == "" {
			bad(l, "an empty link")
			continue
		}
		dest, base, pageRel := l.dest, root, p.path
		if rest, ok := strings.CutPrefix(dest, repo.url); ok && repo.url != "" {
			dest, base, pageRel = "/"+rest, repo.root, ""
		} else if schemeRE.MatchString(dest) || strings.HasPrefix(dest, "//") {
			continue
		}
		target, frag, _ := strings.Cut(dest, "#")
		if strings.Contains(frag, "#") {
			bad(l, "two # in one link")
			continue
		}
		target, _, _ = strings.Cut(target, "?")
		if t, err := url.PathUnescape(target); err == nil {
			target = t
		}
		var rel string
		switch {
		case target == "":
			rel = pageRel
		case strings.HasPrefix(target, "/"):
			rel = path.Clean(strings.TrimPrefix(target, "/")) // GitHub: from the repository's root
		default:
			rel = path.Join(path.Dir(pageRel), target)
		}
		if rel == ".." || strings.HasPrefix(rel, "../") {
			bad(l, "leads out of the repository")
			continue
		}
		abs := filepath.Join(base, filepath.FromSlash(rel))
		info, err := os.Stat(abs)
		if err != nil {
			bad(l, "%s does not exist", rel)
			continue
		}
		if frag == "" {
			continue
		}
		switch {
		case info.IsDir():
			bad(l, "%s is a directory: an anchor needs a file", rel)
		case strings.HasSuffix(rel, ".md"):
			key := rel
			if base != root {
				key = abs
			}
			target := pages[key]
			if target == nil {
				if target, err = loadPage(base, rel, func(int, string) {}); err != nil {
					bad(l, "%v", err)
					continue
				}
				pages[key] = target
			}
			if !target.anchors[frag] {
				bad(l, "%s has no heading with the anchor #%s%s", rel, frag, suggest(frag, target.anchors))
			}
		default:
			m := lineAnchorRE.FindStringSubmatch(frag)
			if m == nil {
				bad(l, "#%s: a file that is not Markdown has only line anchors (#L10, #L10-L20)", frag)
				continue
			}
			data, err := os.ReadFile(abs)
			if err != nil {
				bad(l, "%v", err)
				continue
			}
			n := bytes.Count(data, []byte("\n"))
			if len(data) > 0 && data[len(data)-1] != '\n' {
				n++
			}
			for _, s := range m[1:] {
				if v, _ := strconv.Atoi(s); s != "" && (v < 1 || v > n) {
					bad(l, "%s has %d lines, not %d", rel, n, v)
				}
			}
		}
	}
	return problems
}

// suggest names the anchor of the page closest to a missing one, if one is close.
func suggest(missing string, anchors map[string]bool) string {
	best, bestDist := "", len(missing)/3+1
	for a := range anchors {
		if d := spelling.Distance(missing, a); d < bestDist || d == bestDist && best != "" && a < best {
			best, bestDist = a, d
		}
	}
	if best == "" {
		return ""
	}
	return "; did you mean #" + best + "?"
}
