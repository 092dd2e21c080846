package zoo

import (
	"encoding"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/invopop/jsonschema"
	"github.com/mcpgen/mcpgen/internal/describe"
)

// The invopop/jsonschema oracle: its reflector, configured as mcpgen is (everything inline,
// field and type comments as descriptions), must produce the schema mcpgen generates for
// every zoo case, except for the intended differences below. Each difference is also a row of
// the table "Intended differences" in docs/schemas.md; TestDifferencesAreDocumented keeps the two
// in step.

// difference is one deliberate departure from invopop/jsonschema or from what a JSON Schema
// validator alone would accept. adjust rewrites invopop's schema of one value into mcpgen's;
// it is nil for a difference in validation only.
type difference struct {
	ID      string
	Against string // what mcpgen differs from
	Reason  string
	adjust  func(n *node)
}

// What mcpgen differs from.
const (
	invopop   = "invopop"
	validator = "validators"
	encJSON   = "encoding/json"
)

// node is a schema of invopop's, with the Go value it describes.
type node struct {
	m      map[string]any
	typ    reflect.Type         // the value's Go type, as declared
	field  *reflect.StructField // the field, when the node is a property
	parent reflect.Type         // the struct declaring the field
	root   bool
}

var differences = []difference{
	{"dialect", invopop, "No `$schema` or `$id`: MCP reads schemas without `$schema` as JSON Schema 2020-12, and some clients reject unknown dialect URIs.",
		func(n *node) {
			if n.root {
				delete(n.m, "$schema")
				delete(n.m, "$id")
			}
		}},
	{"string-option", invopop, "Values with the json option `,string` get a pattern for the text inside the string.",
		adjustStringOption},
	{"type-ranges", invopop, "Integers narrower than 64 bits carry their type's range (`uint8`: 0 to 255), unsigned ones a minimum of 0, and `float32` its range: the decoder enforces them, so the schema says so.",
		adjustTypeRanges},
	{"64-bit-limits", validator, "The limits of `int64` and `uint64` are enforced but not written in the schema: they are noise to a model and beyond what most clients' JSON numbers hold exactly.", nil},
	{"pointers-optional", invopop, "Pointer fields, and fields promoted through an embedded pointer, are optional unless `jsonschema:\"required\"` says otherwise; invopop requires every field without `omitempty`.",
		adjustPointersOptional},
	{"json-field-rules", invopop, "Property names and visibility follow encoding/json exactly: conflicting names of embedded fields at the same depth cancel out (a tagged one wins; two fields of the struct itself with one name are a diagnostic instead), a tag name encoding/json rejects falls back to the Go name, and `json:\"-,\"` names a property `-`.",
		adjustJSONFieldRules},
	{"type-docs", invopop, "A property without a doc comment of its own is described by its type's doc comment, for named types that are not structs too, and for instances of generic types; fields of unexported types keep their doc comments (invopop reads those of exported types only).",
		adjustTypeDocs},
	{"model-descriptions", invopop, "Descriptions are written for a model: the Go name a doc comment starts with is dropped before a verb (`Returns ...`, not `GetWeather returns ...`) or spelled as words before a noun phrase (`Wind speed in km/h`), and the lines of a paragraph are joined; applied to the comments invopop reads.", nil},
	{"empty-schema", invopop, "A value of any type (`any`, `json.RawMessage`) has the schema `{}` rather than `true`: some clients mishandle boolean schemas.", nil},
	{"const-enums", invopop, "A named string or integer type with typed constants declared in its package is an enum of their values, without a tag.",
		adjustConstEnums},
	{"durations", invopop + ", " + encJSON, "A `time.Duration` is a string in Go's duration syntax (\"1h30m\"), with a pattern that matches what `time.ParseDuration` accepts: models write durations, not nanoseconds. encoding/json would use an integer of nanoseconds.",
		adjustDurations},
	{"json-number", invopop, "A `json.Number` is a number, which is what it holds; invopop sees a string.",
		func(n *node) {
			if deref(n.typ) == reflect.TypeOf(json.Number("")) {
				n.m["type"] = "number"
			}
		}},
	{"int-keys", invopop, "A map with integer keys says so with `propertyNames` and keeps its value schema in `additionalProperties`; keys are checked against the key type's range, which the pattern cannot express.",
		adjustIntKeys},
	{"key-ranges", validator, "Integer map keys beyond their type's range are rejected though the key pattern allows any integer.", nil},
	{"quoted-ranges", validator, "`,string` integers beyond their type's range are rejected though the pattern allows any integer.", nil},
	{"text-types", invopop, "A type with its own text form (`encoding.TextMarshaler`, such as `netip.Addr`) is a string, and accepts what its `UnmarshalText` accepts, which the schema can only narrow with a pattern; invopop describes its Go fields.",
		adjustTextTypes},
	{"custom-json", invopop, "A type with its own JSON form (`json.Marshaler`) has the schema declared for it, by `//mcp:schema` on the type or `type=` on the field; its `UnmarshalJSON` is its validation.",
		adjustCustomJSON},
	{"more-tags", invopop, "Tags invopop ignores are honoured: `enum` on booleans, and `minProperties` and `maxProperties` on maps.",
		adjustMoreTags},
	{"typed-list-defaults", invopop, "A list's default holds values of the item type (`[1, 2]`); invopop writes strings.",
		adjustListDefaults},
	{"mcp-header", invopop, "A field tagged `mcp:\"header=Name\"` carries `\"x-mcp-header\": \"Name\"`, which asks clients of revision 2026-07-28 to mirror the argument into an `Mcp-Param-Name` header; invopop does not read the mcp tag (it copies the same keyword from `jsonschema_extras`).",
		adjustMcpHeader},
	{"base64-validated", validator, "A `[]byte` must be valid standard base64, which JSON Schema's `contentEncoding` only annotates unless a validator asserts content.", nil},
	{"defaults-applied", encJSON, "The decoder applies a property's `default` when the property is left out, so the schema's default is what the tool sees.", nil},
	{"integer-forms", encJSON, "Integers written `1.0` or `1e2` are accepted, as JSON Schema's `integer` accepts them; encoding/json rejects them.", nil},
	{"exact-names", encJSON, "Property names match exactly, as the schema says; encoding/json also matches them case-insensitively.", nil},
	{"unknown-properties", encJSON, "Unknown properties are rejected, as `additionalProperties: false` says, with the known names listed; encoding/json ignores them.", nil},
	{"null-strict", encJSON, "`null` is accepted only where the schema allows it (`nullable`); encoding/json ignores `null` for values that are not pointers, maps, slices or interfaces.", nil},
	{"schema-hidden", encJSON, "A field tagged `jsonschema:\"-\"`, out of the schema, is also out of decoding and encoding; encoding/json uses it.", nil},
	{"nil-collections", encJSON, "In results, nil slices and maps are written as `[]` and `{}`, and nil pointers without `omitempty` are left out: encoding/json writes `null`, which the schema does not allow.", nil},
}

