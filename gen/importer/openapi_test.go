package importer

import (
	"strings"
	"testing"
)

// The shapes of schemas derived from OpenAPI documents, each as the Go type it makes; the
// golden case golden/import/openapi has them in tools, with payloads that round-trip.

// allOf of objects is one struct: properties and required properties of all, a property given
// twice narrowed to what both allow, and json.RawMessage (saying why) only for what does not
// merge.
func TestAllOf(t *testing.T) {
	const defs = `"$defs":{
		"Pet":{"type":"object","description":"A pet.","properties":{"name":{"type":"string","description":"Its name."},"kind":{"type":"string"},"tag":{"type":"string"}},"required":["name","kind"]},
		"Dog":{"description":"A dog.","allOf":[{"$ref":"#/$defs/Pet"},{"type":"object","properties":{"kind":{"const":"dog"},"bark":{"type":"boolean"}},"required":["bark"]}]},
		"Loop":{"allOf":[{"$ref":"#/$defs/Loop"},{"properties":{"a":{"type":"string"}}}]}}`
	for _, c := range []struct {
		name, schema string
		decl         string // the type of property x (TInputX unless it has a name of its own), fields without tags
		fallback     string // what a fallback says, "" for none
	}{
		{"inheritance", `{"$ref":"#/$defs/Dog"}`, "Dog struct { Name string Tag *string Bark bool }", ""},
		{"properties beside", `{"allOf":[{"$ref":"#/$defs/Pet"}],"properties":{"age":{"type":"integer"}},"required":["age"]}`,
			"TInputX struct { Age int64 Name string Kind string Tag *string }", ""},
		{"required added", `{"allOf":[{"$ref":"#/$defs/Pet"},{"required":["tag"]}]}`, "TInputX struct { Name string Kind string Tag string }", ""},
		{"one $ref keeps its name", `{"allOf":[{"$ref":"#/$defs/Pet"},{"description":"The pet to add."}]}`, "Pet struct { Name string Kind string Tag *string }", ""},
		{"additionalProperties false beside", `{"allOf":[{"$ref":"#/$defs/Pet"}],"additionalProperties":false}`, "Pet struct { Name string Kind string Tag *string }", ""},
		{"nested objects merge", `{"allOf":[{"properties":{"a":{"type":"object","properties":{"p":{"type":"string"}}}}},{"properties":{"a":{"type":"object","properties":{"q":{"type":"integer"}},"required":["q"]}}}]}`,
			"TInputXA struct { P *string Q int64 }", ""},
		{"scalars narrow", `{"allOf":[{"type":"string"},{"type":"string","format":"date-time"},{"maxLength":40}]}`, "", ""},
		{"arrays narrow their items", `{"allOf":[{"type":"array","items":{"type":"string"}},{"type":"array","items":{"enum":["a","b"]},"maxItems":2}]}`, "TInputXItem string", ""},
		{"conflict", `{"allOf":[{"properties":{"a":{"type":"string"},"b":{"type":"integer"}}},{"properties":{"a":{"type":"integer"}}}]}`,
			"TInputX struct { A json.RawMessage B *int64 }", "/properties/x/properties/a: allOf of schemas that do not agree: string and integer"},
		{"object and string", `{"allOf":[{"$ref":"#/$defs/Pet"},{"type":"string"}]}`, "", "/properties/x: allOf of an object and a string"},
		{"a union within", `{"allOf":[{"$ref":"#/$defs/Pet"},{"oneOf":[{"required":["tag"]},{"type":"object","properties":{"b":{"type":"string"}}}]}]}`, "", "allOf with a branch that is a oneOf or anyOf"},
		{"a cycle", `{"$ref":"#/$defs/Loop"}`, "", "an allOf that contains itself"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, types := generate(t, oneTool(`{"type":"object","properties":{"x":`+c.schema+`},"required":["x"],`+defs+`}`))
			fbs := strings.Join(res.Fallbacks, "\n")
			if c.fallback == "" && fbs != "" || !strings.Contains(fbs, c.fallback) {
				t.Errorf("fallbacks %q, want %q", res.Fallbacks, c.fallback)
			}
			if c.decl == "" {
				return
			}
			name, want, _ := strings.Cut(c.decl, " ")
			if got := untagged(types[name]); got != want {
				t.Errorf("%s is %s, want %s (TInput: %s)", name, got, want, types["TInput"])
			}
		})
	}

	// Descriptions: the schema's own, else its first branch's; each property's.
	res, _ := generate(t, oneTool(`{"type":"object","properties":{"x":{"$ref":"#/$defs/Dog"},"y":{"allOf":[{"$ref":"#/$defs/Pet"},{"required":["tag"]}]}},`+defs+`}`))
	src := string(res.Files[0].Data)
	for _, want := range []string{"// A dog.\n//\n// Its \"kind\" is \"dog\", always: the encoder writes it.\ntype Dog struct", "\t// Its name.\n\tName string", "// A pet.\ntype TInputY struct"} {
		if !strings.Contains(src, want) {
			t.Errorf("the package lacks %q", want)
		}
	}
	// A scalar allOf is the narrowest branch's type.
	if _, types := generate(t, oneTool(`{"type":"object","properties":{"x":{"allOf":[{"type":"string"},{"type":"string","format":"date-time"}]}},"required":["x"]}`)); types["TInput"] != "struct { X time.Time `json:\"x\"` }" {
		t.Errorf("TInput is %s", types["TInput"])
	}
}

