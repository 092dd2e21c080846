package importer

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// A union across two versions: the alternatives a value may be, and each old branch paired
// with the new one that is the same branch.

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
// the types of a type list, opened up to the schemas of one type), and whether it may be null:
// by them, or, as the client reads it, by "nullable": true beside a $ref.
func alternatives(root, raw json.RawMessage, depth int) (alts []alt, null bool) {
	alts, null = targetAlternatives(root, raw, depth)
	if own, err := parseSchema(raw); err == nil && own.Ref != "" {
		_, refNull := own.types()
		null = null || refNull
	}
	return alts, null
}

// targetAlternatives are the alternatives of the schema raw is, its $refs followed.
func targetAlternatives(root, raw json.RawMessage, depth int) (alts []alt, null bool) {
	s, raw, _ := resolve(root, raw)
	comp := s.OneOf
	if len(comp) == 0 {
		comp = s.AnyOf
	}
	switch {
	case depth > 8:
	case len(comp) > 0 && !allShapeless(comp):
		var shared json.RawMessage
		if len(s.Properties) > 0 || len(s.Items) > 0 {
			shared = sharedPart(raw) // each branch has the properties or items beside them (allof.go)
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
