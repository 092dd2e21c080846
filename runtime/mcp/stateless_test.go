package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

const statelessMetaJSON = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`

func TestStatelessMetaDecidesTheEra(t *testing.T) {
	for _, tc := range []struct {
		name, msg string
		stateless bool
	}{
		{"stateful request", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, false},
		{"the key inside arguments", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, false},
		{"a stateful version in _meta", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}}}`, false},
		{"stateless", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + statelessMetaJSON + `}}`, true},
		{"unknown version", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01"}}}`, true},
		{"discover without _meta", `{"jsonrpc":"2.0","id":1,"method":"server/discover"}`, true},
	} {
		m, perr := jsonrpc.Parse([]byte(tc.msg))
		if perr != nil {
			t.Fatal(perr)
		}
		if _, stateless := statelessMeta(&m); stateless != tc.stateless {
			t.Errorf("%s: stateless = %v", tc.name, stateless)
		}
	}
}

// A stateless request's answers travel sealed: the state opens only for the request that got
// it, unaltered and in time.
func TestRequestStateIsSealedToItsRequest(t *testing.T) {
	srv := quietServer(nil)
	parse := func(s string) *jsonrpc.Message {
		m, perr := jsonrpc.Parse([]byte(s))
		if perr != nil {
			t.Fatal(perr)
		}
		return &m
	}
	call := parse(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"x":1,"y":[1,2]}}}`)
	state, err := srv.sealState(&sealedState{Answers: map[string]json.RawMessage{"k": json.RawMessage(`{"action":"accept"}`)}}, call)
	if err != nil {
		t.Fatal(err)
	}
	// The same request, spaced differently and with other ids and _meta, opens it.
	retry := parse(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"arguments":{ "y":[1, 2], "x" : 1 },"name":"a",` + statelessMetaJSON + `}}`)
	if st, err := srv.openState(state, retry, ""); err != nil || string(st.Answers["k"]) != `{"action":"accept"}` {
		t.Fatalf("open: %v %v", st, err)
	}
	for name, m := range map[string]*jsonrpc.Message{
		"other arguments": parse(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a","arguments":{"x":2}}}`),
		"other tool":      parse(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"b","arguments":{"x":1}}}`),
		"other method":    parse(`{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"a","arguments":{"x":1}}}`),
	} {
		if _, err := srv.openState(state, m, ""); err == nil || !strings.Contains(err.Error(), "another request") {
			t.Errorf("%s: %v", name, err)
		}
	}
	// No arguments, empty arguments and null arguments are one request.
	bare := parse(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}`)
	bareState, err := srv.sealState(&sealedState{}, bare)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range []string{`,"arguments":{}`, `,"arguments": { }`, `,"arguments":null`, ``} {
		if _, err := srv.openState(bareState, parse(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a"`+args+`}}`), ""); err != nil {
			t.Errorf("retry with %q: %v", args, err)
		}
	}
	if _, err := srv.openState(bareState, parse(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a","arguments":{"x":null}}}`), ""); err == nil {
		t.Error("a retry with an argument opened the state of a call without")
	}
	tampered := []byte(state)
	tampered[len(tampered)/2] ^= 1
	if _, err := srv.openState(string(tampered), call, ""); err == nil {
		t.Error("a tampered state opened")
	}
	if _, err := srv.openState(state+"-TAMPERED", call, ""); err == nil {
		t.Error("a state with a suffix opened")
	}
	if _, err := quietServer(nil).openState(state, call, ""); err == nil {
		t.Error("another server's key opened the state")
	}
	shared := &ServerOptions{StateKey: []byte("0123456789abcdef0123456789abcdef")}
	a, b := quietServer(shared), quietServer(&ServerOptions{StateKey: shared.StateKey})
	s2, _ := a.sealState(&sealedState{}, call)
	if _, err := b.openState(s2, call, ""); err != nil {
		t.Errorf("servers sharing a key: %v", err)
	}
	// An expired state is refused.
	old := sealedState{Method: call.Method, Digest: requestDigest(call), Expires: time.Now().Add(-time.Minute).Unix()}
	plain, _ := json.Marshal(old)
	aead, _ := srv.stateAEAD()
	nonce := make([]byte, aead.NonceSize())
	expired := encodeState(aead.Seal(nonce, nonce, plain, nil))
	if _, err := srv.openState(expired, call, ""); err == nil || !strings.Contains(err.Error(), "expired") {
		t.Errorf("expired state: %v", err)
	}
}

func TestStateKeyLengthIsChecked(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a 5-byte key was accepted")
		}
	}()
	quietServer(&ServerOptions{StateKey: []byte("short")})
}