// untagged is a struct's declaration without its fields' tags.
func untagged(decl string) string {
	for {
		i := strings.Index(decl, " `")
		if i < 0 {
			return decl
		}
		j := strings.Index(decl[i+2:], "`")
		decl = decl[:i] + decl[i+2+j+1:]
	}
}

// OpenAPI 3.0's "nullable": true is a union with null, on a type, an enum, a $ref or an allOf
// of one (OpenAPI's nullable reference).
func TestNullableKeyword(t *testing.T) {
	schema := `{"type":"object","required":["a","b","c","d"],"properties":{
		"a":{"type":"string","nullable":true},
		"b":{"type":"string","enum":["x","y"],"nullable":true},
		"c":{"allOf":[{"$ref":"#/$defs/User"}],"nullable":true},
		"d":{"$ref":"#/$defs/User","nullable":true},
		"e":{"type":"integer","nullable":true},
		"f":{"nullable":true}},
		"$defs":{"User":{"type":"object","properties":{"login":{"type":"string"}},"required":["login"]}}}`
	res, types := generate(t, oneTool(schema))
	want := "struct { A *string B *TInputB C *User D *User E mcp.Nullable[int64] F json.RawMessage }"
	if got := untagged(types["TInput"]); got != want {
		t.Errorf("TInput is\n%s\nwant\n%s", got, want)
	}
	if len(res.Fallbacks) != 1 || !strings.Contains(res.Fallbacks[0], "/properties/f: no type") {
		t.Errorf("fallbacks %q, want f's", res.Fallbacks)
	}
}

