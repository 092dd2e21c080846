package zoo

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/mcptest"
)

// zooCase is one type of the zoo: its echo tool, a value of the type (for invopop), and
// argument documents mcpgen must accept and reject.
type zooCase struct {
	tool  string
	value any
	good  []string
	bad   []string
	// differ lists documents on which mcpgen and a JSON Schema validator are meant to
	// disagree, each with the intended difference (see differences in oracle_test.go) that
	// explains it. mcpgen rejects them; the validator accepts them.
	differ map[string]string
	// formats asks the validator to assert "format" (date-time), which mcpgen validates for
	// the types that have one.
	formats bool
	// jsonDiffers names the intended difference from encoding/json that makes its decoding
	// of the good documents differ from mcpgen's, by document ("*" for all of them).
	jsonDiffers map[string]string
}

var cases = []zooCase{
	{tool: "echo_strings", value: Strings{}, jsonDiffers: map[string]string{"*": "defaults-applied"},
		good: []string{`{"plain":""}`, `{"plain":"x","short":"héllo","code":"ABC-12","email":"not-an-email","color":"red","greeting":"hey"}`, `{"plain":"日本語","short":"日本"}`},
		bad:  []string{`{}`, `{"plain":1}`, `{"plain":"x","short":"a"}`, `{"plain":"x","short":"toolong"}`, `{"plain":"x","code":"abc-12"}`, `{"plain":"x","color":"pink"}`, `{"plain":"x","extra":1}`, `{"plain":"x","short":null}`}},
	{tool: "echo_bools", value: Bools{}, jsonDiffers: map[string]string{"*": "defaults-applied"},
		good: []string{`{"flag":true}`, `{"flag":false,"on":false,"maybe":true}`},
		bad:  []string{`{"flag":"true"}`, `{"flag":1}`, `{}`, `{"flag":true,"maybe":null}`}},
	{tool: "echo_signed_ints", value: SignedInts{},
		good:        []string{`{"i8":-128}`, `{"i8":127,"i16":-32768,"i32":2147483647,"i64":-9223372036854775808,"i":42,"percent":100}`, `{"i8":1.0}`, `{"i8":1e2}`},
		bad:         []string{`{"i8":128}`, `{"i8":-129}`, `{"i8":1.5}`, `{"i8":0,"i16":32768}`, `{"i8":0,"percent":101}`, `{"i8":0,"percent":-1}`, `{"i8":"1"}`},
		differ:      map[string]string{`{"i8":0,"i64":9223372036854775808}`: "64-bit-limits", `{"i8":0,"i":-1e19}`: "64-bit-limits"},
		jsonDiffers: map[string]string{`{"i8":1.0}`: "integer-forms", `{"i8":1e2}`: "integer-forms"}},
	{tool: "echo_unsigned_ints", value: UnsignedInts{},
		good:   []string{`{"u8":0}`, `{"u8":255,"u16":65535,"u32":4294967295,"u64":18446744073709551615,"u":1,"port":1}`},
		bad:    []string{`{"u8":-1}`, `{"u8":256}`, `{"u8":0,"port":0}`, `{"u8":0,"u64":-1}`, `{"u8":0,"u16":65536}`},
		differ: map[string]string{`{"u8":0,"u64":18446744073709551616}`: "64-bit-limits"}},
	{tool: "echo_floats", value: Floats{},
		good: []string{`{"f32":1.5}`, `{"f32":-3.4e38,"f64":1e308,"ratio":0,"open":9.99,"step":0.75}`, `{"f32":0,"ratio":1,"step":-0.25}`},
		bad:  []string{`{"f32":3.5e38}`, `{"f32":0,"ratio":1.01}`, `{"f32":0,"open":0}`, `{"f32":0,"open":10}`, `{"f32":0,"step":0.3}`, `{"f32":"1"}`}},
	{tool: "echo_int_rules", value: IntRules{},
		good: []string{`{"even":0}`, `{"even":4,"above":3,"below":6,"dozen":120}`, `{"even":-2,"dozen":-24}`},
		bad:  []string{`{"even":3}`, `{"even":0,"above":2}`, `{"even":0,"below":7}`, `{"even":0,"dozen":13}`, `{"even":0,"dozen":132}`, `{"even":1.5}`}},
	{tool: "echo_bytes", value: Bytes{}, // the validator asserts no content: see base64-validated
		good:   []string{`{"data":""}`, `{"data":"aGVsbG8="}`, `{"data":"AA==","blob":"/w=="}`},
		bad:    []string{`{"data":1}`, `{}`},
		differ: map[string]string{`{"data":"not base64!"}`: "base64-validated", `{"data":"aGVsbG8"}`: "base64-validated"}},
	{tool: "echo_slices", value: Slices{},
		good: []string{`{"names":[]}`, `{"names":["a"],"tags":["ab","cd"],"scores":[0,10],"matrix":[[1.5],[]]}`},
		bad:  []string{`{"names":null}`, `{"names":[1]}`, `{"names":[],"tags":[]}`, `{"names":[],"tags":["ab","ab"]}`, `{"names":[],"tags":["a"]}`, `{"names":[],"tags":["ab","cd","ef","gh"]}`, `{"names":[],"scores":[11]}`}},
	{tool: "echo_arrays", value: Arrays{},
		good: []string{`{"point":[1,2],"pair":["a","b"]}`, `{"point":[0,0],"rgb":[1,2,255],"pair":["a",""]}`},
		bad:  []string{`{"point":[1],"pair":["a","b"]}`, `{"point":[1,2,3],"pair":["a","b"]}`, `{"point":[1,2],"rgb":[1,2,256],"pair":["a","b"]}`, `{"point":[1,2],"pair":["a","a"]}`, `{"point":[1,2]}`}},
	{tool: "echo_string_maps", value: StringMaps{},
		good: []string{`{"counts":{}}`, `{"counts":{"a":1},"labels":{"x":"y","z":"w"},"nested":{"k":["v"]}}`},
		bad:  []string{`{"counts":{"a":"1"}}`, `{"counts":{},"labels":{"a":"1","b":"2","c":"3"}}`, `{"counts":[]}`}},
	{tool: "echo_int_maps", value: IntMaps{},
		good:   []string{`{"byId":{}}`, `{"byId":{"1":"a","-5":"b","+7":"c"},"small":{"0":true,"255":false}}`},
		bad:    []string{`{"byId":{"x":"a"}}`, `{"byId":{},"small":{"-1":true}}`, `{"byId":{"1.5":"a"}}`, `{"byId":{"1":2}}`},
		differ: map[string]string{`{"byId":{},"small":{"256":true}}`: "key-ranges"}},
	{tool: "echo_anything", value: Anything{},
		good: []string{`{"value":null}`, `{"value":{"a":[1,true]},"extra":{"x":1},"list":[1,"a",null]}`},
		bad:  []string{`{}`, `{"value":1,"extra":[]}`, `{"value":1,"list":{}}`}},
	{tool: "echo_pointers", value: Pointers{},
		good: []string{`{"text":"a","must":{"name":"m"}}`, `{"must":{"name":"m"},"num":1,"inner":{"name":"i","count":2}}`},
		bad:  []string{`{"text":"a"}`, `{"must":null}`, `{"must":{"name":"m"},"text":null}`, `{"must":{"name":"m"},"inner":{}}`}},
	{tool: "echo_nullables", value: Nullables{},
		good: []string{`{"note":null,"count":null}`, `{"note":"x","count":3}`, `{"count":0}`},
		bad:  []string{`{"note":"x"}`, `{"count":"x"}`, `{"note":1,"count":1}`}},
	{tool: "echo_nested", value: Nested{},
		good: []string{`{"inner":{"name":"a"},"anonymous":{"x":1,"y":2}}`, `{"inner":{"name":"a","count":1},"anonymous":{"x":1,"y":2},"inners":[{"name":"b"}]}`},
		bad:  []string{`{"inner":{"name":"a"},"anonymous":{"x":1}}`, `{"inner":{},"anonymous":{"x":1,"y":2}}`, `{"inner":{"name":"a","extra":1},"anonymous":{"x":1,"y":2}}`}},
	{tool: "echo_embedded", value: Embedded{},
		good: []string{`{"id":"a","title":"t"}`, `{"id":"a","version":2,"author":"me","created":"now","title":"t"}`},
		bad:  []string{`{"title":"t"}`, `{"id":"","title":"t"}`, `{"id":"a","title":"t","Meta":{}}`}},
	{tool: "echo_conflicts", value: Conflicts{},
		good: []string{`{}`, `{"X":"a","only":"b"}`},
		bad:  []string{`{"Name":"a"}`, `{"only":1}`, `{"Y":"a"}`}},
	{tool: "echo_unexported", value: Unexported{},
		good: []string{`{"visible":"v","public":"p"}`},
		bad:  []string{`{"visible":"v"}`, `{"visible":"v","public":"p","secret":"s"}`, `{"visible":"v","public":"p","hidden":{}}`}},
	{tool: "echo_json_tags", value: JSONTags{},
		good: []string{`{"renamed_field":"a","Untagged":"b","-":"c","Invalid":"d"}`, `{"renamed_field":"a","Untagged":"b","-":"c","Invalid":"d","x.y-z":"e"}`},
		bad:  []string{`{"renamed_field":"a","Untagged":"b","-":"c","Invalid":"d","Omitted":"x"}`, `{"Untagged":"b","-":"c","Invalid":"d"}`, `{"renamed_field":"a","Untagged":"b","-":"c","a'b":"d"}`}},
	{tool: "echo_schema_hidden", value: SchemaHidden{}, jsonDiffers: map[string]string{"*": "schema-hidden"},
		good: []string{`{"shown":"s"}`},
		bad:  []string{`{"shown":"s","hidden":"h"}`, `{}`}},
	{tool: "echo_tree", value: Tree{},
		good: []string{`{"label":"root"}`, `{"label":"r","children":[{"label":"a","children":[{"label":"b"}]}]}`},
		bad:  []string{`{"label":"r","children":[{}]}`, `{"label":"r","children":[null]}`, `{"label":"r","children":[{"label":"a","children":[{"label":1}]}]}`}},
	{tool: "echo_formula", value: Formula{},
		good: []string{`{"expr":{"terms":[]}}`, `{"expr":{"terms":[{"value":1,"sub":{"terms":[{"value":2}]}}]}}`},
		bad:  []string{`{"expr":{"terms":[{}]}}`, `{"expr":{"terms":[{"value":1,"sub":{"terms":"x"}}]}}`}},
	{tool: "echo_generics", value: Generics{},
		good: []string{`{"page":{"items":[{"name":"a"}]},"pair":{"key":"k","value":1}}`, `{"page":{"items":[],"next":"2"},"pair":{"key":"","value":-1}}`},
		bad:  []string{`{"page":{"items":[{}]},"pair":{"key":"k","value":1}}`, `{"page":{"items":[]},"pair":{"key":1,"value":1}}`}},
	{tool: "echo_aliases", value: Aliases{},
		good: []string{`{"label":"l","inner":{"name":"n"}}`},
		bad:  []string{`{"label":1,"inner":{"name":"n"}}`, `{"label":"l"}`}},
	{tool: "echo_times", value: Times{}, formats: true,
		good:   []string{`{"at":"2024-01-02T03:04:05Z"}`, `{"at":"2024-01-02T03:04:05.123+02:00","until":"2025-12-31T23:59:59Z","addr":"192.168.0.1","day":6}`, `{"at":"2024-01-02T03:04:05Z","addr":"::1"}`},
		bad:    []string{`{"at":"yesterday"}`, `{"at":"2024-01-02"}`, `{"at":"2024-01-02T03:04:05Z","day":7}`, `{"at":1}`},
		differ: map[string]string{`{"at":"2024-01-02T03:04:05Z","addr":"not an ip"}`: "text-types"}},
	{tool: "echo_durations", value: Durations{}, jsonDiffers: map[string]string{"*": "durations"},
		good: []string{`{"timeout":"1h30m"}`, `{"timeout":"0","retry":"250ms"}`, `{"timeout":"-1.5s"}`},
		bad:  []string{`{"timeout":"1 hour"}`, `{"timeout":90}`, `{"timeout":""}`}},
	{tool: "echo_text_types", value: TextTypes{},
		good:   []string{`{"fg":"#ff0000"}`, `{"fg":"#00ff00","palette":["#000000"]}`},
		bad:    []string{`{"fg":"red"}`, `{"fg":"#FF0000"}`, `{"fg":1}`},
		differ: map[string]string{`{"fg":"#ff0000","palette":["blue"]}`: "text-types"}},
	{tool: "echo_custom_json", value: CustomJSON{},
		good: []string{`{"price":"12.34","token":"abc"}`, `{"price":"-0.50","token":""}`},
		bad:  []string{`{"price":"12.3","token":"a"}`, `{"price":12.34,"token":"a"}`, `{"price":"1.00","token":1}`, `{"price":"1.00"}`}},
	{tool: "echo_raw", value: Raw{},
		good: []string{`{"payload":null}`, `{"payload":{"a":[1]}}`, `{"payload":"x"}`},
		bad:  []string{`{}`, `{"payload":1,"x":2}`}},
	{tool: "echo_numbers", value: Numbers{},
		good: []string{`{"amount":1}`, `{"amount":-1.5e3}`},
		bad:  []string{`{"amount":"1"}`, `{"amount":null}`}},
	{tool: "echo_string_option", value: StringOption{},
		good:   []string{`{"id":"42"}`, `{"id":"-1","ratio":"1.5","on":"true","name":"\"x\"","small":"255"}`},
		bad:    []string{`{"id":42}`, `{"id":"1.5"}`, `{"id":"1","on":"yes"}`, `{"id":"1","name":"x"}`},
		differ: map[string]string{`{"id":"1","small":"256"}`: "quoted-ranges"}},
	{tool: "echo_omit_zero", value: OmitZero{}, formats: true,
		good: []string{`{}`, `{"when":"2024-01-02T03:04:05Z","at":{"X":1,"Y":2},"score":0.5,"list":[]}`},
		bad:  []string{`{"at":{"X":"1","Y":2}}`, `{"score":"x"}`, `{"at":{"X":1}}`}},
	{tool: "echo_enums", value: Enums{},
		good: []string{`{"level":"debug"}`, `{"level":"error","priority":3,"narrow":"info","ratio":0.5,"yes":true}`},
		bad:  []string{`{"level":"warn"}`, `{"level":"info","priority":4}`, `{"level":"info","narrow":"error"}`, `{"level":"info","ratio":0.7}`, `{"level":"info","yes":false}`}},
	{tool: "echo_defaults", value: Defaults{}, jsonDiffers: map[string]string{"*": "defaults-applied"},
		good: []string{`{}`, `{"name":"x","limit":1,"scale":2,"on":false,"tags":[],"ptr":1}`},
		bad:  []string{`{"limit":0}`, `{"tags":"a"}`}},
	{tool: "echo_annotations", value: Annotations{},
		good: []string{`{"id":"x"}`, `{"id":"x","secret":"s","described":"d","extra":"e","count":1}`},
		bad:  []string{`{}`, `{"id":1}`}},
	{tool: "echo_deep_nesting", value: DeepNesting{},
		good: []string{`{"grid":[]}`, `{"grid":[["a"],[]],"groups":{"g":[1,2]},"index":[{"k":{"name":"n"}}]}`},
		bad:  []string{`{"grid":[["a",1]]}`, `{"grid":[],"index":[{"k":null}]}`, `{"grid":[],"groups":{"g":[1.5]}}`}},
	{tool: "echo_empty", value: Empty{},
		good: []string{`{}`},
		bad:  []string{`{"a":1}`}},
	{tool: "echo_escapes", value: Escapes{},
		good: []string{`{"quote":"x"}`, `{"quote":"x","comma":"a,b","名前":"ü"}`},
		bad:  []string{`{"quote":"x","comma":"ab"}`, `{"quote":"x","名前":""}`}},
	{tool: "echo_required", value: Required{},
		good: []string{`{"opt":"","ptr":"p"}`},
		bad:  []string{`{"ptr":"p"}`, `{"opt":"o"}`, `{"opt":"o","ptr":null}`}},
	{tool: "echo_extremes", value: Extremes{},
		good: []string{`{"min":-9223372036854775808,"max":18446744073709551615}`, `{"min":0,"max":0}`},
		bad:  []string{`{"min":0,"max":-1}`, `{"min":"0","max":0}`}},
	{tool: "echo_big", value: Big{}, jsonDiffers: map[string]string{"*": "defaults-applied"},
		good: []string{`{"strings":{"plain":"p"}}`, `{"strings":{"plain":"p"},"slices":{"names":["a"]},"maps":{"counts":{}},"pointers":{"must":{"name":"m"}},"enums":{"level":"info"},"tree":{"label":"t"},"option":{"id":"1"}}`},
		bad:  []string{`{"strings":{}}`, `{"strings":{"plain":"p"},"enums":{"level":"x"}}`}},
	{tool: "echo_mirrored", value: Mirrored{},
		good: []string{`{"region":"r","place":{"city":"c"}}`, `{"region":"r","shard":-3,"dryRun":true,"zone":"z","place":{"city":"c"}}`},
		bad:  []string{`{"region":"r"}`, `{"region":"r","shard":40000,"place":{"city":"c"}}`, `{"region":"r","place":{"city":1}}`}},
}

