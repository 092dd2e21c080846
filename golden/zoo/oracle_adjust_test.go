package zoo

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/invopop/jsonschema"
	"github.com/mcpgen/mcpgen/internal/describe"
)

func adjustTypeRanges(n *node) {
	t := deref(n.typ)
	if _, quoted := n.m["pattern"]; quoted && n.m["type"] == "string" && t.Kind() != reflect.String {
		// ",string": invopop made the type a string; the range is still the type's.
	} else if n.m["type"] != "integer" && n.m["type"] != "number" {
		return
	}
	tighten := func(key string, limit float64, lower bool) {
		cur, ok := n.m[key].(float64)
		if !ok || lower && cur < limit || !lower && cur > limit {
			n.m[key] = limit
		}
	}
	switch t.Kind() {
	case reflect.Int8, reflect.Int16, reflect.Int32:
		bits := t.Bits()
		tighten("minimum", -math.Pow(2, float64(bits-1)), true)
		tighten("maximum", math.Pow(2, float64(bits-1))-1, false)
	case reflect.Uint8, reflect.Uint16, reflect.Uint32:
		tighten("minimum", 0, true)
		tighten("maximum", math.Pow(2, float64(t.Bits()))-1, false)
	case reflect.Uint, reflect.Uint64, reflect.Uintptr:
		tighten("minimum", 0, true)
	case reflect.Float32:
		tighten("minimum", -math.MaxFloat32, true)
		tighten("maximum", math.MaxFloat32, false)
	}
}

func adjustPointersOptional(n *node) {
	t := deref(n.typ)
	req, ok := n.m["required"].([]any)
	if t.Kind() != reflect.Struct || !ok {
		return
	}
	fields := visibleFields(t)
	kept := []any{}
	for _, name := range req {
		f, ok := fields[name.(string)]
		optional := ok && (f.Type.Kind() == reflect.Pointer || f.viaPointer) && !slices.Contains(strings.Split(f.Tag.Get("jsonschema"), ","), "required")
		if !optional {
			kept = append(kept, name)
		}
	}
	if len(kept) == 0 {
		delete(n.m, "required")
	} else {
		n.m["required"] = kept
	}
}

func adjustJSONFieldRules(n *node) {
	t := deref(n.typ)
	props, ok := n.m["properties"].(map[string]any)
	if t.Kind() != reflect.Struct || !ok || special(t) {
		return
	}
	fields := visibleFields(t)
	// Properties invopop made that encoding/json does not (cancelled names, invalid tag names).
	for name := range props {
		if _, ok := fields[name]; !ok {
			delete(props, name)
			if req, ok := n.m["required"].([]any); ok {
				n.m["required"] = slices.DeleteFunc(req, func(x any) bool { return x == name })
			}
		}
	}
	// Fields invopop left out ("-," and invalid tag names), or took from a field that
	// encoding/json does not use (a contested name): described from the right field.
	req, _ := n.m["required"].([]any)
	req = slices.DeleteFunc(req, func(x any) bool { f, ok := fields[x.(string)]; return ok && f.contested })
	for name, f := range fields {
		if _, ok := props[name]; ok && !f.contested {
			continue
		}
		props[name] = fieldSchema(f)
		if !strings.Contains(f.Tag.Get("json"), "omitempty") && !slices.Contains(req, any(name)) {
			req = append(req, name)
		}
	}
	if len(req) > 0 {
		n.m["required"] = req
	} else {
		delete(n.m, "required")
	}
}

// fieldSchema is invopop's schema of one field, with its doc comment: the field reflected
// alone, in a struct of its own.
func fieldSchema(f visibleField) any {
	one := reflect.StructOf([]reflect.StructField{{Name: f.Name, Type: f.Type, Tag: reflect.StructTag(`json:"x"`)}})
	s, _ := json.Marshal((&jsonschema.Reflector{Anonymous: true, DoNotReference: true}).ReflectFromType(one))
	var m map[string]any
	json.Unmarshal(s, &m)
	prop := m["properties"].(map[string]any)["x"].(map[string]any)
	if d := fieldDoc(f.parent, f.Name); d != "" {
		prop["description"] = d
	}
	return prop
}

