package jsonwire

import "testing"

func TestPeekMember(t *testing.T) {
	for _, c := range []struct {
		in, key, want string
	}{
		{` {"type": "card", "n": 1}`, "type", `"card"`},
		{`{"n": {"type": "inner"}, "type": "outer"}`, "type", `"outer"`}, // not the nested one
		{`{"type": "a", "type": "b"}`, "type", `"b"`},                    // the last, as decoding keeps
		{`{"n": 1}`, "type", ""},
		{`{}`, "type", ""},
		{`["type"]`, "type", ""},
		{`"type"`, "type", ""},
		{`{"type": "a", "broken": }`, "type", ""}, // invalid JSON: nothing
		{`{"t\u0079pe": [1, 2]}`, "type", `[1, 2]`},
	} {
		d := NewDecoder([]byte(c.in))
		if got := string(d.PeekMember(c.key)); got != c.want {
			t.Errorf("PeekMember(%q) of %s = %q, want %q", c.key, c.in, got, c.want)
		}
		// Nothing consumed, nothing reported: the value decodes as if never looked at.
		d.Skip()
		d.Finish()
		if valid := !d.SyntaxError(); valid != (c.in != `{"type": "a", "broken": }`) || d.Failed() && valid {
			t.Errorf("%s after PeekMember: %s", c.in, d.Summary())
		}
	}
}

func TestPeekString(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
		ok   bool
	}{
		{`{"type":"card"}`, "card", true},
		{`{"type":"c\u0061rd"}`, "card", true},
		{`{"type":7}`, "", false},
		{`{"type":null}`, "", false},
		{`{"other":"card"}`, "", false},
		{`7`, "", false},
	} {
		d := NewDecoder([]byte(c.in))
		got, ok := d.PeekString("type")
		if got != c.want || ok != c.ok || d.Failed() {
			t.Errorf("PeekString of %s = %q, %v (%s); want %q, %v", c.in, got, ok, d.Summary(), c.want, c.ok)
		}
	}
}

func TestPeekInteger(t *testing.T) {
	for in, want := range map[string]bool{
		`1`: true, ` -7`: true, `2.0`: true, `1e2`: true, `9223372036854775807`: true,
		`1.5`: false, `9223372036854775808`: false, `1e300`: false, `"1"`: false, `null`: false, `[1]`: false,
	} {
		d := NewDecoder([]byte(in))
		if got := d.PeekInteger(); got != want {
			t.Errorf("PeekInteger(%s) = %v, want %v", in, got, want)
		}
		if d.Failed() {
			t.Errorf("PeekInteger(%s) reported %s", in, d.Summary())
		}
		d.Skip()
		d.Finish()
		if d.Failed() {
			t.Errorf("%s after PeekInteger: %s", in, d.Summary())
		}
	}
}

// Looking ahead allocates nothing but the string PeekString returns: the decoder of the
// look-ahead stays on the stack.
func TestPeekAllocations(t *testing.T) {
	data := []byte(`{"id":12,"name":"x","nested":{"a":[1,2,3]},"type":"card"}`)
	d := NewDecoder(data)
	if n := testing.AllocsPerRun(100, func() {
		if s, ok := d.PeekString("type"); !ok || s != "card" {
			t.Fatal(s)
		}
		d.PeekInteger()
	}); n > 1 {
		t.Errorf("%v allocations", n)
	}
}
