package schema

import (
	"cmp"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/types/typeutil"
)

// A struct's properties, as encoding/json finds them: exported fields, the fields of embedded
// structs promoted level by level, names from json tags, and the options that make a
// property optional or leave it out of the output.

// structOf returns the shared description of a struct type, building it on first use.
func (b *Builder) structOf(t types.Type, st *types.Struct, pos token.Pos) *Object {
	key := types.Unalias(t)
	if s, ok := b.structs.At(key).(*Object); ok {
		return s
	}
	s := &Object{Go: t, Doc: b.typeDoc(t)}
	b.structs.Set(key, s)
	s.Fields = b.fields(s, st)
	return s
}

// candidate is a field encoding/json would consider, before name conflicts are resolved.
type candidate struct {
	name   string
	tagged bool
	index  []int
	path   []Step
	v      *types.Var
	tag    string
	json   jsonTag
}

// fields lists the struct's JSON properties following encoding/json exactly: exported fields,
// fields of embedded structs promoted level by level, and a name shared by several fields
// at the same depth kept only if exactly one of them is tagged (otherwise all are dropped).
func (b *Builder) fields(s *Object, root *types.Struct) []*Field {
	type level struct {
		st    *types.Struct
		typ   types.Type
		index []int
		path  []Step
	}
	var found []candidate
	next := []level{{st: root, typ: s.Go}}
	var count, nextCount typeutil.Map
	visited := typeutil.Map{}
	for len(next) > 0 {
		current := next
		next = nil
		count, nextCount = nextCount, typeutil.Map{}
		for _, lv := range current {
			if visited.At(lv.typ) != nil {
				continue
			}
			visited.Set(lv.typ, true)
			for i := range lv.st.NumFields() {
				v, tag := lv.st.Field(i), lv.st.Tag(i)
				ft := v.Type()
				ptr, isPtr := types.Unalias(ft).(*types.Pointer)
				if v.Embedded() {
					inner := ft
					if isPtr {
						inner = ptr.Elem()
					}
					if _, isStruct := inner.Underlying().(*types.Struct); !v.Exported() && !isStruct {
						continue
					}
				} else if !v.Exported() {
					b.strayMcpTag(v, tag, "field "+s.DisplayName()+"."+v.Name(), "an unexported field, which is no property",
						"export the field, or remove the tag")
					continue
				}
				jt := parseJSONTag(tag)
				if mcp, _, _ := tagValue(tag, "mcp"); jt.ignore && mcp == RestTag && len(lv.index) == 0 {
					b.restField(s, v, tag)
					continue
				}
				if jt.ignore || schemaIgnores(tag) {
					b.strayMcpTag(v, tag, "field "+s.DisplayName()+"."+v.Name(), "a field left out of the JSON by its tag, which is no property",
						"remove the mcp tag, or the \"-\" that leaves the field out")
					continue
				}
				b.checkJSONOptions(v, tag, "field "+s.DisplayName()+"."+v.Name())
				name := jt.name
				if !validJSONName(name) {
					name = ""
				}
				index := append(slices.Clone(lv.index), i)
				step := Step{Name: v.Name(), v: v, Hidden: v.Embedded() && !v.Exported() && v.Pkg() != b.local}
				if isPtr && v.Embedded() {
					step.Pointer, step.PtrTo = true, ptr.Elem()
				}
				path := append(slices.Clone(lv.path), step)
				inner := ft
				if isPtr {
					inner = ptr.Elem()
				}
				innerStruct, isStruct := inner.Underlying().(*types.Struct)
				if name != "" || !v.Embedded() || !isStruct {
					tagged := name != ""
					if name == "" {
						name = v.Name()
					}
					found = append(found, candidate{name: name, tagged: tagged, index: index, path: path, v: v, tag: tag, json: jt})
					if n, _ := count.At(lv.typ).(int); n > 1 {
						// The same embedded type twice at this depth: a duplicate makes both lose.
						found = append(found, found[len(found)-1])
					}
					continue
				}
				if isPtr && !v.Exported() {
					if v.Pkg() != b.local {
						b.diags.Hintf(v.Pos(), "embed the struct by value or export its type; if package "+v.Pkg().Name()+" is not yours, use a struct of your own in the signature",
							"embedded field %s is a pointer to an unexported struct type, which neither encoding/json nor code outside package %s can allocate", v.Name(), v.Pkg().Path())
						continue
					}
					b.diags.Hintf(v.Pos(), "embed the struct by value, or export its type",
						"embedded field %s is a pointer to an unexported struct type, which encoding/json cannot allocate", v.Name())
					continue
				}
				b.strayMcpTag(v, tag, "field "+s.DisplayName()+"."+v.Name(), "an embedded struct, whose fields are promoted as properties of "+s.DisplayName(),
					"tag the field of "+typeString(inner)+" that the header mirrors")
				n, _ := nextCount.At(inner).(int)
				nextCount.Set(inner, n+1)
				if n == 0 {
					next = append(next, level{st: innerStruct, typ: inner, index: index, path: path})
				}
			}
		}
	}

	slices.SortStableFunc(found, func(x, y candidate) int {
		if c := cmp.Compare(x.name, y.name); c != 0 {
			return c
		}
		if c := cmp.Compare(len(x.index), len(y.index)); c != 0 {
			return c
		}
		if x.tagged != y.tagged {
			if x.tagged {
				return -1
			}
			return 1
		}
		return slices.Compare(x.index, y.index)
	})
	var visible []candidate
	for i := 0; i < len(found); {
		j := i + 1
		for j < len(found) && found[j].name == found[i].name {
			j++
		}
		group := found[i:j]
		if len(group) > 1 && len(group[1].index) == 1 {
			b.sameJSONName(s, group)
		}
		// The shallowest field wins, if it is alone at its depth or the only tagged one there.
		if len(group) == 1 || len(group[0].index) != len(group[1].index) || group[0].tagged != group[1].tagged {
			visible = append(visible, group[0])
		}
		i = j
	}
	slices.SortFunc(visible, func(x, y candidate) int { return slices.Compare(x.index, y.index) })

	var fields []*Field
	for _, c := range visible {
		if f := b.field(s, c); f != nil {
			fields = append(fields, f)
		}
	}
	return fields
}