var differenceByID = func() map[string]difference {
	m := map[string]difference{}
	for _, d := range differences {
		m[d.ID] = d
	}
	return m
}()

// reflector is invopop's, configured as mcpgen generates: anonymous (no $id), required
// from json tags, additional properties refused, full doc comments as descriptions, and
// those descriptions written for models (the difference "model-descriptions").
func reflector(t *testing.T) *jsonschema.Reflector {
	r := &jsonschema.Reflector{Anonymous: true}
	if err := r.AddGoComments("github.com/mcpgen/mcpgen/golden/zoo", "./", jsonschema.WithFullComment()); err != nil {
		t.Fatal(err)
	}
	forModels(r.CommentMap)
	return r
}

// forModels rewrites doc comments read by invopop, keyed "pkg.Type" or "pkg.Type.Field", as
// mcpgen writes descriptions (internal/describe): without the name they start with, and
// with the lines of each paragraph joined.
func forModels(comments map[string]string) {
	for key, doc := range comments {
		comments[key] = describe.Description(key[strings.LastIndex(key, ".")+1:], doc)
	}
}

func TestInvopopOracle(t *testing.T) {
	tools := zooTools(t)
	r := reflector(t)
	for _, c := range cases {
		typ := reflect.TypeOf(c.value)
		theirs := toAny(t, r.ReflectFromType(typ))
		var ours any
		json.Unmarshal(tools[c.tool].InputSchema, &ours)

		theirs = expand(theirs, typ.Name())
		ours = expand(ours, typ.Name())
		root := &node{m: theirs.(map[string]any), typ: typ, root: true}
		walk(root, r)
		if !reflect.DeepEqual(canonical(theirs), canonical(ours)) {
			a, _ := json.MarshalIndent(canonical(theirs), "", "  ")
			b, _ := json.MarshalIndent(canonical(ours), "", "  ")
			t.Errorf("%s: invopop, with the intended differences applied:\n%s\nmcpgen:\n%s", c.tool, a, b)
		}
	}
}

