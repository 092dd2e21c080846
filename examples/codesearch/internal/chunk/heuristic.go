package chunk

import (
	"regexp"
	"strings"
)

// braceChunks finds the blocks of a brace language: at the top level, each statement that
// opens a block (a function, a class, an impl...) is a chunk from its first line (after
// the comment lines right above it) to its closing brace. A class-like block with members
// becomes the members (functions become methods) plus a chunk of its head, so that no line
// is in two chunks. It is a scanner, not a parser: it knows comments and strings, not the
// grammar, and names what it finds from the text before the brace.
func braceChunks(src []byte, lang language) []Chunk {
	lines := splitLines(src)
	depth, comment := braceDepths(src, len(lines), lang)
	return blocks(lines, depth, comment, 0, len(lines)-1, 0, "")
}

// braceDepths returns the brace depth at the start of each line (and after the last), and
// which lines hold only comments.
func braceDepths(src []byte, n int, lang language) (depth []int, comment []bool) {
	depth = make([]int, n+1)
	comment = make([]bool, n)
	const (
		code = iota
		lineComment
		blockComment
		str
	)
	state, quote, d, line := code, byte(0), 0, 0
	hasCode := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		if c == '\n' {
			if state == lineComment || state == str && quote != '`' {
				state = code
			}
			if line < n {
				comment[line] = !hasCode && state != str
			}
			line++
			if line <= n {
				depth[line] = d
			}
			hasCode = false
			continue
		}
		switch state {
		case code:
			switch {
			case c == '/' && i+1 < len(src) && src[i+1] == '/', lang.hash && c == '#':
				state = lineComment
			case c == '/' && i+1 < len(src) && src[i+1] == '*':
				state = blockComment
				i++
			case c == '\'' && lang.charQuote:
				// A character literal closes within a few bytes; otherwise the quote is a
				// lifetime ('a in Rust) or a label, not a string.
				if end := charLiteralEnd(src[i:]); end > 0 {
					i += end
				}
				hasCode = true
			case c == '"' || c == '\'' || c == '`' && lang.backtick:
				state, quote, hasCode = str, c, true
			case c == '{':
				d++
				hasCode = true
			case c == '}':
				d = max(0, d-1)
				hasCode = true
			case c != ' ' && c != '\t' && c != '\r':
				hasCode = true
			}
		case blockComment:
			if c == '*' && i+1 < len(src) && src[i+1] == '/' {
				state = code
				i++
			}
		case str:
			if c == '\\' {
				i++
			} else if c == quote {
				state = code
			}
		}
	}
	if line < n { // the last line has no newline
		comment[line] = !hasCode && state != str
		depth[line+1] = d
	}
	return depth, comment
}

// charLiteralEnd returns the offset of the quote that closes the character literal
// starting at s[0], or 0 if none closes on this line within a few bytes.
func charLiteralEnd(s []byte) int {
	for i := 1; i < len(s) && i < 12; i++ {
		switch s[i] {
		case '\\':
			i++
		case '\'':
			return i
		case '\n':
			return 0
		}
	}
	return 0
}

// blocks finds the blocks at depth d among lines [from, to]; in a container (a class...)
// functions are methods.
func blocks(lines []string, depth []int, comment []bool, from, to, d int, container string) []Chunk {
	var out []Chunk
	stmt := -1 // first line of the statement being read
	for i := from; i <= to; i++ {
		blank := strings.TrimSpace(lines[i]) == ""
		if depth[i] != d || blank || comment[i] && stmt < 0 {
			continue
		}
		if stmt < 0 {
			stmt = i
		}
		if depth[i+1] <= d {
			if t := strings.TrimSpace(lines[i]); strings.HasSuffix(t, ";") || strings.HasSuffix(t, "}") || strings.HasSuffix(t, ",") {
				stmt = -1
			}
			continue
		}
		// Line i opens a block: it ends on the line after which the depth is back to d.
		end := i
		for end < to && depth[end+1] > d {
			end++
		}
		head := strings.Join(lines[stmt:i+1], " ")
		if k := strings.IndexByte(head, '{'); k >= 0 {
			head = head[:k]
		}
		kind, name := nameBlock(head, container)
		start := stmt
		for start > from && comment[start-1] && strings.TrimSpace(lines[start-1]) != "" {
			start--
		}
		c := Chunk{Kind: kind, Name: name, StartLine: start + 1, EndLine: end + 1}
		var members []Chunk
		if isContainer(kind) && end-i > 1 {
			members = blocks(lines, depth, comment, i+1, end-1, d+1, kind)
		}
		if len(members) > 0 {
			if members[0].StartLine > c.StartLine {
				out = append(out, Chunk{Kind: kind, Name: name, StartLine: c.StartLine, EndLine: members[0].StartLine - 1})
			}
			for k := range members {
				if container == "" {
					members[k].Name = qualify(name, members[k].Name)
				}
			}
			out = append(out, members...)
		} else {
			out = append(out, c)
		}
		i = end
		stmt = -1
	}
	return out
}