// sameJSONName reports fields declared in the struct itself that share a JSON name (group,
// sorted as fields sorts it, has at least two at the struct's own level). encoding/json drops
// them all, or keeps the tagged one, without a word, so a json tag copied and not renamed
// would lose a property silently. Promoted fields that collide are left to encoding/json's
// rules: there a collision is the price of embedding, not a typo.
func (b *Builder) sameJSONName(s *Object, group []candidate) {
	own := group
	for k, c := range group {
		if len(c.index) != 1 {
			own = group[:k]
			break
		}
	}
	if own[0].v.Pkg() != b.local {
		return // a type of another package: its author's choice, which the user cannot edit
	}
	where := func(c candidate) string { return "field " + s.DisplayName() + "." + c.v.Name() }
	const hint = `give one of them another name in its json tag, or leave one out with json:"-"`
	first := own[0]
	dropped := "both: neither is a property"
	if len(own) > 2 {
		dropped = "all of them: none is a property"
	}
	for _, c := range own[1:] {
		if first.tagged && !own[1].tagged { // tagged fields sort first: the only tagged one wins
			b.diags.Hintf(b.jsonNamePos(c), hint,
				"%s has JSON name %q, as %s (%s) has in its json tag, and encoding/json leaves this untagged one out: it is no property",
				where(c), c.name, where(first), b.shortPos(first.v.Pos()))
			continue
		}
		b.diags.Hintf(b.jsonNamePos(c), hint,
			"%s has JSON name %q, as %s (%s) has, and encoding/json leaves out %s",
			where(c), c.name, where(first), b.shortPos(first.v.Pos()), dropped)
	}
}

