package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
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

// notHandled are the lines of testdata/methods that this runtime does not handle
// ("<revision> <direction> <kind> <method>"), and why.
var notHandled = map[string]string{}

func init() {
	// 2025-11-25 has tasks of its own, experimental, which the tasks extension of 2026-07-28
	// replaced: mcpgen's server speaks the extension only, and its client follows a
	// 2025-11-25 server's tasks (client_tasks.go) but has none of its own for a server to ask
	// about.
	const experimental = "the experimental tasks of 2025-11-25: mcpgen's server speaks the tasks extension of 2026-07-28"
	for _, m := range []string{"tasks/get", "tasks/result", "tasks/cancel", "tasks/list"} {
		notHandled["2025-11-25 client request "+m] = experimental
		notHandled["2025-11-25 server request "+m] = "a client's own tasks (2025-11-25): mcpgen's client runs none"
	}
	notHandled["2025-11-25 client notification notifications/tasks/status"] = experimental
}

// handled reports whether the runtime handles a line of a revision's methods.
func handled(r revision, m specMethod) bool {
	return notHandled[r.String()+" "+m.direction+" "+m.kind+" "+m.name] == ""
}

// handles reports whether a row handles a method the way a line of a revision's list says
// it is sent: a server serves a client's request and handles its notifications, a client
// answers a server's requests (and input requests) and handles its notifications; the peer
// handles cancellation and progress either way.
func (row *method) handles(m specMethod) bool {
	switch m.direction + " " + m.kind {
	case "client request":
		return row.serve != nil
	case "server request", "server input":
		return row.answer != nil
	case "client notification":
		return row.onServer != nil || row.peer
	case "server notification":
		return row.onClient != nil || row.peer
	}
	return false
}

// TestMethodTableAgainstSchema checks the method table against the methods each revision's
// schema lists, both ways: every method of a revision, whichever side sends it, has a row
// that handles it in that revision, unless notHandled says why not; and every part a row
// plays in a revision (serve, answer, onServer, onClient, peer) is one the revision's schema
// has. A row that handles nothing (a request mcpgen only sends) must name a method of each
// of its revisions. A method a future revision adds fails here until it is handled or
// listed. The parser knows the names of the rows, so it knows every method listed here.
func TestMethodTableAgainstSchema(t *testing.T) {
	spec := specMethods(t)
	for r, list := range spec {
		listed := map[string][]specMethod{}
		for _, m := range list {
			listed[m.name] = append(listed[m.name], m)
			if !handled(r, m) {
				continue
			}
			switch row := methods[m.name]; {
			case row == nil:
				t.Errorf("%s: %s %s %s has no row in the method table and no reason in notHandled", r, m.direction, m.kind, m.name)
			case !row.handles(m):
				t.Errorf("%s: %s %s %s: its row does not handle it (no serve, answer, onServer, onClient or peer for it)", r, m.direction, m.kind, m.name)
			case !row.in(r):
				t.Errorf("%s: %s %s %s is in the revision, but its row's revs leave the revision out", r, m.direction, m.kind, m.name)
			}
		}
		for name, row := range methods {
			if !row.in(r) {
				continue
			}
			if len(listed[name]) == 0 {
				t.Errorf("%s: the method table has %s in the revision, whose schema does not have it", r, name)
				continue
			}
			for _, part := range []struct {
				plays bool
				as    []string
			}{
				{row.serve != nil, []string{"client request"}},
				{row.answer != nil, []string{"server request", "server input"}},
				{row.onServer != nil, []string{"client notification"}},
				{row.onClient != nil, []string{"server notification"}},
				{row.peer, []string{"client notification", "server notification"}},
			} {
				if part.plays && !slices.ContainsFunc(listed[name], func(m specMethod) bool {
					return slices.Contains(part.as, m.direction+" "+m.kind) && handled(r, m)
				}) {
					t.Errorf("%s: the method table handles %s as a %s, which the revision's schema does not have", r, name, strings.Join(part.as, " or "))
				}
			}
		}
	}
}

// TestClientAnswersFromTheTable checks the client's side of the table: a request of the
// server is answered when its row has an answer and the client declared the capability, else
// "method not found"; a notification goes to its row's handler, else to ServerNotification.
func TestClientAnswersFromTheTable(t *testing.T) {
	var got []string
	c := &Client{opts: ClientOptions{
		Roots:              []Root{},
		ToolsChanged:       func() { got = append(got, "tools changed") },
		ServerNotification: func(method string, _ json.RawMessage) { got = append(got, "other "+method) },
	}, tools: map[string]*knownTool{}}
	for method, want := range map[string]bool{
		methodPing:          true,
		methodListRoots:     true,  // declared: Roots is set
		methodCreateMessage: false, // not declared
		methodElicit:        false,
		methodToolsCall:     false, // the server's to answer
		"no/such":           false,
	} {
		a := c.admit(context.Background(), &jsonrpc.Message{Method: method})
		if (a.refuse == nil) != want {
			t.Errorf("admit %s: refused %v, want answered %v", method, a.refuse, want)
		}
		if _, err := c.answer(context.Background(), method, nil); (err == nil) != want {
			t.Errorf("answer %s: %v, want answered %v", method, err, want)
		}
	}
	for _, method := range []string{notificationToolsListChanged, "notifications/other", notificationPromptsListChanged} {
		c.notified(&jsonrpc.Message{Method: method})
	}
	if want := []string{"tools changed", "other notifications/other"}; !slices.Equal(got, want) {
		t.Errorf("notifications handled as %q, want %q", got, want)
	}
}
