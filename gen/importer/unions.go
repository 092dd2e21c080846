package importer

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
)

// Unions: a value that is one of several schemas (oneOf, anyOf, or the types of a type list)
// becomes the type that decodes every one of them soundly, that is, by looking at the value
// before decoding it:
//
//   - the schemas are of distinct JSON types (string, integer, number, boolean, object, array):
//     a struct with a field per type (kUnion), the one set chosen by the value's JSON type; an
//     integer goes to Integer when the union also has Number, other numbers to Number;
//   - the schemas are objects: an interface (kIface) with a struct per branch, chosen by a
//     property every branch requires with values of its own (a const, or an enum), else by
//     the required properties, which must be disjoint: the first branch (in the schema's
//     order) whose required properties the object has all of wins, which matters only for
//     an anyOf whose value matches several;
//   - both: the struct's Object field is the interface;
//   - null among them: the union may be null (a pointer, or a nil interface).
//
// Several schemas of one JSON type merge when one Go type holds them all (two enums make one,
// a string and an enum a string, arrays of the same items one slice, arrays of different
// items a slice of what their items make as a union's branches); objects nothing tells apart,
// or arrays whose items make no one type, stay json.RawMessage, as does the whole union when
// a branch may be of any type.

// leaf is one schema of a union, converted.
type leaf struct {
	t    *goType
	doc  string
	hint string   // a name for the type when it is a branch: the schema's title
	ref  string   // the $ref the branch is, if it is one
	fb   []string // the fallbacks within it, which go if the leaf's type does
}

// union is the type of a value that is one of alts (at paths); s is the schema holding them.
// The branches' descriptions document its members, unless they are the types of a type list,
// copies of s. shared, when not nil, is what s says beside the alternatives (its
// properties or items), which every branch that may be an object or an array has too
// (withShared).
func (c *converter) union(s *schema, alts []json.RawMessage, shared json.RawMessage, paths []string, path string, branchDocs bool) (*goType, bool) {
	mark := len(*c.fallbacks)
	giveUp := func(why string) (*goType, bool) {
		*c.fallbacks = (*c.fallbacks)[:mark]
		return c.fallback(path, why), false
	}
	null := false
	var leaves []leaf
	var arrays []string // the items of the arrays among the leaves
	for i, a := range alts {
		as, err := parseSchema(a)
		if err == nil && isNull(as) {
			null = true
			continue
		}
		before := len(*c.fallbacks)
		if shared != nil {
			a = withShared(c.root, shared, a)
		}
		t, n := c.convert(a, paths[i])
		null = null || n
		l := leaf{t: t, fb: slices.Clone((*c.fallbacks)[before:])}
		*c.fallbacks = (*c.fallbacks)[:before]
		if es, _, _ := resolve(c.root, a); t.kind == kSlice && kindOf(es) == "array" {
			// Arrays of the same items are one Go type, whatever else their branches
			// say (minItems: the server checks it): the first stands for them.
			items := string(compact(es.Items))
			if slices.Contains(arrays, items) {
				continue
			}
			arrays = append(arrays, items)
		}
		if as != nil && branchDocs {
			l.doc = fieldDoc(as)
			if as.Title != "" {
				l.hint = exported(as.Title)
			}
			l.ref = as.Ref
		}
		leaves = append(leaves, l)
	}
	switch len(leaves) {
	case 0:
		return c.fallback(path, "always null"), true
	case 1:
		*c.fallbacks = append(*c.fallbacks, leaves[0].fb...)
		return leaves[0].t, null
	}

	t, why := c.oneOf(leaves, s, path)
	if why != "" {
		return giveUp(why)
	}
	return t, null
}

// oneOf is the type of a value that is one of leaves (two or more), of the union s (its
// discriminator, title and description), at path; why says why there is none.
func (c *converter) oneOf(leaves []leaf, s *schema, path string) (t *goType, why string) {
	// The leaves by JSON type, unions within them opened up.
	var order []string
	groups := map[string][]leaf{}
	add := func(kind string, l leaf) {
		if _, ok := groups[kind]; !ok {
			order = append(order, kind)
		}
		groups[kind] = append(groups[kind], l)
	}
	for _, l := range leaves {
		if l.t.kind == kUnion || l.t.kind == kIface {
			*c.fallbacks = append(*c.fallbacks, l.fb...) // about the types within, which stay
		}
		switch k := jsonKind(l.t); {
		case l.t.kind == kUnion:
			for _, m := range l.t.members {
				if m.t.kind == kIface {
					for _, b := range m.t.branches {
						add("object", leaf{t: b.t, doc: b.t.doc, hint: b.hint})
					}
					continue
				}
				add(m.json, leaf{t: m.t, doc: m.doc})
			}
		case l.t.kind == kIface:
			for _, b := range l.t.branches {
				add("object", leaf{t: b.t, doc: b.t.doc, hint: b.hint})
			}
		case k == "":
			return nil, "oneOf/anyOf with a branch of any JSON type"
		default:
			add(k, l)
		}
	}

	var members []*member
	for _, kind := range order {
		t := c.merge(kind, groups[kind], path, s.Discriminator)
		if t.kind != kRaw || len(groups[kind]) == 1 {
			for _, l := range groups[kind] {
				*c.fallbacks = append(*c.fallbacks, l.fb...)
			}
		}
		if len(order) == 1 {
			if t.kind == kIface && t.doc == "" {
				t.doc, t.title = docOf(s), cmpOr(t.title, s.Title)
			}
			return t, ""
		}
		m := &member{json: kind, name: memberNames[kind], t: t}
		for _, l := range groups[kind] {
			if m.doc = l.doc; m.doc != "" {
				break
			}
		}
		members = append(members, m)
	}
	return c.pkg.declare(&goType{kind: kUnion, members: members, doc: docOf(s), title: s.Title}), ""
}

