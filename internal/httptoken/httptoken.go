// Package httptoken holds what both the generator and the runtime check of the headers a
// tool's arguments are mirrored into (x-mcp-header): that a name is an HTTP token, where in
// an input schema clients look for the keyword, and that names are unique in a tool. The
// generator reports problems with positions and hints, the runtime refuses to register the
// tool; both read the rules from here.
package httptoken

import (
	"maps"
	"slices"
	"strconv"
	"strings"
)

// IsToken reports whether s is an HTTP field name: one or more tchar of RFC 9110.
func IsToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

// Keyword is the input schema keyword of revision 2026-07-28 that asks clients to mirror a
// tool argument into an HTTP header, Mcp-Param-{name} (server/tools.mdx).
const Keyword = "x-mcp-header"

// Header is one x-mcp-header keyword of an input schema.
type Header struct {
	Value   any            // the keyword's value, as decoded
	Name    string         // Value, when it is a string that IsToken accepts; else ""
	Schema  map[string]any // the schema that holds the keyword
	Pointer string         // where that schema is, as a JSON Pointer: "" for the root
	// OnPath says that Schema is a property reached from the root through "properties"
	// alone, the only place clients look for the keyword. Path then holds the property
	// names from the root, and Same the first header before it on the path with the same
	// Name, compared case-insensitively (nil if none).
	OnPath bool
	Path   []string
	Same   *Header
}

// Headers returns every x-mcp-header keyword of an input schema decoded by encoding/json,
// on the path clients look along or not, in the order of the schema's keys, depth first.
// The values of keywords that hold values, not schemas (enum, default...), are not searched.
func Headers(schema any) []*Header {
	var found []*Header
	first := map[string]*Header{} // lower-case name -> the first header on the path with it
	// chain: v continues the path (the root, or a property on it); property: v is a
	// property's schema on it.
	var walk func(v any, ptr string, path []string, chain, property bool)
	walk = func(v any, ptr string, path []string, chain, property bool) {
		switch v := v.(type) {
		case []any:
			for i, x := range v {
				walk(x, ptr+"/"+strconv.Itoa(i), nil, false, false)
			}
		case map[string]any:
			if value, ok := v[Keyword]; ok {
				h := &Header{Value: value, Schema: v, Pointer: ptr, OnPath: property}
				if name, ok := value.(string); ok && IsToken(name) {
					h.Name = name
				}
				if property {
					h.Path = path
					key := strings.ToLower(h.Name)
					if h.Same = first[key]; h.Same == nil && h.Name != "" {
						first[key] = h
					}
				}
				found = append(found, h)
			}
			for _, k := range slices.Sorted(maps.Keys(v)) {
				switch k {
				case Keyword, "enum", "const", "default", "examples":
					continue // values, not schemas
				case "properties":
					if props, ok := v[k].(map[string]any); ok {
						for _, name := range slices.Sorted(maps.Keys(props)) {
							var next []string
							if chain {
								next = append(slices.Clip(path), name)
							}
							walk(props[name], ptr+"/properties/"+pointerToken(name), next, chain, chain)
						}
						continue
					}
				}
				walk(v[k], ptr+"/"+pointerToken(k), nil, false, false)
			}
		}
	}
	walk(schema, "", nil, true, false)
	return found
}

// pointerToken escapes a property name for a JSON Pointer (RFC 6901).
func pointerToken(name string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(name)
}
