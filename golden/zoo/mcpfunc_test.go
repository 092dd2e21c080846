package zoo

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/aymanbagabas/go-udiff"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/mcpfunc"
	"github.com/mcpgen/mcpgen/runtime/mcptest"
)

// mcpfunc.AddTool, the quick path to a tool, against the generated code of the same functions:
// its schemas, derived at run time from the Go types, and its validation, a JSON Schema
// validator's with encoding/json's decoding.

// funcZoo is the zoo's echo tools registered with mcpfunc.AddTool instead of RegisterMCP.
var funcZoo = sync.OnceValue(func() *mcp.Server {
	s := mcp.NewServer(mcp.Implementation{Name: "funczoo", Version: "0"}, nil)
	mcpfunc.AddTool(s, mcp.Tool{Name: "echo_strings"}, EchoStrings)
	mcpfunc.AddTool(s, mcp.Tool{Name: "echo_bools"}, EchoBools)
	mcpfunc.AddTool(s, mcp.Tool{Name: "echo_signed_ints"}, EchoSignedInts)
	mcpfunc.AddTool(s, mcp.Tool{Name: "echo_unsigned_ints"}, EchoUnsignedInts)
	mcpfunc.AddTool(s, mcp.Tool{Name: "echo_floats"}, EchoFloats)
	mcpfunc.AddTool(s, mcp.Tool{Name: "echo_int_rules"}, EchoIntRules)
	mcpfunc.AddTool(s, mcp.Tool{Name: "echo_bytes"}, EchoBytes)
	mcpfunc.AddTool(s, mcp.Tool{Name: "echo_slices"}, EchoSlices)
	mcpfunc.AddTool(s, mcp.Tool{Name: "echo_arrays"}, EchoArrays)
	mcpfunc.AddTool(s, mcp.Tool{Name: "echo_string_maps"}, EchoStringMaps)
	mcpfunc.AddTool(s, mcp.Tool{Name: "echo_int_maps"}, EchoIntMaps)
	mcpfunc.AddTool(s, mcp.Tool{Name: "echo_anything"}, EchoAnything)
	mcpfunc.AddTool(s, mcp.Tool{Name: "echo_pointers"}, EchoPointers)
	mcpfunc.AddTool(s, mcp.Tool{Name: "echo_nullables"}, EchoNullables)
	mcpfunc.AddTool(s, mcp.Tool{Name: "echo_nested"}, EchoNested)
	mcpfunc.AddTool(s, mcp.Tool{Name: "echo_embedded"}, EchoEmbedded)
	mcpfunc.AddTool(s, mcp.Tool{Name: "echo_conflicts"}, EchoConflicts)
	mcpfunc.AddTool(s, mcp.Tool{Name: "echo_unexported"}, EchoUnexported)
	mcpfunc.AddTool(s, mcp.Tool{Name: "echo_json_tags"}, EchoJSONTags)
	mcpfunc.AddTool(s, mcp.Tool{Name: "echo_schema_hidden"}, EchoSchemaHidden)
	mcpfunc.AddTool(s, mcp.Tool{Name: "echo_tree"}, EchoTree)
	mcpfunc.AddTool(s, mcp.Tool{Name: "echo_formula"}, EchoFormula)
	mcpfunc.AddTool(s, mcp.Tool{Name: "echo_generics"}, EchoGenerics)
	mcpfunc.AddTool(s, mcp.Tool{Name: "echo_aliases"}, EchoAliases)
	mcpfunc.AddTool(s, mcp.Tool{Name: "echo_times"}, EchoTimes)
	mcpfunc.AddTool(s, mcp.Tool{Name: "echo_durations"}, EchoDurations)
	mcpfunc.AddTool(s, mcp.Tool{Name: "echo_text_types"}, EchoTextTypes)
	mcpfunc.AddTool(s, mcp.Tool{Name: "echo_custom_json"}, EchoCustomJSON)
	mcpfunc.AddTool(s, mcp.Tool{Name: "echo_raw"}, EchoRaw)
	mcpfunc.AddTool(s, mcp.Tool{Name: "echo_numbers"}, EchoNumbers)
	mcpfunc.AddTool(s, mcp.Tool{Name: "echo_string_option"}, EchoStringOption)
	mcpfunc.AddTool(s, mcp.Tool{Name: "echo_omit_zero"}, EchoOmitZero)
	mcpfunc.AddTool(s, mcp.Tool{Name: "echo_enums"}, EchoEnums)
	mcpfunc.AddTool(s, mcp.Tool{Name: "echo_defaults"}, EchoDefaults)
	mcpfunc.AddTool(s, mcp.Tool{Name: "echo_annotations"}, EchoAnnotations)
	mcpfunc.AddTool(s, mcp.Tool{Name: "echo_deep_nesting"}, EchoDeepNesting)
	mcpfunc.AddTool(s, mcp.Tool{Name: "echo_empty"}, EchoEmpty)
	mcpfunc.AddTool(s, mcp.Tool{Name: "echo_escapes"}, EchoEscapes)
	mcpfunc.AddTool(s, mcp.Tool{Name: "echo_required"}, EchoRequired)
	mcpfunc.AddTool(s, mcp.Tool{Name: "echo_extremes"}, EchoExtremes)
	mcpfunc.AddTool(s, mcp.Tool{Name: "echo_big"}, EchoBig)
	mcpfunc.AddTool(s, mcp.Tool{Name: "echo_mirrored"}, EchoMirrored)
	return s
})