// jsonNamePos is where a field's JSON name is written: its json tag's value, or the field's
// own name when the tag does not name it.
func (b *Builder) jsonNamePos(c candidate) token.Pos {
	if !c.tagged || b.src == nil {
		return c.v.Pos()
	}
	_, off, ok := tagValue(c.tag, "json")
	base := b.src.TagPos(c.v)
	if !ok || !base.IsValid() {
		return c.v.Pos()
	}
	return base + 1 + token.Pos(off)
}

// reachable reports whether generated code selects the field at the end of path when it
// leaves out the hidden steps: the promoted selector must name the same field, not another
// one or an ambiguous name.
func (b *Builder) reachable(root types.Type, path []Step) bool {
	if !slices.ContainsFunc(path, func(s Step) bool { return s.Hidden }) {
		return true
	}
	t := root
	for _, s := range path {
		if s.Hidden {
			continue
		}
		if v, ok := lookupField(t, b.local, s.Name); !ok || v.Origin() != s.v.Origin() {
			return false
		}
		t = s.v.Type()
	}
	return true
}

func lookupField(t types.Type, pkg *types.Package, name string) (*types.Var, bool) {
	obj, _, _ := types.LookupFieldOrMethod(t, true, pkg, name)
	v, ok := obj.(*types.Var)
	return v, ok
}

// schemaIgnores reports whether a jsonschema tag starts with "-", which hides the field from
// the schema; mcpgen then also leaves it out of decoding and encoding, so they agree.
func schemaIgnores(tag string) bool {
	v, _, ok := tagValue(tag, "jsonschema")
	return ok && (v == "-" || strings.HasPrefix(v, "-,"))
}

func (b *Builder) field(s *Object, c candidate) *Field {
	where := "field " + s.DisplayName() + "." + c.v.Name()
	t := b.typeOf(c.v.Type(), c.v.Pos(), where)
	if t == nil {
		return nil
	}
	if c.json.asString {
		// As encoding/json: the option applies to strings, numbers and booleans (also
		// behind a pointer) and is ignored on anything else.
		inner := t // not within an mcp.Nullable, which has its own JSON form
		for inner.Kind == Pointer {
			inner = inner.Elem
		}
		switch inner.Kind {
		case String, Int, Uint, Float, Bool:
			inner.Quoted = true
		}
	}
	if !b.reachable(s.Go, c.path) {
		hidden := ""
		for _, st := range c.path {
			if st.Hidden {
				hidden = st.Name
				break
			}
		}
		b.diags.Hintf(c.v.Pos(), "export the type of embedded field "+hidden+", or give the field a name no other promoted field has",
			"%s: generated code cannot select this field: it is promoted through embedded field %s, an unexported type of package %s, and the selector .%s is ambiguous or names another field",
			where, hidden, c.v.Pkg().Path(), c.v.Name())
		return nil
	}
	f := &Field{Path: c.path, Name: c.name, Type: t, Pos: c.v.Pos()}
	if b.src != nil {
		f.Doc = b.src.FieldDoc(c.v)
	}
	tags := b.applyTags(f, c, where)
	if f.HeaderPos.IsValid() {
		b.checkHeaderType(f, where)
	}
	b.checkDeclared(t, c.v.Pos(), where)
	if c.json.omitZero && !HasIsZero(t.Go) && !types.Comparable(t.Go) {
		switch t.Go.Underlying().(type) {
		case *types.Struct, *types.Array:
			b.diags.Hintf(c.v.Pos(), "give the type an IsZero() bool method, or use omitempty",
				"%s: omitzero needs a way to tell the zero value: type %s is not comparable and has no IsZero method", where, typeString(t.Go))
		}
	}
	// Pointers (and mcp.Nullable) are optional unless a tag requires them, and so are the
	// fields promoted through an embedded pointer, which may be nil; other fields unless
	// omitempty or omitzero says so.
	viaPointer := slices.ContainsFunc(c.path[:len(c.path)-1], func(s Step) bool { return s.Pointer })
	f.Required = tags.required || !c.json.omitEmpty && !c.json.omitZero && t.Kind != Pointer && t.Kind != ThreeStates && !viaPointer
	switch {
	case tags.required:
		// Required output properties are always written (a nil pointer is then an error).
	case c.json.omitEmpty:
		f.OmitOut = OmitEmpty
	case c.json.omitZero:
		f.OmitOut = OmitZero
	case t.Kind == Pointer && !t.Nullable:
		f.OmitOut = OmitNil
	}
	if r := t.Deref().Rules; (r.Default != nil || len(r.Defaults) > 0) && f.Required {
		b.diags.Hintf(tags.defaultPos, "add ,omitempty to the json tag so that the field is optional",
			"%s has a default but is required, so the default can never apply", where)
	}
	return f
}

