package mcpfunc

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"strings"
)

// sameJSONNames reports the fields declared in one struct that share a JSON name, in the
// structs t reaches: encoding/json leaves them all out, or all but the tagged one, without a
// word, so a json tag copied and not renamed would silently lose a property, from the schema
// and from every call. As the generator does, only structs the program's author can edit are
// checked: unnamed ones, and those of t's package or of pkg (the function's), and fields
// promoted from embedded structs keep encoding/json's rules: there a collision is the price
// of embedding.
func sameJSONNames(t reflect.Type, pkg string) error {
	root := deref(t).PkgPath()
	own := func(t reflect.Type) bool { return t.Name() == "" || t.PkgPath() == pkg || t.PkgPath() == root }
	seen := map[reflect.Type]bool{}
	var problems []string
	// where names an unnamed struct in messages: the path to it from a named one.
	var walk func(t reflect.Type, where string)
	walk = func(t reflect.Type, where string) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			if t.Kind() != reflect.Pointer {
				where += "[]"
			}
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] || !own(t) || ownJSON(t) {
			return
		}
		seen[t] = true
		if t.Name() != "" {
			where = t.Name()
		}
		problems = append(problems, structNames(t, where)...)
		for i := range t.NumField() {
			if sf := t.Field(i); sf.IsExported() || sf.Anonymous {
				walk(sf.Type, where+"."+sf.Name)
			}
		}
	}
	walk(t, "struct")
	if len(problems) == 0 {
		return nil
	}
	return fmt.Errorf("%s (give one of them another name in its json tag, or leave one out with json:\"-\")", strings.Join(problems, "; "))
}

// funcPackage returns the import path of the package that declares fn (a function literal's
// is that of the function it is in), or "" if the runtime does not say.
func funcPackage(fn any) string {
	f := runtime.FuncForPC(reflect.ValueOf(fn).Pointer())
	if f == nil {
		return ""
	}
	// The symbol is the path, then a dot and the function: example.com/a/b.F,
	// example.com/a/b.(*T).M, example.com/a/b.F.func1. The path's last element may hold dots.
	name := f.Name()
	dir, last := "", name
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		dir, last = name[:i+1], name[i+1:]
	}
	pkg, _, _ := strings.Cut(last, ".")
	return dir + pkg
}

// ownJSON reports whether a type writes or reads its own JSON, so that its fields are not its
// properties.
func ownJSON(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	for _, i := range []reflect.Type{reflect.TypeFor[json.Marshaler](), reflect.TypeFor[json.Unmarshaler](),
		reflect.TypeFor[encoding.TextMarshaler](), reflect.TypeFor[encoding.TextUnmarshaler]()} {
		if p.Implements(i) {
			return true
		}
	}
	return false
}

// structNames describes the fields declared in struct t, named where, that share a JSON name.
func structNames(t reflect.Type, where string) []string {
	type named struct {
		field  string
		tagged bool
	}
	byName := map[string][]named{}
	var order []string
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" || !sf.IsExported() && !sf.Anonymous {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		tagged := validTagName(name)
		if !tagged {
			if sf.Anonymous && deref(sf.Type).Kind() == reflect.Struct {
				continue // its fields are promoted, under encoding/json's rules
			}
			if !sf.IsExported() {
				continue
			}
			name = sf.Name
		}
		if byName[name] == nil {
			order = append(order, name)
		}
		byName[name] = append(byName[name], named{field: where + "." + sf.Name, tagged: tagged})
	}
	var problems []string
	for _, name := range order {
		fields := byName[name]
		if len(fields) < 2 {
			continue
		}
		var tagged, all []string
		for _, f := range fields {
			all = append(all, f.field)
			if f.tagged {
				tagged = append(tagged, f.field)
			}
		}
		if len(tagged) == 1 {
			problems = append(problems, fmt.Sprintf("fields %s have JSON name %q, and encoding/json keeps only %s, the tagged one: the others are no properties",
				andList(all), name, tagged[0]))
			continue
		}
		problems = append(problems, fmt.Sprintf("fields %s have JSON name %q, and encoding/json leaves out every one of them: none is a property",
			andList(all), name))
	}
	return problems
}

// andList writes names as "a and b" or "a, b and c".
func andList(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
