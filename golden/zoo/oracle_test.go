package zoo

import (
	"encoding"
	"encoding/json"
	"fmt"
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
	{"additional-properties", encJSON, "A `map[string]V` field tagged `json:\"-\" mcp:\"additionalProperties\"` holds the members besides the properties, read and written by the generated code as `additionalProperties` says; encoding/json leaves the field out.", nil},
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
