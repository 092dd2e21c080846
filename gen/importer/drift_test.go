package importer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Each case under testdata/drift is the base snapshot (old.json) changed one way (its
// new.json), with the report Compare gives (report.txt; -update rewrites it). A case's name
// says whether its change breaks callers, and the report must agree.
func TestDrift(t *testing.T) {
	old := readSnapshot(t, "testdata/drift/old.json")
	dirs, _ := filepath.Glob("testdata/drift/*-*")
	if len(dirs) < 20 {
		t.Fatalf("only %d drift cases", len(dirs))
	}
	for _, dir := range dirs {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			changes := Compare(old, readSnapshot(t, filepath.Join(dir, "new.json")))
			var report strings.Builder
			for _, c := range changes {
				report.WriteString(c.String() + "\n")
			}
			wantBreaking := strings.HasPrefix(name, "breaking-")
			if Breaking(changes) != wantBreaking {
				t.Errorf("breaking %v, want %v:\n%s", Breaking(changes), wantBreaking, report.String())
			}
			// Changes that change nothing a caller sees: no report.
			unchanged := name == "compatible-description-changed" || name == "compatible-union-branches-reordered"
			switch {
			case !unchanged && len(changes) == 0:
				t.Error("no change reported")
			case unchanged && len(changes) > 0:
				t.Errorf("changes reported:\n%s", report.String())
			case unchanged && len(Compare(readSnapshot(t, filepath.Join(dir, "new.json")), old)) > 0:
				t.Errorf("changes reported the other way round: %v", Compare(readSnapshot(t, filepath.Join(dir, "new.json")), old))
			}
			path := filepath.Join(dir, "report.txt")
			if *update {
				os.WriteFile(path, []byte(report.String()), 0o644)
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if report.String() != string(want) {
				t.Errorf("report\n%s\nwant\n%s", report.String(), want)
			}
		})
	}
	if changes := Compare(old, old); len(changes) != 0 {
		t.Errorf("a snapshot against itself: %v", changes)
	}
}

func readSnapshot(t *testing.T, path string) *Snapshot {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ReadSnapshot(data)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The elements of an array (or the values of a map) that become nullable are *T in the typed
// client when their type has no nil of its own: []T becomes []*T, which is noted, and the
// other way round; elements whose Go type is nil for null itself (a slice, a map, an
// interface, json.RawMessage) change no Go type, and no note is given.
func TestDriftOfNullableElements(t *testing.T) {
	const slice = "input /properties/x/items: the slice's elements become pointers ([]T becomes []*T, nil for null) when the client is regenerated"
	const values = "input /properties/x/additionalProperties: the map's values become pointers (map[string]T becomes map[string]*T, nil for null) when the client is regenerated"
	const objects = `[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},{"type":"object","properties":{"b":{"type":"string"}},"required":["b"]}`
	for _, c := range []struct{ old, new, note string }{
		{`{"type":"array","items":{"type":"string"}}`, `{"type":"array","items":{"type":["string","null"]}}`, slice},
		{`{"type":"array","items":{"$ref":"#/$defs/Tag"}}`, `{"type":"array","items":{"anyOf":[{"$ref":"#/$defs/Tag"},{"type":"null"}]}}`, slice},
		{`{"type":"array","items":{"$ref":"#/$defs/Tag"}}`, `{"type":"array","items":{"$ref":"#/$defs/Tag","nullable":true}}`, slice},
		{`{"type":"array","items":{"type":["string","integer"]}}`, `{"type":"array","items":{"type":["string","integer","null"]}}`, slice},
		{`{"items":{"type":"string"},"anyOf":[{"type":"array"},{"type":"null"}]}`, `{"items":{"type":"string","nullable":true},"anyOf":[{"type":"array"},{"type":"null"}]}`, slice},
		{`{"type":"object","additionalProperties":{"type":"integer"}}`, `{"type":"object","additionalProperties":{"type":"integer","nullable":true}}`, values},
		{`{"type":"array","items":{"type":"array","items":{"type":"string"}}}`, `{"type":"array","items":{"type":["array","null"],"items":{"type":"string"}}}`, ""},
		{`{"type":"array","items":{"type":"object","additionalProperties":{"type":"string"}}}`, `{"type":"array","items":{"type":"object","additionalProperties":{"type":"string"},"nullable":true}}`, ""},
		{`{"type":"array","items":{"oneOf":` + objects + `]}}`, `{"type":"array","items":{"oneOf":` + objects + `,{"type":"null"}]}}`, ""},
		{`{"type":"array","items":{}}`, `{"type":"array","items":{"nullable":true}}`, ""},
	} {
		snap := func(x string) *Snapshot {
			return &Snapshot{Tools: []Tool{{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{"x":` + x +
				`},"$defs":{"Tag":{"type":"object","properties":{"name":{"type":"string"}}}}}`)}}}
		}
		notes := func(o, n string) string {
			var out []string
			for _, ch := range Compare(snap(o), snap(n)) {
				if strings.Contains(ch.What, "pointers") {
					out = append(out, ch.String())
				}
			}
			return strings.Join(out, "\n")
		}
		forth, back := notes(c.old, c.new), notes(c.new, c.old)
		switch {
		case c.note == "" && (forth != "" || back != ""):
			t.Errorf("%s to %s: %q and back %q, want no note", c.old, c.new, forth, back)
		case c.note != "" && forth != "compatible: tool t: "+c.note:
			t.Errorf("%s to %s: %q, want %q", c.old, c.new, forth, c.note)
		case c.note != "" && (!strings.Contains(back, "are no longer pointers") || !strings.HasPrefix(back, "compatible: tool t: "+c.note[:strings.Index(c.note, ": ")])):
			t.Errorf("%s to %s: %q", c.new, c.old, back)
		}
	}
}