var (
	containerRe = regexp.MustCompile(`\b(class|interface|struct|enum|trait|impl|namespace|module|object|record|protocol|extension|union|message|service)\s+([A-Za-z_$][\w$.:]*(?:<[^>{]*>)?(?:\s+for\s+[A-Za-z_$][\w$.:]*)?)`)
	funcRe      = regexp.MustCompile(`\b(?:function\*?|fn|func|fun|def)\s+([A-Za-z_$][\w$]*)`)
	arrowRe     = regexp.MustCompile(`\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=]*)?=\s*(?:async\s*)?(?:function\b|\([^)]*\)\s*(?::[^=]*)?=>|[A-Za-z_$][\w$]*\s*=>)`)
	varRe       = regexp.MustCompile(`^\s*(?:export\s+)?(?:default\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)`)
	callRe      = regexp.MustCompile(`([A-Za-z_$~][\w$~]*(?:::[A-Za-z_$~][\w$~]*)*)\s*(?:<[^<>()]*>)?\s*\(`)
)

// keywords that open blocks but are not declarations.
var controlWords = map[string]bool{"if": true, "for": true, "while": true, "switch": true, "catch": true, "return": true,
	"sizeof": true, "foreach": true, "using": true, "lock": true, "synchronized": true, "with": true, "match": true, "elif": true, "else": true}

// nameBlock says what the text before a block's brace declares.
func nameBlock(head, container string) (kind, name string) {
	fn := "function"
	if container != "" && container != "namespace" && container != "module" {
		fn = "method"
	}
	if m := containerRe.FindStringSubmatch(head); m != nil && !strings.Contains(head[:strings.Index(head, m[0])], "(") {
		return m[1], strings.TrimSpace(m[2])
	}
	if m := funcRe.FindStringSubmatch(head); m != nil {
		return fn, m[1]
	}
	if m := arrowRe.FindStringSubmatch(head); m != nil {
		return fn, m[1]
	}
	if m := varRe.FindStringSubmatch(head); m != nil {
		return "variable", m[1]
	}
	if m := callRe.FindStringSubmatch(head); m != nil {
		name := m[1]
		if i := strings.LastIndex(name, "::"); i >= 0 && container == "" {
			fn = "method"
		}
		if !controlWords[name] && !strings.Contains(head, "=") {
			return fn, name
		}
	}
	return "block", ""
}

func isContainer(kind string) bool {
	switch kind {
	case "class", "interface", "struct", "enum", "trait", "impl", "namespace", "module", "object", "record", "protocol", "extension", "service":
		return true
	}
	return false
}

func qualify(outer, inner string) string {
	if outer == "" || inner == "" {
		return inner
	}
	return outer + "." + inner
}

var pyDefRe = regexp.MustCompile(`^(\s*)(?:async\s+def|def|class)\s+([A-Za-z_]\w*)`)

// indentChunks finds Python's functions and classes (and a class's methods) by
// indentation, each with the decorators and comment lines right above it.
func indentChunks(src []byte) []Chunk {
	lines := splitLines(src)
	return pyBlocks(lines, 0, len(lines)-1, "", "")
}

func pyBlocks(lines []string, from, to int, indent, class string) []Chunk {
	var out []Chunk
	for i := from; i <= to; i++ {
		m := pyDefRe.FindStringSubmatch(lines[i])
		if m == nil || m[1] != indent {
			continue
		}
		end := i
		for j := i + 1; j <= to; j++ {
			t := strings.TrimSpace(lines[j])
			if t == "" {
				continue
			}
			if ind := lines[j][:len(lines[j])-len(strings.TrimLeft(lines[j], " \t"))]; len(ind) <= len(indent) {
				if strings.HasPrefix(t, "#") {
					continue // a comment at this level may belong to what follows
				}
				break
			}
			end = j
		}
		start := i
		for start > from {
			t := strings.TrimSpace(lines[start-1])
			if !strings.HasPrefix(t, "@") && !strings.HasPrefix(t, "#") {
				break
			}
			start--
		}
		kind := "function"
		if strings.HasPrefix(strings.TrimSpace(lines[i]), "class") {
			kind = "class"
		} else if class != "" {
			kind = "method"
		}
		name := m[2]
		if class != "" {
			name = class + "." + name
		}
		c := Chunk{Kind: kind, Name: name, StartLine: start + 1, EndLine: end + 1}
		var members []Chunk
		if kind == "class" && end > i {
			body := ""
			for j := i + 1; j <= end; j++ {
				if t := strings.TrimSpace(lines[j]); t != "" {
					body = lines[j][:len(lines[j])-len(strings.TrimLeft(lines[j], " \t"))]
					break
				}
			}
			if len(body) > len(indent) {
				members = pyBlocks(lines, i+1, end, body, name)
			}
		}
		if len(members) > 0 {
			out = append(out, Chunk{Kind: kind, Name: name, StartLine: c.StartLine, EndLine: members[0].StartLine - 1})
			out = append(out, members...)
		} else {
			out = append(out, c)
		}
		i = end
	}
	return out
}

// headingChunks cuts Markdown at its headings (outside fenced code), a section running to
// the next heading.
func headingChunks(src []byte) []Chunk {
	lines := splitLines(src)
	var out []Chunk
	fence := false
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = !fence
			continue
		}
		if fence || !strings.HasPrefix(l, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(l, "#"))
		if len(out) > 0 {
			out[len(out)-1].EndLine = i
		} else if i > 0 {
			out = append(out, Chunk{Kind: "section", StartLine: 1, EndLine: i})
		}
		out = append(out, Chunk{Kind: "section", Name: title, StartLine: i + 1, EndLine: len(lines)})
	}
	return out
}
