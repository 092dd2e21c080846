package docscheck

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// page is a Markdown file, read into what the checks need: its fenced code blocks, its
// links, and the anchors its headings make.
type page struct {
	path    string // relative to the root, with slashes
	blocks  []block
	links   []link
	anchors map[string]bool
}

// block is a fenced code block.
type block struct {
	line int    // of the opening fence, 1-based
	lang string // the info string's first word: "go", "sh"
	text string // the lines between the fences, with the fence's indentation removed
	// skip and dir come from a <!-- docscheck: ... --> comment right before the fence.
	skip bool
	dir  string
}

// link is a link destination found in the page's text.
type link struct {
	line int
	dest string
}

var (
	fenceRE     = regexp.MustCompile("^( *)(```+|~~~+)[ \t]*([^ \t`]*)")
	atxRE       = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)
	setextRE    = regexp.MustCompile(`^ {0,3}(=+|-+)[ \t]*$`)
	directiveRE = regexp.MustCompile(`^\s*<!--\s*docscheck:\s*(.*?)\s*-->\s*$`)
	refDefRE    = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:[ \t]*<?([^ \t>]+)>?`)
	htmlAttrRE  = regexp.MustCompile(`<[a-zA-Z][^>]*?\s(?:href|src)\s*=\s*"([^"]*)"`)
	htmlIDRE    = regexp.MustCompile(`<a\s[^>]*?(?:id|name)\s*=\s*"([^"]+)"`)
)

// parsePage reads a page. Problems with the page's own syntax (a fence never closed, a
// docscheck comment it does not know) are reported through report.
func parsePage(path, text string, report func(line int, msg string)) *page {
	p := &page{path: path, anchors: map[string]bool{}}
	lines := strings.Split(text, "\n")
	slugs := map[string]int{}
	addHeading := func(raw string) {
		slug := githubSlug(raw)
		if n, ok := slugs[slug]; ok {
			slugs[slug] = n + 1
			slug += "-" + strconv.Itoa(n+1)
		} else {
			slugs[slug] = 0
		}
		p.anchors[slug] = true
	}
	var para []int // line indexes of the paragraph being read
	flush := func() {
		p.scanInline(lines, para)
		para = nil
	}
	pending := ""
	pendingLine := 0
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if m := directiveRE.FindStringSubmatch(l); m != nil {
			flush()
			pending, pendingLine = m[1], i+1
			continue
		}
		if m := fenceRE.FindStringSubmatch(l); m != nil && len(m[1]) <= 12 {
			flush()
			indent, fence := len(m[1]), m[2]
			b := block{line: i + 1, lang: strings.ToLower(m[3])}
			if pending != "" {
				b.skip, b.dir = parseDirective(pending, func(msg string) { report(pendingLine, msg) })
				pending = ""
			}
			var body []string
			closed := false
			for i++; i < len(lines); i++ {
				t := strings.TrimLeft(lines[i], " ")
				if strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]+" \t") == "" {
					closed = true
					break
				}
				body = append(body, dedent(lines[i], indent))
			}
			if !closed {
				report(b.line, "a code block that is never closed")
			}
			b.text = strings.Join(body, "\n") + "\n"
			p.blocks = append(p.blocks, b)
			continue
		}
		if pending != "" {
			report(pendingLine, "a docscheck comment must come right before a code block")
			pending = ""
		}
		if strings.TrimSpace(l) == "" {
			flush()
			continue
		}
		if m := atxRE.FindStringSubmatch(l); m != nil {
			flush()
			addHeading(m[2])
			p.scanInline(lines, []int{i})
			continue
		}
		if len(para) > 0 && setextRE.MatchString(l) && !strings.HasPrefix(strings.TrimSpace(lines[para[len(para)-1]]), "|") {
			// The paragraph so far is a heading's text. ("---" under a table row is a
			// table's delimiter, not a heading.)
			var text []string
			for _, j := range para {
				text = append(text, strings.TrimSpace(lines[j]))
			}
			addHeading(strings.Join(text, " "))
			flush()
			continue
		}
		if m := refDefRE.FindStringSubmatch(l); m != nil {
			flush()
			p.links = append(p.links, link{i + 1, m[1]})
			continue
		}
		for _, m := range htmlIDRE.FindAllStringSubmatch(l, -1) {
			p.anchors[m[1]] = true
		}
		para = append(para, i)
	}
	flush()
	if pending != "" {
		report(pendingLine, "a docscheck comment must come right before a code block")
	}
	return p
}

