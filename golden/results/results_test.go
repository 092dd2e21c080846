package results

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/mcptest"
)

// TestResultsBreakingTheirSchema calls each tool with a result its output schema allows and
// with results it does not: those must be error results naming every problem, with no
// structured content. A JSON Schema validator agrees with the checker on the results sent and
// on the values the tools return (their arguments, which the results repeat).
func TestResultsBreakingTheirSchema(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "results", Version: "0"}, nil)
	RegisterMCP(srv)
	c := mcptest.Connect(t, srv)
	outputs := map[string]*jsonschema.Schema{}
	for _, tool := range c.ListTools() {
		if tool.OutputSchema != nil {
			outputs[tool.Name] = compile(t, tool.OutputSchema)
		}
	}
	for _, tt := range []struct {
		tool, args string
		problems   []string // none: the result is sent
	}{
		{"return_flags", `{"sure":true}`, nil},
		{"return_flags", `{"sure":false}`, []string{"/sure: must be one of true"}},
		{"return_pair", `{}`, nil},
		{"return_pair", `{"names":["a","b"]}`, nil},
		{"return_pair", `{"names":["a","a"]}`, []string{"/names: must not contain duplicates"}},
		{"return_bounded", `{"code":"AB","count":9,"step":1.5}`, nil},
		{"return_bounded", `{"code":"abcd","count":0,"step":0.3}`, []string{
			"/code: must be at most 3 characters long", "/code: must match the pattern ^[A-Z]+$", "/count: must be >= 1", "/step: must be a multiple of 0.5"}},
		{"return_versioned", `{"version":"2","strict":true,"scale":1.5,"level":3}`, nil},
		{"return_versioned", `{"version":"2"}`, nil},
		{"return_versioned", `{"version":"1","strict":false,"scale":2,"level":4}`, []string{`/version: must be "2"`, "/scale: must be 1.5", "/level: must be 3"}},
	} {
		res := c.CallTool(tt.tool, json.RawMessage(tt.args))
		text := res.Text()
		if err := validates(outputs[tt.tool], tt.args); (err == nil) != (len(tt.problems) == 0) {
			t.Errorf("%s %s: the validator says %v, the checker finds %d problems", tt.tool, tt.args, err, len(tt.problems))
		}
		if len(tt.problems) == 0 {
			if res.IsError || len(res.StructuredContent) == 0 {
				t.Errorf("%s %s: error result %q, want the result sent", tt.tool, tt.args, text)
			} else if err := validates(outputs[tt.tool], string(res.StructuredContent)); err != nil {
				t.Errorf("%s %s: sent %s, which breaks the output schema: %v", tt.tool, tt.args, res.StructuredContent, err)
			}
			continue
		}
		if !res.IsError || len(res.StructuredContent) != 0 {
			t.Errorf("%s %s: sent %s, want an error result", tt.tool, tt.args, res.StructuredContent)
			continue
		}
		if !strings.Contains(text, "breaks its output schema") {
			t.Errorf("%s %s: error %q does not say the result breaks the output schema", tt.tool, tt.args, text)
		}
		for _, p := range tt.problems {
			if !strings.Contains(text, p) {
				t.Errorf("%s %s: error %q does not name %q", tt.tool, tt.args, text, p)
			}
		}
	}
}

// TestConstArguments checks that const is checked in arguments, and that a default must be
// the constant.
func TestConstArguments(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "results", Version: "0"}, nil)
	RegisterMCP(srv)
	c := mcptest.Connect(t, srv)
	if res := c.CallTool("take_versioned", json.RawMessage(`{"version":"2","strict":true,"scale":1.5,"level":3}`)); res.IsError {
		t.Errorf("the constants themselves are rejected: %s", res.Text())
	}
	res := c.CallTool("take_versioned", json.RawMessage(`{"version":"3","strict":false,"scale":1,"level":2}`))
	for _, p := range []string{`/version: must be "2"`, "/strict: must be true", "/scale: must be 1.5", "/level: must be 3"} {
		if !res.IsError || !strings.Contains(res.Text(), p) {
			t.Errorf("take_versioned with other values: %q does not name %q", res.Text(), p)
		}
	}
	for _, tool := range c.ListTools() {
		if tool.Name != "take_versioned" {
			continue
		}
		var schema struct {
			Properties map[string]struct {
				Const any `json:"const"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(tool.InputSchema, &schema); err != nil || schema.Properties["version"].Const != "2" || schema.Properties["level"].Const != 3.0 {
			t.Errorf("take_versioned's input schema lacks the constants: %s", tool.InputSchema)
		}
	}
}

// compile compiles a JSON Schema with a 2020-12 validator.
func compile(t *testing.T, schema json.RawMessage) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
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
