package importer

import (
	"go/token"
	"strconv"
	"strings"
	"unicode"
)

// Go names from MCP names: get_weather, get-weather, getWeather and "get weather" all make
// GetWeather; common initialisms stay in capitals (GetURL, UserID).

var initialisms = map[string]bool{
	"ACL": true, "API": true, "ASCII": true, "CPU": true, "CSS": true, "CSV": true, "DNS": true, "EOF": true,
	"GUID": true, "HTML": true, "HTTP": true, "HTTPS": true, "ID": true, "IP": true, "JSON": true, "JWT": true,
	"LLM": true, "MCP": true, "MIME": true, "OS": true, "PDF": true, "RAM": true, "RPC": true, "SDK": true,
	"SQL": true, "SSH": true, "TCP": true, "TLS": true, "TTL": true, "UDP": true, "UI": true, "UID": true,
	"URI": true, "URL": true, "UTF8": true, "UUID": true, "XML": true, "YAML": true,
}

// exported makes an exported Go identifier of name ("X" when nothing of it can be used; a
// leading + or - says Plus or Minus: GitHub's reactions "+1" and "-1").
func exported(name string) string {
	var b strings.Builder
	if rest, ok := strings.CutPrefix(name, "+"); ok {
		b.WriteString("Plus")
		name = rest
	} else if rest, ok := strings.CutPrefix(name, "-"); ok && rest != "" && !strings.HasPrefix(rest, "-") {
		b.WriteString("Minus")
		name = rest
	}
	for _, w := range words(name) {
		up := strings.ToUpper(w)
		if initialisms[up] {
			b.WriteString(up)
			continue
		}
		r := []rune(w)
		b.WriteString(string(unicode.ToUpper(r[0])) + string(r[1:]))
	}
	s := b.String()
	if s == "" {
		return "X"
	}
	if r := []rune(s)[0]; !unicode.IsLetter(r) {
		s = "X" + s
	}
	return s
}

// unexported makes an unexported Go identifier of name, not a keyword.
func unexported(name string) string {
	s := exported(name)
	r := []rune(s)
	n := 1
	for n < len(r) && unicode.IsUpper(r[n]) && (n+1 >= len(r) || unicode.IsUpper(r[n+1])) {
		n++ // URLPath -> urlPath, ID -> id
	}
	if n > 1 && n < len(r) {
		n-- // keep the start of the next word
	}
	s = strings.ToLower(string(r[:n])) + string(r[n:])
	if token.IsKeyword(s) || predeclared[s] {
		s += "_"
	}
	return s
}

var predeclared = map[string]bool{"ctx": true, "c": true, "err": true, "in": true, "string": true, "int": true,
	"bool": true, "any": true, "error": true, "len": true, "new": true, "nil": true, "true": true, "false": true}

// words splits a name into words: at anything not a letter or digit, and where case turns
// from lower to upper (getWeather) or an upper run ends (HTTPServer).
func words(name string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = nil
		}
	}
	r := []rune(name)
	for i, c := range r {
		switch {
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			flush()
			continue
		case unicode.IsUpper(c) && len(cur) > 0:
			prev := cur[len(cur)-1]
			nextLower := i+1 < len(r) && unicode.IsLower(r[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				flush()
			}
		}
		if c > unicode.MaxASCII && !unicode.IsLetter(c) && !unicode.IsDigit(c) {
			continue
		}
		cur = append(cur, c)
	}
	flush()
	return out
}

// namer hands out unique names in one scope: the second Foo is Foo2.
type namer map[string]bool

func (n namer) unique(name string) string {
	if !n[name] {
		n[name] = true
		return name
	}
	for i := 2; ; i++ {
		candidate := name + strconv.Itoa(i)
		if !n[candidate] {
			n[candidate] = true
			return candidate
		}
	}
}
