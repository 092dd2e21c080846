package importer

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// Reading a schema's members without encoding/json, which checks the whole of a value before
// it decodes it: a schema nested n deep in a document was checked n times over, once per
// schema around it (GitHub's description: 25 MB read to map 13 MB). The schemas come from a
// document or a list of tools that was decoded, so checked, once already. These scanners
// still never read past the end or loop on bytes that are not JSON: they say so, and the
// caller decodes with encoding/json, which reports what is wrong.

// members calls yield with each member of the JSON object raw, in order: its key and its
// value (a part of raw). It returns false if raw is not an object it could read to its end
// (or yield stopped).
func members(raw []byte, yield func(key string, value []byte) bool) bool {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return false
	}
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return skipSpace(raw, i+1) == len(raw)
	}
	for i < len(raw) {
		end := skipString(raw, i)
		if end < 0 {
			return false
		}
		key, ok := jsonString(raw[i:end])
		if !ok {
			return false
		}
		i = skipSpace(raw, end)
		if i >= len(raw) || raw[i] != ':' {
			return false
		}
		start := skipSpace(raw, i+1)
		end = skipValue(raw, start)
		if end < 0 || !yield(key, raw[start:end]) {
			return false
		}
		i = skipSpace(raw, end)
		if i >= len(raw) {
			return false
		}
		switch raw[i] {
		case ',':
			i = skipSpace(raw, i+1)
		case '}':
			return skipSpace(raw, i+1) == len(raw)
		default:
			return false
		}
	}
	return false
}

// elements calls yield with each element of the JSON array raw, in order; false as members.
func elements(raw []byte, yield func(value []byte) bool) bool {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return false
	}
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == ']' {
		return skipSpace(raw, i+1) == len(raw)
	}
	for i < len(raw) {
		end := skipValue(raw, i)
		if end < 0 || !yield(raw[i:end]) {
			return false
		}
		i = skipSpace(raw, end)
		if i >= len(raw) {
			return false
		}
		switch raw[i] {
		case ',':
			i = skipSpace(raw, i+1)
		case ']':
			return skipSpace(raw, i+1) == len(raw)
		default:
			return false
		}
	}
	return false
}

func skipSpace(raw []byte, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i++
	}
	return i
}

// skipString is the end of the string that starts at i, -1 if there is none.
func skipString(raw []byte, i int) int {
	if i >= len(raw) || raw[i] != '"' {
		return -1
	}
	for i++; i < len(raw); i++ {
		switch raw[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// skipValue is the end of the value that starts at i, -1 if there is none. Within objects and
// arrays it counts brackets and skips strings, reading nothing else.
func skipValue(raw []byte, i int) int {
	if i >= len(raw) {
		return -1
	}
	switch raw[i] {
	case '"':
		return skipString(raw, i)
	case '{', '[':
		depth := 0
		for ; i < len(raw); i++ {
			switch raw[i] {
			case '"':
				end := skipString(raw, i)
				if end < 0 {
					return -1
				}
				i = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return -1
	}
	start := i
	for i < len(raw) && !strings.ContainsRune(",}] \t\r\n", rune(raw[i])) {
		i++
	}
	if i == start {
		return -1
	}
	return i
}

// jsonString is the text of a JSON string (with its quotes); false if value is not one.
func jsonString(value []byte) (string, bool) {
	if len(value) < 2 || value[0] != '"' || value[len(value)-1] != '"' {
		return "", false
	}
	inner := value[1 : len(value)-1]
	for _, c := range inner {
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf { // escapes, and what encoding/json checks
			var s string
			if json.Unmarshal(value, &s) != nil {
				return "", false
			}
			return s, true
		}
	}
	return string(inner), true
}
