package additional

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/mcptest"
)

func connect(t *testing.T) (*mcptest.Client, *jsonschema.Schema, *jsonschema.Schema) {
	srv := mcp.NewServer(mcp.Implementation{Name: "additional", Version: "0"}, nil)
	RegisterMCP(srv)
	c := mcptest.Connect(t, srv)
	tools := c.ListTools()
	if len(tools) != 1 {
		t.Fatalf("%d tools", len(tools))
	}
	return c, compile(t, tools[0].InputSchema), compile(t, tools[0].OutputSchema)
}

func compile(t *testing.T, schema json.RawMessage) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(schema)))
	if err != nil {
		t.Fatal(err)
	}
	comp := jsonschema.NewCompiler()
	if err := comp.AddResource("schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := comp.Compile("schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func validates(s *jsonschema.Schema, text string) error {
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
	if err != nil {
		return err
	}
	return s.Validate(v)
}

// The members besides the properties are read into the map, written back after the
// properties in key order, and the schemas accept both: the arguments come back exactly.
func TestRoundTrip(t *testing.T) {
	c, input, output := connect(t)
	for _, args := range []string{
		`{"labels":{"count":2,"owner":"ann","bug":{"hex":"#ff0000"},"docs":{"hex":"#00ff00"}},"meta":{"a":1,"b":[true,null],"c":{"d":"e"}},"names":{"fr":"Paris","it":"Roma"}}`,
		`{"labels":{"count":0},"names":{}}`,
	} {
		res := c.CallTool("echo", json.RawMessage(args))
		if res.IsError {
			t.Errorf("%s: %s", args, res.Text())
			continue
		}
		if string(res.StructuredContent) != args {
			t.Errorf("result\n%s\nwant the arguments\n%s", res.StructuredContent, args)
		}
		if err := validates(input, args); err != nil {
			t.Errorf("the input schema refuses %s: %v", args, err)
		}
		if err := validates(output, string(res.StructuredContent)); err != nil {
			t.Errorf("the output schema refuses %s: %v", res.StructuredContent, err)
		}
	}
	want := Labels{Count: 2, Owner: "ann", Colors: map[string]Color{"bug": {Hex: "#ff0000"}, "docs": {Hex: "#00ff00"}}}
	c.CallTool("echo", json.RawMessage(`{"labels":{"count":2,"owner":"ann","bug":{"hex":"#ff0000"},"docs":{"hex":"#00ff00"}},"names":{}}`))
	if !reflect.DeepEqual(Last.Labels, want) {
		t.Errorf("read %+v, want %+v", Last.Labels, want)
	}
}

// A member besides the properties is held to the schema of the others, at its own pointer,
// and the input schema refuses the same arguments.
func TestOthersBreakingTheirSchema(t *testing.T) {
	c, input, _ := connect(t)
	args := `{"labels":{"count":1,"bug":{"hex":"red"},"docs":{"hex":"#00ff00","name":"x"}},"names":{"fr":1}}`
	res := c.CallTool("echo", json.RawMessage(args))
	for _, want := range []string{"/labels/bug/hex", "/labels/docs/name", "/names/fr"} {
		if !res.IsError || !strings.Contains(res.Text(), want) {
			t.Errorf("want an error at %s: %s", want, res.Text())
		}
	}
	if err := validates(input, args); err == nil {
		t.Errorf("the input schema accepts %s", args)
	}
}

// A key of the map that is also a property would write that member twice: the result is an
// error that says so.
func TestKeyOfAProperty(t *testing.T) {
	c, _, _ := connect(t)
	res := c.CallTool("echo", json.RawMessage(`{"labels":{"count":1},"names":{},"break":true}`))
	if !res.IsError || !strings.Contains(res.Text(), `Labels.Colors has "count", which is a property of its own`) {
		t.Errorf("%v %s", res.IsError, res.Text())
	}
}

// The members besides the properties of a result are checked against their schema too.
func TestResultRules(t *testing.T) {
	c, _, _ := connect(t)
	res := c.CallTool("echo", json.RawMessage(`{"labels":{"count":1},"names":{},"bad_color":true}`))
	if !res.IsError || !strings.Contains(res.Text(), "/labels/wrong/hex") || strings.Contains(res.Text(), "/ok") {
		t.Errorf("%v %s", res.IsError, res.Text())
	}
}
