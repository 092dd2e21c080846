package e2e

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// The stateless revision, 2026-07-28, end to end: a scripted client sends requests with
// their per-request _meta to the everything server, over stdio and over Streamable HTTP,
// and every message the server sends is checked against the 2026-07-28 schema (or the
// stateful one, for the stateful session of TestStatelessBesideStateful) and against the rules of
// the revision that a schema cannot state: ids echoed with their type, no reserved error
// codes, nothing on a request's stream but its progress and log messages and its response,
// every notification of a subscription tagged with it.

const (
	statelessRev = "2026-07-28"
	statefulRev  = "2025-11-25"
)

type statelessCase struct {
	name string
	fn   func(t *testing.T, c *mclient)
}

// TestStateless runs each case against a server of its own, over stdio and over HTTP.
func TestStateless(t *testing.T) {
	cases := []statelessCase{
		{"discover", statelessDiscover},
		{"lists", statelessLists},
		{"calls", statelessCalls},
		{"meta errors", statelessMetaErrors},
		{"removed methods", statelessRemovedMethods},
		{"resource not found", statelessResourceNotFound},
		{"missing capability", statelessMissingCapability},
		{"input required", statelessInputRequired},
		{"multi round", statelessMultiRound},
		{"multiple inputs", statelessMultipleInputs},
		{"request state", statelessRequestState},
		{"input capabilities", statelessInputCapabilities},
		{"input required prompt", statelessInputRequiredPrompt},
		{"logging", statelessLogging},
		{"progress", statelessProgress},
		{"subscriptions", statelessSubscriptions},
		{"subscription filters", statelessSubscriptionFilters},
	}
	for _, tr := range []struct {
		name  string
		start func(t *testing.T) mconn
	}{
		{"stdio", func(t *testing.T) mconn { return startStatelessStdio(t) }},
		{"http", func(t *testing.T) mconn { return startStatelessHTTP(t) }},
	} {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					t.Parallel()
					c := &mclient{t: t, conn: tr.start(t)}
					tc.fn(t, c)
					if s, ok := c.conn.(*mstdio); ok {
						// Over stdio, nothing of a stateless request may come after its response.
						time.Sleep(50 * time.Millisecond)
						if stray := s.takeStray(); len(stray) > 0 {
							t.Errorf("notifications outside any request: %v", stray)
						}
					}
				})
			}
		})
	}
}

