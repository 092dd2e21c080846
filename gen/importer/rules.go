package importer

import (
	"bytes"
	"encoding/json"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The validation keywords of a property's schema, as the jsonschema tag of its field in a
// package mcpgen's generator reads (mcpgen openapi's types: the generated server validates
// its arguments with them). Only what the generator takes and the field's Go type can hold is
// written; a keyword it would refuse (a pattern RE2 cannot compile, a default that breaks the
// other rules) is left to the API, which checks it anyway.

// limits are the keywords the mapping reads beyond the types.
type limits struct {
	Minimum          json.RawMessage `json:"minimum"`
	Maximum          json.RawMessage `json:"maximum"`
	ExclusiveMinimum json.RawMessage `json:"exclusiveMinimum"` // 3.1: a number; 3.0: a boolean beside minimum
	ExclusiveMaximum json.RawMessage `json:"exclusiveMaximum"`
	MultipleOf       json.RawMessage `json:"multipleOf"`
	MinLength        *uint64         `json:"minLength"`
	MaxLength        *uint64         `json:"maxLength"`
	Pattern          string          `json:"pattern"`
	MinItems         *uint64         `json:"minItems"`
	MaxItems         *uint64         `json:"maxItems"`
	UniqueItems      bool            `json:"uniqueItems"`
	MinProperties    *uint64         `json:"minProperties"`
	MaxProperties    *uint64         `json:"maxProperties"`
}

// read reads the keywords of a schema: its members of those names alone, the rest skipped,
// unless json.Unmarshal is needed (see members).
func (l *limits) read(raw []byte) error {
	seen := map[string]bool{}
	var err error
	ok := members(raw, func(key string, v []byte) bool {
		var into any
		switch key {
		case "minimum":
			into = &l.Minimum
		case "maximum":
			into = &l.Maximum
		case "exclusiveMinimum":
			into = &l.ExclusiveMinimum
		case "exclusiveMaximum":
			into = &l.ExclusiveMaximum
		case "multipleOf":
			into = &l.MultipleOf
		case "minLength":
			into = &l.MinLength
		case "maxLength":
			into = &l.MaxLength
		case "pattern":
			into = &l.Pattern
		case "minItems":
			into = &l.MinItems
		case "maxItems":
			into = &l.MaxItems
		case "uniqueItems":
			into = &l.UniqueItems
		case "minProperties":
			into = &l.MinProperties
		case "maxProperties":
			into = &l.MaxProperties
		default:
			for _, k := range limitKeys {
				if strings.EqualFold(key, k) { // encoding/json's match, in any capitals
					return false
				}
			}
			return true
		}
		if seen[key] {
			return false
		}
		seen[key] = true
		err = json.Unmarshal(v, into)
		return err == nil
	})
	if ok {
		return nil
	}
	*l = limits{}
	return json.Unmarshal(raw, l)
}

var limitKeys = []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength",
	"pattern", "minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties"}

// tagRules is the jsonschema tag of a field of type t (its element's, for a slice) whose
// property schema is raw; "" when it has none.
func (c *converter) tagRules(raw json.RawMessage, t *goType, optional bool) string {
	s, _, _ := resolve(c.root, raw)
	var own limits
	if own.read(resolvedRaw(c.root, raw)) != nil {
		return ""
	}
	var items []string
	add := func(k, v string) { items = append(items, k+"="+strings.ReplaceAll(v, ",", `\,`)) }
	scalar, scalarSchema, scalarLimits := t, s, own
	switch t.kind {
	case kSlice:
		if own.MinItems != nil {
			add("minItems", strconv.FormatUint(*own.MinItems, 10))
		}
		if own.MaxItems != nil && (own.MinItems == nil || *own.MaxItems >= *own.MinItems) {
			add("maxItems", strconv.FormatUint(*own.MaxItems, 10))
		}
		if own.UniqueItems && isScalar(t.elem) && !t.nullElem {
			items = append(items, "uniqueItems")
		}
		// Scalar keywords on a slice apply to its elements.
		scalar = t.elem
		var ls limits
		if len(s.Items) == 0 || ls.read(resolvedRaw(c.root, s.Items)) != nil {
			return strings.Join(items, ",")
		}
		scalarSchema, _, _ = resolve(c.root, s.Items)
		scalarLimits = ls
	case kMap:
		if own.MinProperties != nil {
			add("minProperties", strconv.FormatUint(*own.MinProperties, 10))
		}
		if own.MaxProperties != nil && (own.MinProperties == nil || *own.MaxProperties >= *own.MinProperties) {
			add("maxProperties", strconv.FormatUint(*own.MaxProperties, 10))
		}
		return strings.Join(items, ",")
	}
	r := scalarRules(scalar, scalarSchema, scalarLimits)
	items = append(items, r.items...)
	if t.kind != kSlice && optional && len(s.Default) > 0 {
		if v, ok := r.defaultOK(scalar, s.Default); ok {
			add("default", v)
		}
	}
	return strings.Join(items, ",")
}

