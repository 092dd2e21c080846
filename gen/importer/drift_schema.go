package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Two versions of one side of a tool (its input or output schema) compared as the typed
// client reads them: null, types, enums, items, properties, and unions by their branches.

type schemaChange struct {
	where, what string
	breaking    bool
}

// differ compares two schemas of the same side of a tool: input (what callers send: a
// narrower schema breaks them) or output (what callers read: a wider one breaks them).
type differ struct {
	oldRoot, newRoot json.RawMessage
	input            bool
	changes          []schemaChange
	seen             map[string]bool // pairs of $refs compared, for recursive schemas
}

func (d *differ) note(where, what string, breaking bool) {
	c := schemaChange{where, what, breaking}
	if !slices.Contains(d.changes, c) { // a shared property is met in every branch of its union
		d.changes = append(d.changes, c)
	}
}

// resolve follows local $refs (JSON Pointers within root) to the schema they name; ref is the
// last pointer followed, "" when raw is no $ref or one that names nothing known.
func resolve(root, raw json.RawMessage) (*schema, json.RawMessage, string) {
	ref := ""
	for hops := 0; hops < 8; hops++ {
		s, err := parseSchema(raw)
		if err != nil || s == nil {
			return &schema{}, raw, ref
		}
		if s.Ref == "" {
			return s, raw, ref
		}
		tokens, err := pointerTokens(s.Ref)
		if err != nil {
			return s, raw, s.Ref
		}
		target, err := resolvePointer(root, tokens)
		if err != nil {
			return s, raw, s.Ref
		}
		raw, ref = target, pointerOf(tokens)
	}
	return &schema{}, raw, ""
}

func (d *differ) compare(oldRaw, newRaw json.RawMessage, path string) {
	_, _, oref := resolve(d.oldRoot, oldRaw)
	_, _, nref := resolve(d.newRoot, newRaw)
	if oref != "" || nref != "" {
		if d.seen == nil {
			d.seen = map[string]bool{}
		}
		key := oref + "\x00" + nref
		if d.seen[key] {
			return
		}
		d.seen[key] = true
	}
	oalts, onull := alternatives(d.oldRoot, oldRaw, 0) // oldRaw: "nullable" beside its $ref counts
	nalts, nnull := alternatives(d.newRoot, newRaw, 0)
	switch {
	case onull && !nnull:
		d.note(path, "no longer takes null", d.input)
	case !onull && nnull:
		d.note(path, "may now be null", !d.input)
	}
	if len(oalts) <= 1 && len(nalts) <= 1 {
		d.compareOne(first(oalts), first(nalts), path)
		return
	}
	d.branches(oalts, nalts, path)
}

func first(alts []alt) json.RawMessage {
	if len(alts) == 0 {
		return nil
	}
	return alts[0].raw
}

// compareOne compares two schemas of one JSON type each.
func (d *differ) compareOne(oldRaw, newRaw json.RawMessage, path string) {
	o, _, _ := resolve(d.oldRoot, oldRaw)
	n, _, _ := resolve(d.newRoot, newRaw)
	ot, nt := nonEmpty(kindOf(o)), nonEmpty(kindOf(n))
	if !slices.Equal(ot, nt) {
		d.note(path, fmt.Sprintf("type %s became %s", typeWords(ot), typeWords(nt)), true)
		return
	}
	d.enums(o, n, path)
	if slices.Contains(ot, "array") && len(o.Items) > 0 && len(n.Items) > 0 {
		d.compare(o.Items, n.Items, path+"/items")
		d.nullableElems(o.Items, n.Items, path+"/items", "the slice's elements", "[]")
	}
	if oap, nap := bytes.TrimSpace(o.AdditionalProperties), bytes.TrimSpace(n.AdditionalProperties); len(oap) > 0 && oap[0] == '{' && len(nap) > 0 && nap[0] == '{' {
		d.compare(oap, nap, path+"/additionalProperties") // a map's values, or the members besides the properties
		d.nullableElems(oap, nap, path+"/additionalProperties", "the map's values", "map[string]")
	}
	for _, key := range o.order {
		oreq, nreq := o.required(key), n.required(key)
		where := path + "/properties/" + escapeToken(key)
		if _, ok := n.Properties[key]; !ok {
			if d.input {
				d.note(where, "removed: a caller that sends it may be refused", true)
			} else {
				d.note(where, "removed: a caller that reads it gets nothing", true)
			}
			continue
		}
		switch {
		case !oreq && nreq:
			d.note(where, "became required", d.input)
		case oreq && !nreq:
			d.note(where, "became optional", !d.input)
		}
		d.compare(o.Properties[key], n.Properties[key], where)
		d.nullableField(o.Properties[key], n.Properties[key], oreq, nreq, where)
	}
	for _, key := range n.order {
		if _, ok := o.Properties[key]; ok {
			continue
		}
		where := path + "/properties/" + escapeToken(key)
		switch {
		case d.input && n.required(key):
			d.note(where, "added, required: callers do not send it", true)
		case d.input:
			d.note(where, "added, optional", false)
		default:
			d.note(where, "added", false)
		}
	}
}

