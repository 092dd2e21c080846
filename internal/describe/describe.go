// Package describe turns Go doc comments into the descriptions a model reads: of tools,
// resources and prompts (their functions' doc comments), of input and output schemas (their
// types'), of properties (their fields'), and of enum values (their constants').
//
// A model reads a description as prose. Two habits of Go doc comments get in its way, so
// both are undone, the same way for every kind of declaration:
//
//   - A doc comment starts with the name it documents, which means nothing to a model that
//     knows the tool as get_weather or the property as file_path. When a verb follows the
//     name, the name goes, and so does "is" or "are": "GetWeather returns the weather."
//     becomes "Returns the weather.", "ChunkInput names a file." becomes "Names a file.",
//     "FilePath is the file's path." becomes "The file's path.". But before values the name
//     stays, spelled as words: "SymbolKind is function, method or type." becomes "Symbol
//     kind is function, method or type.", since the list alone would not say what it
//     lists. When the name is the head of a noun phrase instead ("WindSpeed in km/h."), a
//     name of several words is spelled as words too: "Wind speed in km/h."; a one-word name
//     ("Units of the report.") is already one. A comment that does not start with the name
//     is left as written.
//   - A doc comment is wrapped at 80 to 100 columns. The lines of each paragraph are joined
//     into one; paragraph breaks, lists, code blocks and headings stay, as go doc prints
//     them, and doc links ("[fmt.Println]") lose their brackets.
package describe

import (
	"go/doc/comment"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Description returns the description of the declaration named name whose doc comment (as
// ast.CommentGroup.Text returns it, directives removed) is doc.
func Description(name, doc string) string {
	var p comment.Parser
	text := string((&comment.Printer{TextWidth: -1}).Text(p.Parse(doc)))
	return dropName(name, strings.TrimSpace(text))
}

// dropName drops the name a doc comment starts with, or spells it as words (see the package
// comment).
func dropName(name, doc string) string {
	// Generic types are documented by their bare name: "Page is one page of results."
	name, _, _ = strings.Cut(name, "[")
	rest, ok := strings.CutPrefix(doc, name+" ")
	if name == "" || !ok || rest == "" {
		return doc
	}
	word, _, _ := strings.Cut(rest, " ")
	switch {
	case word == "is" || word == "are":
		if after := strings.TrimPrefix(rest, word+" "); startsLower(after) && !valuesFollow(after) {
			return upperFirst(after)
		}
	case isVerb(word):
		return upperFirst(rest)
	}
	return words(name) + " " + rest
}

// valuesFollow reports whether s, what follows "Name is", starts with a list of values
// ("function, method, type", "json or text") or a value ("true to print more", "either
// exact or prefix"): alone, it would not say what it is a value of, so the name must stay.
func valuesFollow(s string) bool {
	ws := strings.Fields(s)
	conj := func(i int) bool { return i < len(ws) && (ws[i] == "or" || ws[i] == "and") }
	switch {
	case len(ws) == 0:
		return false
	case strings.HasSuffix(ws[0], ","): // "a, b, c" or "a, b or c", not "exported, in ..."
		return len(ws) > 1 && strings.HasSuffix(ws[1], ",") || conj(2)
	case conj(1): // "a or b", not "where and how"
		return !slices.Contains(questionWords, ws[0])
	}
	switch strings.TrimRight(ws[0], ".;:") {
	case "true", "false", "null", "nil", "either", "neither":
		return true
	}
	return false
}

var questionWords = []string{"how", "what", "when", "where", "which", "who", "whom", "whose", "why", "whether"}

// isVerb reports whether a word that follows a name is a verb of which the name is the
// subject: "returns", "names", "holds", "can", "must". Doc comments use the third person
// singular, so a lower-case word ending in s is one, except for the few common words that
// end in s and are not verbs ("as", "its", "always", "previous", "access").
func isVerb(word string) bool {
	switch word {
	case "can", "could", "may", "might", "must", "should", "will", "would":
		return true
	case "as", "its", "this", "thus", "plus", "minus", "versus", "his", "yes", "always",
		"sometimes", "perhaps", "towards", "afterwards", "besides", "whereas", "nevertheless",
		"regardless", "series", "news":
		return false
	}
	if !startsLower(word) || !strings.HasSuffix(word, "s") {
		return false
	}
	for _, suffix := range []string{"ss", "us", "is"} {
		if strings.HasSuffix(word, suffix) {
			return false
		}
	}
	return true
}

// words spells a Go name as words: "WindSpeed" is "Wind speed", "MaxURLLength" is "Max URL
// length", "userID" is "User ID"; acronyms keep their case.
func words(name string) string {
	rs := []rune(name)
	var out []string
	start := 0
	for i := 1; i <= len(rs); i++ {
		// A word ends before an upper-case letter that follows a lower-case letter or a digit
		// ("windSpeed"), or that starts a lower-case run after an acronym ("URLLength").
		if i < len(rs) && !(unicode.IsUpper(rs[i]) && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1]) ||
			unicode.IsUpper(rs[i-1]) && i+1 < len(rs) && unicode.IsLower(rs[i+1]))) {
			continue
		}
		w := string(rs[start:i])
		if len(out) > 0 && !isAcronym(w) {
			w = strings.ToLower(w)
		}
		out = append(out, w)
		start = i
	}
	return upperFirst(strings.Join(out, " "))
}

func isAcronym(w string) bool {
	n := 0
	for _, r := range w {
		if unicode.IsLower(r) {
			return false
		}
		n++
	}
	return n > 1
}

func startsLower(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLower(r)
}

func upperFirst(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[size:]
}
