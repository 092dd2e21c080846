package outcheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// checkSchemas are output schemas of the shapes tools have: what mcpgen generates (objects
// of typed properties, required, additionalProperties false, arrays, bounds, enums,
// patterns, $defs and $ref, nullable as anyOf), and combinations of the other keywords the
// compiled check implements.
var checkSchemas = []string{
	// bench's search tool, as mcpgen generates it
	`{"type":"object","properties":{"hits":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"},"title":{"type":"string"},"score":{"type":"number"},"snippet":{"type":"string"},"tags":{"type":"array","items":{"type":"string"}}},"required":["id","title","score","snippet"],"additionalProperties":false}},"total":{"type":"integer"}},"required":["hits","total"],"additionalProperties":false}`,
	`{"type":"object","properties":{"n":{"type":"integer","minimum":-5,"maximum":10},"x":{"type":"number","exclusiveMinimum":0.5,"exclusiveMaximum":2.25}},"required":["n"]}`,
	`{"type":"object","properties":{"s":{"type":"string","minLength":2,"maxLength":4,"pattern":"^[a-zé]+$"},"e":{"enum":["a","b",1,true,null]},"c":{"const":"k"}},"additionalProperties":{"type":"boolean"},"maxProperties":3}`,
	`{"type":"object","properties":{"next":{"$ref":"#/$defs/node"}},"$defs":{"node":{"type":["object","null"],"properties":{"v":{"type":"integer"},"next":{"$ref":"#/$defs/node"}},"required":["v"]}}}`,
	`{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}],"items":false,"minItems":1,"maxItems":2}`,
	`{"anyOf":[{"type":"string"},{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}],"allOf":[{"not_a_keyword_here":null}]}`,
	`{"allOf":[{"type":"object","properties":{"a":{"type":"string"}}},{"required":["a","b"]}],"description":"two halves","x-extra":1}`,
	`{"$ref":"#/$defs/t","$defs":{"t":{"type":"object","properties":{"t":{"$ref":"#"}}}}}`,
	`true`,
	`{"type":"object","properties":{"a":false}}`,
	`{"type":"object","properties":{"u":{"anyOf":[{"type":"string","format":"uuid"},{"type":"null"}]}}}`,
}

// checkValues are values to check against each schema: valid, invalid, and what the
// compiled check cannot tell (exponents, many digits, duplicate keys, escapes, bad JSON).
var checkValues = []string{
	`{"hits":[{"id":"1","title":"t","score":0.5,"snippet":"s","tags":["go"]}],"total":1}`,
	`{"hits":[{"id":"1","title":"t","score":0.5,"snippet":"s"}],"total":1.0}`,
	`{"hits":[{"id":"1","title":"t","score":0.5}],"total":1}`,
	`{"hits":[],"total":1.5}`,
	`{"hits":[],"total":1e2}`,
	`{"hits":[],"total":12345678901234567890}`,
	`{"hits":[{"id":"1","title":"t","score":0.8333333333333334,"snippet":"s"}],"total":2}`,
	`{"hits":[{"id":"1","title":"t","score":1e-7,"snippet":"s"}],"total":2}`,
	`{"hits":[],"total":1,"more":true}`,
	`{"hits":[],"total":1}  `,
	`{"hits":[],"total":1} x`,
	`{"hits":[],"total":`,
	`{"n":10,"x":2.2}`, `{"n":11}`, `{"n":-5,"x":0.5}`, `{"n":3,"x":2.25}`, `{"n":3.0}`, `{"x":1}`,
	`{"s":"abé","e":"b","c":"k"}`, `{"s":"a"}`, `{"s":"abcde"}`, `{"s":"AB"}`, `{"s":"a\u00e9"}`,
	`{"e":1.0}`, `{"e":2}`, `{"e":null}`, `{"e":false}`, `{"c":"j"}`, `{"z":true}`, `{"z":1}`,
	`{"a":1,"b":true,"z":false,"y":true}`, `{"e":"a","e":"z"}`, `{"c":"j","c":"k"}`,
	`{"next":{"v":1,"next":{"v":2,"next":null}}}`, `{"next":{"v":1,"next":{"next":null}}}`, `{"next":null}`,
	`["a"]`, `["a",1]`, `["a",1,2]`, `[]`, `[1]`, `["a",1.5]`,
	`"str"`, `{"a":1}`, `{"a":"x"}`, `{"a":"x","b":2}`, `{"b":2}`, `null`, `true`, `3`,
	`{"t":{"t":{}}}`, `{"t":1}`,
	`{"u":"123e4567-e89b-12d3-a456-426614174000"}`, `{"u":"not a uuid"}`, `{"u":null}`, `{"u":3}`,
	`{"s":"ab\ud800"}`, "{\"s\":\"a\xff\"}",
}

// validByTheValidator is the general validator's verdict: what checkStructured decides
// without the compiled check.
func validByTheValidator(t testing.TB, schema, value []byte) (bool, error) {
	s, err := General("t", schema)
	if err != nil {
		return false, err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(value))
	if err != nil {
		return false, nil
	}
	return s.Validate(v) == nil, nil
}

