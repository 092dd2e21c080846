package host

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// events keeps what a host told its subscriber.
type events struct {
	mu   sync.Mutex
	list []Event
}

func (e *events) add(ev Event) {
	e.mu.Lock()
	e.list = append(e.list, ev)
	e.mu.Unlock()
}

func (e *events) find(match func(Event) bool) (Event, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, ev := range e.list {
		if match(ev) {
			return ev, true
		}
	}
	return Event{}, false
}

// start starts a host of servers, closed (and checked for leftovers) when the test ends.
func start(t *testing.T, opts Options, servers ...ServerConfig) (*Host, *events) {
	t.Helper()
	ev := &events{}
	opts.Events = ev.add
	h := Start(&Config{Servers: servers}, &opts)
	t.Cleanup(func() {
		begun := time.Now()
		h.Close()
		if d := time.Since(begun); d > 10*time.Second {
			t.Errorf("Close took %s", d)
		}
		for _, st := range h.Servers() {
			if st.State != Stopped {
				t.Errorf("server %s is %s after Close, want stopped", st.Name, st.State)
			}
		}
		goleak.VerifyNone(t, goleak.IgnoreCurrent())
	})
	return h, ev
}

func named(name string, sc ServerConfig) ServerConfig { sc.Name = name; return sc }

func ready(t *testing.T, h *Host) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := h.Ready(ctx); err != nil {
		t.Fatalf("Ready: %v; servers: %+v", err, h.Servers())
	}
}

// eventually waits up to 20 s for cond.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func status(t *testing.T, h *Host, name string) ServerStatus {
	t.Helper()
	st, ok := h.Server(name)
	if !ok {
		t.Fatalf("no server %s", name)
	}
	return st
}

// text is the text a call answered.
func text(t *testing.T) func(*mcp.CallToolResult, error) string {
	return func(res *mcp.CallToolResult, err error) string {
		t.Helper()
		return callText(t, res, err)
	}
}

func callText(t *testing.T, res *mcp.CallToolResult, err error) string {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("content %+v, want one text block", res.Content)
	}
	tx, ok := res.Content[0].(mcp.Text)
	if !ok {
		t.Fatalf("content %T, want text", res.Content[0])
	}
	return tx.Text
}

func alive(pid int) bool { return pid > 0 && syscall.Kill(pid, 0) == nil }

// One broken and one hanging server never delay the working one; each says what is wrong.
func TestStartsEveryServerAtOnce(t *testing.T) {
	opts := Options{ConnectTimeout: 5 * time.Second, RestartMin: time.Minute}
	begun := time.Now()
	h, _ := start(t, opts,
		named("broken", testCommand("exit")),
		named("hang", testCommand("hang")),
		named("work", testCommand("basic")))
	eventually(t, "work ready", func() bool { return status(t, h, "work").State == Ready })
	if d := time.Since(begun); d > 4*time.Second {
		t.Errorf("work was ready after %s: the hanging server held it up", d)
	}
	ready(t, h)
	if d := time.Since(begun); d > 5*time.Second+2*time.Second+2*time.Second {
		t.Errorf("Ready took %s with a connect timeout of 5s (and 2s to stop the server)", d)
	}

	broken := status(t, h, "broken")
	if broken.State != Failed || broken.Err == nil || !strings.Contains(broken.Err.Error(), "exited with status 3") {
		t.Errorf("broken: %s, %v; want failed with exit status 3", broken.State, broken.Err)
	}
	if got := strings.Join(broken.Stderr, "\n"); got != "starting\nboom: cannot open the database" {
		t.Errorf("broken's stderr %q", got)
	}
	if broken.Retry.IsZero() {
		t.Error("a failed server has no time for its next attempt")
	}
	hang := status(t, h, "hang")
	if hang.State != Failed || hang.Err == nil || !strings.Contains(hang.Err.Error(), "connect timeout") {
		t.Errorf("hang: %s, %v; want failed by the connect timeout", hang.State, hang.Err)
	}
	work := status(t, h, "work")
	if work.Info.Name != "host-test" || work.Info.ProtocolVersion == "" || work.Tools != 8 || work.Prompts != 1 || work.Resources != 1 || work.Templates != 1 || work.PID == 0 {
		t.Errorf("work: %+v", work)
	}

	// A call to a server that is not ready fails at once, saying why in one sentence.
	_, err := h.CallTool(context.Background(), "mcp_broken_anything", nil)
	var nre *NotReadyError
	if !errors.Is(err, ErrNotReady) || errors.Is(err, ErrUnknown) || !errors.As(err, &nre) || nre.Server != "broken" ||
		!strings.HasPrefix(err.Error(), "mcp_broken_anything: server broken failed: the server process exited with status 3 (") {
		t.Errorf("call to the broken server: %v", err)
	}
	_, err = h.ReadResource(context.Background(), "hang", "test://hello")
	if !errors.Is(err, ErrNotReady) {
		t.Errorf("read from the hanging server: %v, want ErrNotReady", err)
	}
}

