package importer

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/dave/jennifer/jen"
)

// Comments from the schemas' descriptions: paragraphs reflowed and wrapped at word
// boundaries, lists and indented lines kept as the server wrote them.

// docOf is a declared type's comment: its description. (Its title names it.)
func docOf(s *schema) string {
	return strings.TrimSpace(s.Description)
}

// fieldDoc is a field's comment: its description, its format and its default (unless the
// description says it already).
func fieldDoc(s *schema) string {
	desc := strings.TrimSpace(s.Description)
	var more []string
	if v, ok := fixedValue(s); ok {
		more = append(more, fmt.Sprintf("Always %q.", v))
	}
	if s.Format != "" && s.Format != "date-time" {
		more = append(more, "Format: "+s.Format+".")
	}
	switch {
	case s.ReadOnly:
		more = append(more, "Read-only: the server sets it; arguments leave it out.")
	case s.WriteOnly:
		more = append(more, "Write-only: the server never returns it.")
	}
	enum := slices.DeleteFunc(slices.Clone(s.Enum), func(v json.RawMessage) bool { return string(compact(v)) == "null" })
	if len(enum) > 0 && !allStrings(enum) {
		var vals []string
		for _, v := range enum {
			vals = append(vals, string(compact(v)))
		}
		more = append(more, "One of: "+strings.Join(vals, ", ")+".")
	}
	if len(s.Default) > 0 && !mentionsDefault(desc, s.Default) {
		more = append(more, "Default: "+string(compact(s.Default))+".")
	}
	if desc != "" && len(more) > 0 {
		desc = sentence(desc) // a sentence before the format and the default
	}
	return strings.Join(append(nonEmpty(desc), more...), " ")
}

// docAnd is a comment followed by one more sentence, when there is one.
func docAnd(doc, more string) string {
	switch {
	case more == "":
		return doc
	case doc == "":
		return more
	}
	return sentence(doc) + " " + more
}

// sentence ends text with a full stop unless it ends a sentence already.
func sentence(text string) string {
	end := strings.TrimRight(text, ")\"'”’`*")
	if end == "" || strings.ContainsAny(end[len(end)-1:], ".!?:") {
		return text
	}
	return text + "."
}

// mentionsDefault says whether a description states the default value already: "(default
// 6)", "Defaults to metric".
func mentionsDefault(desc string, value json.RawMessage) bool {
	lower := strings.ToLower(desc)
	if !strings.Contains(lower, "default") {
		return false
	}
	text := string(compact(value))
	var s string
	if json.Unmarshal(value, &s) == nil {
		text = s
	}
	return text != "" && strings.Contains(lower, strings.ToLower(text))
}

// comment writes text as a doc comment of // lines, wrapped at 96 columns.
func comment(text string) *jen.Statement {
	var s *jen.Statement
	for _, line := range wrap(strings.TrimRight(text, "\n"), 96) {
		if s == nil {
			s = jen.Comment(line)
		} else {
			s = s.Line().Comment(line)
		}
	}
	if s == nil {
		return jen.Null()
	}
	return s
}

// wrap reflows text into lines of at most width columns, breaking at spaces only (a word
// longer than a line has a line of its own). Lines the author broke within a paragraph are
// joined; a blank line stays, as a paragraph break, and so do a list's items and indented
// lines, which start lines of their own.
func wrap(text string, width int) []string {
	var out []string
	for _, line := range reflow(text) {
		if strings.TrimSpace(line) == "" {
			out = append(out, "")
			continue
		}
		indent := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
		words := strings.Fields(line)
		cur := indent + words[0]
		for _, w := range words[1:] {
			if len(cur)+1+len(w) > width {
				out = append(out, cur)
				cur = indent + w
				continue
			}
			cur += " " + w
		}
		out = append(out, cur)
	}
	return out
}

// reflow joins the lines of each paragraph of text into one, except those that start a list
// item or are indented.
func reflow(text string) []string {
	var out []string
	joinable := false // the last line of out may take the next
	for _, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		line = strings.TrimRightFunc(line, unicode.IsSpace)
		switch {
		case line == "":
			out = append(out, "")
			joinable = false
		case joinable && !startsOwnLine(line):
			out[len(out)-1] += " " + strings.TrimSpace(line)
		default:
			out = append(out, line)
			joinable = !startsIndented(line)
		}
	}
	return out
}

func startsIndented(line string) bool {
	return strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t")
}

// startsOwnLine says whether a line begins a list item or is indented.
func startsOwnLine(line string) bool {
	if startsIndented(line) {
		return true
	}
	for _, p := range []string{"- ", "* ", "+ ", "• ", "#"} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	digits := strings.TrimLeft(line, "0123456789")
	return len(digits) < len(line) && (strings.HasPrefix(digits, ". ") || strings.HasPrefix(digits, ") "))
}
