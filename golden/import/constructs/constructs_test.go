package constructs

// Not generated: the generated client of every construct, exercised. Its arguments go to a
// server in the same process and come back, and its codecs read and write the documents the
// schemas describe.

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

const document = `{"text":"hi","count":3,"ratio":0.25,"on":true,"when":"2026-11-24T10:00:00Z","site":"https://x",
"color":"dark-green","level":2,"tags":["a","b"],"anything":[1,"x",null],"grid":[[1,2],[3.5]],
"point":{"x":1,"y":-2},"labels":{"b":"2","a":"1"},"scores":{"s":[1,2]},"extra":{"k":[1]},"free":"any",
"either":7,"maybe":null,"maybeNumber":1.5,"mixed":"m","wrapped":"w","merged":{"a":"x","b":"y"},"fixed":"v1",
"untypedEnum":"b","address":{"city":"Lisbon"},"tree":{"name":"root","up":null,"self":{"name":"me","self":null,"up":{"name":"root","self":null}},
"children":[{"name":"leaf","self":null}]},"old":{"id":9},"nullableItems":["a",null],
"required-list":[{"street":"Main","city":"Porto"}],"type":"t","a-b":"dash","a_b":"under","userId":"u1",
"url":"https://y","9lives":false,"unknown":{"skipped":true},"flag":"auto","amount":2.5,
"shape":{"kind":"square","w":2},"source":{"path":"/tmp/x"},"ambiguous":{"a":"x"},"origin":{"x":3,"y":4},
"maybeKinds":["a","b"],"constrained":{"email":"e@x"}}`