// HasIsZero reports whether a type has an IsZero() bool method, on the value or the
// pointer, which encoding/json's omitzero uses.
func HasIsZero(t types.Type) bool {
	obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(t), false, nil, "IsZero")
	fn, ok := obj.(*types.Func)
	if !ok {
		return false
	}
	sig := fn.Type().(*types.Signature)
	return sig.Params().Len() == 0 && sig.Results().Len() == 1 && types.Identical(sig.Results().At(0).Type(), types.Typ[types.Bool])
}

// checkDeclared reports a type with its own JSON encoding whose schema nobody declared, in a
// field's type or the lists, maps and pointers it is made of.
func (b *Builder) checkDeclared(t *Type, pos token.Pos, where string) {
	for ; t != nil; t = t.Elem {
		if t.Kind == Custom && t.Declared == "" {
			b.diags.Hintf(pos, `declare its schema: add jsonschema:"type=string" (and other keys) to the field, or a //mcp:schema {...} line to the type's doc comment`,
				"%s: type %s has its own JSON encoding (MarshalJSON or UnmarshalJSON), so mcpgen cannot derive its schema", where, typeString(t.Go))
		}
	}
}

// DisplayName names the struct for messages and comments: its type's name, or "struct" for
// a struct literal.
func (s *Object) DisplayName() string {
	if n, ok := types.Unalias(s.Go).(*types.Named); ok {
		return n.Obj().Name()
	}
	return "struct"
}

// RestTag is the mcp tag of the field that holds a struct's other members.
const RestTag = "additionalProperties"

// restField reads the field that holds the members besides the properties: a map with string
// keys, left out by encoding/json (json:"-"), one per struct, without rules of its own.
func (b *Builder) restField(s *Object, v *types.Var, tag string) {
	where := "field " + s.DisplayName() + "." + v.Name()
	t := b.typeOf(v.Type(), v.Pos(), where)
	if t == nil {
		return
	}
	switch {
	case t.Kind != Map || t.Key.Kind != String:
		b.diags.Hintf(v.Pos(), "use a map[string]V, V the type of the other members",
			"%s: the members besides the properties (mcp:%q) are a map with string keys, not %s", where, RestTag, typeString(v.Type()))
		return
	case s.Rest != nil:
		b.diags.Hintf(v.Pos(), "keep one of them",
			"%s: %s already holds the members besides the properties", where, s.Rest.Path[0].Name)
		return
	}
	if _, _, ok := tagValue(tag, "jsonschema"); ok {
		b.diags.Hintf(v.Pos(), "give the values a type of their own, whose fields carry the rules",
			"%s: the members besides the properties take no jsonschema tag", where)
		return
	}
	b.checkDeclared(t, v.Pos(), where)
	s.Rest = &Field{Path: []Step{{Name: v.Name(), v: v}}, Type: t, Pos: v.Pos()}
}
