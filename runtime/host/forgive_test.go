package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/scripted"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// The host forgives what real servers do (issue 25), with scripted servers that do it.

// A server is ready once it answered: a list it cannot give is reported on its own, and
// its other lists are in the registry. A list the host is told to skip is not asked for.
func TestListsFailOnTheirOwn(t *testing.T) {
	h, _ := start(t, Options{},
		scriptedCommand(scripted.Script{Name: "nodb", Tools: []string{"query"}, Resources: []string{"db://tables"},
			Fail: map[string]string{"resources/list": "no database at localhost:5432"}}),
		scriptedCommand(scripted.Script{Name: "noprompts", Tools: []string{"hello"}, Declare: []string{"prompts"},
			NotFound: []string{"prompts/list"}}),
		scriptedCommand(scripted.Script{Name: "quiet", Declare: []string{"tools", "prompts"}, NotFound: []string{"tools/list", "prompts/list"}}))
	ready(t, h)
	nodb := status(t, h, "nodb")
	if nodb.State != Ready || nodb.Tools != 1 || len(nodb.ListErrors) != 1 || nodb.ListErrors[0].Method != "resources/list" ||
		nodb.ListErrors[0].Error() != "resources/list: jsonrpc error -32603: no database at localhost:5432" {
		t.Errorf("nodb: %s, %d tools, list errors %v; want ready with its tool and the resources/list error", nodb.State, nodb.Tools, nodb.ListErrors)
	}
	var rpcErr *jsonrpc.Error
	if len(nodb.ListErrors) == 1 && (!errors.As(nodb.ListErrors[0], &rpcErr) || rpcErr.Code != jsonrpc.CodeInternalError) {
		t.Errorf("the list error does not wrap the server's: %#v", nodb.ListErrors[0])
	}
	// A list a server does not know (-32601) is empty, declared or not: no list error.
	if st := status(t, h, "noprompts"); st.State != Ready || st.Tools != 1 || st.Prompts != 0 || len(st.ListErrors) != 0 {
		t.Errorf("noprompts: %s, %d tools, %d prompts, list errors %v; want ready, its tool, no prompts and no list error", st.State, st.Tools, st.Prompts, st.ListErrors)
	}
	if st := status(t, h, "quiet"); st.State != Ready || st.Tools != 0 || len(st.ListErrors) != 0 {
		t.Errorf("quiet: %s, %d tools, list errors %v; want ready, empty, and no list error", st.State, st.Tools, st.ListErrors)
	}
	for _, name := range []string{"mcp_nodb_query", "mcp_noprompts_hello"} {
		if got := text(t)(h.CallTool(context.Background(), name, nil)); got != "called" {
			t.Errorf("%s: %q", name, got)
		}
	}

	skip, _ := start(t, Options{Skip: Lists{Resources: true}},
		scriptedCommand(scripted.Script{Name: "nodb", Tools: []string{"query"}, Resources: []string{"db://tables"},
			Fail: map[string]string{"resources/list": "no database at localhost:5432"}}))
	ready(t, skip)
	if st := status(t, skip, "nodb"); st.State != Ready || st.Tools != 1 || len(st.ListErrors) != 0 {
		t.Errorf("nodb, resources skipped: %s, %d tools, list errors %v", st.State, st.Tools, st.ListErrors)
	}
}

// Stdio servers start a few at a time, and the connect timeout counts from each one's
// turn: servers behind two that hold their turns for a whole connect timeout (and fail) all
// start, which a timeout counted from the host's start would not let them.
func TestServersStartInTurns(t *testing.T) {
	const timeout = 3 * time.Second
	gates := t.TempDir()
	gate := func(name string) string { return filepath.Join(gates, name) }
	var servers []ServerConfig
	for i := range 6 {
		name := fmt.Sprintf("s%d", i)
		servers = append(servers, scriptedCommand(scripted.Script{Name: name, Tools: []string{"t"}, Gate: gate(name)}))
	}
	begun := time.Now()
	h, ev := start(t, Options{StartConcurrency: 2, ConnectTimeout: timeout, RestartMin: time.Hour, ShutdownGrace: 100 * time.Millisecond}, servers...)
	// Two servers have their turns; the other four wait for theirs, and may go on when it
	// comes. The two are held: they fail, a connect timeout after the host began.
	waiting := map[string]bool{}
	eventually(t, "four servers waiting for their turn", func() bool {
		for _, st := range h.Servers() {
			if _, ok := ev.find(func(e Event) bool {
				return e.Server == st.Name && e.Kind == EventState && e.Detail == "waiting for its turn to start: 2 servers start at a time"
			}); ok && !waiting[st.Name] {
				waiting[st.Name] = true
				os.WriteFile(gate(st.Name), nil, 0o644)
			}
		}
		return len(waiting) == 4
	})
	ready(t, h)
	for _, st := range h.Servers() {
		switch {
		case !waiting[st.Name] && !errors.Is(st.Err, ErrConnectTimeout):
			t.Errorf("%s, held at its start: %s, %v; want the connect timeout", st.Name, st.State, st.Err)
		case waiting[st.Name] && st.State != Ready:
			t.Errorf("%s, which waited for its turn: %s: %v", st.Name, st.State, st.Err)
		case waiting[st.Name]:
			e, _ := ev.find(func(e Event) bool { return e.Server == st.Name && e.Kind == EventState && e.State == Ready })
			if waited := e.Time.Sub(begun); waited < timeout {
				t.Errorf("%s was ready %s after the host began, before the two ahead of it timed out", st.Name, waited)
			}
		}
	}
	if len(h.Tools()) != 4 {
		t.Errorf("%d tools, want 4", len(h.Tools()))
	}
}

