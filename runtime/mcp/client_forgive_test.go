package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/scripted"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// The client forgives what real servers do (issue 25): lists they leave out or cannot
// read, a server that starts slowly, a refused subscription, a server that went away.

// scriptedServer serves a script in this process over a pair of pipes (with the buffers of
// a real process's) until the test ends or stop is called, which closes the server's ends
// as a process that exits does.
type scriptedServer struct {
	transport *IOTransport
	stop      func()
}

func serveScript(t *testing.T, s scripted.Script) *scriptedServer {
	t.Helper()
	cr, sw, err := os.Pipe() // the server writes, the client reads
	if err != nil {
		t.Fatal(err)
	}
	sr, cw, err := os.Pipe() // the client writes, the server reads
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		scripted.Serve(sr, sw, s)
	}()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			sr.Close()
			sw.Close()
			<-done
		})
	}
	t.Cleanup(stop)
	return &scriptedServer{transport: &IOTransport{Reader: cr, Writer: cw, Name: s.Name}, stop: stop}
}

// records keeps what a client logged.
type records struct {
	mu   sync.Mutex
	list []slog.Record
}

func (r *records) Enabled(context.Context, slog.Level) bool { return true }
func (r *records) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	r.list = append(r.list, rec)
	r.mu.Unlock()
	return nil
}
func (r *records) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *records) WithGroup(string) slog.Handler      { return r }

// count is how many records at level hold text in their message.
func (r *records) count(level slog.Level, text string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, rec := range r.list {
		if rec.Level == level && strings.Contains(rec.Message, text) {
			n++
		}
	}
	return n
}

// methods counts the requests a server read, by method.
type methodCounts struct {
	mu sync.Mutex
	n  map[string]int
}

func (m *methodCounts) seen(method string) {
	m.mu.Lock()
	if m.n == nil {
		m.n = map[string]int{}
	}
	m.n[method]++
	m.mu.Unlock()
}

func (m *methodCounts) get(method string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.n[method]
}

