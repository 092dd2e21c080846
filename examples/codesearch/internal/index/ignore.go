package index

import (
	"bufio"
	"bytes"
	"fmt"
	"path"
	"regexp"
	"strings"
)

// ignoreFile is one .gitignore (or .git/info/exclude): its patterns, in order, for the paths
// below the directory it lives in.
type ignoreFile struct {
	dir      string // the directory its patterns are relative to, "." for the root
	patterns []ignorePattern
}

type ignorePattern struct {
	re      *regexp.Regexp // matched against the path relative to dir
	negate  bool           // a "!" pattern: re-include what matched
	dirOnly bool           // a pattern ending in "/": directories only
}

// parseIgnore reads a .gitignore as git does (gitignore(5)): blank lines and # comments
// skipped, trailing spaces trimmed unless escaped, ! negates, a trailing / matches
// directories only, a / at the start or in the middle anchors the pattern to dir, and
// *, ?, [...] and ** are globs. A pattern that cannot be read is skipped, as git skips it.
func parseIgnore(dir string, data []byte) *ignoreFile {
	f := &ignoreFile{dir: dir}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if line == "" || line[0] == '#' {
			continue
		}
		line = trimTrailingSpaces(line)
		var p ignorePattern
		if line[0] == '!' {
			p.negate, line = true, line[1:]
		} else if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") {
			p.dirOnly, line = true, strings.TrimRight(line, "/")
		}
		if line == "" {
			continue
		}
		anchored := strings.Contains(line, "/")
		line = strings.TrimPrefix(line, "/")
		expr, ok := globRegexp(line, false)
		if !ok {
			continue
		}
		if !anchored {
			expr = "(?:.*/)?" + expr
		}
		re, err := regexp.Compile("^" + expr + "$")
		if err != nil {
			continue
		}
		p.re = re
		f.patterns = append(f.patterns, p)
	}
	return f
}

// trimTrailingSpaces drops trailing spaces that are not escaped with a backslash.
func trimTrailingSpaces(s string) string {
	for strings.HasSuffix(s, " ") && !strings.HasSuffix(s, `\ `) {
		s = s[:len(s)-1]
	}
	return s
}

// match reports whether f decides about rel (a path relative to the root, below f.dir), and
// if so whether it is ignored: the last matching pattern decides.
func (f *ignoreFile) match(rel string, isDir bool) (decided, ignored bool) {
	sub := rel
	if f.dir != "." {
		sub = strings.TrimPrefix(rel, f.dir+"/")
	}
	for i := len(f.patterns) - 1; i >= 0; i-- {
		p := f.patterns[i]
		if p.dirOnly && !isDir {
			continue
		}
		if p.re.MatchString(sub) {
			return true, !p.negate
		}
	}
	return false, false
}

// ignoreStack is the .gitignore files that apply in one directory: the root's first, then
// each directory's down to this one. Deeper files take precedence, as in git.
type ignoreStack []*ignoreFile

func (s ignoreStack) ignored(rel string, isDir bool) bool {
	for i := len(s) - 1; i >= 0; i-- {
		if decided, ignored := s[i].match(rel, isDir); decided {
			return ignored
		}
	}
	return false
}

// globRegexp turns a glob into a regular expression (without anchors) over slash-separated
// paths: * and ? never match a slash, ** matches any number of directories, [...] and [!...]
// are classes, a backslash escapes the next character, and with braces, {a,b} is either.
func globRegexp(glob string, braces bool) (string, bool) {
	var b strings.Builder
	depth := 0
	for i := 0; i < len(glob); i++ {
		c := glob[i]
		switch {
		case c == '*' && strings.HasPrefix(glob[i:], "**"):
			atStart := i == 0 || glob[i-1] == '/'
			rest := glob[i+2:]
			switch {
			case atStart && rest == "":
				b.WriteString(".*")
				i++
			case atStart && strings.HasPrefix(rest, "/"):
				b.WriteString("(?:.*/)?")
				i += 2
				for strings.HasPrefix(glob[i+1:], "**/") { // **/**/ is **/, and costs as much again
					i += 3
				}
			default:
				b.WriteString("[^/]*")
				i++
			}
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '[':
			end := strings.IndexByte(glob[i+1:], ']')
			if end == 0 { // "[]...]": a ] first is part of the class
				end = strings.IndexByte(glob[i+2:], ']')
				if end >= 0 {
					end++
				}
			}
			if end < 0 {
				return "", false
			}
			class := glob[i+1 : i+1+end]
			i += 1 + end
			neg := strings.HasPrefix(class, "!") || strings.HasPrefix(class, "^")
			if neg {
				class = class[1:]
			}
			b.WriteByte('[')
			if neg {
				b.WriteString("^/")
			}
			for j := 0; j < len(class); j++ {
				switch ch := class[j]; ch {
				case '\\':
					if j+1 < len(class) {
						j++
						b.WriteString(regexp.QuoteMeta(string(class[j])))
					}
				case '[', ']', '^':
					b.WriteByte('\\')
					b.WriteByte(ch)
				default:
					b.WriteByte(ch)
				}
			}
			b.WriteByte(']')
		case c == '\\' && i+1 < len(glob):
			i++
			b.WriteString(regexp.QuoteMeta(string(glob[i])))
		case braces && c == '{':
			depth++
			b.WriteString("(?:")
		case braces && c == '}' && depth > 0:
			depth--
			b.WriteByte(')')
		case braces && c == ',' && depth > 0:
			b.WriteByte('|')
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	if depth != 0 {
		return "", false
	}
	return b.String(), true
}

// Glob is a compiled file_glob: a pattern without a slash matches a file's name (*.go), one
// with a slash its whole path from the root (cmd/**/*.go).
type Glob struct {
	re       *regexp.Regexp
	basename bool
}

// CompileGlob compiles a file_glob.
func CompileGlob(glob string) (*Glob, error) {
	expr, ok := globRegexp(strings.TrimPrefix(glob, "/"), true)
	if !ok {
		return nil, fmt.Errorf("file_glob %q is not a valid glob: an unclosed [ or {", glob)
	}
	re, err := regexp.Compile("^" + expr + "$")
	if err != nil {
		return nil, fmt.Errorf("file_glob %q is not a valid glob: %v", glob, err)
	}
	return &Glob{re: re, basename: !strings.Contains(glob, "/")}, nil
}

// Match reports whether the file at rel (slash-separated, from the root) matches.
func (g *Glob) Match(rel string) bool {
	if g == nil {
		return true
	}
	if g.basename {
		return g.re.MatchString(path.Base(rel))
	}
	return g.re.MatchString(rel)
}
