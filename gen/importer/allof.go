package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// allOf: a value that is every one of several schemas at once, as OpenAPI writes composition
// and inheritance (a dog is allOf [Pet, {the dog's own properties}]). The branches, $refs
// followed and nested allOfs opened up, make one schema:
//
//   - objects (and branches that only constrain, such as {"required": ["name"]}): one object
//     whose properties are all of theirs, in the order met, required when any says so;
//   - a property that several branches give: the one schema a value of both matches, when
//     one says all the other does (the same schema, one that only annotates or constrains,
//     an enum or const of the other's type), objects merged in turn; otherwise the property
//     is itself an allOf of both, which falls back to json.RawMessage saying why;
//   - schemas that are not objects: the narrowest, on the same terms;
//   - objects and other types together, or a branch that is a oneOf or anyOf: no merge (the
//     caller falls back to json.RawMessage with the reason).
//
// A $ref branch alone, or with constraints that add nothing, stays the $ref, so that its type
// keeps the definition's name. The descriptions kept are the schema's own, else the first a
// branch has; each property keeps its own.

// allOfPart is a branch of an allOf, its $ref followed.
type allOfPart struct {
	raw, orig json.RawMessage // the schema, and as the allOf wrote it (a $ref)
	s         *schema
	path      string // of orig
	subtypes  bool   // its oneOf or anyOf, the subtypes of a base schema, left out
}

// mergeAllOf makes the allOf of raw (at path, within root) one schema: merged, found at
// mergedPath (raw's path when it is made here). null says whether the schema itself also
// allows null ("nullable": true beside allOf [{"$ref": ...}], OpenAPI's nullable reference).
// why says why no schema is sound, merged then nil.
func mergeAllOf(root, raw json.RawMessage, path string) (merged json.RawMessage, mergedPath string, null bool, why string) {
	s, err := parseSchema(raw)
	if err != nil {
		return nil, "", false, "not a schema: " + err.Error()
	}
	_, null = s.types()
	parts, why := allOfParts(root, raw, path, map[string]bool{}, 0)
	if why != "" {
		return nil, "", null, why
	}
	var objects, others []allOfPart
	var required []string
	for _, p := range parts {
		for _, r := range p.s.Required {
			if !slices.Contains(required, r) {
				required = append(required, r)
			}
		}
		switch {
		case kindOf(p.s) == "object" || len(p.s.AdditionalProperties) > 0:
			objects = append(objects, p)
		case !shapeless(p.raw):
			others = append(others, p)
		}
	}
	if slices.ContainsFunc(objects, hasMembers) {
		objects = slices.DeleteFunc(objects, func(p allOfPart) bool { return !hasMembers(p) }) // {"type": "object"} adds nothing
	}
	switch {
	case len(objects) > 0 && len(others) > 0:
		return nil, "", null, "allOf of an object and " + article(typeWords(nonEmpty(kindOf(others[0].s))))
	case len(objects) == 0 && len(others) == 0:
		return nil, "", null, "allOf of schemas that only constrain"
	case len(objects) == 0:
		best := others[0]
		for _, p := range others[1:] {
			n, ok := narrowest(root, best.raw, p.raw)
			if !ok {
				return nil, "", null, fmt.Sprintf("allOf of schemas that do not agree: %s and %s", describe(best.s), describe(p.s))
			}
			switch {
			case bytes.Equal(n, p.raw):
				best = p
			case !bytes.Equal(n, best.raw): // made of both: arrays of items both allow
				ns, _ := parseSchema(n)
				best = allOfPart{raw: n, orig: n, s: ns, path: path}
			}
		}
		return best.orig, best.path, null, ""
	case len(objects) == 1 && !objects[0].subtypes && !slices.ContainsFunc(required, func(r string) bool { return !slices.Contains(objects[0].s.Required, r) }):
		return objects[0].orig, objects[0].path, null, ""
	}

	// One object of them all.
	props := map[string]json.RawMessage{}
	var order []string
	var extra json.RawMessage
	for _, p := range objects {
		for _, key := range p.s.order {
			prop := p.s.Properties[key]
			if have, ok := props[key]; ok {
				if n, ok := narrowest(root, have, prop); ok {
					prop = n
				} else {
					prop = allOfRaw(have, prop)
				}
			} else {
				order = append(order, key)
			}
			props[key] = prop
		}
		if ap := bytes.TrimSpace(p.s.AdditionalProperties); len(extra) == 0 && len(ap) > 0 && ap[0] == '{' {
			extra = ap
		}
	}
	title, desc := s.Title, s.Description
	for _, p := range objects {
		if title == "" && !bytes.Contains(p.orig, []byte(`"$ref"`)) {
			title = p.s.Title // an inline branch's: a $ref's names the other type
		}
		desc = cmpOr(desc, p.s.Description)
	}
	var b bytes.Buffer
	b.WriteString(`{"type":"object"`)
	member := func(key string, v any) {
		data, _ := json.Marshal(v)
		b.WriteString("," + strconv.Quote(key) + ":")
		b.Write(data)
	}
	if title != "" {
		member("title", title)
	}
	if desc != "" {
		member("description", desc)
	}
	b.WriteString(`,"properties":{`)
	for i, key := range order {
		if i > 0 {
			b.WriteByte(',')
		}
		data, _ := json.Marshal(key)
		b.Write(data)
		b.WriteByte(':')
		b.Write(props[key])
	}
	b.WriteByte('}')
	if len(required) > 0 {
		member("required", required)
	}
	if len(extra) > 0 {
		member("additionalProperties", extra)
	}
	b.WriteByte('}')
	return b.Bytes(), path, null, ""
}

