package schema

import (
	"fmt"
	"go/token"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// tagResult is what the tags of a field say beyond its schema.
type tagResult struct {
	required   bool
	defaultPos token.Pos
}

// keyword kinds: which JSON shapes a jsonschema tag key applies to.
var (
	scalars  = []Kind{String, Bool, Int, Uint, Float}
	numbers  = []Kind{Int, Uint, Float}
	strs     = []Kind{String}
	arrays   = []Kind{Slice, Array}
	anything = []Kind{String, Bool, Int, Uint, Float, Bytes, Struct, Map, Slice, Array, Any}
)

// keywords maps each supported tag key to the shapes it applies to. Keys that apply to
// scalars, written on a slice or array field, apply to its elements, as in invopop/jsonschema.
var keywords = map[string][]Kind{
	"title": anything, "description": anything, "readOnly": anything, "writeOnly": anything,
	"enum": scalars, "default": scalars, "example": scalars,
	"minimum": numbers, "maximum": numbers, "exclusiveMinimum": numbers, "exclusiveMaximum": numbers,
	"minLength": strs, "maxLength": strs, "pattern": strs, "format": strs,
	"minItems": arrays, "maxItems": arrays,
	"minProperties": {Map}, "maxProperties": {Map},
}

// flags are the tag items without a value.
var flags = []string{"required", "nullable"}

// planned are keys of the invopop dialect that mcpgen does not handle yet: reported, never
// silently ignored.
var planned = []string{"multipleOf", "uniqueItems", "type", "anchor", "oneof_required", "anyof_required",
	"oneof_ref", "oneof_type", "anyof_ref", "anyof_type"}

// applyTags reads a field's jsonschema, jsonschema_description and jsonschema_extras tags
// into the rules of its type.
func (b *Builder) applyTags(f *Field, c candidate, where string) tagResult {
	var res tagResult
	base := token.NoPos
	if b.src != nil {
		base = b.src.TagPos(c.v)
	}
	at := func(offset int) token.Pos {
		if !base.IsValid() {
			return c.v.Pos()
		}
		return base + 1 + token.Pos(offset) // past the opening quote of the tag literal
	}
	target := f.Type.Deref()

	value, voff, _ := tagValue(c.tag, "jsonschema")
	for _, it := range splitTagItems(value) {
		pos := at(voff + it.offset)
		switch {
		case it.key == "" && !it.hasValue:
			continue // an empty item, as in a trailing comma
		case !it.hasValue && slices.Contains(flags, it.key):
			switch it.key {
			case "required":
				res.required = true
			case "nullable":
				if f.Type.Kind == Pointer {
					f.Type.Nullable = true
				} else {
					target.Nullable = true
				}
			}
			continue
		case slices.Contains(planned, it.key):
			b.diags.Errorf(pos, "%s: jsonschema tag key %q is not supported yet", where, it.key)
			continue
		}
		kinds, known := keywords[it.key]
		if !known {
			b.diags.Hintf(pos, suggest(it.key), "%s: unknown jsonschema tag key %q", where, it.key)
			continue
		}
		if !it.hasValue {
			b.diags.Errorf(pos, "%s: jsonschema tag key %q needs a value: %s=...", where, it.key, it.key)
			continue
		}
		node := target
		if (node.Kind == Slice || node.Kind == Array) && !slices.Contains(kinds, node.Kind) && !slices.Contains(kinds, Any) {
			node = node.Elem.Deref() // a scalar keyword on a list applies to its elements
		}
		if !slices.Contains(kinds, node.Kind) {
			b.diags.Errorf(pos, "%s: jsonschema tag key %q applies to %s, not to %s", where, it.key, kindNames(kinds), describe(node))
			continue
		}
		if msg := b.setRule(node, it.key, it.value, pos); msg != "" {
			b.diags.Errorf(pos, "%s: %s=%s: %s", where, it.key, it.value, msg)
			continue
		}
		if it.key == "default" {
			res.defaultPos = pos
			if msg := node.check(node.Rules.Default); msg != "" {
				b.diags.Errorf(pos, "%s: default %s %s", where, it.value, msg)
			}
		}
	}

	if d, _, ok := tagValue(c.tag, "jsonschema_description"); ok {
		target.Rules.Description = d
	}
	if extras, eoff, ok := tagValue(c.tag, "jsonschema_extras"); ok {
		for _, it := range splitTagItems(extras) {
			if !it.hasValue || it.key == "" {
				b.diags.Errorf(at(eoff+it.offset), "%s: jsonschema_extras items must be key=value", where)
				continue
			}
			target.Rules.addExtra(it.key, it.value)
		}
	}
	return res
}

func (r *Rules) addExtra(key, value string) {
	var v any = value
	switch value {
	case "true":
		v = true
	case "false":
		v = false
	}
	for i := range r.Extras {
		if r.Extras[i].Key == key {
			if list, ok := r.Extras[i].Value.([]any); ok {
				r.Extras[i].Value = append(list, v)
			} else {
				r.Extras[i].Value = []any{r.Extras[i].Value, v}
			}
			return
		}
	}
	r.Extras = append(r.Extras, Extra{Key: key, Value: v})
}

// setRule stores one keyword; it returns what is wrong with the value, or "".
func (b *Builder) setRule(node *Type, key, value string, pos token.Pos) string {
	r := &node.Rules
	switch key {
	case "title":
		r.Title = value
	case "description":
		r.Description = value
	case "readOnly", "writeOnly":
		flag, err := strconv.ParseBool(value)
		if err != nil {
			return "want true or false"
		}
		if key == "readOnly" {
			r.ReadOnly = flag
		} else {
			r.WriteOnly = flag
		}
	case "enum", "default", "example":
		v, msg := node.literal(value)
		if msg != "" {
			return msg
		}
		switch key {
		case "enum":
			r.Enum = append(r.Enum, v)
		case "default":
			r.Default = &v
		case "example":
			r.Examples = append(r.Examples, v)
		}
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		n, ok := NewNumber(value)
		if !ok {
			return "not a number"
		}
		switch key {
		case "minimum":
			// The type's own range stays when it is tighter than the tag.
			if r.Minimum == nil || n.Rat.Cmp(r.Minimum.Rat) > 0 {
				r.Minimum = n
			}
		case "maximum":
			if r.Maximum == nil || n.Rat.Cmp(r.Maximum.Rat) < 0 {
				r.Maximum = n
			}
		case "exclusiveMinimum":
			r.ExclusiveMinimum = n
		case "exclusiveMaximum":
			r.ExclusiveMaximum = n
		}
	case "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties":
		n, err := strconv.ParseUint(value, 10, 63)
		if err != nil {
			return "want a non-negative integer"
		}
		switch key {
		case "minLength":
			r.MinLength = &n
		case "maxLength":
			r.MaxLength = &n
		case "minItems": // a fixed-length array keeps its length
			if r.MinItems == nil || n > *r.MinItems {
				r.MinItems = &n
			}
		case "maxItems":
			if r.MaxItems == nil || n < *r.MaxItems {
				r.MaxItems = &n
			}
		case "minProperties":
			r.MinProperties = &n
		case "maxProperties":
			r.MaxProperties = &n
		}
	case "pattern":
		if _, err := regexp.Compile(value); err != nil {
			return "not a valid regular expression (Go's RE2 syntax, which generated code validates with): " + strings.TrimPrefix(err.Error(), "error parsing regexp: ")
		}
		r.Pattern = value
	case "format":
		r.Format = value
	}
	return ""
}

// literal parses a tag value as a value of the node's type.
func (t *Type) literal(text string) (Value, string) {
	switch t.Kind {
	case String:
		return Value{JSON: strconv.Quote(text), Lit: text}, ""
	case Bool:
		v, err := strconv.ParseBool(text)
		if err != nil || (text != "true" && text != "false") {
			return Value{}, "want true or false"
		}
		return Value{JSON: text, Lit: v}, ""
	case Int:
		v, err := strconv.ParseInt(text, 10, t.Bits)
		if err != nil {
			return Value{}, fmt.Sprintf("want an integer that fits in %s", typeString(t.Go))
		}
		return Value{JSON: strconv.FormatInt(v, 10), Lit: v}, ""
	case Uint:
		v, err := strconv.ParseUint(text, 10, t.Bits)
		if err != nil {
			return Value{}, fmt.Sprintf("want a non-negative integer that fits in %s", typeString(t.Go))
		}
		return Value{JSON: strconv.FormatUint(v, 10), Lit: v}, ""
	case Float:
		if !isJSONNumber(text) {
			return Value{}, "not a number"
		}
		v, err := strconv.ParseFloat(text, t.Bits)
		if err != nil {
			return Value{}, fmt.Sprintf("does not fit in %s", typeString(t.Go))
		}
		return Value{JSON: text, Lit: v}, ""
	}
	return Value{}, "values of this type cannot be written in a tag"
}

// check reports how v breaks the node's rules, or "" if it does not.
func (t *Type) check(v *Value) string {
	r := &t.Rules
	if len(r.Enum) > 0 && !slices.ContainsFunc(r.Enum, func(e Value) bool { return e.JSON == v.JSON }) {
		return "is not one of the enum values"
	}
	switch lit := v.Lit.(type) {
	case string:
		n := uint64(utf8.RuneCountInString(lit))
		if r.MinLength != nil && n < *r.MinLength || r.MaxLength != nil && n > *r.MaxLength {
			return "breaks the field's length limits"
		}
		if r.Pattern != "" && !regexp.MustCompile(r.Pattern).MatchString(lit) {
			return "does not match the field's pattern"
		}
	case int64, uint64, float64:
		n, _ := NewNumber(v.JSON)
		if r.Minimum != nil && n.Rat.Cmp(r.Minimum.Rat) < 0 || r.Maximum != nil && n.Rat.Cmp(r.Maximum.Rat) > 0 ||
			r.ExclusiveMinimum != nil && n.Rat.Cmp(r.ExclusiveMinimum.Rat) <= 0 || r.ExclusiveMaximum != nil && n.Rat.Cmp(r.ExclusiveMaximum.Rat) >= 0 {
			return "is outside the field's bounds"
		}
	}
	return ""
}

func kindNames(kinds []Kind) string {
	switch {
	case slices.Equal(kinds, strs):
		return "strings"
	case slices.Equal(kinds, numbers):
		return "numbers"
	case slices.Equal(kinds, arrays):
		return "slices and arrays"
	case slices.Equal(kinds, scalars):
		return "strings, numbers and booleans"
	case slices.Equal(kinds, []Kind{Map}):
		return "maps"
	}
	return "values"
}

func describe(t *Type) string {
	return "type " + typeString(t.Go)
}

// suggest proposes the known key closest to a misspelled one.
func suggest(key string) string {
	best, bestDist := "", 3
	candidates := append(append(slices.Collect(maps.Keys(keywords)), flags...), planned...)
	slices.Sort(candidates)
	for _, k := range candidates {
		if d := Distance(strings.ToLower(key), strings.ToLower(k)); d < bestDist {
			best, bestDist = k, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf("did you mean %q?", best)
}

// Distance is the Levenshtein distance between a and b, for suggesting what a misspelled
// word was meant to be.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