func TestDecodeEveryConstruct(t *testing.T) {
	var in EveryTypeInput
	if err := json.Unmarshal([]byte(document), &in); err != nil {
		t.Fatal(err)
	}
	when, _ := time.Parse(time.RFC3339, "2026-11-24T10:00:00Z")
	checks := []struct {
		name      string
		got, want any
	}{
		{"text", in.Text, "hi"}, {"count", in.Count, int64(3)}, {"ratio", *in.Ratio, 0.25}, {"on", *in.On, true},
		{"when", in.When.Equal(when), true}, {"site", *in.Site, "https://x"}, {"color", in.Color, EveryTypeInputColorDarkGreen},
		{"level", *in.Level, int64(2)}, {"tags", in.Tags, []string{"a", "b"}}, {"anything", len(in.Anything), 3},
		{"grid", in.Grid, [][]float64{{1, 2}, {3.5}}}, {"point", in.Point, Point{X: 1, Y: -2}},
		{"labels", in.Labels, map[string]string{"a": "1", "b": "2"}}, {"scores", in.Scores, map[string][]int64{"s": {1, 2}}},
		{"extra", string(in.Extra), `{"k":[1]}`}, {"free", string(in.Free), `"any"`}, {"either", *in.Either, StringOrInteger{Integer: mcp.Ptr[int64](7)}},
		{"maybe", in.Maybe, mcp.Null[string]()}, {"maybeNumber", *in.MaybeNumber, 1.5}, {"mixed", *in.Mixed, StringOrNumber{String: mcp.Ptr("m")}},
		{"wrapped", *in.Wrapped, "w"}, {"merged", *in.Merged, EveryTypeInputMerged{A: mcp.Ptr("x"), B: mcp.Ptr("y")}}, {"fixed", *in.Fixed, "v1"}, {"untypedEnum", *in.UntypedEnum, EveryTypeInputUntypedEnumB},
		{"address", *in.Address, Address{City: "Lisbon"}}, {"tree", in.Tree.Self.Name, "me"}, {"tree.self.self", in.Tree.Self.Self, (*Node)(nil)},
		{"tree.up", in.Tree.Up, mcp.Null[*Node]()}, {"tree.self.up", in.Tree.Self.Up, mcp.NotNull(&Node{Name: "root"})}, {"tree.children.up", in.Tree.Children[0].Up.IsZero(), true},
		{"tree.children", in.Tree.Children[0].Name, "leaf"}, {"old", *in.Old.ID, int64(9)}, {"nullableItems", in.NullableItems, []*string{mcp.Ptr("a"), nil}},
		{"required-list", in.RequiredList, []Address{{Street: mcp.Ptr("Main"), City: "Porto"}}}, {"type", *in.Type, "t"},
		{"a-b", *in.AB, "dash"}, {"a_b", *in.AB2, "under"}, {"userId", *in.UserID, "u1"}, {"9lives", *in.X9lives, false},
		{"flag", in.Flag, BooleanOrString{String: mcp.Ptr("auto")}}, {"amount", *in.Amount, IntegerOrNumber{Number: mcp.Ptr(2.5)}},
		{"shape", in.Shape, EveryTypeInputShapeRectOrSquare{Kind: EveryTypeInputShapeRectOrSquareKindSquare, W: 2}},
		{"source", in.Source, EveryTypeInputSourcePath{Path: "/tmp/x"}}, {"ambiguous", string(in.Ambiguous), `{"a":"x"}`},
		{"origin", *in.Origin, Point{X: 3, Y: 4}}, {"maybeKinds", in.MaybeKinds, mcp.NotNull(EveryTypeInputMaybeKinds{Array: []string{"a", "b"}})},
		{"constrained", *in.Constrained, EveryTypeInputConstrained{Email: mcp.Ptr("e@x")}},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: %#v, want %#v", c.name, c.got, c.want)
		}
	}

	// Encoding gives the document back: the same members and values (the unknown one aside).
	out, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var a, b map[string]any
	json.Unmarshal([]byte(document), &a)
	json.Unmarshal(out, &b)
	delete(a, "unknown")
	if !reflect.DeepEqual(a, b) {
		t.Errorf("encoded\n%s\nwhich is not the document", out)
	}
	// Required members are written even when zero; optional ones only when set.
	empty, err := json.Marshal(EveryTypeInput{Flag: BooleanOrString{Boolean: mcp.Ptr(false)}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"flag":false`, `"text":""`, `"count":0`, `"tags":[]`, `"labels":{}`, `"maybeNumber":null`, `"required-list":[]`, `"tree":{"name":"","self":null}`} {
		if !strings.Contains(string(empty), want) {
			t.Errorf("the zero value lacks %s: %s", want, empty)
		}
	}
	if strings.Contains(string(empty), `"ratio"`) || strings.Contains(string(empty), `"address"`) || strings.Contains(string(empty), `"maybe"`) {
		t.Errorf("the zero value has optional members: %s", empty)
	}
	// An optional member that may be null: left out, null or a value.
	for v, want := range map[mcp.Nullable[string]]string{mcp.Null[string](): `"maybe":null`, mcp.NotNull(""): `"maybe":""`} {
		got, err := json.Marshal(EveryTypeInput{Flag: BooleanOrString{Boolean: mcp.Ptr(false)}, Maybe: v})
		if err != nil || !strings.Contains(string(got), want) {
			t.Errorf("%+v: %s, %v; want %s", v, got, err, want)
		}
	}
}

func TestDecodeProblems(t *testing.T) {
	var in EveryTypeInput
	err := json.Unmarshal([]byte(`{"count":"three","when":"yesterday","point":{"x":"1"}}`), &in)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"/count", "/when: must be a date-time", "/point/x"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// The client calls a server in the same process: arguments as the schema has them, results
// decoded, an error result as a *mcp.ToolError, the templates' URIs filled.
func TestClientCalls(t *testing.T) {
	s := mcp.NewServer(mcp.Implementation{Name: "constructs", Version: "1.0.0"}, nil)
	var got json.RawMessage
	s.AddTool(mcp.Tool{Name: "every_type", InputSchema: `{"type":"object"}`,
		OutputSchema: `{"type":"object","properties":{"echo":{"type":"object"}},"required":["echo"]}`,
		Handler: func(ctx context.Context, c *mcp.ToolCall) {
			c.Arguments().Unmarshal((*rawArgs)(&got))
			c.ReturnResult(&mcp.CallToolResult{Content: []mcp.Content{mcp.Text{Text: "ok"}},
				StructuredContent: []byte(`{"echo":{"text":"back","count":2},"at":"2026-01-02T03:04:05Z","counts":{"a":1}}`)})
		}})
	s.AddTool(mcp.Tool{Name: "get-x", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *mcp.ToolCall) {
		c.ReturnError(errors.New("x is broken"))
	}})
	s.AddTool(mcp.Tool{Name: "get_x", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *mcp.ToolCall) {
		c.ReturnContent(mcp.Text{Text: "one"}, mcp.Text{Text: "two"})
	}})
	var read []string
	s.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "file:///{+path}", Name: "file",
		Read: func(ctx context.Context, uri string, vars map[string]string) ([]mcp.ResourceContents, error) {
			read = append(read, uri)
			return []mcp.ResourceContents{{URI: uri, Text: "found"}}, nil
		}})
	ctx := context.Background()
	mc, err := mcp.Connect(ctx, &mcp.MemoryTransport{Server: s}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer mc.Close()
	c := New(mc)

	out, err := c.EveryType(ctx, EveryTypeInput{Text: "hi", Color: EveryTypeInputColorRed, Tags: []string{"t"}, Labels: map[string]string{"z": "1", "a": "2"}, Ratio: mcp.Ptr(0.5),
		Flag: BooleanOrString{Boolean: mcp.Ptr(true)}, Shape: Circle{Radius: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Echo.Text != "back" || *out.Echo.Count != 2 || out.At.Year() != 2026 || out.Counts["a"] != 1 {
		t.Errorf("result %+v", out)
	}
	if !strings.HasPrefix(string(got), `{"text":"hi","count":0,"ratio":0.5,"when":"0001-01-01T00:00:00Z","color":"red","tags":["t"],"point":{"x":0,"y":0},"labels":{"a":"2","z":"1"},`) ||
		!strings.Contains(string(got), `"flag":true,"shape":{"kind":"circle","radius":2}}`) {
		t.Errorf("the server got %s", got)
	}
	_, err = c.GetX(ctx)
	var toolErr *mcp.ToolError
	if !errors.As(err, &toolErr) || !strings.Contains(toolErr.Text, "x is broken") {
		t.Errorf("GetX: %v, want a *mcp.ToolError", err)
	}
	content, err := c.GetX2(ctx)
	if err != nil || len(content) != 2 {
		t.Errorf("GetX2: %v, %v", content, err)
	}
	if _, err := c.ReadFile(ctx, "docs/a b.txt"); err != nil {
		t.Fatal(err)
	}
	if len(read) != 1 || read[0] != "file:///docs/a%20b.txt" {
		t.Errorf("read %q", read)
	}
	if len(Snapshot) == 0 || !strings.Contains(string(Snapshot), `"every_type"`) {
		t.Error("the snapshot is not embedded")
	}
}

type rawArgs json.RawMessage

func (r *rawArgs) UnmarshalJSON(b []byte) error { *r = append((*r)[:0], b...); return nil }

// Arguments encoded by the generated code, against encoding/json on the same struct (its
// MarshalJSON set aside) and on the map a plain client call would take.
func BenchmarkEncodeArguments(b *testing.B) {
	in := EveryTypeInput{Text: "hi", Count: 3, Color: EveryTypeInputColorRed, Tags: []string{"a", "b"},
		Labels: map[string]string{"k": "v"}, Point: Point{X: 1, Y: 2}, RequiredList: []Address{{City: "Porto"}}, Flag: BooleanOrString{Boolean: mcp.Ptr(true)}}
	b.Run("generated", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := in.MarshalJSON(); err != nil {
				b.Fatal(err)
			}
		}
	})
	type plain EveryTypeInput // no methods: encoding/json's reflection
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(plain(in)); err != nil {
				b.Fatal(err)
			}
		}
	})
	m := map[string]any{"text": "hi", "count": 3, "color": "red", "tags": []string{"a", "b"}, "labels": map[string]string{"k": "v"},
		"point": map[string]any{"x": 1, "y": 2}, "required-list": []map[string]any{{"city": "Porto"}}, "flag": true}
	b.Run("map", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(m); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// The unions' decoders on what they must refuse or choose between: each problem at its path,
// naming what was expected.
func TestDecodeUnions(t *testing.T) {
	const base = `"text":"","count":0,"when":"2026-01-01T00:00:00Z","color":"red","tags":[],"point":{"x":0,"y":0},"tree":{"name":"t","self":null},"required-list":[],"maybeNumber":null,"labels":{}`
	decode := func(members string) (EveryTypeInput, error) {
		var in EveryTypeInput
		err := json.Unmarshal([]byte("{"+base+","+members+"}"), &in)
		return in, err
	}
	for _, c := range []struct{ members, want string }{
		{`"flag":null`, "/flag: expected boolean or string, got null"},
		{`"flag":7`, "/flag: expected boolean or string, got number"},
		{`"flag":true,"either":true`, "/either: expected string or integer, got boolean"},
		{`"flag":true,"either":2.5`, "/either: expected integer, got 2.5"},
		{`"flag":true,"maybeKinds":{}`, "/maybeKinds: expected string or array, got object"},
		{`"flag":true,"maybeKinds":[1]`, "/maybeKinds/0: expected string, got number"},
		{`"flag":true,"shape":{"kind":"hexagon"}`, `/shape: "kind" must be "circle", "rect" or "square", got "hexagon"`},
		{`"flag":true,"shape":{"radius":1}`, `/shape: "kind" must be "circle", "rect" or "square", got none`},
		{`"flag":true,"shape":"circle"`, "/shape: expected object, got string"},
		{`"flag":true,"shape":{"kind":"circle","radius":"big"}`, "/shape/radius: expected number, got string"},
		{`"flag":true,"source":{"headers":{}}`, `/source: expected an object with "url", or with "path"`},
		{`"flag":true,"source":[]`, "/source: expected object, got array"},
	} {
		_, err := decode(c.members)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.members, err, c.want)
		}
	}

	// Null where the union may be left out is no value; a union that may be null takes it.
	in, err := decode(`"flag":false,"either":null,"shape":null,"maybeKinds":null,"amount":null`)
	if err != nil || in.Either != nil || in.Shape != nil || !in.MaybeKinds.IsNull() || in.Amount != nil || *in.Flag.Boolean {
		t.Errorf("nulls: %+v, %v", in, err)
	}
	if in, err := decode(`"flag":false`); err != nil || !in.MaybeKinds.IsZero() || !in.Maybe.IsZero() {
		t.Errorf("left out: %+v, %v", in, err)
	}
	// A whole number is an integer, whatever its spelling; other numbers are numbers.
	for text, want := range map[string]IntegerOrNumber{
		"2": {Integer: mcp.Ptr[int64](2)}, "2.0": {Integer: mcp.Ptr[int64](2)}, "-1e3": {Integer: mcp.Ptr[int64](-1000)},
		"2.5": {Number: mcp.Ptr(2.5)}, "1e300": {Number: mcp.Ptr(1e300)}, "9223372036854775808": {Number: mcp.Ptr(9223372036854775808.0)},
	} {
		in, err := decode(`"flag":true,"amount":` + text)
		if err != nil || !reflect.DeepEqual(*in.Amount, want) {
			t.Errorf("amount %s: %+v, %v", text, in.Amount, err)
		}
	}
	// Both branches of an anyOf match: the first listed wins.
	if in, err := decode(`"flag":true,"source":{"path":"p","url":"u"}`); err != nil || !reflect.DeepEqual(in.Source, EveryTypeInputSourceURL{URL: "u"}) {
		t.Errorf("both branches: %#v, %v", in.Source, err)
	}
	// The tag chooses the branch, and stays in a branch that has several values for it.
	if in, err := decode(`"flag":true,"shape":{"w":1,"kind":"rect","h":2}`); err != nil || !reflect.DeepEqual(in.Shape, EveryTypeInputShapeRectOrSquare{Kind: EveryTypeInputShapeRectOrSquareKindRect, W: 1, H: mcp.Ptr(2.0)}) {
		t.Errorf("rect: %#v, %v", in.Shape, err)
	}
	if in, err := decode(`"flag":true,"shape":{"kind":"circle","radius":1.5}`); err != nil || in.Shape != (Circle{Radius: 1.5}) {
		t.Errorf("circle: %#v, %v", in.Shape, err)
	}
	shape, err := UnmarshalEveryTypeInputShape([]byte(`{"kind":"circle","radius":3}`))
	if err != nil || shape != (Circle{Radius: 3}) {
		t.Errorf("UnmarshalEveryTypeInputShape: %#v, %v", shape, err)
	}
}

// The unions' encoders: the one member or branch set, and an error for none or several.
func TestEncodeUnions(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{BooleanOrString{Boolean: mcp.Ptr(true)}, `true`},
		{BooleanOrString{String: mcp.Ptr("auto")}, `"auto"`},
		{IntegerOrNumber{Integer: mcp.Ptr[int64](3)}, `3`},
		{IntegerOrNumber{Number: mcp.Ptr(3.0)}, `3`},
		{EveryTypeInputMaybeKinds{Array: []string{}}, `[]`},
		{Circle{Radius: 1}, `{"kind":"circle","radius":1}`},
		{EveryTypeInputShapeRectOrSquare{Kind: "square", W: 2}, `{"kind":"square","w":2}`},
		{Node{Name: "n", Up: mcp.NotNull(&Node{Name: "m"})}, `{"name":"n","self":null,"up":{"name":"m","self":null}}`},
		{Node{Name: "n", Up: mcp.NotNull[*Node](nil)}, `{"name":"n","self":null,"up":null}`},
		{Node{Name: "n", Up: mcp.Null[*Node]()}, `{"name":"n","self":null,"up":null}`},
		{Node{Name: "n"}, `{"name":"n","self":null}`},
	} {
		got, err := json.Marshal(c.v)
		if err != nil || string(got) != c.want {
			t.Errorf("%#v: %s, %v; want %s", c.v, got, err, c.want)
		}
	}
	for _, c := range []struct {
		v    any
		want string
	}{
		{BooleanOrString{}, "BooleanOrString: 0 of its fields are set: set one of Boolean, String"},
		{BooleanOrString{Boolean: mcp.Ptr(true), String: mcp.Ptr("x")}, "BooleanOrString: 2 of its fields are set"},
		{EveryTypeInput{Flag: BooleanOrString{Boolean: mcp.Ptr(true)}, Shape: (*Circle)(nil)}, "EveryTypeInputShape holds *constructs.Circle, none of Circle, EveryTypeInputShapeRectOrSquare"},
	} {
		if _, err := json.Marshal(c.v); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%#v: error %v, want %q", c.v, err, c.want)
		}
	}
	// A branch given by pointer is written as the branch.
	got, err := json.Marshal(EveryTypeInput{Flag: BooleanOrString{Boolean: mcp.Ptr(true)}, Shape: &Circle{Radius: 1}, Source: EveryTypeInputSourceURL{URL: "u"}})
	if err != nil || !strings.Contains(string(got), `"shape":{"kind":"circle","radius":1},"source":{"url":"u"}`) {
		t.Errorf("%s, %v", got, err)
	}
}
