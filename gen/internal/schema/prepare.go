package schema

import (
	"cmp"
	"go/types"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Prepare readies the objects reachable from the given types for rendering and emitting:
// it marks those on a cycle as recursive and gives each a unique name. Both depend only on
// the type graph and the types' names, never on the order in which types were met, so the
// generated file does not change when declarations move.
func Prepare(roots []*Type) []*Object {
	var objs []*Object
	seen := map[*Object]bool{}
	var collect func(t *Type)
	collect = func(t *Type) {
		for ; t != nil; t = t.Elem {
			if t.Kind != Struct || seen[t.Object] {
				continue
			}
			seen[t.Object] = true
			objs = append(objs, t.Object)
			for _, f := range t.Object.Members() {
				collect(f.Type)
			}
		}
	}
	for _, r := range roots {
		collect(r)
	}
	for _, o := range objs {
		o.Recursive = reaches(o, o, map[*Object]bool{})
	}

	// Names: the type's own (with type arguments spelled out), "Struct" for a literal; the
	// same name twice is numbered in the order of the types' full names.
	slices.SortFunc(objs, func(a, b *Object) int {
		return cmp.Or(cmp.Compare(baseName(a), baseName(b)), cmp.Compare(types.TypeString(a.Go, nil), types.TypeString(b.Go, nil)))
	})
	taken := map[string]bool{}
	for _, o := range objs {
		base := baseName(o)
		o.Name = base
		for n := 2; taken[o.Name]; n++ { // a type named X2 may come after the second X
			o.Name = base + strconv.Itoa(n)
		}
		taken[o.Name] = true
	}
	return objs
}

// reaches reports whether target can be reached from the fields of o.
func reaches(o, target *Object, visited map[*Object]bool) bool {
	if visited[o] {
		return false
	}
	visited[o] = true
	for _, f := range o.Members() {
		for t := f.Type; t != nil; t = t.Elem {
			if t.Kind == Struct && (t.Object == target || reaches(t.Object, target, visited)) {
				return true
			}
		}
	}
	return false
}

func baseName(o *Object) string {
	n, ok := types.Unalias(o.Go).(*types.Named)
	if !ok {
		return "Struct"
	}
	name := n.Obj().Name()
	if args := n.TypeArgs(); args != nil {
		for a := range args.Types() {
			name += identifierFrom(types.TypeString(a, func(*types.Package) string { return "" }))
		}
	}
	return name
}

// identifierFrom turns a type's text into an identifier part: map[string]int -> MapStringInt.
func identifierFrom(s string) string {
	var out strings.Builder
	upper := true
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			upper = true
			continue
		}
		if upper {
			r = unicode.ToUpper(r)
			upper = false
		}
		out.WriteRune(r)
	}
	return out.String()
}