func TestRegistry(t *testing.T) {
	h, ev := start(t, Options{}, named("a_b", testCommand("basic")), named("a", testCommand("basic")))
	ready(t, h)
	var names []string
	for _, tl := range h.Tools() {
		names = append(names, tl.Name)
	}
	// Both servers have report.daily and report_daily: four tools that would be two names.
	// The first of each, by server and tool name, keeps the name.
	want := []string{"mcp_a_b_crash", "mcp_a_b_echo", "mcp_a_b_fail", "mcp_a_b_grow", "mcp_a_b_pid",
		"mcp_a_b_report_daily", "mcp_a_b_report_daily_"}
	for _, w := range want {
		found := false
		for _, n := range names {
			if strings.HasPrefix(n, w) {
				found = true
			}
		}
		if !found {
			t.Errorf("no tool named %s*: %v", w, names)
		}
	}
	if len(names) != 16 {
		t.Errorf("%d tools, want 16: %v", len(names), names)
	}
	cols := h.Collisions()
	if len(cols) != 2 {
		t.Fatalf("collisions %v, want 2", cols)
	}
	if c := cols[0]; c.Name != "mcp_a_report_daily" || c.KeptBy != "a" || c.KeptFor != "report.daily" || c.Tool != "report_daily" || !strings.HasPrefix(c.Renamed, "mcp_a_report_daily_") {
		t.Errorf("collision %+v", c)
	}
	if _, ok := ev.find(func(e Event) bool { return e.Kind == EventRegistry && strings.Contains(e.Detail, "renamed") }); !ok {
		t.Error("no registry event reports the renamed tools")
	}
	// Renamed or not, each name calls its own tool.
	if got := text(t)(h.CallTool(context.Background(), "mcp_a_report_daily", nil)); got != "dotted" {
		t.Errorf("mcp_a_report_daily says %q", got)
	}
	if got := text(t)(h.CallTool(context.Background(), cols[0].Renamed, nil)); got != "underscored" {
		t.Errorf("%s says %q", cols[0].Renamed, got)
	}
	// Names are the same however often the host starts.
	again := buildRegistry(h.servers)
	for i, tl := range again.tools {
		if tl.Name != names[i] {
			t.Errorf("rebuilt registry names tool %d %s, was %s", i, tl.Name, names[i])
		}
	}

	echo, ok := h.Tool("mcp_a_echo")
	if !ok {
		t.Fatal("no mcp_a_echo")
	}
	if got := string(echo.Anthropic()); got != `{"name":"mcp_a_echo","description":"Says the text back.\nSecond line.","input_schema":{"type":"object"}}` {
		t.Errorf("Anthropic: %s", got)
	}
	if got := string(echo.OpenAI()); got != `{"type":"function","function":{"name":"mcp_a_echo","description":"Says the text back.\nSecond line.","parameters":{"type":"object"}}}` {
		t.Errorf("OpenAI: %s", got)
	}
	if got := text(t)(echo.Call(context.Background(), map[string]any{"text": "hi"})); got != "hi" {
		t.Errorf("echo says %q", got)
	}
	res, err := h.CallTool(context.Background(), "mcp_a_fail", nil)
	if err != nil || !res.IsError {
		t.Errorf("fail: %+v, %v; want an isError result", res, err)
	}
	if e, ok := ev.find(func(e Event) bool { return e.Kind == EventCall && e.Tool == "mcp_a_fail" }); !ok || e.Outcome != OutcomeToolError {
		t.Errorf("call event of mcp_a_fail: %+v", e)
	}
	if e, ok := ev.find(func(e Event) bool { return e.Kind == EventCall && e.Tool == "mcp_a_echo" }); !ok || e.Outcome != OutcomeOK || e.Duration <= 0 || e.Server != "a" {
		t.Errorf("call event of mcp_a_echo: %+v", e)
	}

	prompt, ok := h.Prompt("mcp_a_greet")
	if !ok {
		t.Fatalf("no prompt mcp_a_greet: %v", h.Prompts())
	}
	pr, err := prompt.Get(context.Background(), map[string]string{"name": "Ada"})
	if err != nil || len(pr.Messages) != 1 || pr.Messages[0].Content.(mcp.Text).Text != "hello Ada" {
		t.Errorf("prompt: %+v, %v", pr, err)
	}
	res2 := h.Resources()
	if len(res2) != 2 || res2[0].Server != "a" || res2[0].Resource.URI != "test://hello" {
		t.Fatalf("resources %+v", res2)
	}
	if tpl := h.ResourceTemplates(); len(tpl) != 2 || tpl[0].Server != "a" || tpl[0].Template.URITemplate != "test://greeting/{name}" {
		t.Errorf("resource templates %+v", tpl)
	}
	contents, err := res2[0].Read(context.Background())
	if err != nil || len(contents) != 1 || contents[0].Text != "hello" {
		t.Errorf("read: %+v, %v", contents, err)
	}

	// A tool list that changes is read again.
	if got := text(t)(h.CallTool(context.Background(), "mcp_a_grow", nil)); got != "added" {
		t.Fatalf("grow says %q", got)
	}
	eventually(t, "mcp_a_grown in the registry", func() bool { _, ok := h.Tool("mcp_a_grown"); return ok })
	if got := text(t)(h.CallTool(context.Background(), "mcp_a_grown", nil)); got != "grown" {
		t.Errorf("grown says %q", got)
	}
}