// TestDifferencesAreDocumented checks that the guide's table of intended differences
// (docs/schemas.md) is exactly the table this test knows, row for row.
func TestDifferencesAreDocumented(t *testing.T) {
	page, err := os.ReadFile("../../docs/schemas.md")
	if err != nil {
		t.Fatal(err)
	}
	const heading = "## Intended differences"
	_, section, ok := strings.Cut(string(page), heading+"\n")
	if !ok {
		t.Fatalf("docs/schemas.md has no section %q", heading)
	}
	var documented []string
	for line := range strings.SplitSeq(section, "\n") {
		if strings.HasPrefix(line, "| `") {
			documented = append(documented, line)
		} else if len(documented) > 0 && !strings.HasPrefix(line, "|") {
			break
		}
	}
	var want []string
	for _, d := range differences {
		want = append(want, fmt.Sprintf("| `%s` | %s | %s |", d.ID, d.Against, d.Reason))
	}
	if !slices.Equal(documented, want) {
		t.Errorf("the table of intended differences in docs/schemas.md is not the test's; it should read:\n\n| Difference | From | What and why |\n|---|---|---|\n%s", strings.Join(want, "\n"))
	}
}

func toAny(t *testing.T, s *jsonschema.Schema) any {
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	json.Unmarshal(b, &v)
	return v
}

// expand inlines every $ref, so that schemas written with and without definitions compare
// equal. A reference to a definition being expanded (a cycle) becomes {"$recursive": name},
// with the definition's description; the root counts as the definition of rootName.
func expand(s any, rootName string) any {
	m, ok := s.(map[string]any)
	if !ok {
		return s
	}
	defs, _ := m["$defs"].(map[string]any)
	delete(m, "$defs")
	if ref, ok := m["$ref"].(string); ok { // a root that is only a reference
		delete(m, "$ref")
		for k, v := range defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any) {
			if _, set := m[k]; !set {
				m[k] = v
			}
		}
	}
	return expandIn(m, defs, []string{rootName})
}

func expandIn(s any, defs map[string]any, stack []string) any {
	switch v := s.(type) {
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = expandIn(x, defs, stack)
		}
		return out
	case map[string]any:
		if ref, ok := v["$ref"].(string); ok {
			name := strings.TrimPrefix(ref, "#/$defs/")
			def, _ := defs[name].(map[string]any)
			out := map[string]any{}
			if slices.Contains(stack, name) {
				out["$recursive"] = name
				if d, ok := def["description"]; ok {
					out["description"] = d
				}
			} else {
				for k, x := range expandIn(def, defs, append(stack, name)).(map[string]any) {
					out[k] = x
				}
			}
			for k, x := range v {
				if k != "$ref" {
					out[k] = expandIn(x, defs, stack)
				}
			}
			return out
		}
		out := map[string]any{}
		for k, x := range v {
			switch k {
			case "items", "additionalProperties":
				x = schemaOf(x)
			case "properties":
				props := map[string]any{}
				for name, p := range x.(map[string]any) {
					props[name] = schemaOf(p)
				}
				x = props
			}
			out[k] = expandIn(x, defs, stack)
		}
		return out
	}
	return s
}

// schemaOf turns the boolean schema true into {} (the "empty-schema" difference).
func schemaOf(x any) any {
	if b, ok := x.(bool); ok && b {
		return map[string]any{}
	}
	return x
}

// canonical sorts "required" lists, whose order carries no meaning.
func canonical(s any) any {
	switch v := s.(type) {
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = canonical(x)
		}
		return out
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			out[k] = canonical(x)
		}
		if req, ok := out["required"].([]any); ok {
			sorted := slices.Clone(req)
			slices.SortFunc(sorted, func(a, b any) int { return strings.Compare(a.(string), b.(string)) })
			out["required"] = sorted
		}
		return out
	}
	return s
}

