package importer

import (
	"encoding/json"
	"go/parser"
	"go/token"
	"testing"
)

// Schemas that are odd, wrong or hostile still give a package that parses, never a panic.
func TestOddSchemas(t *testing.T) {
	for _, schema := range []string{
		`true`, `{}`, `"abc"`, `[]`, `{"type":"string"}`, `{"type":7}`,
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/B"}},"$defs":{"B":{"$ref":"#/$defs/B"}}}`,
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/B"}},"$defs":{"B":{"$ref":"#/$defs/C"},"C":{"$ref":"#/$defs/B"}}}`,
		`{"type":"object","properties":{"":{"type":"string"},"_":{"type":"string"},"π":{"type":"integer"},"func":{"type":"boolean"}}}`,
		`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"object","properties":{"c":{"type":"array","items":{"type":"array","items":{"type":"object","additionalProperties":{"type":"array","items":{"type":"string","enum":["x","x"]}}}}}}}}}}}`,
		`{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}`,
		`{"type":"object","properties":{"a":{"enum":[]}},"required":"a"}`,
	} {
		snap := &Snapshot{Tools: []Tool{{Name: "t", InputSchema: json.RawMessage(schema), OutputSchema: json.RawMessage(schema)}, {Name: "", InputSchema: json.RawMessage(`{}`)}}}
		res, err := Generate(snap, Options{Package: "odd", Dir: "x"})
		if err != nil {
			t.Errorf("%s: %v", schema, err)
			continue
		}
		if _, err := parser.ParseFile(token.NewFileSet(), "x.go", res.Files[0].Data, 0); err != nil {
			t.Errorf("%s: the package does not parse: %v", schema, err)
		}
	}
}
