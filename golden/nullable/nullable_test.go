package nullable

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
	srv := mcp.NewServer(mcp.Implementation{Name: "nullable", Version: "0"}, nil)
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

// Each property is read in its three states as encoding/json reads mcp.Nullable (a default
// where it is left out), the result written as encoding/json writes it, and the input and
// output schemas agree with what the decoder accepts and the encoder writes.
func TestThreeStates(t *testing.T) {
	c, input, output := connect(t)
	for _, args := range []string{
		`{"number":1}`,
		`{"number":1,"milestone":null,"assignee":null,"labels":null,"priority":null,"estimates":{"ann":null},"due":null}`,
		`{"number":1,"milestone":{"number":2,"title":"v2"},"assignee":"octocat","labels":["bug"],"priority":1,"estimates":{"ann":1.5,"bob":null},"due":"2026-12-24"}`,
		`{"number":1,"labels":[]}`,
		`{"number":1,"parent":{"number":2,"parent":{"number":3,"parent":null}}}`,
	} {
		res := c.CallTool("update_issue", json.RawMessage(args))
		if res.IsError {
			t.Errorf("%s: %s", args, res.Text())
			continue
		}
		var want Update
		if err := json.Unmarshal([]byte(args), &want); err != nil {
			t.Fatal(err)
		}
		if !want.Priority.IsNull() {
			if _, ok := want.Priority.Get(); !ok {
				want.Priority = mcp.NotNull(3) // the default
			}
		}
		if !reflect.DeepEqual(Last, want) {
			t.Errorf("%s: read as %+v, encoding/json reads %+v (and the default)", args, Last, want)
		}
		if err := validates(input, args); err != nil {
			t.Errorf("%s: the input schema refuses what the tool accepts: %v", args, err)
		}
		sent, err := json.Marshal(UpdateIssue(want))
		if err != nil {
			t.Fatal(err)
		}
		if string(res.StructuredContent) != string(sent) {
			t.Errorf("%s: result %s, encoding/json writes %s", args, res.StructuredContent, sent)
		}
		if err := validates(output, string(res.StructuredContent)); err != nil {
			t.Errorf("%s: the result %s breaks the output schema: %v", args, res.StructuredContent, err)
		}
	}
	// Left out, the value itself: null clears, no property keeps.
	c.CallTool("update_issue", json.RawMessage(`{"number":1,"milestone":null}`))
	if !Last.Milestone.IsNull() || !Last.Assignee.IsZero() {
		t.Errorf("milestone null and assignee left out read as %+v", Last)
	}
}

// What breaks the rules of the value is refused at its JSON Pointer, as the input schema
// refuses it; a value of the wrong type too.
func TestValuesBreakingTheRules(t *testing.T) {
	c, input, _ := connect(t)
	for args, problem := range map[string]string{
		`{"number":1,"assignee":""}`:                           "/assignee: must be at least 1 character long",
		`{"number":1,"milestone":{"number":0}}`:                "/milestone/number: must be >= 1",
		`{"number":1,"labels":["a","b","c","d"]}`:              "/labels: must have at most 3 items",
		`{"number":1,"priority":0}`:                            "/priority: must be >= 1",
		`{"number":1,"priority":"high"}`:                       "/priority: expected integer, got string",
		`{"number":1,"estimates":{"ann":"x"}}`:                 "/estimates/ann: expected number, got string",
		`{"number":1,"milestone":{"number":1,"due":"friday"}}`: "/milestone/due: unknown property",
		`{"number":1,"parent":{"parent":{"number":"x"}}}`:      "/parent/parent/number: expected integer, got string",
	} {
		res := c.CallTool("update_issue", json.RawMessage(args))
		if !res.IsError || !strings.Contains(res.Text(), problem) {
			t.Errorf("%s: %q, want an error naming %q", args, res.Text(), problem)
		}
		if validates(input, args) == nil {
			t.Errorf("%s: the input schema accepts what the tool refuses", args)
		}
	}
}

// A result is checked against its rules when it holds a value, not when it is null or left
// out.
func TestResultRules(t *testing.T) {
	c, _, _ := connect(t)
	if res := c.CallTool("update_issue", json.RawMessage(`{"number":1,"assignee":"nobody"}`)); !res.IsError || !strings.Contains(res.Text(), `/assignee: must be one of "octocat", "hubot"`) {
		t.Errorf("an assignee the result may not have: %q", res.Text())
	}
	for _, args := range []string{`{"number":1,"assignee":null}`, `{"number":1}`} {
		if res := c.CallTool("update_issue", json.RawMessage(args)); res.IsError {
			t.Errorf("%s: %s", args, res.Text())
		}
	}
}