func TestCacheHints(t *testing.T) {
	srv := quietServer(&ServerOptions{
		Cache:    &CacheHint{TTL: time.Hour, Scope: CachePrivate},
		CacheFor: map[string]CacheHint{"tools/list": {TTL: 5 * time.Second, Scope: CachePublic}},
	})
	if h := srv.cacheHints["tools/list"]; h.TTL != 5*time.Second || h.Scope != CachePublic {
		t.Errorf("tools/list: %+v", h)
	}
	if h := srv.cacheHints["prompts/list"]; h.TTL != time.Hour || h.Scope != CachePrivate {
		t.Errorf("prompts/list: %+v", h)
	}
	if h := srv.cacheHints["tools/call"]; h != nil {
		t.Errorf("tools/call is not cacheable: %+v", h)
	}
	def := quietServer(nil)
	if h := def.cacheHints["resources/read"]; h.TTL != 0 || h.Scope != CachePrivate {
		t.Errorf("default resources/read: %+v", h)
	}
	if h := def.cacheHints["server/discover"]; h.TTL != time.Minute || h.Scope != CachePublic {
		t.Errorf("default server/discover: %+v", h)
	}
}

func TestHeaderValues(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"  tools/list  ", "tools/list", true},
		{"=?base64?SGVsbG8sIOS4lueVjA==?=", "Hello, 世界", true},
		{"=?base64?SGVsbG8?=", "", false},                // unpadded
		{"=?base64?SGVs!!!bG8=?=", "", false},            // not base64
		{"SGVsbG8=", "SGVsbG8=", true},                   // no sentinel: literal
		{"=?base64?SGVsbG8=", "=?base64?SGVsbG8=", true}, // no suffix: literal
		{"caf\xc3\xa9", "", false},                       // raw non-ASCII
	} {
		got, ok := headerValue(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("headerValue(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestHeaderParamsFollowTheRules(t *testing.T) {
	ps, err := headerParams([]byte(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"opts":{"type":"object","properties":{"n":{"type":"integer","x-mcp-header":"N"}}}}}`))
	if err != nil || len(ps) != 2 || strings.Join(ps[0].path, ".") != "opts.n" || ps[1].name != "Region" {
		t.Fatalf("headerParams: %+v %v", ps, err)
	}
	for _, bad := range []string{
		`{"properties":{"a":{"type":"number","x-mcp-header":"A"}}}`,
		`{"properties":{"a":{"type":"string","x-mcp-header":"A B"}}}`,
		`{"properties":{"a":{"type":"string","x-mcp-header":""}}}`,
		`{"properties":{"a":{"type":"string","x-mcp-header":"X"},"b":{"type":"string","x-mcp-header":"x"}}}`,
	} {
		if _, err := headerParams([]byte(bad)); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
	if !sameValue("integer", "42", []byte("42.0")) || sameValue("integer", "42", []byte("43")) ||
		!sameValue("boolean", "true", []byte("true")) || sameValue("boolean", "True", []byte("true")) ||
		!sameValue("string", "a b", []byte(`"a b"`)) {
		t.Error("sameValue")
	}
}

// Over stdio a subscription is acknowledged first, hears what it opted in to, tagged with
// its id, and ends with notifications/cancelled, after which the server goes on serving.
func TestListenOverStdio(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(echoTool("a"))
	srv.AddResource(Resource{URI: "test://r", Name: "r", Read: func(ctx context.Context, uri string) ([]ResourceContents, error) { return nil, nil }})
	h := start(t, srv)
	h.send(`{"jsonrpc":"2.0","id":"sub","method":"subscriptions/listen","params":{` + statelessMetaJSON + `,"notifications":{"toolsListChanged":true,"promptsListChanged":true,"resourceSubscriptions":["test://r"]}}}`)
	ack := h.recv() // a server without prompts does not agree to prompt changes
	p := ack["params"].(map[string]any)
	if ack["method"] != "notifications/subscriptions/acknowledged" || p["_meta"].(map[string]any)["io.modelcontextprotocol/subscriptionId"] != "sub" ||
		p["notifications"].(map[string]any)["toolsListChanged"] != true || p["notifications"].(map[string]any)["promptsListChanged"] != nil {
		t.Fatalf("acknowledgement: %v", ack)
	}
	srv.AddTool(echoTool("b"))
	n := h.recv()
	if n["method"] != "notifications/tools/list_changed" || n["params"].(map[string]any)["_meta"].(map[string]any)["io.modelcontextprotocol/subscriptionId"] != "sub" {
		t.Fatalf("list_changed: %v", n)
	}
	srv.NotifyResourceUpdated("test://other") // not subscribed: nothing
	srv.NotifyResourceUpdated("test://r")
	if n := h.recv(); n["method"] != "notifications/resources/updated" || n["params"].(map[string]any)["uri"] != "test://r" {
		t.Fatalf("resources/updated: %v", n)
	}
	h.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"sub"}}`)
	// No response for the cancelled subscription; the next message is the ping's answer.
	if m := h.roundTrip(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + statelessMetaJSON + `}}`); m["id"] != float64(2) || result(t, m)["resultType"] != "complete" {
		t.Fatalf("after cancelling: %v", m)
	}
	srv.AddTool(echoTool("c"))
	if m := h.roundTrip(`{"jsonrpc":"2.0","id":3,"method":"server/discover","params":{` + statelessMetaJSON + `}}`); m["id"] != float64(3) {
		t.Fatalf("a cancelled subscription still hears: %v", m)
	}
	// The subscription's handler lets go of it on its own goroutine, once cancelled.
	left := func() int {
		srv.mu.RLock()
		defer srv.mu.RUnlock()
		return len(srv.listeners)
	}
	for deadline := time.Now().Add(5 * time.Second); left() != 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if n := left(); n != 0 {
		t.Errorf("%d listeners left", n)
	}
}

// A subscription hears nothing from the moment its request is cancelled (the client's
// notifications/cancelled read), though its handler lets go of it later: TestListenOverStdio
// once saw a change made after the client's next request was answered reach it.
func TestCancelledSubscriptionHearsNothing(t *testing.T) {
	srv := quietServer(nil)
	srv.AddResource(Resource{URI: "test://r", Name: "r", Read: func(ctx context.Context, uri string) ([]ResourceContents, error) { return nil, nil }})
	ctx, cancel := context.WithCancel(context.Background())
	open, cancelled := &collector{}, &collector{}
	every := func(done <-chan struct{}, out *collector) *listener {
		return &listener{id: []byte(`1`), done: done, w: out, notes: newNotifier(context.Background(), out, srv.logger, true), tools: true, resources: true,
			uris: map[string]bool{"test://r": true}, tasks: map[string]bool{"t": true}, taskOrder: []string{"t"}}
	}
	srv.register(every(context.Background().Done(), open))
	srv.register(every(ctx.Done(), cancelled))
	cancel()
	srv.AddTool(echoTool("b"))
	srv.NotifyResourceUpdated("test://r")
	srv.notifyTask(&TaskRecord{ID: "t", Status: TaskWorking, UpdatedAt: time.Now()})
	if n := len(cancelled.all()); n != 0 || len(open.all()) != 3 {
		t.Errorf("a cancelled subscription heard %d notifications (an open one %d, want 3): %q", n, len(open.all()), cancelled.all())
	}
}

// A stateful session and stateless requests share one stdio process.
func TestBothErasOnOneStdioProcess(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(echoTool("a"))
	h := start(t, srv)
	if m := h.roundTrip(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + statelessMetaJSON + `}}`); result(t, m)["resultType"] != "complete" {
		t.Fatalf("stateless before initialize: %v", m)
	}
	h.initialize("2025-11-25")
	if m := h.roundTrip(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); result(t, m)["resultType"] != nil {
		t.Fatalf("stateful result with resultType: %v", m)
	}
	m := h.roundTrip(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"a","arguments":{"text":"hi"},` + statelessMetaJSON + `}}`)
	if r := result(t, m); r["resultType"] != "complete" || r["_meta"].(map[string]any)["io.modelcontextprotocol/serverInfo"] == nil {
		t.Fatalf("stateless after initialize: %v", m)
	}
	if m := h.roundTrip(`{"jsonrpc":"2.0","id":4,"method":"ping","params":{` + statelessMetaJSON + `}}`); errorCode(t, m) != -32601 {
		t.Fatalf("stateless ping: %v", m)
	}
	if m := h.roundTrip(`{"jsonrpc":"2.0","id":5,"method":"ping"}`); m["result"] == nil {
		t.Fatalf("stateful ping: %v", m)
	}
}

// Log messages reach a stateless request only at or above the level its _meta asks for.
func TestStatelessLogLevel(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(Tool{Name: "log", Description: "Logs.", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *ToolCall) {
		Log(ctx, LevelDebug, "", "debug")
		Log(ctx, LevelError, "", "error")
		c.ReturnText("done")
	}})
	h := start(t, srv)
	h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"log",` + statelessMetaJSON + `}}`)
	if m := h.recv(); m["id"] != float64(1) {
		t.Fatalf("without logLevel the first message is %v", m)
	}
	h.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"log","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"warning"}}}`)
	if m := h.recv(); m["method"] != "notifications/message" || m["params"].(map[string]any)["data"] != "error" {
		t.Fatalf("with logLevel warning: %v", m)
	}
	if m := h.recv(); m["id"] != float64(2) {
		t.Fatalf("then the response: %v", m)
	}
}

// A stateless request's clientInfo and capabilities reach the body, from its own _meta.
func TestStatelessRequestKnowsItsClient(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(Tool{Name: "who", Description: "Says who asks.", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *ToolCall) {
		r := RequestFrom(ctx)
		c.ReturnText(r.ClientInfo().Name + " " + r.ClientInfo().Version + " " + r.ProtocolVersion() + fmt.Sprintf(" sampling=%v", r.ClientCapabilities().Sampling))
	}})
	h := start(t, srv)
	m := h.roundTrip(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"who","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"probe","version":"9"},"io.modelcontextprotocol/clientCapabilities":{"sampling":{}}}}}`)
	if got := toolText(t, m); got != "probe 9 2026-07-28 sampling=true" {
		t.Errorf("the body saw %q", got)
	}
}