// merge is the one type of the leaves of a union that are of one JSON type; disc is the
// union's OpenAPI discriminator, if it has one.
func (c *converter) merge(kind string, leaves []leaf, path string, disc *discriminator) *goType {
	// One type met twice (the same $ref as two branches' items) is one leaf.
	var once []leaf
	for _, l := range leaves {
		if !l.t.kind.declared() || !slices.ContainsFunc(once, func(o leaf) bool { return o.t == l.t }) {
			once = append(once, l)
		}
	}
	leaves = once
	if len(leaves) == 1 {
		return leaves[0].t
	}
	switch kind {
	case "string":
		enum := &goType{kind: kEnum}
		for _, l := range leaves {
			if l.t.kind != kEnum {
				return &goType{kind: kString} // an enum or a time, and any string: a string
			}
			for _, v := range l.t.values {
				if !slices.Contains(enum.values, v) {
					enum.values = append(enum.values, v)
				}
			}
		}
		return c.pkg.declare(enum)
	case "integer", "number", "boolean":
		return leaves[0].t
	case "object":
		if t := c.discriminated(leaves, disc); t != nil {
			return t
		}
		if t := c.objects(leaves); t != nil {
			return t
		}
		t := c.fallback(path, "objects that neither a property's values nor their required properties tell apart")
		t.rawKind = "object"
		return t
	}
	if t := c.arrays(leaves, path); t != nil {
		return t
	}
	t := c.fallback(path, "arrays of different items, which make no one type")
	t.rawKind = kind
	return t
}

// arrays is the slice type of arrays of different items when their items make one type, as
// a union's leaves do (enums one enum, objects told apart an interface, items of several JSON
// types a struct of a pointer per type): a value of any of the arrays decodes into it. nil
// when they make none without a fallback.
func (c *converter) arrays(leaves []leaf, path string) *goType {
	var items []leaf
	null := false
	for _, l := range leaves {
		if l.t.kind != kSlice {
			return nil
		}
		null = null || l.t.nullElem
		items = append(items, leaf{t: l.t.elem})
	}
	mark := len(*c.fallbacks)
	elem, why := c.oneOf(items, &schema{}, path+"/items")
	if why != "" || len(*c.fallbacks) > mark {
		*c.fallbacks = (*c.fallbacks)[:mark]
		return nil
	}
	return &goType{kind: kSlice, elem: elem, nullElem: null}
}

// objects is the interface of the object types of a union, with the way to tell its branches
// apart; nil when none is sound.
func (c *converter) objects(leaves []leaf) *goType {
	for _, l := range leaves {
		if l.t.kind != kStruct {
			return nil // a map or a free-form object: anything
		}
	}
	// A tag: a property every branch requires, each with values of its own.
	for _, f := range leaves[0].t.fields {
		seen := map[string]bool{}
		var branches []*branch
		for _, l := range leaves {
			values := tagValues(l.t, f.key)
			for _, v := range values {
				if seen[v] {
					values = nil
				}
				seen[v] = true
			}
			if values == nil {
				break
			}
			hint := l.hint
			if hint == "" {
				hint = tagHint(values)
			}
			branches = append(branches, &branch{t: l.t, values: values, hint: hint})
		}
		if len(branches) == len(leaves) {
			return c.pkg.declare(&goType{kind: kIface, tag: f.key, branches: branches})
		}
	}
	// The required properties, disjoint from one branch to the next, but for those every
	// branch requires (shared properties beside the variants), which tell none apart.
	common := map[string]int{}
	for _, l := range leaves {
		for _, f := range l.t.fields {
			if !f.optional {
				common[f.key]++
			}
		}
	}
	seen := map[string]bool{}
	var branches []*branch
	for _, l := range leaves {
		var required []string
		for _, f := range l.t.fields {
			if !f.optional && common[f.key] < len(leaves) {
				if seen[f.key] {
					return nil
				}
				seen[f.key] = true
				required = append(required, f.key)
			}
		}
		if len(required) == 0 {
			return nil
		}
		hint := l.hint
		if hint == "" {
			hint = exported(required[0])
		}
		branches = append(branches, &branch{t: l.t, required: required, hint: hint})
	}
	return c.pkg.declare(&goType{kind: kIface, branches: branches})
}

