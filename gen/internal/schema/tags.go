package schema

import (
	"strings"
	"unicode"
)

// tagValue finds key in a struct tag and returns its value and the value's byte offset in the
// tag. It follows reflect.StructTag's syntax; ok is false if the key is absent.
func tagValue(tag, key string) (value string, offset int, ok bool) {
	pos := 0
	for tag != "" {
		i := 0
		for i < len(tag) && tag[i] == ' ' {
			i++
		}
		tag, pos = tag[i:], pos+i
		if tag == "" {
			break
		}
		i = 0
		for i < len(tag) && tag[i] > ' ' && tag[i] != ':' && tag[i] != '"' && tag[i] != 0x7f {
			i++
		}
		if i == 0 || i+1 >= len(tag) || tag[i] != ':' || tag[i+1] != '"' {
			break
		}
		name := tag[:i]
		tag, pos = tag[i+1:], pos+i+1
		i = 1
		for i < len(tag) && tag[i] != '"' {
			if tag[i] == '\\' {
				i++
			}
			i++
		}
		if i >= len(tag) {
			break
		}
		quoted := tag[:i+1]
		if name == key {
			return unquoteTag(quoted), pos + 1, true
		}
		tag, pos = tag[i+1:], pos+i+1
	}
	return "", 0, false
}

// unquoteTag undoes the Go string quoting of a tag value; tags rarely use escapes, and a
// malformed one is taken literally (go vet reports it).
func unquoteTag(q string) string {
	s := q[1 : len(q)-1]
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(s[i])
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// tagItem is one comma-separated item of a jsonschema tag: "key=value" or a bare "flag".
type tagItem struct {
	key, value string
	hasValue   bool
	offset     int // byte offset of the item within the tag value
}

// splitTagItems splits a jsonschema tag on commas that are not escaped as `\,`, as
// invopop/jsonschema does, so that patterns and descriptions may contain commas.
func splitTagItems(s string) []tagItem {
	if s == "" {
		return nil
	}
	var items []tagItem
	var cur strings.Builder
	start := 0
	flush := func(end int) {
		text := cur.String()
		cur.Reset()
		item := tagItem{offset: start}
		if k, v, ok := strings.Cut(text, "="); ok {
			item.key, item.value, item.hasValue = k, v, true
		} else {
			item.key = text
		}
		items = append(items, item)
		start = end + 1
	}
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == ',':
			cur.WriteByte(',')
			i++
		case s[i] == ',':
			flush(i)
		default:
			cur.WriteByte(s[i])
		}
	}
	flush(len(s))
	return items
}

// jsonTag is a parsed `json:"..."` tag.
type jsonTag struct {
	name      string
	ignore    bool // json:"-"
	omitEmpty bool
	omitZero  bool
	asString  bool // the ",string" option
}

func parseJSONTag(tag string) jsonTag {
	v, _, ok := tagValue(tag, "json")
	if !ok {
		return jsonTag{}
	}
	if v == "-" {
		return jsonTag{ignore: true}
	}
	name, opts, _ := strings.Cut(v, ",")
	jt := jsonTag{name: name}
	for opt := range strings.SplitSeq(opts, ",") {
		switch opt {
		case "omitempty":
			jt.omitEmpty = true
		case "omitzero":
			jt.omitZero = true
		case "string":
			jt.asString = true
		}
	}
	return jt
}

// validJSONName reports whether encoding/json accepts name as a key in a json tag; it
// falls back to the Go field name when not.
func validJSONName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range name {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}
