package mcp

import (
	"encoding/json"
	"math"
	"strconv"
	"testing"
	"time"
)

// The arguments a caller gives as a map are written without reflection, exactly as
// encoding/json writes them (but for <, > and &, which encoding/json escapes and need not
// be); any other value falls back to encoding/json.
func TestEncodeParamsAgreesWithEncodingJSON(t *testing.T) {
	for _, args := range []map[string]any{
		{},
		{"query": "model context protocol", "limit": 5, "tags": []string{"go", "mcp"}, "sort": "relevance"},
		{"b": true, "a": false, "n": nil, "f": 1.5, "big": 1e21, "small": 1e-7, "neg": -0.0, "f32": float32(0.1)},
		{"i64": int64(math.MaxInt64), "i32": int32(-7), "u": uint(3), "u64": uint64(math.MaxUint64)},
		{"nested": map[string]any{"z": []any{1, "two", map[string]any{"x": nil}}, "a": map[string]string{"k": "v", "j": "w"}}},
		{"escapes": "quote \" backslash \\ newline \n tab \t nul \x00 é \u2028", "ключ": "значение", "": "empty key"},
		{"nilslice": []string(nil), "nilmap": map[string]any(nil), "empty": []any{}},
	} {
		got, err := encodeParams(args)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(args)
		var g, w any
		if json.Unmarshal(got, &g) != nil || json.Unmarshal(want, &w) != nil {
			t.Fatalf("%s is not JSON", got)
		}
		gb, _ := json.Marshal(g)
		wb, _ := json.Marshal(w)
		if string(gb) != string(wb) {
			t.Errorf("encodeParams(%v) = %s, encoding/json %s", args, got, want)
		}
		if _, ok := appendObject(nil, args); !ok {
			t.Errorf("%v: written by encoding/json, want the fast path", args)
		}
	}
	// What the fast path does not write falls back to encoding/json, errors and all.
	for _, args := range []map[string]any{
		{"when": time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)},
		{"raw": json.RawMessage(`{"a":1}`)},
		{"list": []int{1, 2}},
	} {
		if _, ok := appendObject(nil, args); ok {
			t.Errorf("%v: written by the fast path, want encoding/json", args)
		}
		got, err := encodeParams(args)
		want, _ := json.Marshal(args)
		if err != nil || string(got) != string(want) {
			t.Errorf("encodeParams(%v) = %s, %v; want %s", args, got, err, want)
		}
	}
	if _, err := encodeParams(map[string]any{"nan": math.NaN()}); err == nil {
		t.Error("NaN encoded, want encoding/json's error")
	}
}

// A call's arguments are written in one allocation, members sorted by key as encoding/json
// sorts them: sorting the keys with slices.Sorted(maps.Keys(m)) and growing the buffer from
// nothing took 11 for these.
func TestEncodeParamsAllocatesOnce(t *testing.T) {
	args := map[string]any{"query": "model context protocol", "limit": 5, "tags": []string{"go", "mcp"}, "sort": "relevance"}
	want := `{"limit":5,"query":"model context protocol","sort":"relevance","tags":["go","mcp"]}`
	var got []byte
	if n := testing.AllocsPerRun(100, func() { got, _ = encodeParams(args) }); n != 1 {
		t.Errorf("encodeParams allocates %v times, want 1", n)
	}
	if string(got) != want {
		t.Errorf("encodeParams = %s, want %s", got, want)
	}
	// More keys than the room on the stack: still sorted.
	many := map[string]any{}
	wantMany := "{"
	for i := range 20 {
		k := string(rune('a'+i)) + string(rune('a'+i))
		many[k] = i
		if i > 0 {
			wantMany += ","
		}
		wantMany += `"` + k + `":` + strconv.Itoa(i)
	}
	wantMany += "}"
	if got, err := encodeParams(many); err != nil || string(got) != wantMany {
		t.Errorf("encodeParams of 20 keys = %s, %v; want %s", got, err, wantMany)
	}
}