var (
	elicitCaps   = map[string]any{"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{}}}
	samplingCaps = map[string]any{"io.modelcontextprotocol/clientCapabilities": map[string]any{"sampling": map[string]any{}}}
	allCaps      = map[string]any{"io.modelcontextprotocol/clientCapabilities": map[string]any{
		"elicitation": map[string]any{}, "sampling": map[string]any{}, "roots": map[string]any{}}}
)

func statelessDiscover(t *testing.T, c *mclient) {
	res := c.must("server/discover", nil, nil)
	versions, _ := res["supportedVersions"].([]any)
	if !slices.Contains(versions, any(statelessRev)) || !slices.Contains(versions, any(statefulRev)) {
		t.Errorf("supportedVersions %v lack %s or %s", versions, statelessRev, statefulRev)
	}
	caps, _ := json.Marshal(res["capabilities"])
	for _, want := range []string{`"tools":{"listChanged":true}`, `"prompts":{"listChanged":true}`, `"subscribe":true`} {
		if !strings.Contains(string(caps), want) {
			t.Errorf("capabilities %s lack %s", caps, want)
		}
	}
	checkCacheHints(t, "server/discover", res)
	if !strings.HasPrefix(fmt.Sprint(res["instructions"]), "A test server") {
		t.Errorf("instructions %v", res["instructions"])
	}
	// clientInfo is optional, and a string id comes back as a string.
	x := c.do(mcall{id: "discover-1", method: "server/discover", meta: map[string]any{"io.modelcontextprotocol/clientInfo": nil}})
	if x.result() == nil {
		t.Errorf("discover without clientInfo: %v", x.resp)
	}
}

func checkCacheHints(t *testing.T, what string, res map[string]any) {
	t.Helper()
	ttl, ok := res["ttlMs"].(float64)
	if !ok || ttl < 0 || ttl != float64(int64(ttl)) {
		t.Errorf("%s: ttlMs %v, want an integer >= 0", what, res["ttlMs"])
	}
	if s := res["cacheScope"]; s != "public" && s != "private" {
		t.Errorf("%s: cacheScope %v", what, s)
	}
}

func statelessLists(t *testing.T, c *mclient) {
	tools := c.must("tools/list", nil, nil)
	checkCacheHints(t, "tools/list", tools)
	got := names(tools["tools"].([]any), "name")
	for _, want := range []string{"json_schema_2020_12_tool", "test_custom_header", "test_input_required_result_elicitation",
		"test_logging_tool", "test_missing_capability", "test_trigger_tool_change", "test_simple_text"} {
		if !slices.Contains(got, want) {
			t.Errorf("tools/list lacks %s: %v", want, got)
		}
	}
	if !slices.IsSorted(got) {
		t.Errorf("tools/list is not sorted: %v", got)
	}
	if again := names(c.must("tools/list", nil, nil)["tools"].([]any), "name"); !slices.Equal(got, again) {
		t.Errorf("tools/list changed between two calls: %v, then %v", got, again)
	}
	for _, tool := range tools["tools"].([]any) {
		if tool := tool.(map[string]any); tool["name"] == "test_custom_header" {
			region := tool["inputSchema"].(map[string]any)["properties"].(map[string]any)["region"].(map[string]any)
			if region["x-mcp-header"] != "Region" || region["type"] != "string" {
				t.Errorf("test_custom_header's region: %v", region)
			}
		}
	}

	prompts := c.must("prompts/list", nil, nil)
	checkCacheHints(t, "prompts/list", prompts)
	if got := names(prompts["prompts"].([]any), "name"); !slices.Contains(got, "test_input_required_result_prompt") || !slices.IsSorted(got) {
		t.Errorf("prompts/list: %v", got)
	}
	resources := c.must("resources/list", nil, nil)
	checkCacheHints(t, "resources/list", resources)
	if got := names(resources["resources"].([]any), "uri"); !slices.Equal(got, []string{"test://static-binary", "test://static-text", "test://watched-resource"}) {
		t.Errorf("resources/list: %v", got)
	}
	templates := c.must("resources/templates/list", nil, nil)
	checkCacheHints(t, "resources/templates/list", templates)
	if got := names(templates["resourceTemplates"].([]any), "uriTemplate"); !slices.Equal(got, []string{"test://template/{id}/data"}) {
		t.Errorf("resources/templates/list: %v", got)
	}
	for uri, want := range map[string]string{
		"test://static-text":       "This is the content of the static text resource.",
		"test://template/123/data": `{"id":"123","templateTest":true,"data":"Data for ID: 123"}`,
	} {
		read := c.must("resources/read", map[string]any{"uri": uri}, nil)
		checkCacheHints(t, "resources/read "+uri, read)
		if content := read["contents"].([]any)[0].(map[string]any); content["text"] != want || content["uri"] != uri {
			t.Errorf("resources/read %s: %v", uri, content)
		}
	}
	// Results that are not cacheable are still complete results.
	comp := c.must("completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "test_prompt_with_arguments"},
		"argument": map[string]any{"name": "arg1", "value": "pa"}}, nil)
	if got := fmt.Sprint(comp["completion"].(map[string]any)["values"]); got != "[paris park party]" {
		t.Errorf("completion: %v", got)
	}
	c.fails(mcall{method: "tools/list", params: map[string]any{"cursor": "not a cursor"}}, -32602, anyStatus)
}

func statelessCalls(t *testing.T, c *mclient) {
	if got := c.tool("test_simple_text", nil, nil); got != "This is a simple text response for testing." {
		t.Errorf("simple text: %q", got)
	}
	res := c.must("tools/call", map[string]any{"name": "test_error_handling", "arguments": map[string]any{}}, nil)
	if res["isError"] != true {
		t.Errorf("error tool: %v", res)
	}
	if got := c.tool("test_custom_header", map[string]any{"region": "eu-west-1"}, nil); got != "region: eu-west-1" {
		t.Errorf("custom header tool: %q", got)
	}
	c.fails(mcall{method: "tools/call", params: map[string]any{"name": "no_such_tool", "arguments": map[string]any{}}}, -32602, anyStatus)
	p := c.must("prompts/get", map[string]any{"name": "test_prompt_with_arguments", "arguments": map[string]any{"arg1": "a", "arg2": "b"}}, nil)
	if got, _ := json.Marshal(p["messages"]); !strings.Contains(string(got), "arg1='a', arg2='b'") {
		t.Errorf("prompt: %s", got)
	}
}