// allOfParts lists the branches of raw's allOf, and raw itself when it says more than allOf
// (properties beside it, a type): $refs followed, nested allOfs opened up.
func allOfParts(root, raw json.RawMessage, path string, seen map[string]bool, depth int) ([]allOfPart, string) {
	if depth > 16 {
		return nil, "allOf nested too deeply"
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(raw, &members) != nil {
		return nil, "not a schema"
	}
	branches := members["allOf"]
	delete(members, "allOf")
	var parts []allOfPart
	if own, _ := json.Marshal(members); !shapeless(own) || bytes.Contains(members["required"], []byte(`"`)) {
		s, _ := parseSchema(own)
		parts = append(parts, allOfPart{raw: own, orig: own, s: s, path: path})
	}
	var list []json.RawMessage
	json.Unmarshal(branches, &list)
	for i, b := range list {
		bpath := fmt.Sprintf("%s/allOf/%d", path, i)
		target, tpath := b, bpath
		bs, err := parseSchema(b)
		var chain []string // the $refs followed
		for err == nil && bs.Ref != "" {
			tokens, perr := pointerTokens(bs.Ref)
			if perr != nil {
				return nil, "$ref " + bs.Ref + ": " + perr.Error()
			}
			key := pointerOf(tokens)
			if seen[key] || slices.Contains(chain, key) {
				return nil, "$ref " + bs.Ref + ": an allOf that contains itself"
			}
			chain = append(chain, key)
			if target, err = resolvePointer(root, tokens); err != nil {
				return nil, "$ref " + bs.Ref + ": " + err.Error()
			}
			tpath = strings.TrimPrefix(key, "#")
			bs, err = parseSchema(target)
		}
		if err != nil {
			return nil, tpath + " is not a schema"
		}
		if len(bs.AllOf) > 0 && !allShapeless(bs.AllOf) {
			for _, key := range chain {
				seen[key] = true
			}
			nested, why := allOfParts(root, target, tpath, seen, depth+1)
			for _, key := range chain {
				delete(seen, key)
			}
			if why != "" {
				return nil, why
			}
			parts = append(parts, nested...)
			continue
		}
		if !allShapeless(bs.OneOf) || !allShapeless(bs.AnyOf) {
			if bs.Discriminator == nil {
				return nil, "allOf with a branch that is a oneOf or anyOf"
			}
			// A base schema listing its subtypes (OpenAPI's polymorphism), which is
			// what refers here: its own properties are what this branch adds.
			bs.OneOf, bs.AnyOf = nil, nil
		}
		parts = append(parts, allOfPart{raw: target, orig: b, s: bs, path: bpath, subtypes: bs.Discriminator != nil})
	}
	return parts, ""
}

// narrowest is the one of two schemas that a value matching both matches, when one says all
// the other does: the same schema, one that only annotates or constrains (shapeless), an enum
// or a const of the other's type, or a format the other does not have; objects make their
// allOf, merged in turn. ok is false when they disagree.
func narrowest(root, a, b json.RawMessage) (json.RawMessage, bool) {
	sa, _, _ := resolve(root, a)
	sb, _, _ := resolve(root, b)
	switch {
	case bytes.Equal(compact(a), compact(b)), shapeless(b):
		return a, true
	case shapeless(a):
		return b, true
	}
	ka, kb := kindOf(sa), kindOf(sb)
	switch {
	case ka != kb || ka == "":
		return nil, false
	case ka == "object":
		return allOfRaw(a, b), true
	case ka == "array":
		switch {
		case len(sb.Items) == 0, bytes.Equal(compact(sa.Items), compact(sb.Items)):
			return a, true
		case len(sa.Items) == 0:
			return b, true
		}
		// Arrays of items both allow: their items merged in turn (a string and an enum
		// make the enum), falling back, if they do not, for the items alone.
		return json.RawMessage(`{"type":"array","items":` + string(allOfRaw(sa.Items, sb.Items)) + `}`), true
	}
	fixedA, fixedB := len(sa.Enum) > 0 || len(sa.Const) > 0, len(sb.Enum) > 0 || len(sb.Const) > 0
	switch {
	case fixedA && fixedB:
		// One's values among the other's (a variant's "type": "card" of the shared
		// "type": ["card", "sepa_debit"]): the fewer.
		va, vb := fixedValues(sa), fixedValues(sb)
		switch {
		case len(va) == 0 || len(vb) == 0:
			return nil, false
		case subset(vb, va):
			return b, true
		case subset(va, vb):
			return a, true
		}
		return nil, false
	case fixedB, !fixedA && sa.Format == "" && sb.Format != "":
		return b, true
	}
	return a, true
}

// fixedValues are the values a schema allows by its const and enum, compacted: those of both
// when it has both.
func fixedValues(s *schema) []string {
	var out []string
	for _, v := range s.Enum {
		out = append(out, string(compact(v)))
	}
	if len(s.Const) > 0 {
		c := string(compact(s.Const))
		if len(out) > 0 && !slices.Contains(out, c) {
			return []string{} // none
		}
		out = []string{c}
	}
	return out
}

// subset says whether every one of a is in b.
func subset(a, b []string) bool {
	for _, v := range a {
		if !slices.Contains(b, v) {
			return false
		}
	}
	return true
}

// hasMembers says whether an object part says what members it has: properties, or a schema
// for the others ({"additionalProperties": false} only constrains).
func hasMembers(p allOfPart) bool {
	ap := bytes.TrimSpace(p.s.AdditionalProperties)
	return len(p.s.Properties) > 0 || len(ap) > 0 && ap[0] == '{'
}

// allOfRaw is the schema {"allOf": [a, b]}.
func allOfRaw(a, b json.RawMessage) json.RawMessage {
	return json.RawMessage(`{"allOf":[` + string(a) + `,` + string(b) + `]}`)
}

// describe names what a schema is, for a reason: "string", "integer", "string (enum)".
func describe(s *schema) string {
	w := typeWords(nonEmpty(kindOf(s)))
	if len(s.Enum) > 0 || len(s.Const) > 0 {
		w += " (" + map[bool]string{true: "const", false: "enum"}[len(s.Const) > 0] + ")"
	}
	return w
}

// Properties beside oneOf or anyOf (OpenAPI's shared fields and variants: an id, a created
// time and a type, then the card's or the bank account's own) hold in every branch: a value
// is the schema's properties and one of the branches, so each branch that may be an object
// is made the allOf of the two, one struct of all their properties. Items beside oneOf or
// anyOf likewise hold in every branch that is an array: {"type": "array", "items": {...},
// "anyOf": [{"minItems": 1}, {"type": "null"}]} is a nullable slice of the items, and
// {"items": {"type": "string"}, "anyOf": [{"type": "string"}, {"type": "array"}]} a string
// or a slice of strings. Branches of another JSON type (a string beside the object) are what
// they are: properties do not apply to them, nor items to an object.

// sharedPart is what a schema says beside its oneOf or anyOf: its properties, required,
// additionalProperties and items, without the alternatives, the discriminator that chooses
// among them, or the title and description, which are the union's.
func sharedPart(raw json.RawMessage) json.RawMessage {
	var members map[string]json.RawMessage
	json.Unmarshal(raw, &members)
	for _, key := range []string{"oneOf", "anyOf", "discriminator", "title", "description", "$defs", "definitions"} {
		delete(members, key)
	}
	out, _ := json.Marshal(members)
	return out
}

// withShared is a branch of a union with the shared part beside it, when the part says
// something of the branch's JSON type: a branch that may be an object, merged with the shared
// properties as the allOf of both (a branch that only constrains, {"required": ["a"]}, too);
// an array (or a branch that only constrains, beside items alone), merged with the shared
// items. When they do not merge, that allOf, which falls back saying why.
func withShared(root, shared, branch json.RawMessage) json.RawMessage {
	members := map[string]json.RawMessage{}
	json.Unmarshal(shared, &members)
	s, _, _ := resolve(root, branch)
	kind := kindOf(s)
	_, props := members["properties"]
	_, items := members["items"]
	switch {
	case (kind == "object" || kind == "") && props:
	case (kind == "array" || kind == "") && items:
		// Of the shared part, what an array has: the type, whatever others the schema
		// allows, and the items, not the properties (which it would not merge with).
		members["type"] = json.RawMessage(`"array"`)
		for _, key := range []string{"properties", "required", "additionalProperties", "nullable"} {
			delete(members, key)
		}
		var own map[string]json.RawMessage
		if json.Unmarshal(branch, &own) == nil && kind == "" && own["$ref"] == nil {
			// {"items": {"enum": [...]}} beside the shared items narrows them: it
			// speaks of the array too.
			own["type"] = json.RawMessage(`"array"`)
			branch, _ = json.Marshal(own)
		}
	default:
		return branch
	}
	members["allOf"] = json.RawMessage("[" + string(branch) + "]")
	both, _ := json.Marshal(members)
	if merged, _, _, why := mergeAllOf(root, both, ""); why == "" {
		return merged
	}
	return both
}
