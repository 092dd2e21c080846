package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// Change is one difference between two snapshots of a server, and whether it breaks callers
// written against the older one. Breaking is judged by what goes over the wire: a caller that
// sends what the old schema allowed and reads what the old schema promised.
type Change struct {
	Kind     string // "tool", "prompt" or "resource template"
	Name     string
	Where    string // "input /properties/city", "output", "argument style", ""
	What     string
	Breaking bool
}

func (c Change) String() string {
	s := "compatible: "
	if c.Breaking {
		s = "breaking:   "
	}
	s += c.Kind + " " + c.Name
	if c.Where != "" {
		s += ": " + c.Where
	}
	return s + ": " + c.What
}

// Compare lists what changed from old to new: tools, prompts and resource templates removed
// or added, and within each tool the input and output schemas, property by property.
func Compare(old, new *Snapshot) []Change {
	var out []Change
	add := func(kind, name, where, what string, breaking bool) {
		out = append(out, Change{Kind: kind, Name: name, Where: where, What: what, Breaking: breaking})
	}
	schemas := func(tool, side string, o, n json.RawMessage) {
		d := &differ{oldRoot: o, newRoot: n, input: side == "input"}
		d.compare(o, n, "")
		for _, c := range d.changes {
			add("tool", tool, strings.TrimSpace(side+" "+c.where), c.what, c.breaking)
		}
	}
	pair(old.Tools, new.Tools, func(t Tool) string { return t.Name },
		func(o Tool) { add("tool", o.Name, "", "removed", true) },
		func(o, n Tool) {
			schemas(o.Name, "input", o.InputSchema, n.InputSchema)
			switch {
			case len(o.OutputSchema) > 0 && len(n.OutputSchema) == 0:
				add("tool", o.Name, "output", "the output schema was removed: no structured content is promised", true)
			case len(o.OutputSchema) == 0 && len(n.OutputSchema) > 0:
				add("tool", o.Name, "output", "an output schema was added", false)
			case len(o.OutputSchema) > 0:
				schemas(o.Name, "output", o.OutputSchema, n.OutputSchema)
			}
		},
		func(n Tool) { add("tool", n.Name, "", "added", false) })

	pair(old.Prompts, new.Prompts, func(p Prompt) string { return p.Name },
		func(o Prompt) { add("prompt", o.Name, "", "removed", true) },
		func(o, n Prompt) {
			pair(o.Arguments, n.Arguments, func(a PromptArgument) string { return a.Name },
				func(oa PromptArgument) { add("prompt", o.Name, "argument "+oa.Name, "removed", true) },
				func(oa, na PromptArgument) {
					switch {
					case !oa.Required && na.Required:
						add("prompt", o.Name, "argument "+oa.Name, "became required", true)
					case oa.Required && !na.Required:
						add("prompt", o.Name, "argument "+oa.Name, "became optional", false)
					}
				},
				func(na PromptArgument) {
					add("prompt", o.Name, "argument "+na.Name, map[bool]string{true: "added, required", false: "added, optional"}[na.Required], na.Required)
				})
		},
		func(n Prompt) { add("prompt", n.Name, "", "added", false) })

	pair(old.ResourceTemplates, new.ResourceTemplates, func(t ResourceTemplate) string { return t.Name },
		func(o ResourceTemplate) { add("resource template", o.Name, "", "removed", true) },
		func(o, n ResourceTemplate) {
			switch {
			case !slices.Equal(mcp.URITemplateVariables(o.URITemplate), mcp.URITemplateVariables(n.URITemplate)):
				add("resource template", o.Name, "", fmt.Sprintf("its variables changed: %s became %s", o.URITemplate, n.URITemplate), true)
			case o.URITemplate != n.URITemplate:
				add("resource template", o.Name, "", fmt.Sprintf("its URI changed: %s became %s", o.URITemplate, n.URITemplate), true)
			}
		},
		func(n ResourceTemplate) { add("resource template", n.Name, "", "added", false) })
	return out
}

// pair matches the items of old and new by name: each old one is removed or kept (with its
// new self), in old's order; then the new ones old lacked are added, in new's order.
func pair[T any](old, new []T, name func(T) string, removed func(T), kept func(o, n T), added func(T)) {
	for _, o := range old {
		if i := slices.IndexFunc(new, func(n T) bool { return name(n) == name(o) }); i >= 0 {
			kept(o, new[i])
		} else {
			removed(o)
		}
	}
	for _, n := range new {
		if !slices.ContainsFunc(old, func(o T) bool { return name(o) == name(n) }) {
			added(n)
		}
	}
}