// walk applies the differences to a node and, through the Go type, to the nodes inside it.
func walk(n *node, r *jsonschema.Reflector) {
	if n.m["$recursive"] != nil {
		return
	}
	if one, ok := n.m["oneOf"].([]any); ok && len(one) == 2 { // nullable: the value and null
		inner := *n
		inner.m, inner.root = one[0].(map[string]any), false
		walk(&inner, r)
		return
	}
	for _, d := range differences {
		if d.adjust != nil {
			d.adjust(n)
		}
	}
	t := deref(n.typ)
	if special(t) || n.m["type"] == "string" && t.Kind() != reflect.String {
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		props, _ := n.m["properties"].(map[string]any)
		fields := visibleFields(t)
		for name, sub := range props {
			if f, ok := fields[name]; ok {
				walk(&node{m: sub.(map[string]any), typ: f.Type, field: &f.StructField, parent: f.parent}, r)
			}
		}
	case reflect.Slice, reflect.Array:
		if items, ok := n.m["items"].(map[string]any); ok {
			walk(&node{m: items, typ: t.Elem()}, r)
		}
	case reflect.Map:
		if elem, ok := n.m["additionalProperties"].(map[string]any); ok {
			walk(&node{m: elem, typ: t.Elem()}, r)
		}
	}
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

var (
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
)

// special types are described whole by a difference, not by their Go fields.
func special(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return t == reflect.TypeFor[time.Time]() || p.Implements(textMarshaler) || p.Implements(jsonMarshaler) || t == reflect.TypeFor[time.Duration]()
}

// visibleField is a field encoding/json uses, with the struct that declares it.
type visibleField struct {
	reflect.StructField
	parent     reflect.Type
	viaPointer bool // promoted through an embedded pointer
	contested  bool // other fields had the same name and lost
}

// visibleFields lists the fields encoding/json uses, by JSON name: exported fields, fields of
// embedded structs level by level, names at the same level cancelling out unless one is tagged.
func visibleFields(t reflect.Type) map[string]visibleField {
	type candidate struct {
		f      visibleField
		depth  int
		tagged bool
	}
	byName := map[string][]candidate{}
	var visit func(t reflect.Type, depth int, viaPointer bool)
	visit = func(t reflect.Type, depth int, viaPointer bool) {
		for i := range t.NumField() {
			sf := t.Field(i)
			tag := sf.Tag.Get("json")
			if tag == "-" || strings.HasPrefix(sf.Tag.Get("jsonschema"), "-") {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			if name != "" && !validName(name) {
				name = ""
			}
			ft := deref(sf.Type)
			if sf.Anonymous && name == "" && ft.Kind() == reflect.Struct {
				visit(ft, depth+1, viaPointer || sf.Type.Kind() == reflect.Pointer)
				continue
			}
			if !sf.IsExported() {
				continue
			}
			tagged := name != ""
			if !tagged {
				name = sf.Name
			}
			byName[name] = append(byName[name], candidate{visibleField{sf, t, viaPointer, false}, depth, tagged})
		}
	}
	visit(t, 0, false)
	out := map[string]visibleField{}
	for name, cs := range byName {
		slices.SortStableFunc(cs, func(a, b candidate) int {
			if a.depth != b.depth {
				return a.depth - b.depth
			}
			if a.tagged != b.tagged {
				if a.tagged {
					return -1
				}
				return 1
			}
			return 0
		})
		if len(cs) > 1 && cs[0].depth == cs[1].depth && cs[0].tagged == cs[1].tagged {
			continue
		}
		f := cs[0].f
		f.contested = len(cs) > 1
		out[name] = f
	}
	return out
}

func validName(name string) bool {
	for _, c := range name {
		if !strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c) && !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c > 127) {
			return false
		}
	}
	return name != ""
}

// tagItems reads a field's jsonschema tag as invopop does: items split on unescaped commas.
func tagItems(f *reflect.StructField) map[string][]string {
	out := map[string][]string{}
	if f == nil {
		return out
	}
	raw := strings.ReplaceAll(f.Tag.Get("jsonschema"), `\,`, "\x00")
	for item := range strings.SplitSeq(raw, ",") {
		k, v, _ := strings.Cut(strings.ReplaceAll(item, "\x00", ","), "=")
		out[k] = append(out[k], v)
	}
	return out
}

func number(s string) any {
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

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