func funcZooTools(t testing.TB) map[string]mcptest.Tool {
	tools := map[string]mcptest.Tool{}
	for _, tool := range mcptest.Connect(t, funcZoo()).ListTools() {
		tools[tool.Name] = tool
	}
	return tools
}

// withoutDescriptions is a schema with no descriptions: a running program has no doc
// comments to take them from.
func withoutDescriptions(s any) any {
	switch v := s.(type) {
	case []any:
		for i, x := range v {
			v[i] = withoutDescriptions(x)
		}
	case map[string]any:
		delete(v, "description")
		for k, x := range v {
			if k == "properties" || k == "$defs" {
				for name, p := range x.(map[string]any) {
					x.(map[string]any)[name] = withoutDescriptions(p)
				}
				continue
			}
			v[k] = withoutDescriptions(x)
		}
	}
	return s
}

// schemaToCompare is a schema expanded, without descriptions, and its descriptions by
// where they are.
func schemaToCompare(t *testing.T, schema json.RawMessage, root string) (string, map[string]string) {
	var v any
	if err := json.Unmarshal(schema, &v); err != nil {
		t.Fatal(err)
	}
	v = expand(v, root)
	found := map[string]string{}
	descriptions(v, "", found)
	b, _ := json.MarshalIndent(canonical(withoutDescriptions(v)), "", "  ")
	return string(b), found
}

func descriptions(s any, at string, found map[string]string) {
	switch v := s.(type) {
	case []any:
		for i, x := range v {
			descriptions(x, fmt.Sprintf("%s/%d", at, i), found)
		}
	case map[string]any:
		for k, x := range v {
			if d, ok := x.(string); ok && k == "description" {
				found[at] = d
				continue
			}
			descriptions(x, at+"/"+k, found)
		}
	}
}

// mcpfuncGaps are the intended differences of generated code (oracle_test.go) that
// mcpfunc cannot follow, by the cases that show them: what a running program cannot know
// (a type's constants, a schema declared in a comment), and what encoding/json, which
// decodes mcpfunc's arguments, does otherwise (a duration is an integer).
var mcpfuncGaps = map[string]string{
	"echo_times":       "const-enums",
	"echo_enums":       "const-enums",
	"echo_big":         "const-enums",
	"echo_durations":   "durations",
	"echo_custom_json": "custom-json",
}

// mcpfunc's input schema of each zoo type is the generated one, but for descriptions from
// doc comments (a running program has none; those of tags are there) and the gaps, which do
// differ.
func TestQuickPathSchemasAgree(t *testing.T) {
	generated, derived := zooTools(t), funcZooTools(t)
	for _, c := range cases {
		root := reflect.TypeOf(c.value).Name()
		ours, ourDocs := schemaToCompare(t, generated[c.tool].InputSchema, root)
		theirs, theirDocs := schemaToCompare(t, derived[c.tool].InputSchema, root)
		// The descriptions of tags are the generated ones.
		for at, d := range theirDocs {
			if ourDocs[at] != d {
				t.Errorf("%s: at %s mcpfunc's description is %q, the generated one %q", c.tool, at, d, ourDocs[at])
			}
		}
		gap, isGap := mcpfuncGaps[c.tool]
		switch {
		case isGap && ours == theirs:
			t.Errorf("%s: the schemas agree: %s is no gap of mcpfunc's any more", c.tool, gap)
		case !isGap && ours != theirs:
			t.Errorf("%s:\n%s", c.tool, udiff.Unified("generated", "mcpfunc", ours, theirs))
		}
	}
}

// mcpfunc accepts and refuses the zoo's documents as generated code does, but in the gaps'
// cases: its JSON Schema validator does what the schema says, and encoding/json, which
// then decodes, refuses what generated code refuses beyond it (the intended differences
// from validators: 64-bit limits, base64, key and quoted ranges, text types). Its results
// are the generated ones, but for nil collections and what encoding/json decodes otherwise.
func TestQuickPathValidates(t *testing.T) {
	docs := 0
	for _, c := range cases {
		_, isGap := mcpfuncGaps[c.tool]
		agree := func(doc string, want bool, what string) {
			docs++
			accepted, text := funcCall(t, c.tool, doc)
			if accepted != want && !isGap {
				t.Errorf("%s %s (%s): mcpfunc accepted=%v\n%s", c.tool, doc, what, accepted, text)
			}
		}
		for _, doc := range c.good {
			agree(doc, true, "good")
			if _, ok := mcpfuncGaps[c.tool]; ok || cmp.Or(c.jsonDiffers[doc], c.jsonDiffers["*"]) != "" {
				continue
			}
			_, generated, _ := call(t, c.tool, doc)
			_, derived := funcCallStructured(t, c.tool, doc)
			if normalize(decodeAs(t, c.value, generated)) != normalize(decodeAs(t, c.value, derived)) {
				t.Errorf("%s %s: mcpfunc's result %s, generated %s", c.tool, doc, derived, generated)
			}
		}
		for _, doc := range c.bad {
			agree(doc, false, "bad")
		}
		for doc, diff := range c.differ {
			agree(doc, false, "intended difference "+diff)
		}
	}
	t.Logf("%d documents", docs)
}

