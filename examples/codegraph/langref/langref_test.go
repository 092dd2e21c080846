package langref

import (
	"strings"
	"testing"
)

// A call the reference says goes outside the project is a false positive when codegraph
// resolved it into the project, and nothing when codegraph left it alone; a call the
// reference could not resolve is neither.
func TestCompareCountsOutsideCalls(t *testing.T) {
	ref, err := ReadRef(strings.NewReader(`{"file": "a.rs", "line": 1, "col": 5, "name": "f", "targets": [["a.rs", 9]]}
{"file": "a.rs", "line": 2, "col": 5, "name": "len", "targets": [], "outside": true}
{"file": "a.rs", "line": 3, "col": 5, "name": "push", "targets": [], "outside": true}
{"file": "a.rs", "line": 4, "col": 5, "name": "fmt", "targets": []}
`))
	if err != nil {
		t.Fatal(err)
	}
	s := Compare(ref, []Edge{
		{Site{"a.rs", 1, 5}, Place{"a.rs", 9}, "scope"},
		{Site{"a.rs", 2, 5}, Place{"b.rs", 3}, "name"},
		{Site{"a.rs", 4, 5}, Place{"b.rs", 7}, "name"},
	})
	if s.Sites != 4 || s.Resolved != 1 || s.TP != 1 || s.FP != 1 || s.Outside != 1 || s.FN != 0 || s.Unconfirmed != 1 {
		t.Errorf("Compare = %s", s)
	}
	if s.ByResolution["name"].FP != 1 || s.ByResolution["scope"].TP != 1 {
		t.Errorf("by resolution: name %+v, scope %+v", s.ByResolution["name"], s.ByResolution["scope"])
	}
	if len(s.Wrong) != 1 || !strings.Contains(s.Wrong[0], "a.rs:2:5 len: codegraph b.rs:3 (name), reference outside") {
		t.Errorf("Wrong = %q", s.Wrong)
	}
}