func statelessMetaErrors(t *testing.T, c *mclient) {
	// No _meta at all, no protocol version, no client capabilities: invalid params, with the
	// request's id, as a number or as a string.
	e := c.fails(mcall{id: 101, method: "server/discover", params: map[string]any{}, noMeta: true}, -32602, 400)
	if e["message"] == "" {
		t.Errorf("no message: %v", e)
	}
	c.fails(mcall{id: "no-version", method: "server/discover", meta: map[string]any{"io.modelcontextprotocol/protocolVersion": nil}}, -32602, 400)
	c.fails(mcall{id: 104, method: "server/discover", meta: map[string]any{"io.modelcontextprotocol/clientCapabilities": nil}}, -32602, 400)
	c.fails(mcall{method: "tools/list", meta: map[string]any{"io.modelcontextprotocol/clientCapabilities": nil}}, -32602, 400)
	c.fails(mcall{method: "tools/call", params: map[string]any{"name": "test_simple_text"},
		meta: map[string]any{"io.modelcontextprotocol/clientCapabilities": nil}}, -32602, 400)
	c.fails(mcall{method: "server/discover", meta: map[string]any{"io.modelcontextprotocol/clientCapabilities": "all"}}, -32602, 400)
	c.fails(mcall{method: "tools/list", meta: map[string]any{"io.modelcontextprotocol/logLevel": "loud"}}, -32602, anyStatus)
	if c.conn.isHTTP() {
		// The header marks the request as stateless, so the missing version is an error of
		// this revision, not a stateful request.
		c.fails(mcall{method: "tools/list", meta: map[string]any{"io.modelcontextprotocol/protocolVersion": nil}}, -32602, 400)
	}

	// A version the server does not speak: the versions it does, and the one asked for.
	x := c.do(mcall{id: "v", method: "server/discover", meta: map[string]any{"io.modelcontextprotocol/protocolVersion": "1900-01-01"}})
	e = expectError(t, c.conn, x, "unknown version", -32022, 400)
	data, _ := e["data"].(map[string]any)
	supported, _ := data["supported"].([]any)
	discovered := c.must("server/discover", nil, nil)["supportedVersions"].([]any)
	if data["requested"] != "1900-01-01" || len(supported) == 0 || !slices.Contains(supported, any(statelessRev)) {
		t.Errorf("unsupported version data: %v", data)
	}
	for _, v := range supported {
		if !slices.Contains(discovered, v) {
			t.Errorf("-32022 lists %v, which server/discover does not (%v)", v, discovered)
		}
	}
	x = c.do(mcall{method: "tools/call", params: map[string]any{"name": "test_simple_text"}, meta: map[string]any{"io.modelcontextprotocol/protocolVersion": "v999.0.0"}})
	if e := expectError(t, c.conn, x, "unknown version on tools/call", -32022, 400); e["data"].(map[string]any)["requested"] != "v999.0.0" {
		t.Errorf("requested: %v", e)
	}
}

func statelessRemovedMethods(t *testing.T, c *mclient) {
	for _, call := range []mcall{
		{method: "initialize", params: map[string]any{"protocolVersion": statelessRev, "capabilities": map[string]any{}, "clientInfo": defaultClientInfo}},
		{method: "ping"},
		{method: "logging/setLevel", params: map[string]any{"level": "debug"}},
		{method: "resources/subscribe", params: map[string]any{"uri": "test://watched-resource"}},
		{method: "resources/unsubscribe", params: map[string]any{"uri": "test://watched-resource"}},
		{method: "tasks/list"},
		{method: "unknown/method"},
	} {
		c.fails(call, -32601, 404)
	}
	// initialize did not start a stateful session: a request without _meta is still refused.
	if !c.conn.isHTTP() {
		x := c.do(mcall{method: "tools/list", noMeta: true, version: statefulRev})
		if x.rpcError() == nil {
			t.Errorf("a request without _meta after a stateless initialize: %v", x.resp)
		}
	}
	// The server goes on serving.
	c.must("server/discover", nil, nil)
}

func statelessResourceNotFound(t *testing.T, c *mclient) {
	const uri = "test://nonexistent-resource-for-conformance-testing"
	e := c.fails(mcall{method: "resources/read", params: map[string]any{"uri": uri}}, -32602, anyStatus)
	if data, _ := e["data"].(map[string]any); data["uri"] != uri {
		t.Errorf("resource not found: data %v, want the uri", e["data"])
	}
}

