package importer

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// $ref within the document: a URI fragment holding a JSON Pointer (RFC 6901) from the
// schema's root: #/$defs/X, #/definitions/X, #/properties/a/items, # itself.

// pointerTokens splits a local $ref into its reference tokens, unescaped (percent-encoding
// of the URI fragment, then ~1 and ~0).
func pointerTokens(ref string) ([]string, error) {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, fmt.Errorf("not within the schema")
	}
	frag, err := url.PathUnescape(frag)
	if err != nil {
		return nil, fmt.Errorf("not a URI fragment: %v", err)
	}
	if frag == "" {
		return nil, nil
	}
	if frag[0] != '/' {
		return nil, fmt.Errorf("an anchor, not a JSON Pointer")
	}
	tokens := strings.Split(frag[1:], "/")
	for i, t := range tokens {
		tokens[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(t)
	}
	return tokens, nil
}

// pointerOf is the canonical form of a pointer's tokens: #/a~1b/c, without percent-encoding,
// under which a converter keeps the types of the schemas it has met.
func pointerOf(tokens []string) string {
	var b strings.Builder
	b.WriteByte('#')
	for _, t := range tokens {
		b.WriteString("/" + escapeToken(t))
	}
	return b.String()
}

func escapeToken(t string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(t)
}

// resolvePointer is the schema at the reference tokens within root.
func resolvePointer(root json.RawMessage, tokens []string) (json.RawMessage, error) {
	cur := root
	for i, t := range tokens {
		var obj map[string]json.RawMessage
		if json.Unmarshal(cur, &obj) == nil {
			next, ok := obj[t]
			if !ok {
				return nil, fmt.Errorf("%s has no member %q", orRoot(pointerOf(tokens[:i])[1:]), t)
			}
			cur = next
			continue
		}
		var arr []json.RawMessage
		if json.Unmarshal(cur, &arr) == nil {
			n, err := strconv.Atoi(t)
			if err != nil || n < 0 || n >= len(arr) || t != strconv.Itoa(n) {
				return nil, fmt.Errorf("%s has no element %q", orRoot(pointerOf(tokens[:i])[1:]), t)
			}
			cur = arr[n]
			continue
		}
		return nil, fmt.Errorf("%s is neither an object nor an array", orRoot(pointerOf(tokens[:i])[1:]))
	}
	return cur, nil
}

// defName is the name a pointer gives the type it names: X of #/$defs/X and
// #/definitions/X; "" for other pointers, whose type is named after its uses.
func defName(tokens []string) string {
	if len(tokens) == 2 && (tokens[0] == "$defs" || tokens[0] == "definitions") {
		return exported(tokens[1])
	}
	return ""
}
