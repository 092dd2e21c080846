package mcp

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// specMethod is one line of testdata/methods/<revision>.txt: a method of the revision, who
// sends it, and whether it is a request ("request", or "input" for a request of the stateless
// revision a server makes inside an InputRequiredResult) or a notification.
type specMethod struct {
	direction, kind, name string
}

// specMethods reads the methods each revision has, as its schema lists them.
func specMethods(t *testing.T) map[revision][]specMethod {
	t.Helper()
	all := map[revision][]specMethod{}
	files, err := filepath.Glob("testdata/methods/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		version := strings.TrimSuffix(filepath.Base(file), ".txt")
		rev, ok := parseRevision(version)
		if !ok {
			t.Errorf("%s: %s is not a revision this runtime knows", file, version)
			continue
		}
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for n := 1; sc.Scan(); n++ {
			line := sc.Text()
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			fields := strings.Fields(line)
			if len(fields) != 3 {
				t.Fatalf("%s:%d: want direction, kind and method, got %q", file, n, line)
			}
			all[rev] = append(all[rev], specMethod{fields[0], fields[1], fields[2]})
		}
		f.Close()
	}
	for r := revision(0); r < numRevisions; r++ {
		if len(all[r]) == 0 {
			t.Errorf("testdata/methods/%s.txt is missing: copy its methods from the revision's schema.json", r)
		}
	}
	return all
}

// notHandled are the methods of a revision's schema that this runtime does not speak in that
// revision ("<revision> <method>"), and why.
var notHandled = map[string]string{}

func init() {
	// 2025-11-25 has tasks of its own, experimental, which the tasks extension of 2026-07-28
	// replaced: mcpgen's server speaks the extension only (its client follows a 2025-11-25
	// server's tasks, so the parser knows their names).
	for _, m := range []string{"tasks/get", "tasks/result", "tasks/cancel", "tasks/list", "notifications/tasks/status"} {
		notHandled["2025-11-25 "+m] = "the experimental tasks of 2025-11-25: mcpgen speaks the tasks extension of 2026-07-28"
	}
}

// handled reports whether the runtime speaks method m in revision r.
func handled(r revision, m string) bool { return notHandled[r.String()+" "+m] == "" }

// TestMethodTableAgainstSchema checks the method table against the methods each revision's
// schema lists: a row must be in exactly the revisions that have its method, and every
// method a client may send a server must have a row or say in notHandled why it has none.
// A method a future revision adds fails here until it is handled or listed.
func TestMethodTableAgainstSchema(t *testing.T) {
	spec := specMethods(t)
	for r, list := range spec {
		served := map[string]bool{}
		for _, m := range list {
			if m.direction != "client" || m.kind != "request" || !handled(r, m.name) {
				continue
			}
			served[m.name] = true
			switch row := methods[m.name]; {
			case row == nil:
				t.Errorf("%s: the client request %s has no row in the method table and no reason in notHandled", r, m.name)
			case !row.in(r):
				t.Errorf("%s: the client request %s is in the revision, but its row leaves the revision out", r, m.name)
			}
		}
		for name, row := range methods {
			if row.in(r) && !served[name] {
				t.Errorf("%s: the method table serves %s, which the revision's schema does not have", r, name)
			}
		}
	}
}

// TestParserKnowsEveryMethod checks that the parser interns the name of every method the
// runtime handles in any revision, whichever side sends it, and no name the schemas lack.
func TestParserKnowsEveryMethod(t *testing.T) {
	known := methodNames()
	listed := map[string]bool{}
	for r, list := range specMethods(t) {
		for _, m := range list {
			listed[m.name] = true
			if handled(r, m.name) && !slices.Contains(known, m.name) {
				t.Errorf("%s: %s %s %s is not among the parser's method names", r, m.direction, m.kind, m.name)
			}
		}
	}
	for _, name := range known {
		if !listed[name] {
			t.Errorf("the parser knows %s, which no revision's schema lists", name)
		}
	}
}
