package schema

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The JSON Schema keywords a jsonschema tag may set, one row each: which shapes the tag key
// applies to, how its value is read into the Rules of a type, and the keyword it writes into
// a schema. Adding a keyword is a row here and a field in Rules; if it constrains values,
// also the check that generated code makes (gen/internal/emit: valueChecks and needsCheck)
// and, for a default's sake, Type.check.
//
// The rows are in the order the keywords are written in a schema (title aside, which goes
// first, and description, which a use site may override: see renderer.node).

// keyword is one row.
type keyword struct {
	tag    string // the jsonschema tag key
	schema string // the keyword written into a schema; "" when it writes none of its own
	kinds  []Kind // the shapes it applies to
	// set reads a tag's value into the rules of t; it returns what is wrong with the value,
	// or "". nil for keys applyTags reads itself (default on a list, uniqueItems).
	set func(t *Type, value string) string
	// get is the keyword's value in a schema, or nil when the rules do not set it.
	get func(r *Rules) any
}

// keyword kinds: which JSON shapes a jsonschema tag key applies to.
var (
	strs     = []Kind{String, Text}
	numbers  = []Kind{Int, Uint, Float}
	scalars  = []Kind{String, Text, Bool, Int, Uint, Float}
	arrays   = []Kind{Slice, Array}
	mapKinds = []Kind{Map}
	anything = []Kind{String, Bool, Int, Uint, Float, Bytes, Struct, Map, Slice, Array, Any, Text, Custom, Duration, RawJSON, JSONNumber}
)

// keywords are the rows. Keys that apply to scalars, written on a slice or array field, apply
// to its elements, as in invopop/jsonschema. On a type with its own JSON encoding, whose
// schema the tags declare, every key applies.
var keywords = []keyword{
	{"title", "title", anything, func(t *Type, v string) string { t.Rules.Title = v; return "" }, textRule(func(r *Rules) string { return r.Title })},
	{"description", "", anything, func(t *Type, v string) string { t.Rules.Description = v; return "" }, nil},
	{"type", "", []Kind{Custom}, setType, nil},
	{"format", "format", strs, setFormat, textRule(func(r *Rules) string { return r.Format })},
	{"enum", "enum", scalars, setEnum, func(r *Rules) any { return valueList(r.Enum) }},
	{"minimum", "minimum", numbers, numberRule(func(r *Rules) **Number { return &r.Minimum }, tighterMin), numberOf(func(r *Rules) *Number { return r.Minimum })},
	{"maximum", "maximum", numbers, numberRule(func(r *Rules) **Number { return &r.Maximum }, tighterMax), numberOf(func(r *Rules) *Number { return r.Maximum })},
	{"exclusiveMinimum", "exclusiveMinimum", numbers, numberRule(func(r *Rules) **Number { return &r.ExclusiveMinimum }, nil), numberOf(func(r *Rules) *Number { return r.ExclusiveMinimum })},
	{"exclusiveMaximum", "exclusiveMaximum", numbers, numberRule(func(r *Rules) **Number { return &r.ExclusiveMaximum }, nil), numberOf(func(r *Rules) *Number { return r.ExclusiveMaximum })},
	{"multipleOf", "multipleOf", []Kind{Int, Uint, Float}, setMultipleOf, numberOf(func(r *Rules) *Number { return r.MultipleOf })},
	{"minLength", "minLength", strs, countRule(func(r *Rules) **uint64 { return &r.MinLength }, nil), countOf(func(r *Rules) *uint64 { return r.MinLength })},
	{"maxLength", "maxLength", strs, countRule(func(r *Rules) **uint64 { return &r.MaxLength }, nil), countOf(func(r *Rules) *uint64 { return r.MaxLength })},
	// A fixed-length array keeps its length: the tighter limit stays.
	{"minItems", "minItems", arrays, countRule(func(r *Rules) **uint64 { return &r.MinItems }, func(n, old uint64) bool { return n > old }), countOf(func(r *Rules) *uint64 { return r.MinItems })},
	{"maxItems", "maxItems", arrays, countRule(func(r *Rules) **uint64 { return &r.MaxItems }, func(n, old uint64) bool { return n < old }), countOf(func(r *Rules) *uint64 { return r.MaxItems })},
	{"minProperties", "minProperties", mapKinds, countRule(func(r *Rules) **uint64 { return &r.MinProperties }, nil), countOf(func(r *Rules) *uint64 { return r.MinProperties })},
	{"maxProperties", "maxProperties", mapKinds, countRule(func(r *Rules) **uint64 { return &r.MaxProperties }, nil), countOf(func(r *Rules) *uint64 { return r.MaxProperties })},
	{"pattern", "pattern", strs, setPattern, textRule(func(r *Rules) string { return r.Pattern })},
	{"default", "default", []Kind{String, Bool, Int, Uint, Float, JSONNumber, Duration}, setDefault, getDefault},
	{"uniqueItems", "uniqueItems", arrays, nil, func(r *Rules) any { return flagOf(r.UniqueItems) }},
	{"example", "examples", scalars, setExample, func(r *Rules) any { return valueList(r.Examples) }},
	{"readOnly", "readOnly", anything, flagRule(func(r *Rules) *bool { return &r.ReadOnly }), func(r *Rules) any { return flagOf(r.ReadOnly) }},
	{"writeOnly", "writeOnly", anything, flagRule(func(r *Rules) *bool { return &r.WriteOnly }), func(r *Rules) any { return flagOf(r.WriteOnly) }},
}

