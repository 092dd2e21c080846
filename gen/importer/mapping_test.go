package importer

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func oneTool(input string) *Snapshot {
	return &Snapshot{Tools: []Tool{{Name: "t", InputSchema: json.RawMessage(input)}}}
}

// Items 6 and 8 of issue 25, and what followed: the shapes OpenAPI-derived servers publish are
// typed (unions, "nullable", allOf, discriminators, additionalProperties beside properties,
// readOnly and writeOnly). The golden case golden/import/openapi (Stripe-, GitHub- and
// SaaS-like tools) keeps json.RawMessage only for the free-form objects its schemas declare.
func TestOpenAPICorpusIsTyped(t *testing.T) {
	snap := readSnapshot(t, "../../golden/import/openapi/snapshot.json")
	res, _ := generate(t, snap)
	for _, fb := range res.Fallbacks {
		if !strings.HasSuffix(fb, ": an object of any properties: json.RawMessage") {
			t.Errorf("fallback: %s", fb)
		}
	}
	if len(res.Fallbacks) != 2 {
		t.Errorf("%d fallbacks, want the 2 free-form objects: %q", len(res.Fallbacks), res.Fallbacks)
	}
}

// Each union shape, as the field's Go type, with the union's own declaration.
func TestUnionTypes(t *testing.T) {
	for _, c := range []struct {
		name, schema string
		field, decl  string // the type of the field x, and what its type is declared as ("" for none)
	}{
		{"type list", `{"type":["boolean","string"]}`, "BooleanOrString", "struct { Boolean *bool String *string }"},
		{"type list with null", `{"type":["boolean","string","null"]}`, "*BooleanOrString", "struct { Boolean *bool String *string }"},
		{"anyOf of types", `{"anyOf":[{"type":"string"},{"type":"array","items":{"type":"integer"}}]}`, "TInputX", "struct { String *string Array []int64 }"},
		{"integer and number", `{"oneOf":[{"type":"integer"},{"type":"number"}]}`, "IntegerOrNumber", "struct { Integer *int64 Number *float64 }"},
		{"string or object", `{"anyOf":[{"type":"string"},{"type":"object","properties":{"a":{"type":"string"}}}]}`, "TInputX", "struct { String *string Object *TInputXObject }"},
		{"enums merge", `{"anyOf":[{"type":"string","enum":["a","b"]},{"enum":["c","d"]},{"type":"boolean"}]}`, "TInputX", "struct { String *TInputXString Boolean *bool }"},
		{"enum and string", `{"anyOf":[{"type":"string","enum":["a"]},{"type":"string","format":"date-time"},{"type":"string"}]}`, "string", ""},
		{"tagged", `{"oneOf":[{"type":"object","properties":{"kind":{"const":"a"},"n":{"type":"integer"}},"required":["kind"]},
			{"type":"object","properties":{"kind":{"type":"string","enum":["b","c"]}},"required":["kind"]}]}`, "TInputX", "interface { isTInputX() }"},
		{"required properties", `{"anyOf":[{"type":"object","properties":{"url":{"type":"string"}},"required":["url"]},
			{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}]}`, "TInputX", "interface { isTInputX() }"},
		{"tag and string", `{"anyOf":[{"type":"string"},{"type":"object","properties":{"kind":{"const":"a"}},"required":["kind"]},
			{"type":"object","properties":{"kind":{"const":"b"}},"required":["kind"]},{"type":"null"}]}`, "*TInputX", "struct { String *string Object TInputXObject }"},
		{"nested unions open up", `{"anyOf":[{"type":"integer"},{"anyOf":[{"type":"string"},{"type":"boolean"}]}]}`, "IntegerOrStringOrBoolean", "struct { Integer *int64 String *string Boolean *bool }"},
		{"constraints only", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"anyOf":[{"required":["a"]},{"required":["b"]}]}`, "TInputX", "struct { A *string `json:\"a,omitempty\"` B *string `json:\"b,omitempty\"` }"},
		{"oneOf with the type beside it", `{"type":["string","integer","null"],"oneOf":[{"type":"string"},{"type":"integer"}]}`, "*StringOrInteger", "struct { String *string Integer *int64 }"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, types := generate(t, oneTool(`{"type":"object","properties":{"x":`+c.schema+`},"required":["x"]}`))
			if len(res.Fallbacks) > 0 {
				t.Errorf("fallbacks: %q", res.Fallbacks)
			}
			field := strings.TrimSuffix(strings.TrimPrefix(types["TInput"], "struct { X "), " `json:\"x\"` }")
			if field != c.field {
				t.Errorf("field of type %q, want %q (%s)", field, c.field, types["TInput"])
			}
			name := strings.TrimPrefix(c.field, "*")
			if c.decl != "" && strings.ReplaceAll(types[name], "\n", "") != c.decl {
				t.Errorf("%s is %q, want %q", name, types[name], c.decl)
			}
		})
	}
}

