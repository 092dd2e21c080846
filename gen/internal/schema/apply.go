package schema

import (
	"fmt"
	"go/token"
	"go/types"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/internal/spelling"
)

// tagResult is what the tags of a field say beyond its schema.
type tagResult struct {
	required   bool
	defaultPos token.Pos
}

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
	var defaulted *Type // the node a default= applies to, checked once all rules are in
	type example struct {
		node *Type
		i    int // in node.Rules.Examples
		pos  token.Pos
	}
	var examples []example // checked once all rules are in, as the default is

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
				if f.Type.Kind == Pointer || f.Type.Kind == ThreeStates {
					f.Type.Nullable = true
				} else {
					target.Nullable = true
				}
			case "uniqueItems":
				b.unique(target, true, pos, where)
			}
			continue
		case slices.Contains(unsupported, it.key):
			b.diags.Errorf(pos, "%s: jsonschema tag key %q is not supported", where, it.key)
			continue
		}
		kw, known := lookupKeyword(it.key)
		if !known {
			b.diags.Hintf(pos, suggest(it.key, target), "%s: unknown jsonschema tag key %q", where, it.key)
			continue
		}
		if !it.hasValue {
			b.diags.Errorf(pos, "%s: jsonschema tag key %q needs a value: %s=...", where, it.key, it.key)
			continue
		}
		node := target
		isList := node.Kind == Slice || node.Kind == Array
		if it.key == "default" && isList {
			if msg := b.listDefault(node, it.value); msg != "" {
				b.diags.Errorf(pos, "%s: %s=%s: %s", where, it.key, it.value, msg)
			}
			res.defaultPos, defaulted = pos, node
			continue
		}
		if isList && !slices.Contains(kw.kinds, node.Kind) {
			node = node.Elem.Deref() // a scalar keyword on a list applies to its elements
		}
		if node.Kind != Custom && !slices.Contains(kw.kinds, node.Kind) {
			b.diags.Errorf(pos, "%s: jsonschema tag key %q applies to %s, not to %s", where, it.key, kindNames(kw.kinds), describe(node))
			continue
		}
		if it.key == "uniqueItems" {
			flag, err := strconv.ParseBool(it.value)
			if err != nil {
				b.diags.Errorf(pos, "%s: uniqueItems=%s: want true or false", where, it.value)
				continue
			}
			b.unique(node, flag, pos, where)
			continue
		}
		if msg := kw.set(node, it.value); msg != "" {
			b.diags.Errorf(pos, "%s: %s=%s: %s", where, it.key, it.value, msg)
			continue
		}
		switch it.key {
		case "default":
			res.defaultPos, defaulted = pos, node
		case "example":
			examples = append(examples, example{node, len(node.Rules.Examples) - 1, pos})
		}
	}

	if d, _, ok := tagValue(c.tag, "jsonschema_description"); ok {
		target.Rules.Description = d
	}
	if extras, eoff, ok := tagValue(c.tag, "jsonschema_extras"); ok {
		enumNames := token.NoPos
		for _, it := range splitTagItems(extras) {
			if !it.hasValue || it.key == "" {
				b.diags.Errorf(at(eoff+it.offset), "%s: jsonschema_extras items must be key=value", where)
				continue
			}
			if it.key == HeaderKeyword {
				b.extrasHeader(f, target, it.value, at(eoff+it.offset), where)
				continue
			}
			if it.key == "enumNames" && !enumNames.IsValid() {
				enumNames = at(eoff + it.offset)
			}
			target.Rules.addExtra(it.key, it.value)
		}
		if enumNames.IsValid() {
			b.checkEnumNames(target, enumNames, where)
		}
	}
	if value, moff, ok := tagValue(c.tag, "mcp"); ok {
		b.mcpTag(f, target, value, func(offset int) token.Pos { return at(moff + offset) }, where)
	}

	for _, n := range []*Type{target, target.Elem} {
		if n != nil {
			if msg := n.contradiction(); msg != "" {
				b.diags.Errorf(f.Pos, "%s: %s, so no value is valid", where, msg)
			}
		}
	}
	if defaulted != nil {
		b.checkDefault(defaulted, res.defaultPos, where)
	}
	for _, x := range examples {
		// An example that breaks the rules misleads a model into sending what is rejected.
		v := &x.node.Rules.Examples[x.i]
		if msg := x.node.check(v); msg != "" {
			b.diags.Errorf(x.pos, "%s: example %s %s", where, v.JSON, msg)
		}
	}
	return res
}

// jsonOptions are the options of a json tag that encoding/json knows.
var jsonOptions = []string{"omitempty", "omitzero", "string"}

