package importer

import (
	"slices"
	"strconv"
	"strings"
)

// One type per shape: the types of all tools are merged when their values are the same JSON
// with the same Go fields (the same properties, each required or not and of the same type,
// recursively; an enum's values; a union's branches), whatever their descriptions, titles or
// property order say. A value read from one tool can then be given to another, and an entity
// five tools return is one type. The descriptions of the first (in the tools' order) that has
// them are kept. A tool's input struct is its own: it is named after the tool and built for
// each call, and sharing it would tie two tools' arguments together. So are the results of
// tools that are alike only as results, when nothing gives their shape a name (below).
//
// Names come after merging, from the tools down (each tool's input, then its output, fields
// in order), so that they do not depend on the order of anything but the schemas:
//
//   - a tool's input: {Tool}Input;
//   - a type of a definition ($defs/X, definitions/X): X;
//   - else the first of these names not taken: the schema's title; for a union of scalar
//     JSON types, their names (StringOrInteger);
//   - for a type with several uses, next: the value of its
//     "object", "type" or "kind" when that has one (Stripe's "object": "customer" makes
//     Customer); the property name most of them share, if two do (Options, Label); the words
//     the names of the tools that return it share (Issue, of create_issue and get_issue;
//     DeleteOutput, of delete_entities and delete_relations); the property of its first use
//     (User);
//   - else its (first) use's full name: its parent's name and the property's
//     ({Parent}{Property}; an array's items {Parent}{Singular} or {Parent}{Property}Item, a
//     map's values {Parent}{Property}Value, a union's members {Union}Object, a branch
//     {Union}{Tag value}); a tool's output {Tool}Output.

// finish merges the types of one shape, names the types the package declares and lists them in
// p.decls, for the tools (whose in and out it updates).
func (p *pkgTypes) finish(tools []*tool) {
	rep := p.merge()
	same := func(t *goType) *goType {
		if t == nil {
			return nil
		}
		return replaced(t, rep)
	}
	for _, t := range p.made {
		for _, f := range t.fields {
			if f.t != nil {
				f.t = same(f.t)
			}
		}
		if t.extra != nil {
			t.extra = same(t.extra)
		}
		for _, m := range t.members {
			m.t = same(m.t)
		}
		for _, b := range t.branches {
			b.t = same(b.t)
		}
	}
	own := map[*tool]*goType{}
	for _, t := range tools {
		own[t] = t.out
		t.in, t.out = same(t.in), same(t.out)
	}
	// Results of tools that only happen to be alike (13 tools of server-filesystem return
	// {"content": "..."}) stay each tool's own: with no name of its own (a definition, a title,
	// an "object" value) nor one the tools share, a name from one tool would mislead on the
	// others.
	uses, _ := walk(tools)
	for _, t := range tools {
		out := t.out
		if out != nil && out.kind.declared() && len(out.defs) == 0 && out.title == "" && constName(out) == "" &&
			resultsOnly(uses[out]) && commonEnd(uses[out]) == "" {
			t.out = own[t]
		}
	}
	uses, order := walk(tools)
	for _, t := range order {
		t.name = p.names.unique(chooseName(t, uses[t], p.names))
		if t.name == scalarsName(t) {
			// A union of scalars is as anonymous as []string: what one use says of it
			// would mislead on the others.
			t.doc = ""
			for _, m := range t.members {
				m.doc = ""
			}
		}
	}
	p.decls = order
	p.enumNames()
	markRecursion(p.decls)
}

// resultsOnly says whether a type's uses are all tools' results, two or more.
func resultsOnly(uses []use) bool {
	for _, u := range uses {
		if !u.output {
			return false
		}
	}
	return len(uses) > 1
}

// replaced is t with every declared type in it its shape's representative.
func replaced(t *goType, rep map[*goType]*goType) *goType {
	switch {
	case t.kind.declared():
		return rep[t]
	case t.kind == kSlice || t.kind == kMap:
		c := *t
		c.elem = replaced(t.elem, rep)
		return &c
	}
	return t
}

// merge partitions the declared types by shape, refining a partition by local shape until
// each type's references agree too (as a finite automaton is minimized: recursive types
// merge when their unfoldings are the same), and returns each type's representative: the
// first made of its shape, which takes the definitions' names of all and the first
// descriptions there are.
func (p *pkgTypes) merge() map[*goType]*goType {
	class := map[*goType]int{}
	for n := 1; ; {
		ids := map[string]int{}
		next := map[*goType]int{}
		for _, t := range p.made {
			sig := strconv.Itoa(class[t]) + "|" + signature(t, class)
			id, ok := ids[sig]
			if !ok {
				id = len(ids)
				ids[sig] = id
			}
			next[t] = id
		}
		class = next
		if len(ids) == n {
			break
		}
		n = len(ids)
	}
	first := map[int]*goType{}
	rep := map[*goType]*goType{}
	for _, t := range p.made { // in the order made
		r, ok := first[class[t]]
		if !ok {
			first[class[t]] = t
			r = t
		}
		rep[t] = r
		if r == t {
			continue
		}
		for _, d := range t.defs {
			if !slices.Contains(r.defs, d) {
				r.defs = append(r.defs, d)
			}
		}
		r.doc = cmpOr(r.doc, t.doc)
		for _, f := range r.fields {
			if j := slices.IndexFunc(t.fields, func(g *field) bool { return g.key == f.key }); j >= 0 {
				f.doc = cmpOr(f.doc, t.fields[j].doc)
			}
		}
		for _, m := range r.members {
			if j := slices.IndexFunc(t.members, func(n *member) bool { return n.json == m.json }); j >= 0 {
				m.doc = cmpOr(m.doc, t.members[j].doc)
			}
		}
	}
	return rep
}