// parseDirective reads the words of a <!-- docscheck: ... --> comment: "skip" leaves the
// next code block out of the checks; "dir=NAME" compiles it in the directory NAME, with the
// page's other blocks of that directory, as one package.
func parseDirective(s string, report func(string)) (skip bool, dir string) {
	for _, w := range strings.Fields(s) {
		switch {
		case w == "skip":
			skip = true
		case strings.HasPrefix(w, "dir=") && validDir(w[len("dir="):]):
			dir = w[len("dir="):]
		default:
			report("unknown docscheck option " + strconv.Quote(w) + "; the options are skip and dir=NAME (letters, digits and _)")
		}
	}
	return skip, dir
}

func validDir(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// dedent removes up to n leading spaces: the indentation of a fence inside a list item.
func dedent(s string, n int) string {
	i := 0
	for i < n && i < len(s) && s[i] == ' ' {
		i++
	}
	return s[i:]
}

// scanInline finds the links in the lines of one paragraph (or heading), outside code spans.
func (p *page) scanInline(lines []string, idx []int) {
	if len(idx) == 0 {
		return
	}
	var text strings.Builder
	var lineOf []int // the page line of each byte of text
	for _, i := range idx {
		text.WriteString(lines[i])
		text.WriteByte('\n')
		for range len(lines[i]) + 1 {
			lineOf = append(lineOf, i+1)
		}
	}
	s := blankCodeSpans(text.String())
	for _, m := range htmlAttrRE.FindAllStringSubmatchIndex(s, -1) {
		p.links = append(p.links, link{lineOf[m[2]], s[m[2]:m[3]]})
	}
	for i := 0; i < len(s); i++ {
		if s[i] != '[' || i > 0 && s[i-1] == '\\' {
			continue
		}
		end := matchBracket(s, i, '[', ']')
		if end < 0 || end+1 >= len(s) || s[end+1] != '(' {
			continue
		}
		close := matchBracket(s, end+1, '(', ')')
		if close < 0 {
			continue
		}
		dest := strings.TrimSpace(s[end+2 : close])
		if strings.HasPrefix(dest, "<") {
			if j := strings.IndexByte(dest, '>'); j > 0 {
				dest = dest[1:j]
			}
		} else if j := strings.IndexAny(dest, " \t\n"); j >= 0 {
			dest = dest[:j] // a title follows
		}
		p.links = append(p.links, link{lineOf[end+2], dest})
		// The link's text may hold links of its own only as images: go on inside it.
	}
}

// matchBracket returns the index of the bracket that closes the one at i, or -1.
func matchBracket(s string, i int, open, close byte) int {
	depth := 0
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case open:
			depth++
		case close:
			depth--
			if depth == 0 {
				return j
			}
		case '\n':
			if j+1 < len(s) && s[j+1] == '\n' {
				return -1
			}
		}
	}
	return -1
}

// blankCodeSpans replaces the contents of code spans (between two runs of as many backticks)
// with spaces, so that what looks like a link inside one is not taken for one. A backtick run
// that no run of the same length closes is literal, as CommonMark says.
func blankCodeSpans(s string) string {
	b := []byte(s)
	for i := 0; i < len(b); {
		if b[i] != '`' {
			i++
			continue
		}
		n := 0
		for i+n < len(b) && b[i+n] == '`' {
			n++
		}
		start := i + n
		closeAt := -1
		for j := start; j < len(b); {
			if b[j] != '`' {
				j++
				continue
			}
			m := 0
			for j+m < len(b) && b[j+m] == '`' {
				m++
			}
			if m == n {
				closeAt = j
				break
			}
			j += m
		}
		if closeAt < 0 {
			i = start
			continue
		}
		for k := start; k < closeAt; k++ {
			if b[k] != '\n' {
				b[k] = ' '
			}
		}
		i = closeAt + n
	}
	return string(b)
}

// githubSlug is the anchor GitHub gives a heading: its text as rendered (code spans' contents,
// links' texts, no emphasis markers), lower-cased, with every character but letters, digits,
// spaces, hyphens and underscores removed, and spaces made hyphens. Duplicates get -1, -2...
// from the caller.
func githubSlug(heading string) string {
	s := heading
	// Links and images: their text.
	for {
		i := strings.Index(s, "](")
		if i < 0 {
			break
		}
		open := strings.LastIndex(s[:i], "[")
		close := matchBracket(s, i+1, '(', ')')
		if open < 0 || close < 0 {
			break
		}
		start := open
		if start > 0 && s[start-1] == '!' {
			start--
		}
		s = s[:start] + s[open+1:i] + s[close+1:]
	}
	s = strings.ReplaceAll(s, "`", "")
	s = strings.ReplaceAll(s, "*", "")
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(s)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
