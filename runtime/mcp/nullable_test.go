package mcp

import (
	"encoding/json"
	"testing"
)

// A Nullable's three states, through encoding/json with omitzero: left out, null and a value
// each come back as they went.
func TestNullableThreeStates(t *testing.T) {
	type update struct {
		Milestone Nullable[int64]    `json:"milestone,omitzero"`
		Labels    Nullable[[]string] `json:"labels,omitzero"`
	}
	for _, c := range []struct {
		v    update
		json string
	}{
		{update{}, `{}`},
		{update{Milestone: Null[int64]()}, `{"milestone":null}`},
		{update{Milestone: NotNull[int64](0), Labels: NotNull([]string{"bug"})}, `{"milestone":0,"labels":["bug"]}`},
		{update{Labels: Null[[]string]()}, `{"labels":null}`},
	} {
		data, err := json.Marshal(c.v)
		if err != nil || string(data) != c.json {
			t.Errorf("%+v encodes as %s, %v; want %s", c.v, data, err, c.json)
		}
		var back update
		if err := json.Unmarshal([]byte(c.json), &back); err != nil {
			t.Fatalf("%s: %v", c.json, err)
		}
		if back.Milestone != c.v.Milestone || back.Labels.IsNull() != c.v.Labels.IsNull() || back.Labels.IsZero() != c.v.Labels.IsZero() {
			t.Errorf("%s decodes as %+v, want %+v", c.json, back, c.v)
		}
	}

	var n Nullable[string]
	if _, ok := n.Get(); ok || n.IsNull() || !n.IsZero() {
		t.Errorf("the zero value is %+v: not left out", n)
	}
	n = Null[string]()
	if _, ok := n.Get(); ok || !n.IsNull() || n.IsZero() {
		t.Errorf("Null is %+v", n)
	}
	n = NotNull("")
	if v, ok := n.Get(); !ok || v != "" || n.IsNull() || n.IsZero() {
		t.Errorf("NotNull(\"\") is %+v", n)
	}
	// A value decoded over another state replaces it; a wrong value is an error.
	if err := json.Unmarshal([]byte(` null `), &n); err != nil || !n.IsNull() {
		t.Errorf("null over a value: %+v, %v", n, err)
	}
	if err := json.Unmarshal([]byte(`7`), &n); err == nil {
		t.Errorf("7 into a Nullable[string]: %+v, no error", n)
	}
	// Without omitzero, a left-out field is written as null (encoding/json cannot leave it out).
	if data, _ := json.Marshal(struct{ X Nullable[bool] }{}); string(data) != `{"X":null}` {
		t.Errorf("without omitzero: %s", data)
	}
}
