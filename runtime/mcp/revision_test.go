package mcp

import (
	"slices"
	"testing"
)

func TestRevisions(t *testing.T) {
	// The version lists the protocol sees are the ones this runtime always sent.
	if want := []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}; !slices.Equal(statefulVersions, want) {
		t.Errorf("statefulVersions = %v, want %v", statefulVersions, want)
	}
	if want := []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}; !slices.Equal(allVersions, want) {
		t.Errorf("allVersions = %v, want %v", allVersions, want)
	}
	// Dates order revisions: the enum must keep their order, and parse its own names.
	for r := revision(0); r < numRevisions; r++ {
		got, ok := parseRevision(r.String())
		if !ok || got != r {
			t.Errorf("parseRevision(%q) = %v, %v; want %v", r.String(), got, ok, r)
		}
		if r > 0 && r.String() <= (r-1).String() {
			t.Errorf("revision %d (%s) does not come after %s", r, r, r-1)
		}
	}
	for _, v := range []string{"", "2025-11-26", "2026-07-28 ", "latest"} {
		if _, ok := parseRevision(v); ok {
			t.Errorf("parseRevision(%q) succeeded", v)
		}
	}
	if negotiate("2025-06-18") != rev20250618 || negotiate("1999-01-01") != rev20251125 || negotiate(StatelessProtocolVersion) != rev20251125 {
		t.Error("negotiate answers initialize with the client's revision with sessions, else the newest")
	}
}

func TestRevisionSets(t *testing.T) {
	for r := revision(0); r < numRevisions; r++ {
		if got, want := from(rev20250618).has(r), r >= rev20250618; got != want {
			t.Errorf("from(2025-06-18).has(%s) = %v", r, got)
		}
		if got, want := until(rev20250618).has(r), r < rev20250618; got != want {
			t.Errorf("until(2025-06-18).has(%s) = %v", r, got)
		}
	}
	// The predicates, against the dates the protocol's changelogs give.
	for _, c := range []struct {
		name string
		pred func(revision) bool
		from string
	}{
		{"toolAnnotations", revision.toolAnnotations, "2025-03-26"},
		{"titles", revision.titles, "2025-06-18"},
		{"elicitationModes", revision.elicitationModes, "2025-11-25"},
		{"samplingContextDeclared", revision.samplingContextDeclared, "2025-11-25"},
		{"primingEvents", revision.primingEvents, "2025-11-25"},
		{"stateless", revision.stateless, "2026-07-28"},
		{"tasks", revision.tasks, "2026-07-28"},
	} {
		for r := revision(0); r < numRevisions; r++ {
			if got, want := c.pred(r), r.String() >= c.from; got != want {
				t.Errorf("%s(%s) = %v, want %v", c.name, r, got, want)
			}
		}
	}
	for r := revision(0); r < numRevisions; r++ {
		d := r.dialect()
		if d.titles() != r.titles() || d.toolAnnotations() != r.toolAnnotations() || d.titleInAnnotations() != r.titleInAnnotations() {
			t.Errorf("dialect %d of %s disagrees with its revision", d, r)
		}
	}
}
