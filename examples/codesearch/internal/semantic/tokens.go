package semantic

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// stopWords are words too common in code or prose to tell chunks apart.
var stopWords = map[string]bool{
	"the": true, "an": true, "of": true, "to": true, "in": true, "and": true, "or": true, "is": true, "it": true,
	"if": true, "for": true, "return": true, "func": true, "var": true, "const": true, "let": true, "this": true,
	"that": true, "be": true, "on": true, "as": true, "by": true, "with": true, "at": true, "are": true, "nil": true,
	"null": true, "err": true, "else": true, "true": true, "false": true, "self": true, "def": true, "new": true,
	"int": true, "string": true, "type": true, "import": true, "package": true, "from": true, "we": true, "not": true,
	// The words of a question, which say nothing of what it asks for.
	"where": true, "how": true, "what": true, "when": true, "which": true, "why": true, "who": true, "does": true,
	"do": true, "can": true, "some": true, "its": true, "into": true, "there": true, "their": true,
}

// Tokens splits text into the words the ranking compares: identifiers are split at
// camelCase and snake_case boundaries (parseHTTPRequest: parse, http, request) and also kept
// whole when split; everything is lower case, plurals lose their s, and stop words and
// single characters go. fn receives each token; it may keep it only as a copy
// (strings.Clone), as tokens may share text's memory.
func Tokens(text string, fn func(string)) {
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf && !isWordByte(c) {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			if r, size := utf8.DecodeRuneInString(text[i:]); !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				i += size
				continue
			}
		}
		j := i
		for j < len(text) {
			if c := text[j]; c < utf8.RuneSelf {
				if !isWordByte(c) {
					break
				}
				j++
				continue
			}
			r, size := utf8.DecodeRuneInString(text[j:])
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				break
			}
			j += size
		}
		identifier(text[i:j], fn)
		i = j
	}
}

func isWordByte(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// identifier splits one identifier.
func identifier(id string, fn func(string)) {
	parts := 0
	splitIdentifier(id, func(p string) {
		parts++
		emit(p, fn)
	})
	if parts > 1 {
		emit(strings.ReplaceAll(lower(id), "_", ""), fn)
	}
}

// lower returns s in lower case, without copying an ASCII string that already is.
func lower(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return strings.ToLower(s)
		}
		if 'A' <= c && c <= 'Z' {
			return strings.ToLower(s)
		}
	}
	return s
}

func emit(w string, fn func(string)) {
	w = lower(w)
	if len(w) < 2 || stopWords[w] || isNumber(w) {
		return
	}
	if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		w = w[:len(w)-1]
	}
	fn(w)
}

func isNumber(w string) bool {
	for _, r := range w {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// splitIdentifier splits at underscores and case changes: HTTPServer -> HTTP, Server;
// parseJSON2 -> parse, JSON2; snake_case -> snake, case.
func splitIdentifier(id string, fn func(string)) {
	for len(id) > 0 {
		part := id
		if i := strings.IndexByte(id, '_'); i >= 0 {
			part, id = id[:i], id[i+1:]
		} else {
			id = ""
		}
		start := 0
		var prev rune = -1
		for at, cur := range part {
			if prev >= 0 {
				next, _ := utf8.DecodeRuneInString(part[at+utf8.RuneLen(cur):])
				nextLower := at+utf8.RuneLen(cur) < len(part) && unicode.IsLower(next)
				if unicode.IsLower(prev) && unicode.IsUpper(cur) || unicode.IsUpper(prev) && unicode.IsUpper(cur) && nextLower {
					fn(part[start:at])
					start = at
				}
			}
			prev = cur
		}
		if start < len(part) {
			fn(part[start:])
		}
	}
}