// lookupKeyword returns the row of a tag key.
func lookupKeyword(tag string) (*keyword, bool) {
	i := slices.IndexFunc(keywords, func(k keyword) bool { return k.tag == tag })
	if i < 0 {
		return nil, false
	}
	return &keywords[i], true
}

// flags are the tag items without a value.
var flags = []string{"required", "nullable", "uniqueItems"}

// unsupported are keys of the invopop dialect that mcpgen does not handle: reported, never
// silently ignored.
var unsupported = []string{"anchor", "oneof_required", "anyof_required", "oneof_ref", "oneof_type", "anyof_ref", "anyof_type"}

// jsonTypes are the values of type=.
var jsonTypes = []string{"string", "number", "integer", "boolean", "object", "array", "null"}

// The readers and getters the rows share.

func textRule(get func(*Rules) string) func(*Rules) any {
	return func(r *Rules) any {
		if s := get(r); s != "" {
			return s
		}
		return nil
	}
}

func numberOf(get func(*Rules) *Number) func(*Rules) any {
	return func(r *Rules) any {
		if n := get(r); n != nil {
			return n
		}
		return nil
	}
}

func countOf(get func(*Rules) *uint64) func(*Rules) any {
	return func(r *Rules) any {
		if n := get(r); n != nil {
			return *n
		}
		return nil
	}
}

func flagOf(b bool) any {
	if b {
		return true
	}
	return nil
}

func valueList(vs []Value) any {
	if len(vs) == 0 {
		return nil
	}
	return values(vs)
}

// numberRule reads a bound. keep, if set, says whether a bound n replaces the one already
// there: the type's own range stays when it is tighter than the tag.
func numberRule(field func(*Rules) **Number, keep func(n, old *Number) bool) func(*Type, string) string {
	return func(t *Type, value string) string {
		n, ok := NewNumber(value)
		if !ok {
			return "not a number"
		}
		if p := field(&t.Rules); *p == nil || keep == nil || keep(n, *p) {
			*p = n
		}
		return ""
	}
}

func tighterMin(n, old *Number) bool { return n.Rat.Cmp(old.Rat) > 0 }
func tighterMax(n, old *Number) bool { return n.Rat.Cmp(old.Rat) < 0 }

// countRule reads a length or count limit; keep as in numberRule.
func countRule(field func(*Rules) **uint64, keep func(n, old uint64) bool) func(*Type, string) string {
	return func(t *Type, value string) string {
		n, err := strconv.ParseUint(value, 10, 63)
		if err != nil {
			return "want a non-negative integer"
		}
		if p := field(&t.Rules); *p == nil || keep == nil || keep(n, **p) {
			*p = &n
		}
		return ""
	}
}

func flagRule(field func(*Rules) *bool) func(*Type, string) string {
	return func(t *Type, value string) string {
		flag, err := strconv.ParseBool(value)
		if err != nil {
			return "want true or false"
		}
		*field(&t.Rules) = flag
		return ""
	}
}

func setType(t *Type, value string) string {
	if !slices.Contains(jsonTypes, value) {
		return "want one of " + strings.Join(jsonTypes, ", ")
	}
	t.Declared = `{"type":` + strconv.Quote(value) + `}`
	return ""
}

func setFormat(t *Type, value string) string {
	if qualifiedName(t.Go) == "time.Time" && value != "date-time" {
		return "a time.Time is read and written as an RFC 3339 date-time; use a string field for another format (a date is format=date)"
	}
	t.Rules.Format = value
	return ""
}

func setEnum(t *Type, value string) string {
	v, msg := t.literal(value)
	if msg != "" {
		return msg
	}
	if t.enumFromConsts { // a tag's enum replaces the one taken from constants
		t.Rules.Enum, t.enumFromConsts, t.EnumTitles = nil, false, nil
	}
	t.Rules.Enum = append(t.Rules.Enum, v)
	return ""
}

func setMultipleOf(t *Type, value string) string {
	n, ok := NewNumber(value)
	if !ok || n.Rat.Sign() <= 0 {
		return "want a number greater than 0"
	}
	t.Rules.MultipleOf = n
	return ""
}

func setPattern(t *Type, value string) string {
	if _, err := regexp.Compile(value); err != nil {
		return "not a valid regular expression (Go's RE2 syntax, which generated code validates with): " + strings.TrimPrefix(err.Error(), "error parsing regexp: ")
	}
	t.Rules.Pattern = value
	return ""
}

func setDefault(t *Type, value string) string {
	v, msg := t.literal(value)
	if msg != "" {
		return msg
	}
	t.Rules.Default = &v
	return ""
}

// getDefault is a scalar's default, or a list's (from repeated default= items).
func getDefault(r *Rules) any {
	switch {
	case r.Defaults != nil:
		return values(r.Defaults)
	case r.Default != nil:
		return rawJSON(r.Default.JSON)
	}
	return nil
}

func setExample(t *Type, value string) string {
	v, msg := t.literal(value)
	if msg != "" {
		return msg
	}
	t.Rules.Examples = append(t.Rules.Examples, v)
	return ""
}