// Breaking says whether any of changes breaks callers.
func Breaking(changes []Change) bool {
	return slices.ContainsFunc(changes, func(c Change) bool { return c.Breaking })
}

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
	_, oraw, oref := resolve(d.oldRoot, oldRaw)
	_, nraw, nref := resolve(d.newRoot, newRaw)
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
	oalts, onull := alternatives(d.oldRoot, oraw, 0)
	nalts, nnull := alternatives(d.newRoot, nraw, 0)
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

// alt is one of the schemas a value may match.
type alt struct {
	raw json.RawMessage // its $refs followed, an allOf merged
	ref string          // the pointer of the $ref it was written as, "" for a schema inline
	// tag and values: the property of the discriminator of the union it is a branch of, and
	// the values of it that choose it.
	tag    string
	values []string
}

// alternatives are the schemas a value may match one of (the branches of oneOf and anyOf,
// the types of a type list, opened up to the schemas of one type), and whether it may be null.
func alternatives(root, raw json.RawMessage, depth int) (alts []alt, null bool) {
	s, raw, _ := resolve(root, raw)
	comp := s.OneOf
	if len(comp) == 0 {
		comp = s.AnyOf
	}
	switch {
	case depth > 8:
	case len(comp) > 0 && !allShapeless(comp):
		var shared json.RawMessage
		if len(s.Properties) > 0 {
			shared = sharedPart(raw) // each branch has the properties beside them (allof.go)
		}
		for _, a := range comp {
			as, _, ref := resolve(root, a)
			if isNull(as) {
				null = true
				continue
			}
			if shared != nil {
				a = withShared(root, shared, a)
			}
			sub, n := alternatives(root, a, depth+1)
			if len(sub) == 1 && sub[0].ref == "" {
				sub[0].ref = ref
			}
			if disc := s.Discriminator; disc != nil && disc.PropertyName != "" && len(sub) == 1 {
				sub[0].tag, sub[0].values = disc.PropertyName, discValues(disc, sub[0])
			}
			alts, null = append(alts, sub...), null || n
		}
		return alts, null
	case len(s.AllOf) > 0 && !allShapeless(s.AllOf):
		// As the client's type has it: the branches made one schema (allof.go).
		if merged, _, null, why := mergeAllOf(root, raw, ""); why == "" {
			alts, n := alternatives(root, merged, depth+1)
			return alts, n || null
		}
	}
	types, null := s.types()
	switch {
	case len(types) > 1:
		for _, one := range splitTypes(raw, types) {
			alts = append(alts, alt{raw: one})
		}
		return alts, null
	case len(types) == 0 && isNull(s):
		return nil, true
	}
	return []alt{{raw: raw}}, null
}

// discValues are the values of a discriminator's property that choose the branch a, as the
// client's union reads them (unions.go): those its mapping gives a's $ref (or its name), else
// the values a's property may have, else the name of a's $ref (OpenAPI's implicit mapping).
func discValues(disc *discriminator, a alt) []string {
	var values []string
	for _, v := range slices.Sorted(maps.Keys(disc.Mapping)) {
		if target := disc.Mapping[v]; a.ref != "" && (target == a.ref || lastToken(target) == lastToken(a.ref)) {
			values = append(values, v)
		}
	}
	if len(values) > 0 {
		return values
	}
	if s, err := parseSchema(a.raw); err == nil {
		if ps, err := parseSchema(s.Properties[disc.PropertyName]); err == nil {
			if v, ok := fixedValue(ps); ok {
				return []string{v}
			}
			if len(ps.Enum) > 0 && allStrings(ps.Enum) {
				for _, e := range ps.Enum {
					var v string
					json.Unmarshal(e, &v)
					values = append(values, v)
				}
				return values
			}
		}
	}
	if a.ref != "" {
		return []string{lastToken(a.ref)}
	}
	return nil
}

// kindOf is the JSON type a schema of one type allows ("" for any).
func kindOf(s *schema) string {
	types, _ := s.types()
	switch {
	case len(types) == 1:
		return types[0]
	case len(s.Properties) > 0:
		return "object"
	case len(s.Enum) > 0 && allStrings(s.Enum), isString(s.Const):
		return "string"
	}
	return ""
}

// ident tells a branch of a union from the others of its JSON type across two versions: the
// values of its discriminator's property that choose it, else its properties with one string
// value (a tag), else its required properties.
func ident(s *schema, a alt) string {
	if len(a.values) > 0 {
		var quoted []string
		for _, v := range a.values {
			quoted = append(quoted, strconv.Quote(v))
		}
		return fmt.Sprintf("%q: %s", a.tag, orList(quoted))
	}
	var tags []string
	for _, key := range s.order {
		ps, err := parseSchema(s.Properties[key])
		if err != nil {
			continue
		}
		if v, ok := fixedValue(ps); ok {
			tags = append(tags, fmt.Sprintf("%q: %q", key, v))
		}
	}
	if len(tags) > 0 {
		return strings.Join(tags, ", ")
	}
	if len(s.Required) > 0 {
		req := slices.Clone(s.Required)
		slices.Sort(req)
		for i, r := range req {
			req[i] = strconv.Quote(r)
		}
		return "with " + strings.Join(req, ", ")
	}
	return ""
}