func statelessMissingCapability(t *testing.T, c *mclient) {
	for _, caps := range []map[string]any{{}, {"elicitation": map[string]any{}, "roots": map[string]any{}}} {
		x := c.do(mcall{method: "tools/call", params: map[string]any{"name": "test_missing_capability", "arguments": map[string]any{}},
			meta: map[string]any{"io.modelcontextprotocol/clientCapabilities": caps}})
		e := expectError(t, c.conn, x, fmt.Sprintf("test_missing_capability with %v", caps), -32021, 400)
		data, _ := e["data"].(map[string]any)
		required, _ := data["requiredCapabilities"].(map[string]any)
		if _, ok := required["sampling"].(map[string]any); !ok {
			t.Errorf("requiredCapabilities %v lack sampling", data)
		}
		if c.conn.isHTTP() && len(x.msgs) != 1 {
			t.Errorf("-32021 came after %d other messages", len(x.msgs)-1)
		}
	}
	// With sampling, the question comes back as an input request.
	res := c.do(mcall{method: "tools/call", params: map[string]any{"name": "test_missing_capability", "arguments": map[string]any{}}, meta: samplingCaps}).result()
	if res["resultType"] != "input_required" || inputMethods(res)["question"] != "sampling/createMessage" {
		t.Errorf("test_missing_capability with sampling: %v", res)
	}
}

func statelessLogging(t *testing.T, c *mclient) {
	params := map[string]any{"name": "test_logging_tool", "arguments": map[string]any{}}
	// Without a log level, no log messages.
	x := c.do(mcall{method: "tools/call", params: params})
	if x.result() == nil || len(x.notes("notifications/message")) != 0 {
		t.Errorf("without logLevel: %v", x.msgs)
	}
	// Above the message's level, none either.
	x = c.do(mcall{method: "tools/call", params: params, meta: map[string]any{"io.modelcontextprotocol/logLevel": "error"}})
	if x.result() == nil || len(x.notes("notifications/message")) != 0 {
		t.Errorf("at level error: %v", x.msgs)
	}
	// At debug, the message comes before the response, on its stream.
	x = c.do(mcall{method: "tools/call", params: params, meta: map[string]any{"io.modelcontextprotocol/logLevel": "debug"}})
	logs := x.notes("notifications/message")
	if len(logs) != 1 {
		t.Fatalf("at level debug: %d log messages before the response, want 1: %v (HTTP status %d, %q)",
			len(logs), x.msgs, x.status, x.header.Get("Content-Type"))
	}
	if p := logs[0]["params"].(map[string]any); p["level"] != "info" || p["data"] != "test_logging_tool was called" || p["logger"] != "everything" {
		t.Errorf("log message %v", p)
	}
	if x.result() == nil || text(t, x.result()) != "logged" {
		t.Errorf("logging tool: %v", x.resp)
	}
}

func statelessProgress(t *testing.T, c *mclient) {
	params := map[string]any{"name": "test_tool_with_progress", "arguments": map[string]any{}}
	for _, token := range []any{"progress-test-1", 42} {
		x := c.do(mcall{method: "tools/call", params: params, meta: map[string]any{"progressToken": token}})
		ns := x.notes("notifications/progress")
		if len(ns) != 3 {
			t.Fatalf("token %v: %d progress notifications before the response, want 3: %v", token, len(ns), x.msgs)
		}
		last := -1.0
		for _, n := range ns {
			p := n["params"].(map[string]any)
			if p["progress"].(float64) <= last || p["total"] != 100.0 {
				t.Errorf("progress %v", p)
			}
			last = p["progress"].(float64)
		}
		if c.conn.isHTTP() && !strings.HasPrefix(x.header.Get("Content-Type"), "text/event-stream") {
			t.Errorf("progress over HTTP came as %q", x.header.Get("Content-Type"))
		}
	}
	// Without a token, no progress.
	if x := c.do(mcall{method: "tools/call", params: params}); len(x.notes("notifications/progress")) != 0 {
		t.Errorf("progress without a token: %v", x.msgs)
	}
}

