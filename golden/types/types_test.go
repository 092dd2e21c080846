package types

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonwire"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/mcptest"
)

const goodInput = `{
	"id": "abc", "kind": "k", "source": "s", "Kind": "K", "title": "Hello", "level": "error",
	"count": 255, "delta": -4, "ratio": 0.5, "big": -9223372036854775808, "enabled": true,
	"tags": ["ab", "cd"], "point": [1.5, -2], "labels": {"x": 1, "y": 2}, "extra": {"a": [1, "b", null]},
	"payload": "aGVsbG8=", "octets": "AQL/", "names": ["a", "b"], "counts": {"items": [1, 2]}, "anything": {"deep": [true]}, "tree": {"name": "root", "children": [{"name": "leaf"}]},
	"pages": {"items": [{"name": "n"}], "next": "2"}, "weekday": 6, "note": null, "required": 7,
	"nested": {"depth": 3}, "comma": "a,b",
	"formula": {"terms": [{"value": 1}, {"value": 2, "sub": {"terms": [{"value": 3}]}}]},
	"place": {"lat": 38.7, "lon": -9.1}, "site": {"alt": 12.5, "note": "n", "label": "L", "name": "S"}
}`

func TestDecodeMatchesEncodingJSON(t *testing.T) {
	var want Input
	if err := json.Unmarshal([]byte(goodInput), &want); err != nil {
		t.Fatal(err)
	}
	var got Input
	d := jsonwire.NewDecoder([]byte(goodInput))
	mcpgenDecodeInput(d, &got)
	d.Finish()
	if d.Failed() {
		t.Fatalf("valid input rejected:\n%s", d.Summary())
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decoded\n%+v\nencoding/json gives\n%+v", got, want)
	}
}

func TestEncodeMatchesEncodingJSON(t *testing.T) {
	var out Output
	if err := json.Unmarshal([]byte(goodInput), &out.Input); err != nil {
		t.Fatal(err)
	}
	note := "a <note> & more"
	out.Note, out.Seen = &note, 2
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&out); err != nil {
		t.Fatal(err)
	}
	// The one intended difference: a field tagged jsonschema:"-" is out of the schema, so
	// mcpgen leaves it out of the JSON as well (encoding/json writes it).
	wantText := strings.Replace(strings.TrimSpace(want.String()), `,"Skip":""`, "", 1)
	var e jsonwire.Encoder
	mcpgenEncodeOutput(&e, &out)
	if e.Err() != nil || string(e.Bytes()) != wantText {
		t.Fatalf("encoded\n%s\nencoding/json gives\n%s", e.Bytes(), want.String())
	}
}

func TestValidation(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "types", Version: "0"}, nil)
	RegisterMCP(srv)
	c := mcptest.Connect(t, srv)

	minimal := `{"id":"abc","title":"t","count":0,"pages":{"items":[]},"required":1,"nested":{"depth":0}}`
	res := c.CallTool("echo", json.RawMessage(minimal))
	var out Output
	if err := res.Structured(&out); err != nil || res.IsError {
		t.Fatalf("minimal input: %v %s", err, res.Text())
	}
	if out.Level != "info" || out.Meta != nil || out.Note != nil {
		t.Fatalf("defaults or optional fields wrong: %+v", out)
	}

	tests := []struct {
		change   string // a JSON object merged into the minimal input
		problems []string
	}{
		{`{"id":"ab"}`, []string{"/id: must be at least 3 characters long"}},
		{`{"count":256}`, []string{"/count: must be <= 255"}},
		{`{"count":-1}`, []string{"/count: must be >= 0"}},
		{`{"count":1.5}`, []string{"/count: expected integer, got 1.5"}},
		{`{"delta":-5}`, []string{"/delta: must be > -5"}},
		{`{"delta":6}`, []string{"/delta: must be < 5.5"}},
		{`{"ratio":1.01}`, []string{"/ratio: must be <= 1"}},
		{`{"ratio":1e39}`, []string{"/ratio: must be between"}},
		{`{"level":"warn"}`, []string{`/level: must be one of "debug", "info", "error"`}},
		{`{"tags":[]}`, []string{"/tags: must have at least 1 item"}},
		{`{"tags":["a","bb","cc","dd"]}`, []string{"/tags/0: must be at least 2 characters long", "/tags: must have at most 3 items"}},
		{`{"point":[1]}`, []string{"/point: must have exactly 2 items"}},
		{`{"point":[1,2,3]}`, []string{"/point: must have exactly 2 items"}},
		{`{"labels":{"a":1,"b":2,"c":3}}`, []string{"/labels: must have at most 2 properties"}},
		{`{"labels":{"a":"1"}}`, []string{"/labels/a: expected integer, got string"}},
		{`{"payload":"not base64!"}`, []string{"/payload: must be base64-encoded"}},
		{`{"tree":{"name":"r","children":[{"children":[]}]}}`, []string{"/tree/children/0/name: missing required property"}},
		{`{"pages":{"items":[{"name":1}]}}`, []string{"/pages/items/0/name: expected string, got number"}},
		{`{"weekday":7}`, []string{"/weekday: must be <= 6"}},
		{`{"enabled":null}`, []string{"/enabled: must not be null; leave the property out instead"}},
		{`{"required":null}`, []string{"/required: expected integer, got null"}},
		{`{"nested":{"depth":1,"extra":2}}`, []string{`/nested/extra: unknown property; expected one of "depth"`}},
		{`{"comma":"a"}`, []string{"/comma: must match the pattern ^a,b$"}},
		{`{"formula":{"terms":[{"sub":{"terms":[{"value":"x"}]}}]}}`, []string{"/formula/terms/0/value: missing required property", "/formula/terms/0/sub/terms/0/value: expected number, got string"}},
		{`{"place":{"lat":91,"lon":0}}`, []string{"/place/lat: must be <= 90"}},
		{`{"Hidden":"x"}`, []string{"/Hidden: unknown property"}},
		{`{"Skip":"x"}`, []string{"/Skip: unknown property"}},
		{`{"title":"` + strings.Repeat("é", 81) + `"}`, []string{"/title: must be at most 80 characters long"}},
	}
	for _, tt := range tests {
		var doc map[string]any
		json.Unmarshal([]byte(minimal), &doc)
		var change map[string]any
		if err := json.Unmarshal([]byte(tt.change), &change); err != nil {
			t.Fatal(err)
		}
		for k, v := range change {
			doc[k] = v
		}
		res := c.CallTool("echo", doc)
		if !res.IsError {
			t.Errorf("%s accepted", tt.change)
			continue
		}
		for _, p := range tt.problems {
			if !strings.Contains(res.Text(), p) {
				t.Errorf("%s: result does not mention %q:\n%s", tt.change, p, res.Text())
			}
		}
	}

	res = c.CallTool("echo", map[string]any{})
	for _, field := range []string{"id", "title", "count", "pages", "required", "nested"} {
		if !strings.Contains(res.Text(), "/"+field+": missing required property") {
			t.Errorf("empty input: %q not reported missing:\n%s", field, res.Text())
		}
	}
}