// signature is the shape of a declared type, its references by their class.
func signature(t *goType, class map[*goType]int) string {
	var b strings.Builder
	switch t.kind {
	case kStruct:
		b.WriteString("struct")
		if t.input != "" {
			b.WriteString(" input " + t.input)
		}
		fields := slices.Clone(t.fields)
		slices.SortFunc(fields, func(x, y *field) int { return strings.Compare(x.key, y.key) })
		for _, f := range fields {
			b.WriteString(" " + strconv.Quote(f.key))
			switch {
			case f.fixed:
				b.WriteString("=" + strconv.Quote(f.value))
				continue
			case f.optional:
				b.WriteString("?")
			}
			if f.nullable {
				b.WriteString("|null")
			}
			b.WriteString(":" + typeSig(f.t, class))
			if f.rules != "" {
				b.WriteString(" " + strconv.Quote(f.rules))
			}
		}
		if t.extra != nil {
			b.WriteString(" +:" + typeSig(t.extraMap(), class))
		}
	case kEnum:
		var values []string
		for _, v := range t.values {
			values = append(values, strconv.Quote(v.value))
		}
		slices.Sort(values)
		b.WriteString("enum " + strings.Join(values, ","))
	case kUnion:
		var members []string
		for _, m := range t.members {
			members = append(members, m.json+":"+typeSig(m.t, class))
		}
		slices.Sort(members)
		b.WriteString("union " + strings.Join(members, " "))
	case kIface:
		var branches []string
		for _, br := range t.branches {
			var on []string
			for _, v := range slices.Concat(br.values, br.required) {
				on = append(on, strconv.Quote(v))
			}
			branches = append(branches, strings.Join(on, ",")+":"+typeSig(br.t, class))
		}
		slices.Sort(branches)
		b.WriteString("interface " + strconv.Quote(t.tag) + " " + strings.Join(branches, " "))
	}
	return b.String()
}

func typeSig(t *goType, class map[*goType]int) string {
	switch t.kind {
	case kString:
		return "string"
	case kInt:
		return "int"
	case kFloat:
		return "float"
	case kBool:
		return "bool"
	case kTime:
		return "time"
	case kBytes:
		return "bytes"
	case kRaw:
		return "raw" + t.rawKind
	case kSlice:
		return "[]" + nullSig(t) + typeSig(t.elem, class)
	case kMap:
		return "map" + nullSig(t) + typeSig(t.elem, class)
	}
	return "#" + strconv.Itoa(class[t])
}

// nullSig marks the elements of a kSlice or kMap that may be null.
func nullSig(t *goType) string {
	if t.nullElem {
		return "null|"
	}
	return ""
}

// use is where a declared type is met: a field, member or branch of parent, or a tool's
// input or output (parent nil).
type use struct {
	parent *goType
	suffix string // the part of the name the use adds: Options, Label, Object, GetIssueOutput
	field  bool   // a property (or its items or values): the suffix is the property's name
	output bool   // a tool's output
}

// walk lists the declared types the tools reach, in the order reached, with their uses.
func walk(tools []*tool) (map[*goType][]use, []*goType) {
	uses := map[*goType][]use{}
	var order []*goType
	var visit func(t *goType, u use)
	visit = func(t *goType, u use) {
		switch t.kind {
		case kSlice:
			u.suffix = itemName(u.suffix)
			visit(t.elem, u)
			return
		case kMap:
			u.suffix += "Value"
			visit(t.elem, u)
			return
		}
		if !t.kind.declared() {
			return
		}
		uses[t] = append(uses[t], u)
		if len(uses[t]) > 1 {
			return
		}
		order = append(order, t)
		for _, f := range t.fields {
			if !f.fixed {
				visit(f.t, use{parent: t, suffix: f.name, field: true})
			}
		}
		if t.extra != nil {
			visit(t.extra, use{parent: t, suffix: "Value", field: true})
		}
		for _, m := range t.members {
			visit(m.t, use{parent: t, suffix: m.name})
		}
		for _, b := range t.branches {
			visit(b.t, use{parent: t, suffix: b.hint})
		}
	}
	for _, tl := range tools {
		if tl.in != nil {
			visit(tl.in, use{suffix: tl.method + "Input"})
		}
		if tl.out != nil {
			visit(tl.out, use{suffix: tl.method + "Output", output: true})
		}
	}
	return uses, order
}