// discriminated is the interface of the objects of a union an OpenAPI discriminator tells
// apart, nil when it does not: the value of its property chooses the branch its mapping
// names (a $ref, or a schema's name), else the branch whose property has that value (a const
// or an enum), else the branch whose $ref ends in that name (OpenAPI's implicit mapping).
// Each branch's values must be its own. A branch of one value has it written by the encoder,
// as for a const: its struct is a copy of the schema's with that value fixed.
func (c *converter) discriminated(leaves []leaf, disc *discriminator) *goType {
	if disc == nil || disc.PropertyName == "" {
		return nil
	}
	key := disc.PropertyName
	mapped := slices.Sorted(maps.Keys(disc.Mapping))
	seen := map[string]bool{}
	var branches []*branch
	for _, l := range leaves {
		if l.t.kind != kStruct {
			return nil
		}
		var values []string
		for _, v := range mapped {
			if names(disc.Mapping[v], l) {
				values = append(values, v)
			}
		}
		if len(values) == 0 {
			values = tagValues(l.t, key)
		}
		if len(values) == 0 && l.ref != "" {
			values = []string{lastToken(l.ref)}
		}
		if len(values) == 0 {
			return nil
		}
		for _, v := range values {
			if seen[v] {
				return nil
			}
			seen[v] = true
		}
		t := l.t
		if len(values) == 1 {
			if t = c.withTag(t, key, values[0]); t == nil {
				return nil
			}
		} else if i := slices.IndexFunc(t.fields, func(f *field) bool { return f.key == key }); i < 0 || t.fields[i].fixed ||
			t.fields[i].t.kind != kString && t.fields[i].t.kind != kEnum {
			return nil // values the caller cannot set
		}
		hint := l.hint
		if hint == "" {
			hint = tagHint(values)
		}
		branches = append(branches, &branch{t: t, values: values, hint: hint})
	}
	return c.pkg.declare(&goType{kind: kIface, tag: key, branches: branches})
}

// names says whether a discriminator's mapping target (a $ref or a schema's name) is the
// union's branch l: its $ref, or a $ref or definition of that name, or its title.
func names(target string, l leaf) bool {
	name := lastToken(target)
	return target == l.ref || l.ref != "" && name == lastToken(l.ref) || slices.Contains(l.t.defs, exported(name)) || l.hint != "" && exported(name) == l.hint
}

// lastToken is the last reference token of a $ref, or the name itself: Dog of
// #/components/schemas/Dog.
func lastToken(ref string) string {
	if i := strings.LastIndex(ref, "/"); i >= 0 {
		return unescapeToken(ref[i+1:])
	}
	return ref
}

// withTag is struct t with its property key fixed to value (written by the encoder, checked by
// the decoder), a copy unless it is fixed to it already; nil when it is fixed to another.
func (c *converter) withTag(t *goType, key, value string) *goType {
	i := slices.IndexFunc(t.fields, func(f *field) bool { return f.key == key })
	if i >= 0 && t.fields[i].fixed {
		if t.fields[i].value == value {
			return t
		}
		return nil
	}
	tagged := &goType{kind: kStruct, doc: t.doc, title: t.title, defs: slices.Clone(t.defs), extra: t.extra, extraName: t.extraName, extraNull: t.extraNull}
	fixed := &field{key: key, fixed: true, value: value}
	if i < 0 {
		tagged.fields = append(tagged.fields, fixed)
	}
	for j, f := range t.fields {
		if j == i {
			fixed.doc = f.doc
			tagged.fields = append(tagged.fields, fixed)
			continue
		}
		copied := *f
		tagged.fields = append(tagged.fields, &copied)
	}
	return c.pkg.declare(tagged)
}

// tagValues are the values a struct's required property key may have, when it is one string
// or an enum; nil otherwise.
func tagValues(t *goType, key string) []string {
	i := slices.IndexFunc(t.fields, func(f *field) bool { return f.key == key })
	switch {
	case i < 0 || t.fields[i].optional:
		return nil
	case t.fields[i].fixed:
		return []string{t.fields[i].value}
	case t.fields[i].t.kind == kEnum && !t.fields[i].nullable:
		var values []string
		for _, v := range t.fields[i].t.values {
			values = append(values, v.value)
		}
		return values
	}
	return nil
}

// tagHint names a branch after the values of its tag: Card, ImageOrAudio.
func tagHint(values []string) string {
	if len(values) > 3 {
		values = values[:1]
	}
	var parts []string
	for _, v := range values {
		parts = append(parts, exported(v))
	}
	return strings.Join(parts, "Or")
}