// branches compares two unions branch by branch, each old branch with the new one that is
// the same branch: of its JSON type and, when a type has several, of its identity (ident:
// discriminator values, tag, required properties), whatever their order in the oneOf or the
// names of their $refs. Branches of one identity (the same required properties) pair by the
// most alike (required properties, then properties, then the name of their $ref); a branch
// told apart by required properties alone pairs, failing that, with the one that shares the
// most of those that tell it apart. A branch removed breaks callers who send it; one added
// breaks callers who read it, whose typed union cannot decode it.
func (d *differ) branches(oalts, nalts []alt, path string) {
	olds, news := readBranches(d.oldRoot, oalts), readBranches(d.newRoot, nalts)
	count := func(list []*br, kind string) int {
		n := 0
		for _, b := range list {
			if b.kind == kind {
				n++
			}
		}
		return n
	}
	pairBest := func(ok func(o, n *br) bool) {
		type candidate struct {
			o, n  *br
			score [3]float64
		}
		var cs []candidate
		for _, o := range olds {
			for _, n := range news {
				if !o.paired && !n.paired && o.kind == n.kind && ok(o, n) {
					cs = append(cs, candidate{o, n, [3]float64{jaccard(o.required, n.required), jaccard(o.props, n.props), b2f(o.name != "" && o.name == n.name)}})
				}
			}
		}
		slices.SortStableFunc(cs, func(x, y candidate) int { return slices.Compare(y.score[:], x.score[:]) })
		for _, c := range cs {
			if !c.o.paired && !c.n.paired {
				c.o.paired, c.n.paired = true, true
				d.compare(c.o.raw, c.n.raw, path)
			}
		}
	}
	pairBest(func(o, n *br) bool { return o.ident == n.ident })
	pairBest(func(o, n *br) bool { return count(olds, o.kind) == 1 && count(news, o.kind) == 1 })
	pairBest(func(o, n *br) bool { return !o.tagged && !n.tagged && len(intersect(o.telling, n.telling)) > 0 })
	words := func(b *br) string {
		w := typeWords(nonEmpty(b.kind))
		if b.ident != "" {
			w += " (" + b.ident + ")"
		}
		return w
	}
	for _, o := range olds {
		if !o.paired {
			if d.input {
				d.note(path, "no longer takes "+words(o)+": a caller that sends it may be refused", true)
			} else {
				d.note(path, "no longer gives "+words(o), false)
			}
		}
	}
	for _, n := range news {
		if !n.paired {
			if d.input {
				d.note(path, "now takes "+words(n)+" too", false)
			} else {
				d.note(path, "may now be "+words(n)+": a caller's typed union cannot decode it", true)
			}
		}
	}
}

// br is a branch of a union, as branches pairs them.
type br struct {
	raw         json.RawMessage
	kind, ident string
	tagged      bool     // told apart by a discriminator or a tag, not by required properties
	required    []string // its required properties
	telling     []string // those of them not every branch of its kind requires
	props       []string // its properties
	name        string   // the name of its $ref
	paired      bool
}

func readBranches(root json.RawMessage, alts []alt) []*br {
	var out []*br
	for _, a := range alts {
		s, _, _ := resolve(root, a.raw)
		b := &br{raw: a.raw, kind: kindOf(s), ident: ident(s, a), required: s.Required, props: s.order}
		b.tagged = b.ident != "" && !strings.HasPrefix(b.ident, "with ")
		if a.ref != "" {
			b.name = lastToken(a.ref)
		}
		out = append(out, b)
	}
	for _, b := range out {
		for _, r := range b.required {
			if slices.ContainsFunc(out, func(o *br) bool { return o.kind == b.kind && !slices.Contains(o.required, r) }) {
				b.telling = append(b.telling, r)
			}
		}
	}
	return out
}

// jaccard is how alike two sets are: the share of their union both have (1 when both are empty).
func jaccard(a, b []string) float64 {
	union := len(a) + len(b) - len(intersect(a, b))
	if union == 0 {
		return 1
	}
	return float64(len(intersect(a, b))) / float64(union)
}

func intersect(a, b []string) []string {
	var out []string
	for _, x := range a {
		if slices.Contains(b, x) && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
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
	}
	if oap, nap := bytes.TrimSpace(o.AdditionalProperties), bytes.TrimSpace(n.AdditionalProperties); len(oap) > 0 && oap[0] == '{' && len(nap) > 0 && nap[0] == '{' {
		d.compare(oap, nap, path+"/additionalProperties") // a map's values, or the members besides the properties
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