func statelessSubscriptions(t *testing.T, c *mclient) {
	sub := c.listen(1001, map[string]any{"toolsListChanged": true})
	if got := c.tool("test_trigger_tool_change", nil, nil); got != "added test_dynamic_tool" {
		t.Fatalf("trigger: %q", got)
	}
	sub.expectOne(t, "notifications/tools/list_changed")
	if got := names(c.must("tools/list", nil, nil)["tools"].([]any), "name"); !slices.Contains(got, "test_dynamic_tool") || !slices.IsSorted(got) {
		t.Errorf("tools/list after the change: %v", got)
	}
	if got := c.tool("test_trigger_tool_change", nil, nil); got != "removed test_dynamic_tool" {
		t.Fatalf("trigger again: %q", got)
	}
	sub.expectOne(t, "notifications/tools/list_changed")

	// Resource updates, for the URIs asked for; a string id comes back as a string.
	res := c.listen("watch", map[string]any{"resourceSubscriptions": []any{"test://watched-resource"}})
	c.must("tools/call", map[string]any{"name": "update_watched_resource", "arguments": map[string]any{"text": "changed"}}, nil)
	n := res.expect(t, "notifications/resources/updated")
	if n["params"].(map[string]any)["uri"] != "test://watched-resource" {
		t.Errorf("updated: %v", n)
	}
	if got := c.must("resources/read", map[string]any{"uri": "test://watched-resource"}, nil)["contents"].([]any)[0].(map[string]any)["text"]; got != "changed" {
		t.Errorf("the watched resource: %v", got)
	}
	// The tools subscription heard nothing of it.
	sub.quiet(t, 100*time.Millisecond)

	// The client ends a subscription: over stdio with notifications/cancelled, after which
	// nothing more comes for it, not even a response; over HTTP by closing the stream.
	sub.cancel()
	time.Sleep(200 * time.Millisecond)
	c.tool("test_trigger_tool_change", nil, nil)
	res.quiet(t, 200*time.Millisecond)
	// The server goes on serving, and a new subscription hears of changes.
	again := c.listen(1002, map[string]any{"toolsListChanged": true})
	c.tool("test_trigger_tool_change", nil, nil)
	again.expect(t, "notifications/tools/list_changed")
	again.cancel()
	res.cancel()
	time.Sleep(200 * time.Millisecond) // for a stray message to the cancelled subscriptions to show
}

func statelessSubscriptionFilters(t *testing.T, c *mclient) {
	prompts := c.listen("prompts-only", map[string]any{"promptsListChanged": true})
	tools := c.listen(7, map[string]any{"toolsListChanged": true})
	// A tools change, then a prompts change: the prompts subscription's first message is
	// the prompts one (the tools change would have come first), and the tools
	// subscription's is the tools one.
	c.tool("test_trigger_tool_change", nil, nil)
	c.tool("test_trigger_prompt_change", nil, nil)
	prompts.expect(t, "notifications/prompts/list_changed")
	tools.expect(t, "notifications/tools/list_changed")
	c.tool("test_trigger_tool_change", nil, nil)
	c.tool("test_trigger_prompt_change", nil, nil)
	// Then each hears of its own kind of change only.
	for _, tc := range []struct {
		sub        *msub
		want, leak string
	}{
		{prompts, "notifications/prompts/list_changed", "notifications/tools/list_changed"},
		{tools, "notifications/tools/list_changed", "notifications/prompts/list_changed"},
	} {
		n := 0
		for _, m := range tc.sub.drain(500 * time.Millisecond) {
			switch m["method"] {
			case tc.leak:
				t.Errorf("subscription %v: %s, which it did not ask for", tc.sub.id, tc.leak)
			case tc.want:
				n++
			default:
				t.Errorf("subscription %v: unexpected %v", tc.sub.id, m)
			}
		}
		if n != 1 {
			t.Errorf("subscription %v: %d %s after the first, for one more change, want 1", tc.sub.id, n, tc.want)
		}
	}
	tools.cancel()
	prompts.cancel()
}

