package schema

import (
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The JSON Schema keywords a jsonschema tag may set, one row each, with the whole life of
// the keyword: which shapes the tag key applies to, how its value is read into the Rules of a
// type, the keyword it writes into a schema and, for a keyword that constrains values, how a
// value written in a tag (a default, an example) is checked against it at generation time,
// the code generated code checks it with (see validate.go), and whether an elicitation form
// can carry it. Adding a keyword is a row here and a field in Rules.
//
// The rows are in the order the keywords are written in a schema (title aside, which goes
// first, and description, which a use site may override: see renderer.node), and checked
// (in generated code and in tags) in that order.

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

	// The columns of a keyword that constrains values; nil for annotations.

	// holds says how v, a value written in a tag for t (a default, an example, an item of a
	// list's default; for a list's own keywords, the whole default, a []Value), breaks the
	// keyword; "" when it does not, or when the rules of t do not set the keyword.
	holds func(t *Type, v *Value) string
	// check is the code that checks the keyword in generated decoders and result checkers.
	check *checker
	// form says why an elicitation form cannot carry the keyword as the rules of t set it,
	// or "": a form holds a fixed subset of JSON Schema (RenderForm writes it).
	form func(t *Type) string
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
	{tag: "title", schema: "title", kinds: anything,
		set: func(t *Type, v string) string { t.Rules.Title = v; return "" }, get: textRule(func(r *Rules) string { return r.Title })},
	{tag: "description", kinds: anything,
		set: func(t *Type, v string) string { t.Rules.Description = v; return "" }},
	{tag: "type", kinds: []Kind{Custom}, set: setType},
	{tag: "format", schema: "format", kinds: strs, set: setFormat, get: textRule(func(r *Rules) string { return r.Format }),
		form: formFormat},
	{tag: "enum", schema: "enum", kinds: scalars, set: setEnum, get: func(r *Rules) any { return valueList(r.Enum) },
		holds: holdsEnum, check: &checker{enumCode}, form: formEnum},
	{tag: "const", schema: "const", kinds: scalars, set: setConst, get: getConst,
		holds: holdsConst, check: &checker{constCode}, form: func(*Type) string { return "a form field cannot be a constant; leave it out of the form" }},
	{tag: "minimum", schema: "minimum", kinds: numbers,
		set:   numberRule(func(r *Rules) **Number { return &r.Minimum }, tighterMin),
		get:   numberOf(func(r *Rules) *Number { return r.Minimum }),
		holds: holdsBound(func(r *Rules) *Number { return r.Minimum }, func(c int) bool { return c >= 0 }), check: boundsCheck},
	{tag: "maximum", schema: "maximum", kinds: numbers,
		set:   numberRule(func(r *Rules) **Number { return &r.Maximum }, tighterMax),
		get:   numberOf(func(r *Rules) *Number { return r.Maximum }),
		holds: holdsBound(func(r *Rules) *Number { return r.Maximum }, func(c int) bool { return c <= 0 }), check: boundsCheck},
	{tag: "exclusiveMinimum", schema: "exclusiveMinimum", kinds: numbers,
		set:   numberRule(func(r *Rules) **Number { return &r.ExclusiveMinimum }, nil),
		get:   numberOf(func(r *Rules) *Number { return r.ExclusiveMinimum }),
		holds: holdsBound(func(r *Rules) *Number { return r.ExclusiveMinimum }, func(c int) bool { return c > 0 }), check: boundsCheck,
		form: formNumber},
	{tag: "exclusiveMaximum", schema: "exclusiveMaximum", kinds: numbers,
		set:   numberRule(func(r *Rules) **Number { return &r.ExclusiveMaximum }, nil),
		get:   numberOf(func(r *Rules) *Number { return r.ExclusiveMaximum }),
		holds: holdsBound(func(r *Rules) *Number { return r.ExclusiveMaximum }, func(c int) bool { return c < 0 }), check: boundsCheck,
		form: formNumber},
	{tag: "multipleOf", schema: "multipleOf", kinds: numbers, set: setMultipleOf,
		get:   numberOf(func(r *Rules) *Number { return r.MultipleOf }),
		holds: holdsMultipleOf, check: &checker{multipleCode}, form: formNumber},
	{tag: "minLength", schema: "minLength", kinds: strs,
		set:   countRule(func(r *Rules) **uint64 { return &r.MinLength }, nil),
		get:   countOf(func(r *Rules) *uint64 { return r.MinLength }),
		holds: holdsLength(func(r *Rules) *uint64 { return r.MinLength }, func(n, limit uint64) bool { return n >= limit }), check: lengthCheck},
	{tag: "maxLength", schema: "maxLength", kinds: strs,
		set:   countRule(func(r *Rules) **uint64 { return &r.MaxLength }, nil),
		get:   countOf(func(r *Rules) *uint64 { return r.MaxLength }),
		holds: holdsLength(func(r *Rules) *uint64 { return r.MaxLength }, func(n, limit uint64) bool { return n <= limit }), check: lengthCheck},
	// A fixed-length array keeps its length: the tighter limit stays.
	{tag: "minItems", schema: "minItems", kinds: arrays,
		set:   countRule(func(r *Rules) **uint64 { return &r.MinItems }, func(n, old uint64) bool { return n > old }),
		get:   countOf(func(r *Rules) *uint64 { return r.MinItems }),
		holds: holdsItems(func(r *Rules) *uint64 { return r.MinItems }, func(n, limit uint64) bool { return n >= limit }), check: countCheck},
	{tag: "maxItems", schema: "maxItems", kinds: arrays,
		set:   countRule(func(r *Rules) **uint64 { return &r.MaxItems }, func(n, old uint64) bool { return n < old }),
		get:   countOf(func(r *Rules) *uint64 { return r.MaxItems }),
		holds: holdsItems(func(r *Rules) *uint64 { return r.MaxItems }, func(n, limit uint64) bool { return n <= limit }), check: countCheck},
	{tag: "minProperties", schema: "minProperties", kinds: mapKinds,
		set:   countRule(func(r *Rules) **uint64 { return &r.MinProperties }, nil),
		get:   countOf(func(r *Rules) *uint64 { return r.MinProperties }),
		check: countCheck},
	{tag: "maxProperties", schema: "maxProperties", kinds: mapKinds,
		set:   countRule(func(r *Rules) **uint64 { return &r.MaxProperties }, nil),
		get:   countOf(func(r *Rules) *uint64 { return r.MaxProperties }),
		check: countCheck},
	{tag: "pattern", schema: "pattern", kinds: strs, set: setPattern, get: textRule(func(r *Rules) string { return r.Pattern }),
		holds: holdsPattern, check: &checker{patternCode}, form: func(*Type) string { return "a form field cannot carry a pattern" }},
	{tag: "default", schema: "default", kinds: []Kind{String, Bool, Int, Uint, Float, JSONNumber, Duration}, set: setDefault, get: getDefault},
	{tag: "uniqueItems", schema: "uniqueItems", kinds: arrays, get: func(r *Rules) any { return flagOf(r.UniqueItems) },
		holds: holdsUnique, check: &checker{uniqueCode},
		form: func(*Type) string {
			return "a form's multi-select takes no uniqueItems (its choices are distinct already); check duplicates in the tool"
		}},
	{tag: "example", schema: "examples", kinds: scalars, set: setExample, get: func(r *Rules) any { return valueList(r.Examples) }},
	{tag: "readOnly", schema: "readOnly", kinds: anything,
		set: flagRule(func(r *Rules) *bool { return &r.ReadOnly }), get: func(r *Rules) any { return flagOf(r.ReadOnly) }},
	{tag: "writeOnly", schema: "writeOnly", kinds: anything,
		set: flagRule(func(r *Rules) *bool { return &r.WriteOnly }), get: func(r *Rules) any { return flagOf(r.WriteOnly) }},
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

func setConst(t *Type, value string) string {
	v, msg := t.literal(value)
	if msg != "" {
		return msg
	}
	t.Rules.Const = &v
	return ""
}

func getConst(r *Rules) any {
	if r.Const == nil {
		return nil
	}
	return rawJSON(r.Const.JSON)
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

// The checks of values written in tags (see keyword.holds).

func holdsEnum(t *Type, v *Value) string {
	if r := &t.Rules; len(r.Enum) > 0 && !slices.ContainsFunc(r.Enum, func(e Value) bool { return e.JSON == v.JSON }) {
		return "is not one of the enum values"
	}
	return ""
}

func holdsConst(t *Type, v *Value) string {
	if c := t.Rules.Const; c != nil && !sameValue(v, c) {
		return "is not the const value " + c.JSON
	}
	return ""
}

// sameValue reports whether two values from tags are equal in JSON: numbers by value (1.0
// is 1), others as written.
func sameValue(a, b *Value) bool {
	if x, ok := NewNumber(a.JSON); ok {
		y, ok := NewNumber(b.JSON)
		return ok && x.Rat.Cmp(y.Rat) == 0
	}
	return a.JSON == b.JSON
}

// holdsBound checks a number against a bound; ok says whether the comparison of the value
// with the bound (-1, 0, +1) is within it.
func holdsBound(bound func(*Rules) *Number, ok func(cmp int) bool) func(*Type, *Value) string {
	return func(t *Type, v *Value) string {
		b := bound(&t.Rules)
		if b == nil || !slices.Contains([]Kind{Int, Uint, Float, JSONNumber}, t.Kind) {
			return ""
		}
		if n, isNumber := NewNumber(v.JSON); isNumber && !ok(n.Rat.Cmp(b.Rat)) {
			return "is outside the field's bounds"
		}
		return ""
	}
}

func holdsMultipleOf(t *Type, v *Value) string {
	m := t.Rules.MultipleOf
	if m == nil || !slices.Contains([]Kind{Int, Uint, Float, JSONNumber}, t.Kind) {
		return ""
	}
	if n, isNumber := NewNumber(v.JSON); isNumber && !new(big.Rat).Quo(n.Rat, m.Rat).IsInt() {
		return "is not a multiple of " + m.Text
	}
	return ""
}

// holdsLength checks the length of a string in characters against a limit.
func holdsLength(limit func(*Rules) *uint64, ok func(n, limit uint64) bool) func(*Type, *Value) string {
	return func(t *Type, v *Value) string {
		l := limit(&t.Rules)
		s, isString := v.Lit.(string)
		if l == nil || !isString || t.Kind != String && t.Kind != Text {
			return ""
		}
		if !ok(uint64(utf8.RuneCountInString(s)), *l) {
			return "breaks the field's length limits"
		}
		return ""
	}
}

func holdsPattern(t *Type, v *Value) string {
	s, isString := v.Lit.(string)
	if t.Rules.Pattern == "" || !isString || t.Kind != String && t.Kind != Text {
		return ""
	}
	if !regexp.MustCompile(t.Rules.Pattern).MatchString(s) {
		return "does not match the field's pattern"
	}
	return ""
}

// holdsItems checks the number of items of a list's default against a limit.
func holdsItems(limit func(*Rules) *uint64, ok func(n, limit uint64) bool) func(*Type, *Value) string {
	return func(t *Type, v *Value) string {
		l := limit(&t.Rules)
		items, isList := v.Lit.([]Value)
		if l == nil || !isList {
			return ""
		}
		if n := uint64(len(items)); !ok(n, *l) {
			return fmt.Sprintf("has %d items, which breaks the list's item limits", n)
		}
		return ""
	}
}

func holdsUnique(t *Type, v *Value) string {
	items, isList := v.Lit.([]Value)
	if !t.Rules.UniqueItems || !isList {
		return ""
	}
	for i, x := range items {
		if slices.ContainsFunc(items[:i], func(y Value) bool { return y.JSON == x.JSON }) {
			return fmt.Sprintf("holds %s twice, but the list's items must be unique", x.JSON)
		}
	}
	return ""
}

// The limits of elicitation forms (see keyword.form).

// formFormats are the formats a form's string may have.
var formFormats = []string{"date", "date-time", "email", "uri"}

func formFormat(t *Type) string {
	if !slices.Contains(formFormats, t.Rules.Format) {
		return fmt.Sprintf("format %s is not one a form allows (%s)", t.Rules.Format, strings.Join(formFormats, ", "))
	}
	return ""
}

func formEnum(t *Type) string {
	switch t.Kind {
	case Int, Uint, Float:
		return fmt.Sprintf("a form's enums hold strings; make %s a string type", typeString(t.Go))
	case Bool:
		return "a form's booleans take no enum; use a string enum for a choice of values"
	}
	return ""
}

func formNumber(*Type) string { return "a form's numbers take only minimum and maximum" }

// FormProblems says why an elicitation form cannot carry the rules of t, a field's type, in
// the order of the keyword table; nil when it can.
func FormProblems(t *Type) []string {
	var out []string
	for i := range keywords {
		k := &keywords[i]
		if k.form == nil || k.get(&t.Rules) == nil {
			continue
		}
		if msg := k.form(t); msg != "" && !slices.Contains(out, msg) {
			out = append(out, msg)
		}
	}
	return out
}