// What has no sound decoding stays json.RawMessage, and says why.
func TestUnionFallbacks(t *testing.T) {
	for schema, why := range map[string]string{
		`{"oneOf":[{"type":"object","properties":{"a":{"type":"string"}}},{"type":"object","properties":{"b":{"type":"string"}}}]}`:                                              "objects that neither a property's values nor their required properties tell apart",
		`{"anyOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},{"type":"object","properties":{"a":{"type":"string"},"b":{}},"required":["a","b"]}]}`: "objects that neither",
		`{"anyOf":[{"type":"string"},{}]}`: "a branch of any JSON type",
		`{"anyOf":[{"type":"array","items":{"type":"object","properties":{"a":{"type":"string"}}}},{"type":"array","items":{"type":"object","properties":{"b":{"type":"string"}}}}]}`: "arrays of different items",
		`{"oneOf":[{"type":"string"}],"anyOf":[{"type":"integer"}]}`: "oneOf and anyOf together",
	} {
		res, _ := generate(t, oneTool(`{"type":"object","properties":{"x":`+schema+`}}`))
		if len(res.Fallbacks) != 1 || !strings.Contains(res.Fallbacks[0], "/properties/x") || !strings.Contains(res.Fallbacks[0], why) {
			t.Errorf("%s: fallbacks %q, want one for /properties/x saying %q", schema, res.Fallbacks, why)
		}
	}
}