// wordingDiffers are the refused documents whose problems the quick path words otherwise
// than generated code, and why.
var wordingDiffers = map[string]string{
	`echo_int_maps {"byId":{"x":"a"}}`:              "the schema does not say a key's bits",
	`echo_int_maps {"byId":{},"small":{"-1":true}}`: "the schema does not say a key's bits",
	`echo_int_maps {"byId":{"1.5":"a"}}`:            "the schema does not say a key's bits",
	`echo_conflicts {"Name":"a"}`:                   "the schemas list the properties in another order",
	`echo_conflicts {"Y":"a"}`:                      "the schemas list the properties in another order",
	`echo_json_tags {"renamed_field":"a","Untagged":"b","-":"c","Invalid":"d","Omitted":"x"}`: "the schemas list the properties in another order",
	`echo_json_tags {"renamed_field":"a","Untagged":"b","-":"c","a'b":"d"}`:                   "the schemas list the properties in another order",
	`echo_text_types {"fg":"red"}`: "the quick path decodes only what its validator took, so UnmarshalText says nothing",
}

// The quick path words a mistake as generated code does: every refused document of the
// cases gets the same error text from both (issue 36, item 7: "missing property 'b'" and
// "value must be one of 'upper', 'lower'" against "/name: missing required property" and
// "/style: must be one of ..."), but for wordingDiffers.
func TestQuickPathWordsProblemsAsGenerated(t *testing.T) {
	same := 0
	for _, c := range cases {
		if _, gap := mcpfuncGaps[c.tool]; gap {
			continue
		}
		for _, doc := range c.bad {
			_, quick := funcCall(t, c.tool, doc)
			_, _, generated := call(t, c.tool, doc)
			why, differs := wordingDiffers[c.tool+" "+doc]
			switch {
			case quick == generated && differs:
				t.Errorf("%s %s: the same words, though listed as differing (%s)", c.tool, doc, why)
			case quick != generated && !differs:
				t.Errorf("%s %s:\n  generated: %q\n  mcpfunc:   %q", c.tool, doc, generated, quick)
			case !differs:
				same++
			}
		}
	}
	if same < 100 {
		t.Errorf("only %d refused documents compared", same)
	}
}

func decodeAs(t *testing.T, like any, structured json.RawMessage) any {
	v := reflect.New(reflect.TypeOf(like))
	if err := json.Unmarshal(structured, v.Interface()); err != nil {
		t.Fatalf("%s: %v", structured, err)
	}
	return v.Elem().Interface()
}

func funcCall(t *testing.T, tool, args string) (bool, string) {
	t.Helper()
	res := funcResult(t, tool, args)
	return !res.IsError, res.Content[0].Text
}

func funcCallStructured(t *testing.T, tool, args string) (bool, json.RawMessage) {
	t.Helper()
	res := funcResult(t, tool, args)
	return !res.IsError, res.StructuredContent
}

func funcResult(t *testing.T, tool, args string) (res struct {
	Content           []struct{ Text string }
	StructuredContent json.RawMessage
	IsError           bool
}) {
	t.Helper()
	raw, err := funcZoo().CallTool(context.Background(), tool, []byte(args))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &res); err != nil || len(res.Content) == 0 {
		t.Fatalf("%s %s: %v\n%s", tool, args, err, raw)
	}
	return res
}

// BenchmarkQuickPath compares a call of generated code with the same call through mcpfunc.AddTool.
func BenchmarkQuickPath(b *testing.B) {
	for _, tool := range []struct{ name, args string }{
		{"echo_strings", `{"plain":"x","short":"héllo","code":"ABC-12","email":"a@b.c","color":"red","greeting":"hey"}`},
		{"echo_big", caseOf("echo_big").good[1]},
	} {
		for _, impl := range []struct {
			name string
			srv  func() *mcp.Server
		}{{"generated", zoo}, {"mcpfunc", funcZoo}} {
			b.Run(tool.name+"/"+impl.name, func(b *testing.B) {
				srv, args := impl.srv(), []byte(tool.args)
				b.ReportAllocs()
				for b.Loop() {
					if _, err := srv.CallTool(context.Background(), tool.name, args); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func caseOf(tool string) zooCase {
	for _, c := range cases {
		if c.tool == tool {
			return c
		}
	}
	panic("no case " + tool)
}