// A server that does not answer in time says which timeout, for a person to raise it.
func TestConnectTimeoutIsNamed(t *testing.T) {
	h, _ := start(t, Options{ConnectTimeout: 300 * time.Millisecond, RestartMin: time.Hour}, named("hang", testCommand("hang")))
	ready(t, h)
	st := status(t, h, "hang")
	if !errors.Is(st.Err, ErrConnectTimeout) || st.Err.Error() != "no answer within 300ms (the connect timeout)" {
		t.Errorf("hang: %v", st.Err)
	}
}

// Behaviours 1-5 of issue 25 together: a host of scripted servers that show them starts
// every one and lists every tool.
func TestForgivingHost(t *testing.T) {
	servers := []ServerConfig{
		// 1. resources/templates/list answered with -32601 by a server that declares resources.
		scriptedCommand(scripted.Script{Name: "notemplates", Tools: []string{"one"}, Resources: []string{"test://r"},
			NotFound: []string{"resources/templates/list"}}),
		// 2. resources/list fails.
		scriptedCommand(scripted.Script{Name: "nodb", Tools: []string{"two"}, Resources: []string{"db://t"},
			Fail: map[string]string{"resources/list": "no database"}}),
		// 3. subscriptions/listen refused.
		scriptedCommand(scripted.Script{Name: "stingy", Era: scripted.Modern, Tools: []string{"three"},
			RefuseListen: "Subscription limit reached"}),
		// 4. a server of both eras that answers server/discover after the probe timeout.
		scriptedCommand(scripted.Script{Name: "lateprobe", Era: scripted.Dual, Tools: []string{"four"}, StartDelay: 1500 * time.Millisecond}),
	}
	// 5. many servers slow to start, three at a time. (That the connect timeout counts from
	// each one's turn is TestServersStartInTurns'; here it only bounds a server that does not
	// answer, well above what one slow to start takes on a busy machine.)
	for i := range 5 {
		servers = append(servers, scriptedCommand(scripted.Script{Name: fmt.Sprintf("slow%d", i), Tools: []string{"five"}, StartDelay: time.Second}))
	}
	h, _ := start(t, Options{StartConcurrency: 3, ConnectTimeout: 15 * time.Second, RestartMin: time.Hour,
		Client: mcp.ClientOptions{ProbeTimeout: 300 * time.Millisecond}}, servers...)
	ready(t, h)
	for _, st := range h.Servers() {
		if st.State != Ready {
			t.Errorf("%s: %s: %v", st.Name, st.State, st.Err)
		}
	}
	var names []string
	for _, tl := range h.Tools() {
		names = append(names, tl.Name)
	}
	want := "mcp_lateprobe_four mcp_nodb_two mcp_notemplates_one mcp_slow0_five mcp_slow1_five mcp_slow2_five mcp_slow3_five mcp_slow4_five mcp_stingy_three"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("tools %s\nwant  %s", got, want)
	}
	if st := status(t, h, "lateprobe"); st.Info.ProtocolVersion != mcp.StatelessProtocolVersion || st.Info.Negotiation != "offered in server/discover" {
		t.Errorf("lateprobe speaks %s (%s), want %s", st.Info.ProtocolVersion, st.Info.Negotiation, mcp.StatelessProtocolVersion)
	}
	if st := status(t, h, "nodb"); len(st.ListErrors) != 1 {
		t.Errorf("nodb's list errors: %v", st.ListErrors)
	}
	c, err := h.Client("stingy")
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "the refusal of subscriptions/listen noted", func() bool { return c.ListenErr() != nil })
	if err := c.ListenErr(); !strings.Contains(err.Error(), "Subscription limit reached") {
		t.Errorf("stingy's ListenErr: %v", err)
	}
	templates, err := func() ([]*mcp.ResourceTemplate, error) {
		c, err := h.Client("notemplates")
		if err != nil {
			return nil, err
		}
		return c.ListResourceTemplates(context.Background())
	}()
	if err != nil || len(templates) != 0 {
		t.Errorf("notemplates' templates: %v, %v", templates, err)
	}
}

// A server that refuses subscriptions/listen is logged once, at info, with its name: the
// host polls its lists instead, and said nothing of it (issue 36, item 9).
func TestRefusedListenIsLogged(t *testing.T) {
	var log syncBuffer
	logger := slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelInfo}))
	h, _ := start(t, Options{Logger: logger},
		scriptedCommand(scripted.Script{Name: "stingy", Era: scripted.Modern, Tools: []string{"three"}, RefuseListen: "Subscription limit reached"}))
	ready(t, h)
	const said = "the server refused subscriptions/listen"
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(log.String(), said) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // and not again
	got := log.String()
	if strings.Count(got, said) != 1 || !strings.Contains(got, "level=INFO") || !strings.Contains(got, "server=stingy") || !strings.Contains(got, "Subscription limit reached") {
		t.Errorf("the host's log:\n%s", got)
	}
}

// syncBuffer is a buffer the host's goroutines write and the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