func TestCallTimeoutAndCancel(t *testing.T) {
	slow := named("slow", testCommand("basic"))
	slow.Timeout = 300 * time.Millisecond
	h, ev := start(t, Options{CallTimeout: time.Hour}, slow)
	ready(t, h)
	begun := time.Now()
	_, err := h.CallTool(context.Background(), "mcp_slow_slow", nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("slow call: %v, want the server's timeout", err)
	}
	if d := time.Since(begun); d < 300*time.Millisecond || d > 5*time.Second {
		t.Errorf("the call took %s with a timeout of 300ms", d)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err = h.CallTool(ctx, "mcp_slow_slow", nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call: %v", err)
	}
	if e, ok := ev.find(func(e Event) bool { return e.Kind == EventCall && e.Outcome == OutcomeError }); !ok || e.Err == nil {
		t.Errorf("no call event with the error: %+v", e)
	}
	if status(t, h, "slow").State != Ready {
		t.Error("a timed-out call took the server down")
	}
	if _, err := h.CallTool(context.Background(), "mcp_nope_tool", nil); !errors.Is(err, ErrUnknown) {
		t.Errorf("unknown tool: %v", err)
	}
}

// A stdio server whose process dies is restarted, its tools gone meanwhile and then back;
// the call it died under fails with ErrLost.
func TestRestartsAServerThatExits(t *testing.T) {
	h, ev := start(t, Options{RestartMin: 2 * time.Second, RestartMax: 2 * time.Second}, named("s", testCommand("basic")))
	ready(t, h)
	// The registry follows the state, at every moment: whenever the status says the server
	// is not ready (and said so before and after the registry was read), none of its tools
	// is offered.
	stopWatching, watched := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(watched)
		for {
			select {
			case <-stopWatching:
				return
			default:
			}
			before, _ := h.Server("s")
			n := len(h.Tools())
			after, _ := h.Server("s")
			if before.State != Ready && after.State == before.State && after.Since == before.Since && n > 0 {
				t.Errorf("%d tools offered by a server that is %s", n, before.State)
				return
			}
			runtime.Gosched()
		}
	}()
	defer func() { close(stopWatching); <-watched }()
	first := status(t, h, "s").PID
	if got := text(t)(h.CallTool(context.Background(), "mcp_s_pid", nil)); got == "" || !alive(first) {
		t.Fatalf("pid %q, first %d", got, first)
	}
	_, err := h.CallTool(context.Background(), "mcp_s_crash", nil)
	if !errors.Is(err, ErrLost) {
		t.Errorf("call the server died under: %v, want ErrLost", err)
	}
	// While it is down its tools are not offered (the registry follows the state), but
	// they stay known: a call fails at once with ErrNotReady (a 503, not a 404), saying why.
	eventually(t, "the server failed", func() bool { return status(t, h, "s").State == Failed })
	if n := len(h.Tools()); n != 0 {
		t.Errorf("%d tools offered by a server that failed", n)
	}
	if _, ok := h.Tool("mcp_s_echo"); !ok {
		t.Error("the tools of a server that is restarting are no longer known")
	}
	_, err = h.CallTool(context.Background(), "mcp_s_echo", map[string]any{"text": "down"})
	if !errors.Is(err, ErrNotReady) || !errors.Is(err, ErrLost) || errors.Is(err, ErrUnknown) ||
		!strings.HasPrefix(err.Error(), "mcp_s_echo: server s failed: the connection to the server was lost: ") {
		t.Errorf("a call while the server is down: %v; want ErrNotReady", err)
	}
	failure := func(e Event) bool {
		return e.Kind == EventRegistry && e.Server == "s" && strings.HasPrefix(e.Detail, "failed")
	}
	eventually(t, "the registry event of the failure", func() bool { _, ok := ev.find(failure); return ok })
	if e, _ := ev.find(failure); e.Detail != "failed: its 8 tools, 1 prompt, 1 resource are unavailable until it is back; the host has 0 tools, 0 prompts, 0 resources" {
		t.Errorf("registry event of the failure: %q", e.Detail)
	}
	eventually(t, "the server back", func() bool { return status(t, h, "s").State == Ready })
	st := status(t, h, "s")
	if st.Restarts != 1 || st.PID == first || st.PID == 0 {
		t.Errorf("after the restart: restarts %d, pid %d (was %d)", st.Restarts, st.PID, first)
	}
	if alive(first) {
		t.Errorf("the first process %d is still there", first)
	}
	if got := text(t)(h.CallTool(context.Background(), "mcp_s_echo", map[string]any{"text": "back"})); got != "back" {
		t.Errorf("echo after the restart: %q", got)
	}
	if _, ok := ev.find(func(e Event) bool { return e.Kind == EventStderr && e.Line == "crashing now" }); !ok {
		t.Error("no stderr event for the server's last words")
	}
	if e, ok := ev.find(func(e Event) bool { return e.Kind == EventState && e.State == Failed }); !ok || !errors.Is(e.Err, ErrLost) {
		t.Errorf("failed event %+v, want ErrLost", e)
	}
	h.Close()
	if alive(st.PID) {
		t.Errorf("process %d outlived Close", st.PID)
	}
}