// resolvedRaw is the schema a $ref chain from raw ends at.
func resolvedRaw(root, raw json.RawMessage) json.RawMessage {
	_, r, _ := resolve(root, raw)
	return r
}

func isScalar(t *goType) bool {
	switch t.kind {
	case kString, kInt, kFloat, kBool, kEnum:
		return true
	}
	return false
}

// scalarLimits are the rules of a string or number, read back to check a default with.
type scalarLimits struct {
	items              []string
	min, max           *big.Rat
	exclMin, exclMax   bool
	minLen, maxLen     *uint64
	pattern            *regexp.Regexp
	enumValues         []string
	multipleOf         *big.Rat
	hasBoundsOrPattern bool
}

func scalarRules(t *goType, s *schema, l limits) scalarLimits {
	var r scalarLimits
	add := func(k, v string) { r.items = append(r.items, k+"="+strings.ReplaceAll(v, ",", `\,`)) }
	switch t.kind {
	case kString, kEnum:
		if s.Format != "" && s.Format != "date-time" && t.kind == kString && tagSafe(s.Format) {
			add("format", s.Format)
		}
		if l.MinLength != nil && *l.MinLength > 0 {
			r.minLen = l.MinLength
			add("minLength", strconv.FormatUint(*l.MinLength, 10))
		}
		if l.MaxLength != nil && (r.minLen == nil || *l.MaxLength >= *r.minLen) {
			r.maxLen = l.MaxLength
			add("maxLength", strconv.FormatUint(*l.MaxLength, 10))
		}
		if l.Pattern != "" && tagSafe(l.Pattern) {
			if re, err := regexp.Compile(l.Pattern); err == nil {
				r.pattern = re
				add("pattern", l.Pattern)
			}
		}
		for _, v := range t.values {
			r.enumValues = append(r.enumValues, v.value)
		}
	case kInt, kFloat:
		num := func(raw json.RawMessage) *big.Rat {
			raw = bytes.TrimSpace(raw)
			if len(raw) == 0 || raw[0] == 't' || raw[0] == 'f' || raw[0] == 'n' {
				return nil
			}
			n, ok := new(big.Rat).SetString(string(raw))
			if !ok {
				return nil
			}
			if t.kind == kInt {
				if f, _ := n.Float64(); math.Abs(f) >= 1<<62 {
					return nil // beyond what an int64 field holds: its own limits say enough
				}
			}
			return n
		}
		exclusive := func(raw json.RawMessage) (flag bool, n *big.Rat) {
			if string(bytes.TrimSpace(raw)) == "true" {
				return true, nil
			}
			return false, num(raw)
		}
		r.min, r.max = num(l.Minimum), num(l.Maximum)
		exMinFlag, exMin := exclusive(l.ExclusiveMinimum)
		exMaxFlag, exMax := exclusive(l.ExclusiveMaximum)
		if exMinFlag && r.min != nil { // 3.0: exclusiveMinimum: true makes minimum exclusive
			exMin, r.min = r.min, nil
		}
		if exMaxFlag && r.max != nil {
			exMax, r.max = r.max, nil
		}
		if exMin != nil && (r.min == nil || exMin.Cmp(r.min) >= 0) {
			r.min, r.exclMin = exMin, true
		}
		if exMax != nil && (r.max == nil || exMax.Cmp(r.max) <= 0) {
			r.max, r.exclMax = exMax, true
		}
		if r.min != nil && r.max != nil && (r.min.Cmp(r.max) > 0 || (r.exclMin || r.exclMax) && r.min.Cmp(r.max) == 0) {
			r.min, r.max = nil, nil // no value meets them: the document is wrong, and the API judges
		}
		if r.min != nil {
			add(map[bool]string{false: "minimum", true: "exclusiveMinimum"}[r.exclMin], ratText(r.min))
		}
		if r.max != nil {
			add(map[bool]string{false: "maximum", true: "exclusiveMaximum"}[r.exclMax], ratText(r.max))
		}
		if m := num(l.MultipleOf); m != nil && m.Sign() > 0 {
			r.multipleOf = m
			add("multipleOf", ratText(m))
		}
		// An enum of numbers: the values.
		if len(s.Enum) > 0 {
			var vals []string
			for _, v := range s.Enum {
				v = bytes.TrimSpace(v)
				if string(v) == "null" {
					continue
				}
				n := num(v)
				if n == nil || t.kind == kInt && !n.IsInt() || !r.holds(n) {
					vals = nil
					break
				}
				vals = append(vals, ratText(n))
			}
			for _, v := range vals {
				add("enum", v)
			}
			r.enumValues = vals
		}
	}
	return r
}