// comments are the package's doc comments as invopop read them.
var comments = func() map[string]string {
	r := &jsonschema.Reflector{}
	r.AddGoComments("github.com/mcpgen/mcpgen/golden/zoo", "./", jsonschema.WithFullComment())
	forModels(r.CommentMap)
	return r.CommentMap
}()

func typeName(t reflect.Type) string {
	name, _, _ := strings.Cut(t.Name(), "[")
	return t.PkgPath() + "." + name
}

// unexportedDocs are the doc comments of the fields of the zoo's unexported types, which
// invopop does not read: Type.Field -> text.
var unexportedDocs = func() map[string]string {
	docs := map[string]string{}
	f, err := parser.ParseFile(token.NewFileSet(), "types.go", nil, parser.ParseComments)
	if err != nil {
		panic(err)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok || ast.IsExported(ts.Name.Name) {
			return true
		}
		if st, ok := ts.Type.(*ast.StructType); ok {
			for _, field := range st.Fields.List {
				for _, name := range field.Names {
					docs[ts.Name.Name+"."+name.Name] = describe.Description(name.Name, field.Doc.Text())
				}
			}
		}
		return true
	})
	return docs
}()

func fieldDoc(parent reflect.Type, field string) string {
	return comments[typeName(parent)+"."+field]
}

func adjustTypeDocs(n *node) {
	t := deref(n.typ)
	if strings.Contains(t.Name(), "[") && t.Kind() == reflect.Struct { // a generic instance
		if _, ok := n.m["description"]; !ok && (n.field == nil || fieldDoc(n.parent, n.field.Name) == "") {
			if d := comments[typeName(t)]; d != "" {
				n.m["description"] = d
			}
		}
		if props, ok := n.m["properties"].(map[string]any); ok {
			for name, f := range visibleFields(t) {
				if d := fieldDoc(t, f.Name); d != "" {
					props[name].(map[string]any)["description"] = d
				}
			}
		}
	}
	if props, ok := n.m["properties"].(map[string]any); ok && t.Kind() == reflect.Struct && !special(t) {
		for name, f := range visibleFields(t) {
			if f.parent.Name() != "" && !ast.IsExported(f.parent.Name()) {
				if d := unexportedDocs[f.parent.Name()+"."+f.Name]; d != "" {
					props[name].(map[string]any)["description"] = d
				}
			}
		}
	}
	if n.field == nil || t.Kind() == reflect.Struct || t.Name() == "" || special(t) {
		return
	}
	if _, ok := n.m["description"]; !ok {
		if d := comments[typeName(t)]; d != "" {
			n.m["description"] = d
		}
	}
}

// constants are the typed constants of the zoo's enum types, and of the standard library's
// it uses: what mcpgen finds with go/types.
var constants = map[reflect.Type][]any{
	reflect.TypeFor[Level]():        {"debug", "info", "error"},
	reflect.TypeFor[Priority]():     {1.0, 2.0, 3.0},
	reflect.TypeFor[time.Weekday](): {0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0},
}

func adjustConstEnums(n *node) {
	if values, ok := constants[deref(n.typ)]; ok {
		if _, tagged := n.m["enum"]; !tagged {
			n.m["enum"] = values
		}
	}
}

func adjustDurations(n *node) {
	if deref(n.typ) != reflect.TypeFor[time.Duration]() {
		return
	}
	desc := `A duration such as "1h30m", "90s" or "250ms".`
	if d, ok := n.m["description"].(string); ok {
		desc = d
	}
	clear(n.m)
	n.m["type"] = "string"
	n.m["description"] = desc
	n.m["pattern"] = `^[-+]?(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$`
	if d := tagItems(n.field)["default"]; len(d) > 0 {
		n.m["default"] = d[0]
	}
}

