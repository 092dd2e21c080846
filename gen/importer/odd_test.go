package importer

import (
	"encoding/json"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Schemas that are odd, wrong or hostile still give a package that parses, never a panic.
func TestOddSchemas(t *testing.T) {
	odd := []string{
		`true`, `{}`, `"abc"`, `[]`, `{"type":"string"}`, `{"type":7}`,
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/B"}},"$defs":{"B":{"$ref":"#/$defs/B"}}}`,
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/B"}},"$defs":{"B":{"$ref":"#/$defs/C"},"C":{"$ref":"#/$defs/B"}}}`,
		`{"type":"object","properties":{"":{"type":"string"},"_":{"type":"string"},"π":{"type":"integer"},"func":{"type":"boolean"}}}`,
		`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"object","properties":{"c":{"type":"array","items":{"type":"array","items":{"type":"object","additionalProperties":{"type":"array","items":{"type":"string","enum":["x","x"]}}}}}}}}}}}`,
		`{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}`,
		`{"type":"object","properties":{"a":{"enum":[]}},"required":"a"}`,
		`{"$ref":"#"}`, `{"$ref":"#/"}`, `{"$ref":"#/properties"}`, `{"$ref":"%zz"}`, `{"$ref":"#/a/b","a":{"b":{"$ref":"#/a"}}}`,
		`{"type":"object","properties":{"a":{"$ref":"#/properties/a/properties/b"}}}`,
		`{"type":"object","properties":{"a":{"type":"array","items":{"$ref":"#/properties/a"}}}}`,
		`{"anyOf":[{"$ref":"#"},{"type":"string"}]}`, `{"oneOf":[]}`, `{"anyOf":[{"type":"null"},{"type":"null"}]}`,
		`{"type":"object","properties":{"u":{"oneOf":[{"type":"object","properties":{"t":{"const":"a"},"u":{"$ref":"#/properties/u"}},"required":["t","u"]},{"type":"object","properties":{"t":{"const":"b"}},"required":["t"]}]}}}`,
		`{"type":["string","integer","number","boolean","object","array","null"],"properties":{"x":{"type":"string"}},"items":{"$ref":"#"}}`,
		`{"type":"object","properties":{"k":{"const":""},"e":{"enum":["",""]}},"required":["k","e"]}`,
		`{"allOf":[{"$ref":"#"}]}`, `{"allOf":[{"$ref":"#"},{"properties":{"a":{"type":"string"}}}]}`, `{"allOf":"x"}`, `{"allOf":[7,{"$ref":"#/x"}]}`,
		`{"type":"object","properties":{"a":{"allOf":[{"$ref":"#/properties/a"},{"$ref":"#/properties/b"}]},"b":{"allOf":[{"$ref":"#/properties/a"}]}}}`,
		`{"type":"object","properties":{"a":{"allOf":[{"properties":{"x":{"type":"string"}}},{"properties":{"x":{"properties":{"y":{}}}}},{"properties":{"x":{"allOf":[{"$ref":"#"}]}}}]}}}`,
		`{"type":"object","properties":{"a":{"oneOf":[{"type":"object","properties":{"t":{"type":"string"}}},{"type":"object"}],"discriminator":{"propertyName":"t","mapping":{"x":"#/nothing","y":""}}}}}`,
		`{"type":"object","properties":{"a":{"oneOf":[{"$ref":"#"},{"$ref":"#/properties/a"}],"discriminator":{"propertyName":""}}}}`,
		`{"type":"object","properties":{"additionalProperties":{"type":"string"}},"additionalProperties":{"$ref":"#"}}`,
		`{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":{"type":"object","properties":{"a":{"type":"integer"}},"additionalProperties":{"$ref":"#/additionalProperties"}}}`,
		`{"allOf":[{"nullable":true},{"type":"string","nullable":true}],"nullable":true}`, `{"nullable":true,"readOnly":true,"writeOnly":true}`,
	}
	var all []Tool
	for i, schema := range odd {
		all = append(all, Tool{Name: fmt.Sprintf("t%d", i), InputSchema: json.RawMessage(schema), OutputSchema: json.RawMessage(schema)})
	}
	for _, schema := range odd {
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

	// All of them in one package, which builds, whatever the schemas.
	if testing.Short() {
		return
	}
	res, err := Generate(&Snapshot{Tools: all}, Options{Package: "odd", Dir: "x"})
	if err != nil {
		t.Fatal(err)
	}
	vetGenerated(t, res)
}

// vetGenerated builds a generated package, placed in this module by an overlay (so
// that it imports the module's runtime) without writing into the tree.
func vetGenerated(t *testing.T, res *Result) {
	t.Helper()
	dir, err := filepath.Abs("oddgen")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	overlay := map[string]map[string]string{"Replace": {}}
	for _, f := range res.Files {
		path := filepath.Join(tmp, filepath.Base(f.Path))
		if err := os.WriteFile(path, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
		overlay["Replace"][filepath.Join(dir, filepath.Base(f.Path))] = path
	}
	data, _ := json.Marshal(overlay)
	if err := os.WriteFile(filepath.Join(tmp, "overlay.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "build", "-overlay", filepath.Join(tmp, "overlay.json"), "-o", os.DevNull, "./oddgen").CombinedOutput()
	if err != nil {
		t.Errorf("go build: %v\n%s", err, out)
	}
}
