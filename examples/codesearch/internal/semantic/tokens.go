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
}

// Tokens splits text into the words the ranking compares: identifiers are split at
// camelCase and snake_case boundaries (parseHTTPRequest: parse, http, request) and also kept
// whole when split; everything is lower case, plurals lose their s, and stop words and
// single characters go. fn receives each token.
func Tokens(text string, fn func(string)) {
	start := -1
	for i := 0; i <= len(text); i++ {
		var r rune
		size := 1
		if i < len(text) {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		word := i < len(text) && (r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r))
		if word && start < 0 {
			start = i
		}
		if !word && start >= 0 {
			identifier(text[start:i], fn)
			start = -1
		}
		i += size - 1
	}
}

// identifier splits one identifier.
func identifier(id string, fn func(string)) {
	parts := splitIdentifier(id)
	for _, p := range parts {
		emit(p, fn)
	}
	if len(parts) > 1 {
		emit(strings.ReplaceAll(strings.ToLower(id), "_", ""), fn)
	}
}

func emit(w string, fn func(string)) {
	w = strings.ToLower(w)
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
func splitIdentifier(id string) []string {
	var out []string
	for _, part := range strings.Split(id, "_") {
		runes := []rune(part)
		start := 0
		for i := 1; i < len(runes); i++ {
			prev, cur := runes[i-1], runes[i]
			nextLower := i+1 < len(runes) && unicode.IsLower(runes[i+1])
			if unicode.IsLower(prev) && unicode.IsUpper(cur) || unicode.IsUpper(prev) && unicode.IsUpper(cur) && nextLower {
				out = append(out, string(runes[start:i]))
				start = i
			}
		}
		if start < len(runes) {
			out = append(out, string(runes[start:]))
		}
	}
	return out
}
