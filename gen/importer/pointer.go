package importer

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
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
		tokens[i] = unescapeToken(t)
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

// The replacers of a reference token's escapes, built once: building one is most of what a
// replacement costs, and GitHub's description resolves a quarter of a million pointers.
var (
	tokenEscaper   = strings.NewReplacer("~", "~0", "/", "~1")
	tokenUnescaper = strings.NewReplacer("~1", "/", "~0", "~")
)

func escapeToken(t string) string {
	if !strings.ContainsAny(t, "~/") {
		return t
	}
	return tokenEscaper.Replace(t)
}

func unescapeToken(t string) string {
	if !strings.Contains(t, "~") {
		return t
	}
	return tokenUnescaper.Replace(t)
}

// resolvePointer is the schema at the reference tokens within root. In a large root (an
// OpenAPI document: GitHub's is 13 MB) the objects on the way are kept, so that resolving
// the next pointer into #/components/schemas does not read the document again.
func resolvePointer(root json.RawMessage, tokens []string) (json.RawMessage, error) {
	if len(root) >= 1<<16 && len(tokens) > 0 {
		return bigRoots.resolve(root, tokens)
	}
	return resolveFrom(root, nil, tokens)
}

// resolveFrom resolves rest from cur, which is at the pointer of done within its root.
func resolveFrom(cur json.RawMessage, done, rest []string) (json.RawMessage, error) {
	tokens := append(slices.Clone(done), rest...)
	for i := len(done); i < len(tokens); i++ {
		t := tokens[i]
		if obj, isObj := objectOf(cur); isObj {
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

// objectOf is the members of a JSON object by key, the last of a key written twice, as
// json.Unmarshal into a map has them; false if raw is not an object.
func objectOf(raw json.RawMessage) (map[string]json.RawMessage, bool) {
	obj := map[string]json.RawMessage{}
	if members(raw, func(k string, v []byte) bool { obj[k] = v; return true }) {
		return obj, true
	}
	obj = nil
	return obj, json.Unmarshal(raw, &obj) == nil
}

// defName is the name a pointer gives the type it names: X of #/$defs/X and
// #/definitions/X; "" for other pointers, whose type is named after its uses.
func defName(tokens []string) string {
	if len(tokens) == 2 && (tokens[0] == "$defs" || tokens[0] == "definitions") {
		return exported(tokens[1])
	}
	if len(tokens) == 3 && tokens[0] == "components" && tokens[1] == "schemas" {
		return exported(tokens[2]) // an OpenAPI document's
	}
	return ""
}

// ResolvePointer is the value at a local $ref (#/components/schemas/Pet) within root.
func ResolvePointer(root json.RawMessage, ref string) (json.RawMessage, error) {
	tokens, err := pointerTokens(ref)
	if err != nil {
		return nil, err
	}
	return resolvePointer(root, tokens)
}

// bigRoots keeps the members of the objects met on the way to pointers within the last
// large root resolved in: one root at a time, so that nothing is kept past its use.
var bigRoots rootCache

type rootCache struct {
	mu      sync.Mutex
	root    *byte
	size    int
	members map[string]map[string]json.RawMessage // by the pointer of an object: its members
}

func (c *rootCache) resolve(root json.RawMessage, tokens []string) (json.RawMessage, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.root != &root[0] || c.size != len(root) {
		c.root, c.size, c.members = &root[0], len(root), map[string]map[string]json.RawMessage{}
	}
	cur := root
	for i, t := range tokens {
		at := pointerOf(tokens[:i])
		obj, ok := c.members[at]
		if !ok {
			if obj, ok = objectOf(cur); !ok {
				// An array, or neither: resolved as usual from here.
				return resolveFrom(cur, tokens[:i], tokens[i:])
			}
			c.members[at] = obj
		}
		next, ok := obj[t]
		if !ok {
			return nil, fmt.Errorf("%s has no member %q", orRoot(at[1:]), t)
		}
		cur = next
	}
	return cur, nil
}