// A discriminator's property chooses the branch: by its mapping (a $ref, or a schema's name,
// even when the $refs were moved from #/components/schemas to #/$defs), by a branch's const,
// or by the name of a branch's $ref; a branch of one value has it written for the caller.
func TestDiscriminator(t *testing.T) {
	const defs = `"$defs":{
		"Base":{"type":"object","properties":{"petType":{"type":"string"},"name":{"type":"string"}},"required":["petType","name"]},
		"Cat":{"allOf":[{"$ref":"#/$defs/Base"},{"properties":{"indoor":{"type":"boolean"}}}]},
		"Dog":{"allOf":[{"$ref":"#/$defs/Base"},{"properties":{"bark":{"type":"boolean"}}}]},
		"Lizard":{"allOf":[{"$ref":"#/$defs/Base"},{"properties":{"scales":{"type":"integer"}}}]}}`
	for _, c := range []struct{ name, disc, want string }{
		{"mapping", `{"propertyName":"petType","mapping":{"cat":"#/components/schemas/Cat","dog":"#/$defs/Dog","lizard":"Lizard","gecko":"Lizard"}}`, `"cat": Cat; "dog": Dog; "gecko", "lizard": Lizard`},
		{"implicit", `{"propertyName":"petType"}`, `"Cat": Cat; "Dog": Dog; "Lizard": Lizard`},
		{"partial mapping", `{"propertyName":"petType","mapping":{"dog":"Dog"}}`, `"Cat": Cat; "dog": Dog; "Lizard": Lizard`},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, types := generate(t, oneTool(`{"type":"object","required":["pet"],"properties":{"pet":{"oneOf":[{"$ref":"#/$defs/Cat"},{"$ref":"#/$defs/Dog"},{"$ref":"#/$defs/Lizard"}],"discriminator":`+c.disc+`}},`+defs+`}`))
			if len(res.Fallbacks) > 0 {
				t.Errorf("fallbacks: %q", res.Fallbacks)
			}
			src := string(res.Files[0].Data)
			i := strings.Index(src, "func decodeTInputPet(")
			if i < 0 {
				t.Fatalf("no union: TInput is %s", types["TInput"])
			}
			var got []string
			for _, line := range strings.Split(src[i:], "\n") {
				if v, ok := strings.CutPrefix(strings.TrimSpace(line), "case "); ok {
					got = append(got, strings.TrimSuffix(v, ":"))
				} else if b, ok := strings.CutPrefix(strings.TrimSpace(line), "var v "); ok {
					got[len(got)-1] += ": " + b
				} else if strings.HasPrefix(line, "}") {
					break
				}
			}
			if strings.Join(got, "; ") != c.want {
				t.Errorf("decoded by %s, want %s", strings.Join(got, "; "), c.want)
			}
			// Branches of one value write it; the one of two keeps a field for it.
			if c.name == "mapping" {
				if untagged(types["Cat"]) != "struct { Name string Indoor *bool }" || untagged(types["Lizard"]) != "struct { PetType string Name string Scales *int64 }" {
					t.Errorf("Cat is %s, Lizard %s", types["Cat"], types["Lizard"])
				}
				if !strings.Contains(src, "e.Key(\"petType\")\n\te.String(\"cat\")") {
					t.Error("Cat's encoder does not write its petType")
				}
			}
		})
	}
	// Values two branches share, or branches the discriminator cannot name, leave the union to
	// the other ways of telling objects apart.
	for _, disc := range []string{`{"propertyName":"petType","mapping":{"a":"Cat","b":"Cat"}}`, `{"propertyName":"petType","mapping":{"a":"Cat"}}`} {
		res, _ := generate(t, oneTool(`{"type":"object","properties":{"pet":{"oneOf":[{"$ref":"#/$defs/Cat"},{"type":"object","properties":{"petType":{"type":"string"}},"required":["petType"]}],"discriminator":`+disc+`}},`+defs+`}`))
		if len(res.Fallbacks) != 1 || !strings.Contains(res.Fallbacks[0], "objects that neither") {
			t.Errorf("%s: fallbacks %q", disc, res.Fallbacks)
		}
	}
}

// additionalProperties of a schema beside properties: the members besides the properties, in
// a map beside the fields, read and written in order; a map key that is a property is an
// error, not a member written twice.
func TestAdditionalPropertiesBesideProperties(t *testing.T) {
	res, types := generate(t, oneTool(`{"type":"object","properties":{"total":{"type":"integer"},"additionalProperties":{"type":"string"}},
		"additionalProperties":{"type":"object","properties":{"count":{"type":"integer"}},"required":["count"]}}`))
	if len(res.Fallbacks) > 0 {
		t.Errorf("fallbacks: %q", res.Fallbacks)
	}
	want := "struct { Total *int64 `json:\"total,omitempty\"` AdditionalProperties *string `json:\"additionalProperties,omitempty\"` AdditionalProperties2 map[string]TInputValue `json:\"-\"` }"
	if types["TInput"] != want || untagged(types["TInputValue"]) != "struct { Count int64 }" {
		t.Errorf("TInput is\n%s\nwant\n%s\n(TInputValue %s)", types["TInput"], want, types["TInputValue"])
	}
	if !testing.Short() {
		vetGenerated(t, res)
	}
}

// readOnly and writeOnly properties are optional whatever required says: callers do not send
// the one, and servers do not return the other, in one Go type for both.
func TestReadOnlyWriteOnly(t *testing.T) {
	res, types := generate(t, oneTool(`{"type":"object","required":["id","name","password"],"properties":{
		"id":{"type":"integer","readOnly":true},"name":{"type":"string"},"password":{"type":"string","writeOnly":true}}}`))
	if got := untagged(types["TInput"]); got != "struct { ID *int64 Name string Password *string }" {
		t.Errorf("TInput is %s", got)
	}
	src := string(res.Files[0].Data)
	for _, want := range []string{"// Read-only: the server sets it; arguments leave it out.\n\tID", "// Write-only: the server never returns it.\n\tPassword"} {
		if !strings.Contains(src, want) {
			t.Errorf("the package lacks %q", want)
		}
	}
}