// holds says whether a number meets the bounds and multipleOf.
func (r *scalarLimits) holds(n *big.Rat) bool {
	if r.min != nil && (n.Cmp(r.min) < 0 || r.exclMin && n.Cmp(r.min) == 0) {
		return false
	}
	if r.max != nil && (n.Cmp(r.max) > 0 || r.exclMax && n.Cmp(r.max) == 0) {
		return false
	}
	if r.multipleOf != nil && !new(big.Rat).Quo(n, r.multipleOf).IsInt() {
		return false
	}
	return true
}

// defaultOK is the text of a default for the tag when it is a value of the field's type that
// its rules allow.
func (r *scalarLimits) defaultOK(t *goType, raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	switch t.kind {
	case kString, kEnum:
		var s string
		if json.Unmarshal(raw, &s) != nil || !tagSafe(s) || s == "" {
			return "", false
		}
		n := uint64(utf8.RuneCountInString(s))
		if r.minLen != nil && n < *r.minLen || r.maxLen != nil && n > *r.maxLen || r.pattern != nil && !r.pattern.MatchString(s) {
			return "", false
		}
		if t.kind == kEnum && !contains(r.enumValues, s) {
			return "", false
		}
		return s, true
	case kBool:
		if string(raw) == "true" || string(raw) == "false" {
			return string(raw), true
		}
	case kInt, kFloat:
		n, ok := new(big.Rat).SetString(string(raw))
		if !ok || t.kind == kInt && (!n.IsInt() || n.Num().BitLen() > 62) || !r.holds(n) {
			return "", false
		}
		if len(r.enumValues) > 0 && !contains(r.enumValues, ratText(n)) {
			return "", false
		}
		return ratText(n), true
	}
	return "", false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ratText writes a number as JSON: an integer as one, else in decimal.
func ratText(n *big.Rat) string {
	if n.IsInt() {
		return n.Num().String()
	}
	f, _ := n.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// tagSafe says whether a value can stand in a struct tag as the generator reads it: no
// control characters, quotes the tag cannot hold, or a backslash before a comma (which would
// read as an escaped comma).
func tagSafe(s string) bool {
	for _, c := range s {
		if c < ' ' || c == 0x7f || c == '`' {
			return false
		}
	}
	return !strings.Contains(s, `\,`) && utf8.ValidString(s)
}