// zoo is the server of the zoo's tools, built once.
var zoo = sync.OnceValue(func() *mcp.Server {
	srv := mcp.NewServer(mcp.Implementation{Name: "zoo", Version: "0"}, nil)
	RegisterMCP(srv)
	return srv
})

func zooTools(t testing.TB) map[string]mcptest.Tool {
	srv := zoo()
	tools := map[string]mcptest.Tool{}
	for _, tool := range mcptest.Connect(t, srv).ListTools() {
		tools[tool.Name] = tool
	}
	return tools
}

// call runs a tool in process and reports whether it accepted the arguments, with the result.
func call(t testing.TB, tool string, args string) (accepted bool, structured json.RawMessage, text string) {
	t.Helper()
	raw, err := zoo().CallTool(context.Background(), tool, []byte(args))
	if err != nil {
		t.Fatalf("%s %s: %v", tool, args, err)
	}
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		IsError           bool            `json:"isError"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("%s: result is not JSON: %v\n%s", tool, err, raw)
	}
	if len(res.Content) > 0 {
		text = res.Content[0].Text
	}
	return !res.IsError, res.StructuredContent, text
}

// compile compiles a JSON Schema with a 2020-12 validator.
func compile(t testing.TB, schema json.RawMessage, formats bool) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if formats {
		c.AssertFormat()
		c.AssertContent()
	}
	if err := c.AddResource("mem://schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("mem://schema.json")
	if err != nil {
		t.Fatalf("schema does not compile: %v\n%s", err, schema)
	}
	return s
}

func validates(s *jsonschema.Schema, doc string) error {
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(doc))
	if err != nil {
		return err
	}
	return s.Validate(v)
}

func TestZooSize(t *testing.T) {
	tools := zooTools(t)
	if len(cases) < 40 || len(tools) != len(cases) {
		t.Fatalf("%d cases for %d tools; the zoo needs at least 40, one per tool", len(cases), len(tools))
	}
	for _, c := range cases {
		if _, ok := tools[c.tool]; !ok {
			t.Errorf("case %s has no tool", c.tool)
		}
	}
}

// TestValidatorAgrees checks that, for every document of the corpus, the generated
// validation and a JSON Schema 2020-12 validator given the generated schema accept and
// reject alike, except on the documents that exercise an intended difference.
func TestValidatorAgrees(t *testing.T) {
	tools := zooTools(t)
	docs := 0
	for _, c := range cases {
		s := compile(t, tools[c.tool].InputSchema, c.formats)
		check := func(doc string, wantAccept, wantValid bool, why string) {
			docs++
			accepted, _, text := call(t, c.tool, doc)
			err := validates(s, doc)
			if accepted != wantAccept || (err == nil) != wantValid {
				t.Errorf("%s %s (%s): mcpgen accepted=%v, validator accepted=%v (%v)\n%s", c.tool, doc, why, accepted, err == nil, err, text)
			}
		}
		for _, doc := range c.good {
			check(doc, true, true, "good")
		}
		for _, doc := range c.bad {
			check(doc, false, false, "bad")
		}
		for doc, diff := range c.differ {
			if _, ok := differenceByID[diff]; !ok {
				t.Errorf("%s: unknown difference %q", c.tool, diff)
			}
			check(doc, false, true, "intended difference "+diff)
		}
	}
	t.Logf("%d cases, %d documents", len(cases), docs)
}

// TestResultsMatchOutputSchema checks that the structured content of every accepted
// document validates against the tool's output schema.
func TestResultsMatchOutputSchema(t *testing.T) {
	tools := zooTools(t)
	for _, c := range cases {
		s := compile(t, tools[c.tool].OutputSchema, c.formats)
		for _, doc := range c.good {
			accepted, structured, text := call(t, c.tool, doc)
			if !accepted {
				t.Errorf("%s %s rejected: %s", c.tool, doc, text)
				continue
			}
			if err := validates(s, string(structured)); err != nil {
				t.Errorf("%s %s: structured content %s breaks the output schema: %v", c.tool, doc, structured, err)
			}
			var fromText any
			if err := json.Unmarshal([]byte(text), &fromText); err != nil || !jsonEqual(fromText, structured) {
				t.Errorf("%s %s: the text block %s does not hold the structured content %s", c.tool, doc, text, structured)
			}
		}
	}
}

func jsonEqual(a any, b json.RawMessage) bool {
	var bv any
	json.Unmarshal(b, &bv)
	return reflect.DeepEqual(a, bv)
}

// TestDecodeMatchesEncodingJSON checks that accepted documents decode to the same Go
// values encoding/json gives, but where an intended difference says otherwise.
func TestDecodeMatchesEncodingJSON(t *testing.T) {
	for _, c := range cases {
		for _, doc := range c.good {
			if id := cmp.Or(c.jsonDiffers[doc], c.jsonDiffers["*"]); id != "" {
				if _, ok := differenceByID[id]; !ok {
					t.Errorf("%s: unknown difference %q", c.tool, id)
				}
				continue
			}
			want := reflect.New(reflect.TypeOf(c.value))
			if err := json.Unmarshal([]byte(doc), want.Interface()); err != nil {
				t.Errorf("%s %s: encoding/json rejects it: %v", c.tool, doc, err)
				continue
			}
			_, structured, _ := call(t, c.tool, doc)
			got := reflect.New(reflect.TypeOf(c.value))
			if err := json.Unmarshal(structured, got.Interface()); err != nil {
				t.Errorf("%s: %v", c.tool, err)
				continue
			}
			if !reflect.DeepEqual(normalize(got.Elem().Interface()), normalize(want.Elem().Interface())) {
				t.Errorf("%s %s:\nmcpgen round trip %+v\nencoding/json     %+v", c.tool, doc, got.Elem().Interface(), want.Elem().Interface())
			}
		}
	}
}

// normalize makes nil and empty slices and maps compare equal: mcpgen writes nil ones as
// [] and {} (an intended difference), which encoding/json reads back as empty.
func normalize(v any) string {
	b, _ := json.Marshal(v)
	s := string(b)
	for _, empty := range []string{":null", ":[]", ":{}"} {
		s = strings.ReplaceAll(s, empty, ":E")
	}
	return s
}

// FuzzZoo decodes arbitrary arguments for every zoo tool: no input may panic, and every
// input accepted must give a result that encodes to valid JSON under the output schema.
func FuzzZoo(f *testing.F) {
	for i, c := range cases {
		for _, doc := range append(append([]string(nil), c.good...), c.bad...) {
			f.Add(uint8(i), []byte(doc))
		}
	}
	tools := zooTools(f)
	schemas := make([]*jsonschema.Schema, len(cases))
	for i, c := range cases {
		schemas[i] = compile(f, tools[c.tool].OutputSchema, c.formats)
	}
	f.Fuzz(func(t *testing.T, which uint8, args []byte) {
		i := int(which) % len(cases)
		if !json.Valid(args) || len(bytes.TrimSpace(args)) == 0 || bytes.TrimSpace(args)[0] != '{' {
			return // tools/call takes an object; anything else is a protocol error
		}
		accepted, structured, text := call(t, cases[i].tool, string(args))
		if !accepted {
			return
		}
		if !json.Valid(structured) {
			t.Fatalf("%s %s: invalid JSON result %s", cases[i].tool, args, structured)
		}
		if err := validates(schemas[i], string(structured)); err != nil {
			t.Fatalf("%s %s: result %s breaks the output schema: %v\n%s", cases[i].tool, args, structured, err, text)
		}
	})
}