// Properties beside oneOf or anyOf (shared fields, and variants) are in every branch that may
// be an object: each branch's struct has them and its own, and the union tells the branches
// apart as any other (required properties every branch has tell none apart).
func TestPropertiesBesideUnion(t *testing.T) {
	const defs = `"$defs":{"Card":{"type":"object","properties":{"type":{"const":"card"},"number":{"type":"string"}},"required":["type","number"]},
		"Bank":{"type":"object","properties":{"type":{"type":"string","enum":["bank"]},"iban":{"type":"string"}},"required":["type","iban"]}}`
	for _, c := range []struct {
		name, schema string
		decls        []string // declarations, fields without tags
	}{
		{"tagged", `{"type":"object","properties":{"id":{"type":"string"},"kind":{"type":"string"}},"required":["id","kind"],
			"oneOf":[{"properties":{"kind":{"const":"a"},"n":{"type":"integer"}},"required":["n"]},{"properties":{"kind":{"const":"b"},"s":{"type":"string"}}}]}`,
			[]string{"TInputX interface { isTInputX() }", "TInputXA struct { ID string N int64 }", "TInputXB struct { ID string S *string }"}},
		{"required properties", `{"type":"object","properties":{"id":{"type":"string"},"created":{"type":"integer"}},"required":["id"],
			"anyOf":[{"type":"object","properties":{"card":{"type":"string"}},"required":["card"]},{"type":"object","properties":{"iban":{"type":"string"}},"required":["iban"]}]}`,
			[]string{"TInputX interface { isTInputX() }", "TInputXCard struct { ID string Created *int64 Card string }", "TInputXIban struct { ID string Created *int64 Iban string }"}},
		{"discriminator, an enum narrowed", `{"title":"Method","type":"object","properties":{"id":{"type":"string"},"type":{"type":"string","enum":["card","bank"]}},"required":["id","type"],
			"oneOf":[{"$ref":"#/$defs/Card"},{"$ref":"#/$defs/Bank"}],"discriminator":{"propertyName":"type"}}`,
			[]string{"Method interface { isMethod() }", "MethodCard struct { ID string Number string }", "MethodBank struct { ID string Iban string }"}},
		{"constraints and a branch", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},
			"oneOf":[{"required":["a"]},{"properties":{"c":{"type":"boolean"}},"required":["c"]}]}`,
			[]string{"TInputX interface { isTInputX() }", "TInputXA struct { A string B *string }", "TInputXC struct { A *string B *string C bool }"}},
		{"a string or the object", `{"properties":{"id":{"type":"string"}},"required":["id"],"anyOf":[{"type":"string"},{"properties":{"n":{"type":"integer"}}}]}`,
			[]string{"TInputX struct { String *string Object *TInputXObject }", "TInputXObject struct { ID string N *int64 }"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, types := generate(t, oneTool(`{"type":"object","properties":{"x":`+c.schema+`},"required":["x"],`+defs+`}`))
			if len(res.Fallbacks) > 0 {
				t.Errorf("fallbacks %q", res.Fallbacks)
			}
			for _, d := range c.decls {
				name, want, _ := strings.Cut(d, " ")
				if got := strings.ReplaceAll(untagged(types[name]), "\n", ""); got != want {
					t.Errorf("%s is %s, want %s (TInput %s)", name, got, want, types["TInput"])
				}
			}
			if !testing.Short() {
				vetGenerated(t, res)
			}
		})
	}
}

// Items beside oneOf or anyOf are the items of every branch that is an array (or only
// constrains): a nullable array, a string or an array of them, arrays the branches constrain
// differently. Arrays of different items are a slice of what their items make together.
func TestItemsBesideUnion(t *testing.T) {
	const defs = `"$defs":{"Tag":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]},
		"Cat":{"type":"object","properties":{"meow":{"type":"string"}},"required":["meow"]}}`
	for _, c := range []struct {
		name, schema string
		decls        []string // declarations, fields without tags
	}{
		{"nullable array", `{"items":{"$ref":"#/$defs/Tag"},"anyOf":[{"type":"array"},{"type":"null"}]}`, []string{"TInput struct { X []Tag }"}},
		{"nullable array of constraints", `{"type":["array","null"],"items":{"$ref":"#/$defs/Tag"},"oneOf":[{"minItems":1},{"type":"null"}]}`, []string{"TInput struct { X []Tag }"}},
		{"optional nullable array", `{"type":"array","items":{"type":"string"},"anyOf":[{"minItems":1,"uniqueItems":true},{"type":"null"}],"nullable":true}`,
			[]string{"TInput struct { X mcp.Nullable[[]string] Y *int64 }"}},
		{"a string or an array", `{"items":{"type":"string","format":"email"},"anyOf":[{"type":"string"},{"type":"array","minItems":1}]}`,
			[]string{"TInput struct { X TInputX }", "TInputX struct { String *string Array []string }"}},
		{"arrays constrained differently", `{"type":"array","items":{"type":"object","properties":{"a":{"type":"string"}}},"oneOf":[{"maxItems":1},{"type":"array","minItems":3}]}`,
			[]string{"TInput struct { X []TInputXItem }", "TInputXItem struct { A *string }"}},
		{"items narrowed by the branches", `{"type":"array","items":{"type":"string"},"oneOf":[{"items":{"enum":["a","b"]}},{"items":{"enum":["c","d"]}}]}`,
			[]string{"TInput struct { X []TInputXItem }", "TInputXItem string"}},
		{"arrays of objects told apart", `{"oneOf":[{"type":"array","items":{"$ref":"#/$defs/Tag"}},{"type":"array","items":{"$ref":"#/$defs/Cat"}}]}`,
			[]string{"TInput struct { X []TInputXItem }", "TInputXItem interface { isTInputXItem() }"}},
		{"arrays of JSON types", `{"anyOf":[{"type":"array","items":{"type":"integer"}},{"type":"array","items":{"type":"string"}},{"type":"null"}]}`,
			[]string{"TInput struct { X []IntegerOrString }", "IntegerOrString struct { Integer *int64 String *string }"}},
		{"unions of arrays in a union", `{"anyOf":[{"oneOf":[{"type":"array","items":{"type":"integer"}},{"type":"array","items":{"type":"boolean"}}]},{"oneOf":[{"type":"array","items":{"type":"string"}},{"type":"array","items":{"type":"boolean"}}]}]}`,
			[]string{"TInput struct { X []IntegerOrBooleanOrString }"}},
		{"one $ref as two arrays' items", `{"oneOf":[{"type":"array","items":{"$ref":"#/$defs/Tag"},"maxItems":1},{"type":"array","items":{"$ref":"#/$defs/Tag","description":"A tag."}}]}`,
			[]string{"TInput struct { X []Tag }"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			required := `"required":["x"]`
			if strings.HasPrefix(c.name, "optional") {
				required = `"required":[]`
			}
			res, types := generate(t, oneTool(`{"type":"object","properties":{"x":`+c.schema+`,"y":{"type":"integer"}},`+required+`,`+defs+`}`))
			if len(res.Fallbacks) > 0 {
				t.Errorf("fallbacks %q", res.Fallbacks)
			}
			for _, d := range c.decls {
				name, want, _ := strings.Cut(d, " ")
				if name == "TInput" && !strings.Contains(want, " Y ") {
					want = strings.TrimSuffix(want, " }") + " Y *int64 }"
				}
				if got := strings.ReplaceAll(untagged(types[name]), "\n", ""); got != want {
					t.Errorf("%s is %s, want %s", name, got, want)
				}
			}
			if !testing.Short() {
				vetGenerated(t, res)
			}
		})
	}
	// What no Go type holds soundly stays json.RawMessage, saying why: items both a string and
	// an integer, arrays of objects nothing tells apart.
	for _, c := range []struct{ schema, fallback string }{
		{`{"items":{"type":"string"},"anyOf":[{"type":"array","items":{"type":"integer"}},{"type":"null"}]}`, "/properties/x/anyOf/0/items: allOf of schemas that do not agree: string and integer"},
		{`{"oneOf":[{"type":"array","items":{"$ref":"#/$defs/Tag"}},{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}]}`, "/properties/x: arrays of different items"},
	} {
		res, _ := generate(t, oneTool(`{"type":"object","properties":{"x":`+c.schema+`},`+defs+`}`))
		if len(res.Fallbacks) != 1 || !strings.Contains(res.Fallbacks[0], c.fallback) {
			t.Errorf("%s: fallbacks %q, want %q", c.schema, res.Fallbacks, c.fallback)
		}
	}
}