// A field left as json.RawMessage says why in its comment, as mcpgen import -v does: the field
// itself, its elements, a union's member, a tool's arguments.
func TestFallbackComments(t *testing.T) {
	res, _ := generate(t, &Snapshot{Tools: []Tool{
		{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{
			"free":{"description":"Anything."},
			"tags":{"items":{"type":"string"},"anyOf":[{"type":"array","items":{"type":"integer"}},{"type":"null"}]},
			"byName":{"type":"object","additionalProperties":{"type":"null"}},
			"either":{"oneOf":[{"type":"string"},{"type":"object","properties":{"a":{"type":"string"}}},{"type":"object","properties":{"b":{"type":"string"}}}]}}}`)},
		{Name: "u", InputSchema: json.RawMessage(`{"oneOf":[{"type":"object","properties":{"a":{"type":"string"}}},{"type":"object","properties":{"b":{"type":"string"}}}]}`)},
	}})
	// Comments as one line each.
	src, continued := string(res.Files[0].Data), regexp.MustCompile("(//[^\n]*)\n\t?// ")
	for next := continued.ReplaceAllString(src, "$1 "); next != src; next = continued.ReplaceAllString(src, "$1 ") {
		src = next
	}
	for _, want := range []string{
		"// Anything. Left as json.RawMessage: no type.\n\tFree json.RawMessage",
		"// Its elements are left as json.RawMessage: allOf of schemas that do not agree: string and integer.\n\tTags mcp.Nullable[[]json.RawMessage]",
		"// Its values are left as json.RawMessage: always null.\n\tByName map[string]json.RawMessage",
		"// Left as json.RawMessage: objects that neither a property's values nor their required properties tell apart.\n\tObject json.RawMessage",
		"// U calls the tool u. Its arguments are json.RawMessage: objects that neither a property's values nor their required properties tell apart. The tool",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("the package lacks %q", want)
		}
	}
}

// Item 9 of issue 25: a $ref is any JSON Pointer within the document, cycles included.
func TestPointerRefs(t *testing.T) {
	schema := `{"type":"object","properties":{
		"home":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]},
		"work":{"$ref":"#/properties/home"},
		"tags":{"type":"array","items":{"type":"string","enum":["a","b"]}},
		"tag":{"$ref":"#/properties/tags/items"},
		"escaped":{"$ref":"#/$defs/a~1b/properties/c%20d"},
		"parent":{"$ref":"#"},
		"first":{"$ref":"#/$defs/list/0"}
	},"$defs":{"a/b":{"type":"object","properties":{"c d":{"type":"integer"}}},"list":[{"type":"boolean"}]}}`
	res, types := generate(t, oneTool(schema))
	if len(res.Fallbacks) > 0 {
		t.Errorf("fallbacks: %q", res.Fallbacks)
	}
	want := "struct { Home *Home `json:\"home,omitempty\"` Work *Home `json:\"work,omitempty\"` Tags []Tag `json:\"tags,omitempty\"` " +
		"Tag *Tag `json:\"tag,omitempty\"` Escaped *int64 `json:\"escaped,omitempty\"` Parent *TInput `json:\"parent,omitempty\"` First *bool `json:\"first,omitempty\"` }"
	if types["TInput"] != want {
		t.Errorf("TInput is\n%s\nwant\n%s", types["TInput"], want)
	}

	// Wrong or cyclic pointers fall back with a reason, and end.
	for ref, why := range map[string]string{
		"#/properties/nothing":  `has no member "nothing"`,
		"#/required/7":          `has no element "7"`,
		"#anchor":               "an anchor",
		"other.json#/x":         "not within the schema",
		"#/properties/loop":     "a cycle of references that meets no object",
		"#/properties/a/items":  "a cycle of references that meets no object",
		"#/properties/text/x/y": "neither an object nor an array",
	} {
		res, _ := generate(t, oneTool(`{"type":"object","required":["x"],"properties":{"text":{"type":"string","x":"s"},
			"loop":{"$ref":"#/properties/loop"},"a":{"type":"array","items":{"$ref":"#/properties/a/items"}},"r":{"$ref":"`+ref+`"}}}`))
		if !strings.Contains(strings.Join(res.Fallbacks, "\n"), why) {
			t.Errorf("$ref %s: fallbacks %q, want one saying %q", ref, res.Fallbacks, why)
		}
	}
}

// Item 9 of issue 25: comments wrap at word boundaries, reflowing the lines a description
// was broken into; types are documented by their description (not "Name: text"); a default
// the description states is not repeated.
func TestDocComments(t *testing.T) {
	schema := `{"type":"object","description":"Names what to create.","properties":{
		"body":{"type":"string","description":"Create\ncomment text for the issue, which the API\nrenders as Markdown.\n\nSupported:\n- bold\n- links\n    code stays"},
		"per_page":{"type":"integer","description":"Results per page (max 100) (default 30).","default":30},
		"count":{"type":"integer","description":"Number of links (1-10)","default":3},
		"mode":{"type":"string","description":"Defaults to fast.","default":"fast"},
		"url":{"type":"string","description":"` + strings.Repeat("x", 120) + ` end","format":"uri"}}}`
	res, _ := generate(t, oneTool(schema))
	src := string(res.Files[0].Data)
	for _, want := range []string{
		"// Names what to create.\ntype TInput struct {",
		"\t// Create comment text for the issue, which the API renders as Markdown.\n\t//\n\t// Supported:\n\t//   - bold\n\t//   - links\n\t//     code stays\n\tBody",
		"\t// Results per page (max 100) (default 30).\n\tPerPage",
		"\t// Number of links (1-10). Default: 3.\n\tCount",
		"\t// Defaults to fast.\n\tMode",
		"\t// " + strings.Repeat("x", 120) + "\n\t// end. Format: uri.\n\tURL",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("the package lacks\n%s", want)
		}
	}
	if strings.Contains(src, "TInput: ") {
		t.Error("a type is documented as Name: text")
	}
	for _, line := range strings.Split(src, "\n") {
		if c := strings.TrimLeft(line, "\t"); strings.HasPrefix(c, "// ") && len(c) > 99 && strings.Contains(c[3:], " ") {
			t.Errorf("a comment line of %d columns that could break: %s", len(c), c)
		}
	}
}