// chooseName is the name of a type met at uses (the first is where the walk first met it, so
// its parent is named); a name already taken is passed over for the next candidate.
func chooseName(t *goType, uses []use, taken namer) string {
	full := func(u use) string {
		if u.parent == nil {
			return u.suffix
		}
		return u.parent.name + u.suffix
	}
	switch {
	case t.input != "":
		return t.input
	case len(t.defs) > 0:
		return t.defs[0]
	}
	var candidates []string
	if t.title != "" {
		candidates = append(candidates, exported(t.title))
	}
	candidates = append(candidates, scalarsName(t))
	if len(uses) > 1 {
		candidates = append(candidates, constName(t))
		count := map[string]int{}
		best := ""
		for _, u := range uses {
			if !u.field {
				continue
			}
			count[u.suffix]++
			if count[u.suffix] >= 2 && count[u.suffix] > count[best] {
				best = u.suffix
			}
		}
		candidates = append(candidates, best, commonEnd(uses))
		if uses[0].field {
			candidates = append(candidates, uses[0].suffix)
		}
	}
	for _, c := range candidates {
		if c != "" && !taken[c] {
			return c
		}
	}
	return full(uses[0])
}

// scalarsName names a union of JSON types that are all scalars after them: StringOrInteger.
func scalarsName(t *goType) string {
	if t.kind != kUnion {
		return ""
	}
	var names []string
	for _, m := range t.members {
		switch m.t.kind {
		case kString, kInt, kFloat, kBool:
			names = append(names, m.name)
		default:
			return ""
		}
	}
	return strings.Join(names, "Or")
}

// constName is the name an object gives itself: the value of its "object", "type" or "kind"
// property when that has one value (Stripe's "object": "payment_intent").
func constName(t *goType) string {
	for _, key := range []string{"object", "type", "kind"} {
		for _, f := range t.fields {
			if f.fixed && f.key == key && f.value != "" {
				return exported(f.value)
			}
		}
	}
	return ""
}

// commonEnd names a type after the words the names of the tools that return it share, when
// two or more do: Issue for CreateIssue and GetIssue (the thing they return), DeleteOutput for
// DeleteEntities and DeleteRelations (what they do).
func commonEnd(uses []use) string {
	var names [][]string
	for _, u := range uses {
		if u.output {
			names = append(names, words(strings.TrimSuffix(u.suffix, "Output")))
		}
	}
	if len(names) < 2 {
		return ""
	}
	end, start := names[0], names[0]
	for _, w := range names[1:] {
		k := 0
		for k < len(end) && k < len(w) && end[len(end)-1-k] == w[len(w)-1-k] {
			k++
		}
		end = end[len(end)-k:]
		k = 0
		for k < len(start) && k < len(w) && start[k] == w[k] {
			k++
		}
		start = start[:k]
	}
	switch {
	case len(end) > 0:
		return strings.Join(end, "")
	case len(start) > 0:
		return strings.Join(start, "") + "Output"
	}
	return ""
}

// itemName names the items of an array after the array: Labels makes Label, Data DataItem.
func itemName(array string) string {
	w := words(array)
	if len(w) == 0 {
		return array + "Item"
	}
	last := w[len(w)-1]
	lower := strings.ToLower(last)
	one := ""
	switch {
	case len(lower) < 4 || strings.ToUpper(last) == last:
	case strings.HasSuffix(lower, "ies") && !slices.Contains([]string{"movies", "cookies", "series", "species"}, lower):
		one = last[:len(last)-3] + "y"
	case strings.HasSuffix(lower, "sses"), strings.HasSuffix(lower, "xes"), strings.HasSuffix(lower, "ches"), strings.HasSuffix(lower, "shes"):
		one = last[:len(last)-2]
	case strings.HasSuffix(lower, "s") && !strings.HasSuffix(lower, "ss") && !strings.HasSuffix(lower, "us") &&
		!strings.HasSuffix(lower, "is") && !strings.HasSuffix(lower, "ses") && lower != "news":
		one = last[:len(last)-1]
	}
	if one == "" {
		return array + "Item"
	}
	return strings.TrimSuffix(array, last) + one
}

// markRecursion makes pointers of the fields by which a struct contains itself, required or
// not (a back edge of a walk of the structs a struct holds by value).
func markRecursion(decls []*goType) {
	state := map[*goType]int{} // 1 on the walk's path, 2 done
	var walk func(t *goType)
	walk = func(t *goType) {
		state[t] = 1
		for _, f := range t.fields {
			if f.fixed || f.t.kind != kStruct {
				continue
			}
			f.recursive = false
			if f.pointer() {
				continue
			}
			switch state[f.t] {
			case 1:
				f.recursive = true
			case 0:
				walk(f.t)
			}
		}
		state[t] = 2
	}
	for _, t := range decls {
		if t.kind == kStruct && state[t] == 0 {
			walk(t)
		}
	}
}

// enumNames names the constants of the enum types, each prefixed by its type's name.
func (p *pkgTypes) enumNames() {
	for _, t := range p.decls {
		if t.kind != kEnum {
			continue
		}
		for i := range t.values {
			v := t.values[i].value
			suffix := exported(v)
			if v == "" {
				suffix = "Empty"
			}
			t.values[i].name = p.names.unique(t.name + suffix)
		}
	}
}