// A server over HTTP that goes away is reconnected once it is back.
func TestReconnectsAnHTTPServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	serve := func(ln net.Listener) (stop func()) {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			testServer().ServeHTTPListener(ctx, ln, nil)
		}()
		return func() { cancel(); <-done }
	}
	stop := serve(ln)
	defer func() { stop() }()
	h, _ := start(t, Options{RestartMin: 100 * time.Millisecond, RestartMax: 200 * time.Millisecond},
		ServerConfig{Name: "web", Transport: HTTP, URL: "http://" + addr + "/mcp"})
	ready(t, h)
	if got := text(t)(h.CallTool(context.Background(), "mcp_web_echo", map[string]any{"text": "one"})); got != "one" {
		t.Fatalf("echo %q", got)
	}
	stop()
	_, err = h.CallTool(context.Background(), "mcp_web_echo", map[string]any{"text": "two"})
	if err == nil {
		t.Fatal("a call to a server that is gone succeeded")
	}
	eventually(t, "the server failed", func() bool { return status(t, h, "web").State == Failed })
	ln, err = net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	stop = serve(ln)
	eventually(t, "the server back", func() bool { return status(t, h, "web").State == Ready })
	if got := text(t)(h.CallTool(context.Background(), "mcp_web_echo", map[string]any{"text": "three"})); got != "three" {
		t.Errorf("echo after reconnecting: %q", got)
	}
}