// An optional property that may be null is an mcp.Nullable[T], which tells left out, null and a
// value apart; a property that is only one of optional or nullable keeps its pointer (or its
// nil), and json.RawMessage holds null itself.
func TestNullableFields(t *testing.T) {
	for _, c := range []struct{ schema, field string }{
		{`{"type":["string","null"]}`, "mcp.Nullable[string]"},
		{`{"anyOf":[{"type":"integer"},{"type":"null"}]}`, "mcp.Nullable[int64]"},
		{`{"type":["array","null"],"items":{"type":"string"}}`, "mcp.Nullable[[]string]"},
		{`{"type":["object","null"],"additionalProperties":{"type":"boolean"}}`, "mcp.Nullable[map[string]bool]"},
		{`{"type":["boolean","string","null"]}`, "mcp.Nullable[BooleanOrString]"},
		{`{"anyOf":[{"$ref":"#"},{"type":"null"}]}`, "mcp.Nullable[*TInput]"}, // the struct itself: by pointer
		{`{"type":"string"}`, "*string"},
		{`{"type":"null"}`, "json.RawMessage"},
		{`{"type":["null","object"]}`, "json.RawMessage"},
	} {
		res, types := generate(t, oneTool(`{"type":"object","properties":{"x":`+c.schema+`,"r":{"type":["string","null"]}},"required":["r"]}`))
		want := "struct { X " + c.field + " `json:\"x,omitzero\"` R *string `json:\"r\"` }"
		if !strings.Contains(c.field, "Nullable") {
			want = "struct { X " + c.field + " `json:\"x,omitempty\"` R *string `json:\"r\"` }"
		}
		if types["TInput"] != want {
			t.Errorf("%s: TInput is\n%s\nwant\n%s", c.schema, types["TInput"], want)
		}
		if !testing.Short() {
			vetGenerated(t, res)
		}
	}
}

// Array items (and map values) that may be null are *T, a nil one written as null; those of a
// type with a nil of its own (slices, maps, interfaces) are T, nil for null.
func TestNullableElements(t *testing.T) {
	const defs = `"$defs":{"User":{"type":"object","properties":{"login":{"type":"string"}},"required":["login"]},
		"MaybeUser":{"type":["object","null"],"properties":{"id":{"type":"integer"}},"required":["id"]},
		"OldUser":{"type":"object","nullable":true,"properties":{"name":{"type":"string"}},"required":["name"]}}`
	cases := []struct{ schema, field string }{
		{`{"type":"array","items":{"type":["string","null"]}}`, "[]*string"},
		{`{"type":"array","items":{"type":"integer","nullable":true}}`, "[]*int64"},
		{`{"type":"array","items":{"type":"string","format":"date-time","nullable":true}}`, "[]*time.Time"},
		{`{"type":"array","items":{"$ref":"#/$defs/MaybeUser"}}`, "[]*MaybeUser"},
		{`{"type":"array","items":{"$ref":"#/$defs/OldUser"}}`, "[]*OldUser"},
		{`{"type":"array","items":{"$ref":"#/$defs/User","nullable":true}}`, "[]*User"},
		{`{"type":"array","items":{"anyOf":[{"$ref":"#/$defs/User"},{"type":"null"}]}}`, "[]*User"},
		{`{"type":"array","items":{"type":["string","integer","null"]}}`, "[]*StringOrInteger"},
		{`{"type":"array","items":{"type":"array","items":{"type":["number","null"]}}}`, "[][]*float64"},
		{`{"type":"array","items":{"type":["array","null"],"items":{"type":"string"}}}`, "[][]string"},
		{`{"type":"object","additionalProperties":{"type":["integer","null"]}}`, "map[string]*int64"},
		{`{"type":"object","properties":{"total":{"type":"integer"}},"additionalProperties":{"type":"string","nullable":true}}`, "TInputX11"},
	}
	var props, required, want []string
	for i, c := range cases {
		key := fmt.Sprintf("x%d", i)
		props = append(props, strconv.Quote(key)+":"+c.schema)
		required = append(required, strconv.Quote(key))
		want = append(want, fmt.Sprintf("X%d %s `json:\"%s\"`", i, c.field, key))
	}
	res, types := generate(t, oneTool(`{"type":"object","properties":{`+strings.Join(props, ",")+`},"required":[`+strings.Join(required, ",")+`],`+defs+`}`))
	if len(res.Fallbacks) > 0 {
		t.Errorf("fallbacks %q", res.Fallbacks)
	}
	if got, want := types["TInput"], "struct { "+strings.Join(want, " ")+" }"; got != want {
		t.Errorf("TInput is\n%s\nwant\n%s", got, want)
	}
	if got := untagged(types["TInputX11"]); got != "struct { Total *int64 AdditionalProperties map[string]*string }" {
		t.Errorf("TInputX11 is %s", got)
	}
	if !testing.Short() {
		vetGenerated(t, res)
	}
}