// TestStatelessBesideStateful: one stdio process serves a stateful session and stateless requests,
// interleaved; each gets the answers of its era, and neither changes the other.
func TestStatelessBesideStateful(t *testing.T) {
	t.Parallel()
	s := startStatelessStdio(t)
	c := &mclient{t: t, conn: s}
	stateful := func(method string, params map[string]any) map[string]any {
		t.Helper()
		x := c.do(mcall{method: method, params: params, noMeta: true, version: statefulRev})
		r := x.result()
		if r == nil {
			t.Fatalf("stateful %s: %v", method, x.resp)
		}
		if _, ok := r["resultType"]; ok {
			t.Errorf("stateful %s: a result with resultType: %v", method, r)
		}
		if _, ok := r["ttlMs"]; ok {
			t.Errorf("stateful %s: a result with ttlMs: %v", method, r)
		}
		return r
	}

	// Stateless first: discover before any initialize.
	c.must("server/discover", nil, nil)
	// Stateful requests before initialize are refused, the stateful way.
	if x := c.do(mcall{method: "tools/list", noMeta: true, version: statefulRev}); x.rpcError() == nil || x.rpcError()["code"] != -32600.0 {
		t.Errorf("a stateful request before initialize: %v", x.resp)
	}
	init := stateful("initialize", map[string]any{"protocolVersion": statefulRev, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "e2e-stateful", "version": "1"}})
	if init["protocolVersion"] != statefulRev {
		t.Errorf("initialize: %v", init)
	}
	s.mu.Lock()
	s.stateful = true
	s.mu.Unlock()
	c.do(mcall{method: "notifications/initialized", noMeta: true, notify: true})

	statefulTools := names(stateful("tools/list", nil)["tools"].([]any), "name")
	statelessTools := names(c.must("tools/list", nil, nil)["tools"].([]any), "name")
	if !slices.Equal(statefulTools, statelessTools) {
		t.Errorf("the eras list different tools: %v and %v", statefulTools, statelessTools)
	}
	if len(stateful("ping", nil)) != 0 {
		t.Error("stateful ping: not empty")
	}
	c.fails(mcall{method: "ping"}, -32601, anyStatus)
	// Stateful errors keep their codes: resource not found is -32002 there, -32602 here.
	if x := c.do(mcall{method: "resources/read", params: map[string]any{"uri": "test://nothing"}, noMeta: true, version: statefulRev}); x.rpcError()["code"] != -32002.0 {
		t.Errorf("stateful resource not found: %v", x.resp)
	}
	c.fails(mcall{method: "resources/read", params: map[string]any{"uri": "test://nothing"}}, -32602, anyStatus)

	// The stateful session's log level is not a stateless request's.
	stateful("logging/setLevel", map[string]any{"level": "debug"})
	if x := c.do(mcall{method: "tools/call", params: map[string]any{"name": "test_logging_tool", "arguments": map[string]any{}}}); len(x.notes("notifications/message")) != 0 {
		t.Errorf("a stateless request without logLevel got the stateful session's log messages: %v", x.msgs)
	}
	// A stateful call logs, at the session's level.
	x := c.do(mcall{method: "tools/call", params: map[string]any{"name": "test_logging_tool", "arguments": map[string]any{}}, noMeta: true, version: statefulRev})
	if r := x.result(); r == nil || r["resultType"] != nil || len(x.notes("notifications/message")) != 1 {
		t.Errorf("a stateful call at level debug: %v", x.msgs)
	}

	// A stateless request's change reaches the stateful session, which has no subscription id.
	// The notification may come before the request's response (the client then files it
	// with the request's messages) or after it (stray).
	x = c.do(mcall{method: "tools/call", params: map[string]any{"name": "test_trigger_tool_change"}})
	if x.result() == nil {
		t.Fatalf("test_trigger_tool_change: %v", x.resp)
	}
	deadline := time.After(10 * time.Second)
	for changed := false; !changed; {
		for _, n := range append(x.notes("notifications/tools/list_changed"), s.takeStray()...) {
			if n["method"] == "notifications/tools/list_changed" {
				changed = true
				if p, _ := n["params"].(map[string]any); p["_meta"] != nil {
					t.Errorf("the stateful session's list_changed is tagged: %v", n)
				}
			}
		}
		select {
		case <-deadline:
			t.Fatal("the stateful session did not hear of the tool change")
		case <-time.After(20 * time.Millisecond):
		}
	}
	if got := names(stateful("tools/list", nil)["tools"].([]any), "name"); !slices.Contains(got, "test_dynamic_tool") {
		t.Errorf("stateful tools/list after the change: %v", got)
	}
	// A second initialize is refused; stateless requests go on.
	if x := c.do(mcall{method: "initialize", params: map[string]any{"protocolVersion": statefulRev, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "again", "version": "1"}}, noMeta: true, version: statefulRev}); x.rpcError() == nil {
		t.Errorf("a second initialize: %v", x.resp)
	}
	c.must("server/discover", nil, nil)
}