// checkJSONOptions reports json tag options encoding/json does not know, which it ignores: a
// misspelled omitempty would silently make a property required.
// Only tags in the user's source are checked: a mistake there can be fixed.
func (b *Builder) checkJSONOptions(field *types.Var, tag, where string) {
	v, off, ok := tagValue(tag, "json")
	if !ok || b.src == nil {
		return
	}
	base := b.src.TagPos(field)
	if !base.IsValid() {
		return
	}
	at := func(offset int) token.Pos { return base + 1 + token.Pos(offset) }
	i := strings.IndexByte(v, ',')
	if i < 0 {
		return
	}
	for i < len(v) {
		start := i + 1
		end := strings.IndexByte(v[start:], ',')
		if end < 0 {
			end = len(v)
		} else {
			end += start
		}
		opt := v[start:end]
		i = end
		if opt == "" || slices.Contains(jsonOptions, opt) {
			continue
		}
		hint := "encoding/json knows omitempty, omitzero and string, and ignores other options"
		switch best := nearest(opt, jsonOptions); {
		case opt == "inline":
			hint = "remove it: encoding/json ignores it, and promotes the fields of an embedded struct without a name anyway"
		case best != "":
			hint = fmt.Sprintf("did you mean %q?", best)
		}
		b.diags.Hintf(at(off+start), hint, "%s: unknown json tag option %q", where, opt)
	}
}

// nearest returns the word of words closest to w, if it is close enough to be a misspelling.
func nearest(w string, words []string) string {
	best, bestDist := "", 3
	for _, k := range words {
		if d := spelling.Distance(strings.ToLower(w), strings.ToLower(k)); d < bestDist {
			best, bestDist = k, d
		}
	}
	return best
}

// unique sets uniqueItems on a list, whose items must be compared as Go compares them: only
// strings, numbers and booleans, for which Go's equality is JSON's.
func (b *Builder) unique(list *Type, flag bool, pos token.Pos, where string) {
	if list.Kind != Slice && list.Kind != Array {
		b.diags.Errorf(pos, "%s: jsonschema tag key \"uniqueItems\" applies to slices and arrays, not to %s", where, describe(list))
		return
	}
	switch list.Elem.Kind {
	case String, Bool, Int, Uint, Float:
		list.Rules.UniqueItems = flag
	default:
		b.diags.Hintf(pos, "compare items in the tool instead", "%s: uniqueItems is supported for lists of strings, numbers and booleans, not of %s", where, typeString(list.Elem.Go))
	}
}

// listDefault reads default= on a list: each repetition is one item, as in invopop.
func (b *Builder) listDefault(list *Type, text string) string {
	item := list.Elem
	switch item.Kind {
	case String, Bool, Int, Uint, Float:
	default:
		return "a default for a list needs items that are strings, numbers or booleans"
	}
	v, msg := item.literal(text)
	if msg != "" {
		return msg
	}
	list.Rules.Defaults = append(list.Rules.Defaults, v)
	return ""
}

// checkDefault reports a default that breaks the rules of the value it is the default of.
func (b *Builder) checkDefault(n *Type, pos token.Pos, where string) {
	if n.Kind == Slice || n.Kind == Array {
		for _, v := range n.Rules.Defaults {
			if msg := n.Elem.check(&v); msg != "" {
				b.diags.Errorf(pos, "%s: default %s %s", where, v.JSON, msg)
			}
		}
		list := Value{Lit: n.Rules.Defaults}
		if msg := n.check(&list); msg != "" {
			b.diags.Errorf(pos, "%s: the default %s", where, msg)
		}
		return
	}
	if n.Rules.Default != nil {
		if msg := n.check(n.Rules.Default); msg != "" {
			b.diags.Errorf(pos, "%s: default %s %s", where, n.Rules.Default.JSON, msg)
		}
	}
}

// contradiction describes limits that exclude every value, or returns "".
func (t *Type) contradiction() string {
	r := &t.Rules
	switch {
	case r.MinLength != nil && r.MaxLength != nil && *r.MinLength > *r.MaxLength:
		return fmt.Sprintf("minLength %d is greater than maxLength %d", *r.MinLength, *r.MaxLength)
	case r.MinItems != nil && r.MaxItems != nil && *r.MinItems > *r.MaxItems:
		return fmt.Sprintf("minItems %d is greater than maxItems %d", *r.MinItems, *r.MaxItems)
	case r.MinProperties != nil && r.MaxProperties != nil && *r.MinProperties > *r.MaxProperties:
		return fmt.Sprintf("minProperties %d is greater than maxProperties %d", *r.MinProperties, *r.MaxProperties)
	}
	lo, hi := r.Minimum, r.Maximum
	if lo != nil && hi != nil && lo.Rat.Cmp(hi.Rat) > 0 {
		return fmt.Sprintf("minimum %s is greater than maximum %s", lo.Text, hi.Text)
	}
	for _, pair := range [][2]*Number{{r.ExclusiveMinimum, hi}, {lo, r.ExclusiveMaximum}, {r.ExclusiveMinimum, r.ExclusiveMaximum}} {
		if pair[0] != nil && pair[1] != nil && pair[0].Rat.Cmp(pair[1].Rat) >= 0 {
			return fmt.Sprintf("the lower limit %s is not below the upper limit %s", pair[0].Text, pair[1].Text)
		}
	}
	return ""
}

