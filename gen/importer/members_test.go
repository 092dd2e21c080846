package importer

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// parseSlow is parseSchema as encoding/json reads it: what the scanners must agree with.
func parseSlow(raw json.RawMessage) (*schema, error) {
	var s schema
	if t := bytes.TrimSpace(raw); len(t) == 0 || string(t) == "true" {
		return &s, nil
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	if len(s.Properties) > 0 {
		var holder struct {
			Properties json.RawMessage `json:"properties"`
		}
		json.Unmarshal(raw, &holder)
		d := json.NewDecoder(bytes.NewReader(holder.Properties))
		d.Token()
		for d.More() {
			k, _ := d.Token()
			s.order = append(s.order, k.(string))
			var skip json.RawMessage
			d.Decode(&skip)
		}
	}
	return &s, nil
}

// sameSchema compares two parses, their raw values as bytes.
func sameSchema(t *testing.T, raw []byte, fast, slow *schema) {
	t.Helper()
	f, _ := json.Marshal(fast)
	s, _ := json.Marshal(slow)
	if !bytes.Equal(f, s) || !reflect.DeepEqual(fast.order, slow.order) {
		t.Errorf("%s\nread as   %s %q\nJSON says %s %q", raw, f, fast.order, s, slow.order)
	}
}

// Every object in the golden documents (OpenAPI's and the typed clients' snapshots) reads
// the same through the scanners as through encoding/json.
func TestSchemasReadAsEncodingJSONReadsThem(t *testing.T) {
	var files []string
	for _, pattern := range []string{"../../golden/openapi/*/openapi.*", "../../golden/import/*/*.json", "testdata/drift/*/*.json"} {
		m, _ := filepath.Glob(pattern)
		files = append(files, m...)
	}
	objects := 0
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil || !json.Valid(data) {
			continue // YAML
		}
		var walk func(raw []byte)
		walk = func(raw []byte) {
			if members(raw, func(_ string, v []byte) bool { walk(v); return true }) {
				objects++
				fast, err1 := parseSchema(raw)
				slow, err2 := parseSlow(raw)
				if (err1 == nil) != (err2 == nil) {
					t.Errorf("%s: %s: %v, encoding/json: %v", path, raw, err1, err2)
				} else if err1 == nil {
					sameSchema(t, raw, fast, slow)
				}
				sameLimits(t, raw)
				sameObject(t, raw)
				return
			}
			elements(raw, func(v []byte) bool { walk(v); return true })
		}
		walk(data)
	}
	if objects < 1000 {
		t.Fatalf("only %d objects read", objects)
	}
}

// What json.Unmarshal reads, the scanners read alike, or leave to it; they never fail
// otherwise, whatever the bytes.
func FuzzParseSchema(f *testing.F) {
	for _, seed := range []string{`{}`, `{"type":"string","enum":["a",null]}`, `{"properties":{"a":{},"b":{"type":"x"}},"required":["a"]}`,
		`{"Type":"string"}`, `{"type":"a","type":"b"}`, `{"description":"caf\u00e9 \"q\""}`, `{"nullable":1}`, `{"allOf":[{"$ref":"#/x"}]}`,
		`{"properties":{"a":1,"a":2}}`, `{"items":[1,{"a":"]"}]} `, `null`, `[1]`, `{"a":}`, `{"description":"é"}`,
		`{"minimum":1,"maxLength":3,"pattern":"^a$","uniqueItems":true,"MinItems":2}`, `{"minLength":-1}`, `{"maximum":null}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		fast, err1 := parseSchema(raw)
		if !json.Valid(raw) {
			return
		}
		slow, err2 := parseSlow(raw)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("%s: %v, encoding/json: %v", raw, err1, err2)
		}
		if err1 == nil {
			sameSchema(t, raw, fast, slow)
		}
		sameLimits(t, raw)
		sameObject(t, raw)
	})
}

// sameObject compares objectOf with json.Unmarshal into a map.
func sameObject(t *testing.T, raw []byte) {
	t.Helper()
	fast, ok := objectOf(raw)
	var slow map[string]json.RawMessage
	err := json.Unmarshal(raw, &slow)
	if ok != (err == nil) || ok && !reflect.DeepEqual(fast, slow) {
		t.Errorf("%s: object read as %q (%v), JSON says %q (%v)", raw, fast, ok, slow, err)
	}
}

// sameLimits compares limits.read with json.Unmarshal.
func sameLimits(t *testing.T, raw []byte) {
	t.Helper()
	var fast, slow limits
	err1, err2 := fast.read(raw), json.Unmarshal(raw, &slow)
	if (err1 == nil) != (err2 == nil) || err1 == nil && !reflect.DeepEqual(fast, slow) {
		t.Errorf("%s: limits read as %+v (%v), JSON says %+v (%v)", raw, fast, err1, slow, err2)
	}
}