func adjustIntKeys(n *node) {
	t := deref(n.typ)
	if t.Kind() != reflect.Map {
		return
	}
	switch t.Key().Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		pp, _ := n.m["patternProperties"].(map[string]any)
		n.m["additionalProperties"] = pp["^[0-9]+$"]
		delete(n.m, "patternProperties")
		n.m["propertyNames"] = map[string]any{"pattern": "^[+-]?[0-9]+$"}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n.m["propertyNames"] = map[string]any{"pattern": "^[0-9]+$"}
	}
}

func adjustStringOption(n *node) {
	if n.field == nil || !strings.Contains(n.field.Tag.Get("json"), ",string") {
		return
	}
	patterns := map[reflect.Kind]string{
		reflect.Int64: `^-?(0|[1-9][0-9]*)$`, reflect.Uint8: `^(0|[1-9][0-9]*)$`, reflect.Bool: `^(true|false)$`,
		reflect.Float64: `^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`,
		reflect.String:  `^"([^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"$`,
	}
	n.m["type"] = "string"
	n.m["pattern"] = patterns[deref(n.typ).Kind()]
}

func adjustTextTypes(n *node) {
	t := deref(n.typ)
	if t == reflect.TypeFor[time.Time]() || !reflect.PointerTo(t).Implements(textMarshaler) || reflect.PointerTo(t).Implements(jsonMarshaler) {
		return
	}
	desc, _ := n.m["description"].(string)
	clear(n.m)
	n.m["type"] = "string"
	if desc == "" {
		desc = comments[typeName(t)]
	}
	if desc != "" {
		n.m["description"] = desc
	}
	if p := tagItems(n.field)["pattern"]; len(p) > 0 {
		n.m["pattern"] = p[0]
	}
}

// declared are the schemas the zoo declares for its types with their own JSON form.
var declared = map[reflect.Type]map[string]any{
	reflect.TypeFor[Money](): {"type": "string", "pattern": `^-?[0-9]+\.[0-9]{2}$`},
}

func adjustCustomJSON(n *node) {
	t := deref(n.typ)
	if !reflect.PointerTo(t).Implements(jsonMarshaler) || t == reflect.TypeFor[time.Time]() || t == reflect.TypeFor[json.RawMessage]() {
		return
	}
	desc, _ := n.m["description"].(string)
	clear(n.m)
	for k, v := range declared[t] {
		n.m[k] = v
	}
	tags := tagItems(n.field)
	if ty := tags["type"]; len(ty) > 0 {
		n.m["type"] = ty[0]
	}
	if d := tags["description"]; len(d) > 0 {
		desc = d[0]
	}
	if desc == "" {
		desc = comments[typeName(t)]
	}
	if desc != "" {
		n.m["description"] = desc
	}
}

func adjustMoreTags(n *node) {
	tags := tagItems(n.field)
	switch deref(n.typ).Kind() {
	case reflect.Bool:
		for _, v := range tags["enum"] {
			list, _ := n.m["enum"].([]any)
			n.m["enum"] = append(list, v == "true")
		}
	case reflect.Map:
		for _, key := range []string{"minProperties", "maxProperties"} {
			if v := tags[key]; len(v) > 0 {
				n.m[key] = number(v[0])
			}
		}
	}
}

func adjustMcpHeader(n *node) {
	if n.field == nil {
		return
	}
	if name, ok := strings.CutPrefix(n.field.Tag.Get("mcp"), "header="); ok {
		n.m["x-mcp-header"] = name
	}
}

func adjustListDefaults(n *node) {
	t := deref(n.typ)
	list, ok := n.m["default"].([]any)
	if !ok || t.Kind() != reflect.Slice {
		return
	}
	for i, v := range list {
		switch t.Elem().Kind() {
		case reflect.Int, reflect.Int64, reflect.Float64:
			list[i] = number(v.(string))
		case reflect.Bool:
			list[i] = v == "true"
		}
	}
}