// checkEnumNames reports legacy enum titles (jsonschema_extras:"enumNames=...") that do not
// title exactly the enum values of a string.
func (b *Builder) checkEnumNames(t *Type, pos token.Pos, where string) {
	var names int
	for _, x := range t.Rules.Extras {
		if x.Key == "enumNames" {
			names = len(x.Value.([]any))
		}
	}
	switch values := len(t.Rules.Enum); {
	case t.Kind != String && t.Kind != Text || values == 0:
		b.diags.Hintf(pos, `add the values: jsonschema:"enum=a,enum=b" jsonschema_extras:"enumNames=A,enumNames=B"`,
			"%s: enumNames titles the enum values of a string, and this field has none", where)
	case names != values:
		b.diags.Hintf(pos, "write one enumNames item for each enum value, in the same order",
			"%s: %d enumNames for %d enum values", where, names, values)
	}
}

func (r *Rules) addExtra(key, value string) {
	var v any = value
	switch value {
	case "true":
		v = true
	case "false":
		v = false
	}
	if key == "enumNames" {
		v = value // titles are text, even "true"
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
	if key == "enumNames" {
		v = []any{v} // a list, even of one title
	}
	r.Extras = append(r.Extras, Extra{Key: key, Value: v})
}

// literal parses a tag value as a value of the node's type.
func (t *Type) literal(text string) (Value, string) {
	kind := t.Kind
	if kind == Custom { // as the declared type says
		switch {
		case strings.Contains(t.Declared, `"string"`):
			kind = String
		case strings.Contains(t.Declared, `"integer"`), strings.Contains(t.Declared, `"number"`):
			kind = JSONNumber
		case strings.Contains(t.Declared, `"boolean"`):
			kind = Bool
		default:
			return Value{}, "declare the type first: type=string, type=number..."
		}
	}
	switch kind {
	case String, Text:
		return Value{JSON: strconv.Quote(text), Lit: text}, ""
	case JSONNumber:
		if !isJSONNumber(text) {
			return Value{}, "not a number"
		}
		return Value{JSON: text, Lit: text}, ""
	case Duration:
		d, err := time.ParseDuration(text)
		if err != nil {
			return Value{}, `want a duration such as "1h30m" or "250ms"`
		}
		return Value{JSON: strconv.Quote(text), Lit: d}, ""
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

// check reports how v, a value written in a tag, breaks the node's rules, or "" if it does
// not: the first keyword it breaks, in the order of the keyword table.
func (t *Type) check(v *Value) string {
	for i := range keywords {
		if k := &keywords[i]; k.holds != nil {
			if msg := k.holds(t, v); msg != "" {
				return msg
			}
		}
	}
	return ""
}

// kindNames says in words which kinds a key applies to: "strings and numbers".
func kindNames(kinds []Kind) string {
	word := map[Kind]string{
		String: "strings", Text: "strings", Int: "numbers", Uint: "numbers", Float: "numbers",
		JSONNumber: "numbers", Bool: "booleans", Duration: "durations", Slice: "slices and arrays",
		Array: "slices and arrays", Map: "maps", Struct: "structs", Custom: "types with their own JSON encoding",
	}
	var words []string
	for _, k := range kinds {
		if w := word[k]; w != "" && !slices.Contains(words, w) {
			words = append(words, w)
		}
	}
	if len(words) == 0 {
		return "values"
	}
	if len(words) == 1 {
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

func describe(t *Type) string {
	switch t.Kind {
	case Text:
		return "type " + typeString(t.Go) + ", which has its own text form"
	case Custom:
		return "type " + typeString(t.Go) + ", which has its own JSON form"
	}
	return "type " + typeString(t.Go)
}

// suggest proposes the key closest to a misspelled one among those that apply to t, the
// field's type (or, for a list, its items'): a key that does not apply would be the next
// mistake. A closer key that does not apply is named as such, so that the misspelling is
// still explained.
func suggest(key string, t *Type) string {
	var fits, all []string
	for _, k := range keywords {
		all = append(all, k.tag)
		if keywordFits(k.kinds, t) {
			fits = append(fits, k.tag)
		}
	}
	fits = append(fits, "required", "nullable")
	all = append(all, flags...)
	if t.Kind == Slice || t.Kind == Array {
		fits = append(fits, "uniqueItems")
	}
	slices.Sort(fits)
	slices.Sort(all)
	if best := nearest(key, fits); best != "" {
		return fmt.Sprintf("did you mean %q?", best)
	}
	if best := nearest(key, all); best != "" {
		if k, ok := lookupKeyword(best); ok {
			return fmt.Sprintf("%q, which it resembles, applies to %s, not to %s", best, kindNames(k.kinds), describe(t))
		}
		return fmt.Sprintf("%q, which it resembles, applies to slices and arrays, not to %s", best, describe(t))
	}
	return ""
}

// keywordFits reports whether a keyword for kinds applies to t, as applyTags applies it: to
// a list's items when not to the list, and anything to a type with its own JSON form.
func keywordFits(kinds []Kind, t *Type) bool {
	if t.Kind == Custom || slices.Contains(kinds, t.Kind) {
		return true
	}
	if (t.Kind == Slice || t.Kind == Array) && t.Elem != nil {
		return slices.Contains(kinds, t.Elem.Deref().Kind)
	}
	return false
}