func TestCloseStopsEverything(t *testing.T) {
	h, _ := start(t, Options{ConnectTimeout: time.Hour}, named("s", testCommand("basic")), named("hang", testCommand("hang")))
	eventually(t, "s ready", func() bool { return status(t, h, "s").State == Ready })
	eventually(t, "hang started", func() bool { return status(t, h, "hang").PID != 0 })
	pids := []int{status(t, h, "s").PID, status(t, h, "hang").PID}
	begun := time.Now()
	h.Close()
	if d := time.Since(begun); d > 6*time.Second {
		t.Errorf("Close took %s", d)
	}
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("process %d outlived Close", pid)
		}
	}
	if _, err := h.CallTool(context.Background(), "mcp_s_echo", nil); err == nil {
		t.Error("a call after Close succeeded")
	}
}

// A server that was never ready is tried GiveUpAfter times in a row, with pauses that
// double, and then left failed for good (State GaveUp), which its status, its event and a
// call to it say; before, the host tried every 30 s for as long as it ran.
func TestGivesUpOnAServerNeverReady(t *testing.T) {
	h, ev := start(t, Options{RestartMin: 10 * time.Millisecond, RestartMax: 40 * time.Millisecond, GiveUpAfter: 4},
		named("broken", testCommand("exit")))
	ready(t, h)
	eventually(t, "the host gave up", func() bool { return status(t, h, "broken").State == GaveUp })
	st := status(t, h, "broken")
	if st.Restarts != 3 || !st.Retry.IsZero() || st.Err == nil || !strings.Contains(st.Err.Error(), "exited with status 3") {
		t.Errorf("status after giving up: restarts %d (want 3), retry %v, err %v", st.Restarts, st.Retry, st.Err)
	}
	e, ok := ev.find(func(e Event) bool { return e.Kind == EventState && e.State == GaveUp })
	if !ok || e.Detail != "gave up after 4 attempts in a row; it was never ready" || e.Err == nil {
		t.Errorf("the event of giving up: %+v", e)
	}
	time.Sleep(200 * time.Millisecond) // five times the longest pause: no attempt after
	if st := status(t, h, "broken"); st.State != GaveUp || st.Restarts != 3 {
		t.Errorf("after giving up, the host tried again: %s, %d restarts", st.State, st.Restarts)
	}
	b, _ := st.MarshalJSON()
	if !strings.Contains(string(b), `"state":"gave up"`) || strings.Contains(string(b), `"retry"`) {
		t.Errorf("status JSON: %s", b)
	}
}

// A server that was ready once and then cannot start again is tried for as long as the
// host runs: its configuration works, and it may be down only for a while.
func TestKeepsTryingAServerOnceReady(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "started")
	once := testCommand("once")
	once.Env = append(once.Env, "HOST_TEST_MARKER="+marker)
	h, _ := start(t, Options{RestartMin: 10 * time.Millisecond, RestartMax: 20 * time.Millisecond, GiveUpAfter: 2}, named("s", once))
	ready(t, h)
	if st := status(t, h, "s"); st.State != Ready {
		t.Fatalf("the first start: %s %v", st.State, st.Err)
	}
	if _, err := h.CallTool(context.Background(), "mcp_s_crash", nil); !errors.Is(err, ErrLost) {
		t.Fatalf("crash: %v", err)
	}
	// Every start from now on fails; well past GiveUpAfter, the host still tries.
	eventually(t, "six restarts", func() bool { return status(t, h, "s").Restarts >= 6 })
	if st := status(t, h, "s"); st.State == GaveUp {
		t.Errorf("the host gave up on a server that was ready once: %+v", st)
	}
}
