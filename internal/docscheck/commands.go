package docscheck

import (
	"errors"
	"regexp"
	"strings"
)

// shellLangs are the info strings of blocks whose lines are shell commands.
var shellLangs = map[string]bool{"sh": true, "bash": true, "shell": true, "console": true}

var goGenerateRE = regexp.MustCompile(`^\s*//go:generate\s+(.*)$`)

// checkCommands checks every mcpgen command of p's shell blocks, and of the //go:generate
// lines of its Go blocks, with parse.
func checkCommands(p *page, parse func(args []string) error) []Problem {
	var problems []Problem
	for _, b := range p.blocks {
		if b.skip {
			continue
		}
		for _, c := range commandLines(b) {
			words, err := shellWords(c.text)
			if err != nil {
				problems = append(problems, Problem{p.path, c.line, err.Error() + ": " + c.text})
				continue
			}
			for _, cmd := range splitCommands(words) {
				args, ok := mcpgenArgs(cmd)
				if !ok {
					continue
				}
				if err := parse(args); err != nil {
					problems = append(problems, Problem{p.path, c.line, "mcpgen " + strings.Join(args, " ") + ": " + err.Error()})
				}
			}
		}
	}
	return problems
}

type commandLine struct {
	line int
	text string
}

// commandLines are the commands of a block: the lines of a shell block (a line ending in a
// backslash goes on on the next; a "$ " prompt is dropped, and in a console block only
// such lines are commands), and the //go:generate lines of a Go block.
func commandLines(b block) []commandLine {
	lines := strings.Split(strings.TrimSuffix(b.text, "\n"), "\n")
	var out []commandLine
	switch {
	case b.lang == "go":
		for i, l := range lines {
			if m := goGenerateRE.FindStringSubmatch(l); m != nil {
				out = append(out, commandLine{b.line + 1 + i, m[1]})
			}
		}
	case shellLangs[b.lang]:
		for i := 0; i < len(lines); i++ {
			start := i
			text := lines[i]
			for strings.HasSuffix(text, `\`) && i+1 < len(lines) {
				i++
				text = strings.TrimSuffix(text, `\`) + " " + lines[i]
			}
			if t, ok := strings.CutPrefix(strings.TrimSpace(text), "$ "); ok {
				text = t
			} else if b.lang == "console" {
				continue // output
			}
			out = append(out, commandLine{b.line + 1 + start, text})
		}
	}
	return out
}

// operators separate the commands of a line.
var operators = map[string]bool{"&&": true, "||": true, ";": true, "|": true, "&": true}

// shellWords splits a command line into words as a POSIX shell would, for what
// documentation shows: single and double quotes, backslash escapes, and # comments. The
// operators &&, ||, ;, | and & come back as words of their own when they stand outside
// quotes. Nothing is expanded.
func shellWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	end := func() {
		if inWord {
			words = append(words, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			end()
		case c == '#' && !inWord:
			return words, nil
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("a quote that is never closed")
			}
			cur.WriteString(s[i+1 : i+1+j])
			inWord = true
			i += j + 1
		case c == '"':
			inWord = true
			for i++; ; i++ {
				if i >= len(s) {
					return nil, errors.New("a quote that is never closed")
				}
				if s[i] == '"' {
					break
				}
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		case c == '>' || c == '<':
			// A redirection: its file is no argument. A file descriptor before it (2>) goes too.
			if inWord && strings.Trim(cur.String(), "0123456789") == "" {
				cur.Reset()
				inWord = false
			}
			end()
			for i+1 < len(s) && (s[i+1] == '>' || s[i+1] == '&') {
				i++
			}
			if i+1 < len(s) && s[i] == '&' && s[i+1] >= '0' && s[i+1] <= '9' {
				i++ // >&2: no file follows
				continue
			}
			words = append(words, redirect)
		case c == '&' || c == '|' || c == ';':
			end()
			op := string(c)
			if i+1 < len(s) && (c == '&' || c == '|') && s[i+1] == c {
				op += string(c)
				i++
			}
			words = append(words, op)
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	end()
	return words, nil
}

// redirect stands for a redirection operator among the words of a line; the word after it
// is its file.
const redirect = "\x00redirect"

// splitCommands splits words at the operators, into the commands of a line, leaving out
// redirections.
func splitCommands(words []string) [][]string {
	var cmds [][]string
	var cur []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		if w == redirect {
			i++
			continue
		}
		if operators[w] {
			cmds = append(cmds, cur)
			cur = nil
			continue
		}
		cur = append(cur, w)
	}
	return append(cmds, cur)
}

var envAssignRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

// mcpgenArgs returns the arguments of a command that runs mcpgen: mcpgen (or a path to it,
// such as bin/mcpgen), go tool mcpgen, or go run of mcpgen's command (./cmd/mcpgen, or
// github.com/mcpgen/mcpgen/cmd/mcpgen at a version). Assignments to environment variables
// before the command are skipped.
func mcpgenArgs(words []string) ([]string, bool) {
	for len(words) > 0 && envAssignRE.MatchString(words[0]) {
		words = words[1:]
	}
	switch {
	case len(words) == 0:
		return nil, false
	case words[0] == "mcpgen" || strings.HasSuffix(words[0], "/mcpgen"):
		return words[1:], true
	case len(words) >= 3 && words[0] == "go" && words[1] == "tool" && words[2] == "mcpgen":
		return words[3:], true
	case len(words) >= 3 && words[0] == "go" && words[1] == "run":
		for i := 2; i < len(words); i++ {
			w, _, _ := strings.Cut(words[i], "@")
			if w == "./cmd/mcpgen" || w == "github.com/mcpgen/mcpgen/cmd/mcpgen" {
				return words[i+1:], true
			}
			if !strings.HasPrefix(words[i], "-") {
				break // go run of another program
			}
		}
	}
	return nil, false
}
