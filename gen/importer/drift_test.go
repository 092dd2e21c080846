package importer

import (
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