// nullableField notes a property whose field in a typed client changes Go type: an optional
// property that may be null is an mcp.Nullable[T], where one that is only optional or only
// nullable is a pointer (or nil). The other changes judge the wire; this one says that code
// setting or reading the field changes when the client is regenerated, which is the caller's
// to do on purpose, and so breaks no caller.
func (d *differ) nullableField(oldRaw, newRaw json.RawMessage, oreq, nreq bool, where string) {
	threeStates := func(root, raw json.RawMessage, required bool) bool {
		alts, null := alternatives(root, raw, 0)
		return !required && null && slices.ContainsFunc(alts, func(a alt) bool {
			s, _, _ := resolve(root, a.raw)
			return kindOf(s) != "" // any JSON is a json.RawMessage, which holds null
		})
	}
	was, is := threeStates(d.oldRoot, oldRaw, oreq), threeStates(d.newRoot, newRaw, nreq)
	switch {
	case !was && is:
		d.note(where, "its Go field becomes an mcp.Nullable (left out, null or a value) when the client is regenerated", false)
	case was && !is:
		d.note(where, "its Go field is no longer an mcp.Nullable when the client is regenerated", false)
	}
}

// nullableElems notes the elements of an array (or the values of a map) whose Go type in a
// typed client changes: elements that may be null are *T ([]*T), unless their type is nil for
// null itself (a slice, map, interface or json.RawMessage). As with nullableField, the wire
// is judged by "may now be null" and its like; this says that code building or reading the
// slice changes when the client is regenerated, and so breaks no caller.
func (d *differ) nullableElems(oldRaw, newRaw json.RawMessage, where, elems, slice string) {
	was, is := pointerElems(d.oldRoot, oldRaw), pointerElems(d.newRoot, newRaw)
	switch {
	case !was && is:
		d.note(where, fmt.Sprintf("%s become pointers (%sT becomes %s*T, nil for null) when the client is regenerated", elems, slice, slice), false)
	case was && !is:
		d.note(where, fmt.Sprintf("%s are no longer pointers (%s*T becomes %sT) when the client is regenerated", elems, slice, slice), false)
	}
}

// pointerElems says whether the elements of the schema raw are *T in a typed client: they
// may be null, and their Go type has no nil of its own. A slice, a map, an interface (objects
// of several branches) and json.RawMessage (any JSON) have; scalars, enums, a struct and a
// union of JSON types (a struct of a pointer per type) do not.
func pointerElems(root, raw json.RawMessage) bool {
	alts, null := alternatives(root, raw, 0)
	if !null || len(alts) == 0 {
		return false
	}
	kinds := map[string]bool{} // the JSON types
	objects, maps := 0, 0
	for _, a := range alts {
		s, _, _ := resolve(root, a.raw)
		k := kindOf(s)
		switch {
		case k == "":
			return false // json.RawMessage
		case k == "object":
			objects++
			if len(s.Properties) == 0 {
				maps++ // a map, or json.RawMessage for a free-form object
			}
		}
		kinds[k] = true
	}
	switch {
	case len(kinds) > 1:
		return true // a union of JSON types
	case kinds["array"]:
		return false
	case kinds["object"]:
		return objects == 1 && maps == 0 // a struct; else an interface, a map or json.RawMessage
	}
	return true
}

// enums compares the values a schema allows.
func (d *differ) enums(o, n *schema, path string) {
	if len(o.Enum) == 0 && len(n.Enum) == 0 {
		return
	}
	vals := func(raws []json.RawMessage) []string {
		var out []string
		for _, r := range raws {
			out = append(out, string(compact(r)))
		}
		return out
	}
	ov, nv := vals(o.Enum), vals(n.Enum)
	var removed, added []string
	for _, v := range ov {
		if !slices.Contains(nv, v) {
			removed = append(removed, v)
		}
	}
	for _, v := range nv {
		if !slices.Contains(ov, v) {
			added = append(added, v)
		}
	}
	switch {
	case len(o.Enum) == 0:
		d.note(path, "now limited to "+strings.Join(nv, ", "), d.input)
	case len(n.Enum) == 0:
		d.note(path, "no longer limited to "+strings.Join(ov, ", "), !d.input)
	default:
		if len(removed) > 0 {
			d.note(path, "enum narrowed: "+strings.Join(removed, ", ")+" removed", d.input)
		}
		if len(added) > 0 {
			// A caller reading an output cannot have handled a value it never saw; a
			// generated enum type still decodes it.
			d.note(path, "enum widened: "+strings.Join(added, ", ")+" added", false)
		}
	}
}

func typeWords(types []string) string {
	if len(types) == 0 {
		return "any"
	}
	return strings.Join(types, " or ")
}