func connect(t *testing.T, tr Transport, opts *ClientOptions) *Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := Connect(ctx, tr, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// A server that declares resources but answers resources/templates/list with "method not
// found" (common in servers of the TypeScript SDK) has no templates; so has a server asked
// for a list it did not declare, and one that declares a list it does not know (a host is
// the most forgiving party): each with a note at debug level.
func TestOptionalListsMethodNotFound(t *testing.T) {
	srv := serveScript(t, scripted.Script{Name: "tsish", Tools: []string{"a"}, Resources: []string{"test://r"},
		NotFound: []string{"resources/templates/list", "prompts/list", "completion/complete"}})
	c := connect(t, srv.transport, &ClientOptions{Logger: quietLogger()})
	templates, err := c.ListResourceTemplates(context.Background())
	if err != nil || len(templates) != 0 {
		t.Errorf("resources/templates/list: %v, %v; want none and no error", templates, err)
	}
	prompts, err := c.ListPrompts(context.Background())
	if err != nil || len(prompts) != 0 {
		t.Errorf("prompts/list of a server without prompts: %v, %v; want none and no error", prompts, err)
	}
	if resources, err := c.ListResources(context.Background()); err != nil || len(resources) != 1 {
		t.Errorf("resources/list: %v, %v", resources, err)
	}

	log := &records{}
	srv = serveScript(t, scripted.Script{Name: "declares", Tools: []string{"a"}, Prompts: []string{"p"}, Declare: []string{"resources"},
		NotFound: []string{"tools/list", "prompts/list", "resources/list"}})
	c = connect(t, srv.transport, &ClientOptions{Logger: slog.New(log)})
	if caps := c.Server().Capabilities; !caps.Tools || !caps.Prompts || !caps.Resources {
		t.Fatalf("the script declares tools, prompts and resources: %+v", caps)
	}
	if tools, err := c.ListTools(context.Background()); err != nil || len(tools) != 0 {
		t.Errorf("tools/list of a server that declares tools and does not know the list: %v, %v; want none and no error", tools, err)
	}
	if prompts, err := c.ListPrompts(context.Background()); err != nil || len(prompts) != 0 {
		t.Errorf("prompts/list of a server that declares prompts and does not know the list: %v, %v; want none and no error", prompts, err)
	}
	if resources, err := c.ListResources(context.Background()); err != nil || len(resources) != 0 {
		t.Errorf("resources/list of a server that declares resources and does not know the list: %v, %v; want none and no error", resources, err)
	}
	if n := log.count(slog.LevelDebug, "the server does not know a list; taking it as empty"); n != 3 {
		t.Errorf("%d debug notes, want one per list", n)
	}
	if n := log.count(slog.LevelWarn, ""); n != 0 {
		t.Errorf("%d warnings", n)
	}
}

// An item of a list the client cannot read is left out, with a warning, not the whole
// list; a list whose cursors go round ends.
func TestListsForgiveOddItems(t *testing.T) {
	log := &records{}
	srv := serveScript(t, scripted.Script{Name: "odd", Tools: []string{"a"}, Prompts: []string{"p"}, Answers: map[string]json.RawMessage{
		"tools/list": json.RawMessage(`{"tools":[{"name":"good","inputSchema":{"type":"object"}},` +
			`{"name":"bad","annotations":{"readOnlyHint":"yes"},"inputSchema":{"type":"object"}},` +
			`{"name":"also_good","inputSchema":{"type":"object"}}]}`),
		"prompts/list":   json.RawMessage(`{"prompts":[{"name":"one"}],"nextCursor":"b"}`),
		"prompts/list b": json.RawMessage(`{"prompts":[{"name":"two"}],"nextCursor":"c"}`),
		"prompts/list c": json.RawMessage(`{"prompts":[{"name":"three"}],"nextCursor":"b"}`),
	}})
	c := connect(t, srv.transport, &ClientOptions{Logger: slog.New(log)})
	tools, err := c.ListTools(context.Background())
	if err != nil || len(tools) != 2 || tools[0].Name != "good" || tools[1].Name != "also_good" {
		t.Errorf("tools: %v, %v; want good and also_good", tools, err)
	}
	if log.count(slog.LevelWarn, "leaving out an item") != 1 {
		t.Errorf("no warning of the tool left out")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	prompts, err := c.ListPrompts(ctx)
	if err != nil || len(prompts) != 3 {
		t.Errorf("prompts whose cursors go round: %d, %v; want 3", len(prompts), err)
	}
}

// A server whose runtime is still loading answers server/discover late, yet it answers:
// the revision does not depend on how busy the machine is.
func TestProbeWaitsForASlowServer(t *testing.T) {
	srv := serveScript(t, scripted.Script{Name: "slow", Era: scripted.Dual, Tools: []string{"a"}, StartDelay: time.Second})
	c := connect(t, srv.transport, &ClientOptions{Logger: quietLogger(), ProbeTimeout: 100 * time.Millisecond})
	if info := c.Server(); info.ProtocolVersion != StatelessProtocolVersion || info.Negotiation != "offered in server/discover" {
		t.Errorf("revision %s (%s), want %s offered in server/discover", info.ProtocolVersion, info.Negotiation, StatelessProtocolVersion)
	}
}

// A server of the revisions with sessions that leaves server/discover unanswered, but
// answers a ping, speaks a revision with sessions; one that refuses server/discover too.
func TestProbeOfALegacyServer(t *testing.T) {
	srv := serveScript(t, scripted.Script{Name: "silent", Tools: []string{"a"}, IgnoreUnknown: true})
	begun := time.Now()
	c := connect(t, srv.transport, &ClientOptions{Logger: quietLogger(), ProbeTimeout: 200 * time.Millisecond})
	info := c.Server()
	if info.ProtocolVersion != "2025-11-25" || !strings.HasPrefix(info.Negotiation, "initialize, after server/discover went unanswered for ") ||
		!strings.HasSuffix(info.Negotiation, " though the server answered a ping") {
		t.Errorf("silent server: %s (%s)", info.ProtocolVersion, info.Negotiation)
	}
	if d := time.Since(begun); d > 3*time.Second {
		t.Errorf("connecting took %s with a probe timeout of 200ms", d)
	}

	srv = serveScript(t, scripted.Script{Name: "refuses", Tools: []string{"a"}})
	c = connect(t, srv.transport, &ClientOptions{Logger: quietLogger()})
	if info := c.Server(); info.ProtocolVersion != "2025-11-25" || info.Negotiation != "initialize, after server/discover was refused (jsonrpc error -32601: Method not found)" {
		t.Errorf("refusing server: %s (%s)", info.ProtocolVersion, info.Negotiation)
	}
	if info := connect(t, &MemoryTransport{Server: quietServer(nil)}, &ClientOptions{ProtocolVersion: "2025-06-18"}).Server(); info.Negotiation != "pinned by ClientOptions.ProtocolVersion" {
		t.Errorf("pinned: %s", info.Negotiation)
	}
}

// Connect sends server/discover once: the probe's answer is the DiscoverResult.
func TestDiscoverOnce(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(echoTool("echo"))
	for name, tr := range map[string]Transport{
		"memory": &MemoryTransport{Server: srv},
		"http":   &StreamableHTTPTransport{URL: serveForClient(t, srv) + "/mcp", HTTPClient: &http.Client{Transport: &http.Transport{}}},
	} {
		var discovers atomic.Int32
		c := connect(t, tr, &ClientOptions{Logger: quietLogger(), Trace: func(fromServer bool, msg []byte) {
			if m, _ := stringParam(msg, "method"); !fromServer && m == methodDiscover {
				discovers.Add(1)
			}
		}})
		if n := discovers.Load(); n != 1 || !c.Server().Stateless || c.Server().Name == "" {
			t.Errorf("%s: %d server/discover requests for %+v, want 1", name, n, c.Server())
		}
	}
}

// A server that refuses subscriptions/listen ("Subscription limit reached") is not asked
// again: the refusal is noted once, at debug level, and the lists the client watches are
// polled instead.
func TestRefusedListenIsAnAnswer(t *testing.T) {
	var counts methodCounts
	var mu sync.Mutex
	tools := `{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}`
	srv := serveScript(t, scripted.Script{Name: "stingy", Era: scripted.Modern, Tools: []string{"a"},
		RefuseListen: "Subscription limit reached", Seen: counts.seen,
		Answer: func(method string, _ json.RawMessage) json.RawMessage {
			if method != "tools/list" {
				return nil
			}
			mu.Lock()
			defer mu.Unlock()
			return json.RawMessage(tools)
		}})
	log := &records{}
	changed := make(chan struct{}, 10)
	c := connect(t, srv.transport, &ClientOptions{Logger: slog.New(log), PollInterval: 50 * time.Millisecond,
		ToolsChanged: func() { changed <- struct{}{} }})
	deadline := time.Now().Add(10 * time.Second)
	for c.ListenErr() == nil && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	var rpcErr *jsonrpc.Error
	if err := c.ListenErr(); !errors.As(err, &rpcErr) || rpcErr.Message != "Subscription limit reached" ||
		!strings.Contains(err.Error(), "every 50ms") {
		t.Fatalf("ListenErr = %v, want the refusal, and that the client polls", err)
	}
	for time.Now().Before(deadline) && counts.get("tools/list") < 3 {
		time.Sleep(10 * time.Millisecond)
	}
	select {
	case <-changed:
		t.Error("ToolsChanged called though the tools did not change")
	default:
	}
	mu.Lock()
	tools = `{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"b","inputSchema":{"type":"object"}}]}`
	mu.Unlock()
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("the change of the tools was not seen by polling")
	}
	if n := counts.get("subscriptions/listen"); n != 1 {
		t.Errorf("subscriptions/listen sent %d times, want once", n)
	}
	if log.count(slog.LevelWarn, "") != 0 || log.count(slog.LevelInfo, "refused subscriptions/listen") != 1 {
		t.Errorf("log: %d warnings, %d notes at info of the refusal; want none and one", log.count(slog.LevelWarn, ""), log.count(slog.LevelInfo, "refused subscriptions/listen"))
	}
}

// When the server's process is gone, the subscription is not opened again: the connection
// is, by whoever keeps the server.
func TestListenEndsWithTheConnection(t *testing.T) {
	var counts methodCounts
	srv := serveScript(t, scripted.Script{Name: "dies", Era: scripted.Modern, Tools: []string{"a"}, Seen: counts.seen})
	log := &records{}
	c := connect(t, srv.transport, &ClientOptions{Logger: slog.New(log), ToolsChanged: func() {}})
	deadline := time.Now().Add(10 * time.Second)
	for counts.get("subscriptions/listen") == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	srv.stop()
	<-c.Done()
	time.Sleep(500 * time.Millisecond) // room for the retries there must not be
	if n := log.count(slog.LevelWarn, "") + log.count(slog.LevelDebug, "opening it again"); n != 0 {
		t.Errorf("%d log records of a subscription opened again on a connection that is gone", n)
	}
	c.mu.Lock()
	l := c.listening
	c.mu.Unlock()
	select {
	case <-l.done:
	case <-time.After(5 * time.Second):
		t.Error("the subscription's goroutine still runs on a connection that is gone")
	}
}

// A stateless server over HTTP that cannot be reached has its subscription opened again a
// bounded number of times; then the client gives up, saying so once.
func TestListenGivesUp(t *testing.T) {
	defer func(d time.Duration) { listenPause = d }(listenPause)
	listenPause = time.Millisecond
	srv := quietServer(nil)
	srv.AddTool(echoTool("echo"))
	h := srv.HTTPHandler(nil)
	t.Cleanup(h.Close)
	var listens atomic.Int32
	var gone atomic.Bool
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Method") == methodListen {
			listens.Add(1)
			if gone.Load() {
				panic(http.ErrAbortHandler) // the connection drops: a transport failure
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	log := &records{}
	c := connect(t, &StreamableHTTPTransport{URL: ts.URL, HTTPClient: &http.Client{Transport: &http.Transport{}}},
		&ClientOptions{Logger: slog.New(log), ToolsChanged: func() {}})
	deadline := time.Now().Add(10 * time.Second)
	for listens.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	gone.Store(true)
	ts.CloseClientConnections() // the open subscription breaks
	for c.ListenErr() == nil && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if err := c.ListenErr(); err == nil || !strings.Contains(err.Error(), "failed 8 times in a row") {
		t.Fatalf("ListenErr = %v", err)
	}
	time.Sleep(100 * time.Millisecond)
	if n := listens.Load(); n != listenAttempts {
		t.Errorf("%d subscriptions/listen requests, want %d: the one that broke and a retry for each failure but the last", n, listenAttempts)
	}
	if n := log.count(slog.LevelWarn, "gave up"); n != 1 {
		t.Errorf("%d warnings of giving up, want 1", n)
	}
}

// Capabilities as real servers write them: a capability of the wrong shape is still
// declared, a member of the wrong type is not set, and null or false declare nothing.
func TestReadServerCapabilities(t *testing.T) {
	var got ServerCapabilities
	d := jsonwire.NewDecoder([]byte(`{"tools":true,"resources":{"subscribe":"yes","listChanged":true},` +
		`"prompts":null,"logging":false,"completions":{}}`))
	if got.decode(d); d.Failed() {
		t.Errorf("capabilities of the wrong shape reported: %s", d.Summary())
	}
	got.Raw = nil
	want := ServerCapabilities{Tools: true, Resources: true, ResourcesListChanged: true, Completions: true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("capabilities %+v\nwant %+v", got, want)
	}
}