// The compiled check says "valid" only when the general validator does, and it does say so
// for the valid values it can read exactly (or it would save nothing).
func TestOutputCheckAgreesWithTheValidator(t *testing.T) {
	compiled := 0
	decided := 0
	for _, schema := range checkSchemas {
		oc, err := Compile([]byte(schema))
		if err != nil {
			if !errors.Is(err, errUnsupported) {
				t.Errorf("%s: %v", schema, err)
			}
			continue
		}
		compiled++
		for _, value := range checkValues {
			want, err := validByTheValidator(t, []byte(schema), []byte(value))
			if err != nil {
				t.Fatal(err)
			}
			got := oc.Valid([]byte(value))
			switch {
			case got && !want:
				t.Errorf("schema %s: the compiled check takes %s, which the validator refuses", schema, value)
			case got:
				decided++
			case want && exactlyReadable(value):
				t.Errorf("schema %s: the compiled check refuses %s, which is valid", schema, value)
			}
		}
	}
	if compiled != len(checkSchemas)-1 { // all but the one with an unknown keyword
		t.Errorf("%d of %d schemas compiled", compiled, len(checkSchemas))
	}
	if decided < 40 {
		t.Errorf("the compiled check decided only %d valid values", decided)
	}
}

// exactlyReadable reports whether the compiled check can tell a value's validity: valid
// UTF-8 JSON without exponents or long numbers, lone surrogates or duplicate keys.
func exactlyReadable(value string) bool {
	if !json.Valid([]byte(value)) {
		return false
	}
	for _, hard := range []string{`"total":1e2`, "12345678901234567890", `\ud800`, `"e":"a","e"`, `"c":"j","c"`} {
		if bytes.Contains([]byte(value), []byte(hard)) {
			return false
		}
	}
	return true
}

// The keywords whose verdict a "cannot tell" could turn around, or that the compiled check
// does not implement, leave the schema to the general validator.
func TestOutputCheckLeavesOtherKeywordsToTheValidator(t *testing.T) {
	for _, schema := range []string{
		`{"oneOf":[{"type":"string"},{"type":"integer"}]}`,
		`{"not":{"type":"string"}}`,
		`{"type":"object","minProperties":1}`,
		`{"type":"object","patternProperties":{"^a":{"type":"string"}}}`,
		`{"type":"array","uniqueItems":true}`,
		`{"type":"number","multipleOf":2}`,
		`{"$ref":"https://example.com/schema.json"}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`,
		`{"type":"object","properties":{"a":{"$id":"inner","type":"string"}}}`,
		`{"enum":[{"a":1}]}`,
		`{"type":"number","maximum":1e3}`,
		`{"type":"object","if":{"required":["a"]},"then":{"required":["b"]}}`,
	} {
		if _, err := Compile([]byte(schema)); !errors.Is(err, errUnsupported) {
			t.Errorf("%s compiled (err %v); want it left to the validator", schema, err)
		}
	}
}

// A result checked against its schema costs no allocation.
func TestOutputCheckAllocatesNothing(t *testing.T) {
	oc, err := Compile([]byte(checkSchemas[0]))
	if err != nil {
		t.Fatal(err)
	}
	value := []byte(`{"hits":[{"id":"doc-1","title":"Model Context Protocol","score":0.9333333333333333,"snippet":"a \"quoted\" word","tags":["go","mcp"]},{"id":"doc-2","title":"t","score":1,"snippet":"s"}],"total":2}`)
	if !oc.Valid(value) {
		t.Fatal("a valid result was refused")
	}
	if n := testing.AllocsPerRun(100, func() { oc.Valid(value) }); n != 0 {
		t.Errorf("checking a result allocates %v times", n)
	}
	// Combinations and references read the value again, still without allocating.
	oc, err = Compile([]byte(checkSchemas[3]))
	if err != nil {
		t.Fatal(err)
	}
	value = []byte(`{"next":{"v":1,"next":{"v":2,"next":null}}}`)
	if !oc.Valid(value) {
		t.Fatal("a valid result was refused")
	}
	if n := testing.AllocsPerRun(100, func() { oc.Valid(value) }); n != 0 {
		t.Errorf("checking a result through $ref allocates %v times", n)
	}
}

// A schema whose combinations refer to each other, so that checking a value could take
// 2^60 steps, is given up on quickly (the general validator decides).
func TestOutputCheckBoundsItsWork(t *testing.T) {
	var defs []string
	for i := range 60 {
		defs = append(defs, fmt.Sprintf(`"a%d":{"anyOf":[{"$ref":"#/$defs/a%d"},{"$ref":"#/$defs/a%d"}]}`, i, i+1, i+1))
	}
	defs = append(defs, `"a60":{"type":"string"}`)
	oc, err := Compile([]byte(`{"$ref":"#/$defs/a0","$defs":{` + strings.Join(defs, ",") + `}}`))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan bool)
	go func() { done <- oc.Valid([]byte(`1`)) }()
	select {
	case ok := <-done:
		if ok {
			t.Error("1 is not a string")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the check of a value against a schema of nested anyOf does not end")
	}
}

// FuzzOutputCheck checks the compiled check against the general validator: it may refuse
// what is valid (the client then asks the validator), never take what is not.
func FuzzOutputCheck(f *testing.F) {
	for i := range checkSchemas {
		for _, v := range checkValues {
			f.Add(uint8(i), []byte(v))
		}
	}
	checks := make([]*Check, len(checkSchemas))
	for i, s := range checkSchemas {
		checks[i], _ = Compile([]byte(s))
	}
	f.Fuzz(func(t *testing.T, i uint8, value []byte) {
		oc := checks[int(i)%len(checks)]
		if oc == nil || !oc.Valid(value) {
			return
		}
		schema := checkSchemas[int(i)%len(checks)]
		if ok, _ := validByTheValidator(t, []byte(schema), value); !ok {
			t.Errorf("schema %s: the compiled check takes %q, which the validator refuses", schema, value)
		}
	})
}
