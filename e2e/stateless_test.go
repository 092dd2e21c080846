package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"
	"sync"
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

// mcall is one request of the scripted client.
type mcall struct {
	id       any // the JSON-RPC id; the client numbers requests without one
	method   string
	params   map[string]any    // without _meta, which is added unless noMeta
	meta     map[string]any    // _meta entries over the defaults; a nil value removes one
	noMeta   bool              // send params as they are, with no _meta added
	header   map[string]string // HTTP headers over the defaults, names as written; "" removes one
	version  string            // the revision to check the answer against (statelessRev)
	notify   bool              // a notification: no id, no answer awaited
	rawMsg   []byte            // the message as built (set by the client)
	idJSON   string            // the id as JSON
	progress any               // the progress token, if the request has one
}

// mexchange is what the server sent about one request.
type mexchange struct {
	status int              // the HTTP status (0 over stdio)
	header http.Header      // the HTTP response header
	msgs   []map[string]any // the notifications about the request, in order, then its response
	resp   map[string]any   // the response
}

func (x *mexchange) result() map[string]any {
	r, _ := x.resp["result"].(map[string]any)
	return r
}

func (x *mexchange) rpcError() map[string]any {
	e, _ := x.resp["error"].(map[string]any)
	return e
}

// notes are the notifications with the method that came before the response.
func (x *mexchange) notes(method string) []map[string]any {
	var out []map[string]any
	for _, m := range x.msgs {
		if m["method"] == method {
			out = append(out, m)
		}
	}
	return out
}

// msub is an open subscriptions/listen request: the messages of its stream, in order.
type msub struct {
	id     any
	msgs   chan map[string]any // closed when the stream ends
	cancel func()              // HTTP: close the stream; stdio: notifications/cancelled
}

// next waits for the subscription's next message; ok is false if none came in time or the
// stream ended.
func (s *msub) next(wait time.Duration) (map[string]any, bool) {
	select {
	case m, ok := <-s.msgs:
		return m, ok
	case <-time.After(wait):
		return nil, false
	}
}

// expect waits for the next message of the subscription, which must be a notification with
// the method, tagged with the subscription's id.
func (s *msub) expect(t *testing.T, method string) map[string]any {
	t.Helper()
	m, ok := s.next(10 * time.Second)
	if !ok {
		t.Fatalf("subscription %v: no %s within 10s", s.id, method)
	}
	if m["method"] != method {
		t.Fatalf("subscription %v: got %v, want %s", s.id, m, method)
	}
	return m
}

// quiet checks that the subscription carries nothing for a while.
func (s *msub) quiet(t *testing.T, wait time.Duration) {
	t.Helper()
	if m, ok := s.next(wait); ok {
		t.Errorf("subscription %v: unexpected message %v", s.id, m)
	}
}

// drain collects what the subscription carries for a while.
func (s *msub) drain(wait time.Duration) []map[string]any {
	var out []map[string]any
	deadline := time.After(wait)
	for {
		select {
		case m, ok := <-s.msgs:
			if !ok {
				return out
			}
			out = append(out, m)
		case <-deadline:
			return out
		}
	}
}

// expectOne is expect for the notification of one change: no second one follows.
func (s *msub) expectOne(t *testing.T, method string) map[string]any {
	t.Helper()
	m := s.expect(t, method)
	for _, more := range s.drain(200 * time.Millisecond) {
		if more["method"] == method {
			t.Errorf("subscription %v: a second %s for one change", s.id, method)
		} else {
			t.Errorf("subscription %v: unexpected message %v", s.id, more)
		}
	}
	return m
}

// mconn carries a stateless client's requests to one server process.
type mconn interface {
	exchange(t *testing.T, c *mcall) *mexchange
	listen(t *testing.T, c *mcall) *msub
	isHTTP() bool
}

// mclient is the scripted client of revision 2026-07-28.
type mclient struct {
	t    *testing.T
	conn mconn
	mu   sync.Mutex
	next int
}

var defaultClientInfo = map[string]any{"name": "e2e-stateless", "version": "1.0.0"}

// build completes a call: its id and its message.
func (c *mclient) build(call *mcall) {
	if call.version == "" {
		call.version = statelessRev
	}
	if call.id == nil && !call.notify {
		c.mu.Lock()
		c.next++
		call.id = c.next
		c.mu.Unlock()
	}
	msg := map[string]any{"jsonrpc": "2.0", "method": call.method}
	if !call.notify {
		msg["id"] = call.id
		b, _ := json.Marshal(call.id)
		call.idJSON = string(b)
	}
	params := map[string]any{}
	for k, v := range call.params {
		params[k] = v
	}
	if !call.noMeta {
		meta := map[string]any{
			"io.modelcontextprotocol/protocolVersion":    statelessRev,
			"io.modelcontextprotocol/clientCapabilities": map[string]any{},
			"io.modelcontextprotocol/clientInfo":         defaultClientInfo,
		}
		for k, v := range call.meta {
			if v == nil {
				delete(meta, k)
			} else {
				meta[k] = v
			}
		}
		call.progress = meta["progressToken"]
		params["_meta"] = meta
	}
	if call.params != nil || !call.noMeta {
		msg["params"] = params
	}
	call.rawMsg, _ = json.Marshal(msg)
}

// do sends a request and returns what the server sent about it.
func (c *mclient) do(call mcall) *mexchange {
	c.t.Helper()
	c.build(&call)
	return c.conn.exchange(c.t, &call)
}

// must sends a request that must complete, and returns its result.
func (c *mclient) must(method string, params map[string]any, meta map[string]any) map[string]any {
	c.t.Helper()
	x := c.do(mcall{method: method, params: params, meta: meta})
	res := x.result()
	if res == nil {
		c.t.Fatalf("%s: want a result, got %v", method, x.resp)
	}
	if res["resultType"] != "complete" {
		c.t.Fatalf("%s: resultType %v, want complete: %v", method, res["resultType"], res)
	}
	return res
}

// fails sends a request that must fail with the code (and, over HTTP, the status), and
// returns the error.
func (c *mclient) fails(call mcall, code int, status int) map[string]any {
	c.t.Helper()
	x := c.do(call)
	return expectError(c.t, c.conn, x, call.method, code, status)
}

// anyStatus is the status of an error the spec gives none: invalid params other than a
// malformed _meta (an unknown tool, a resource not found, a bad cursor). 200 and 400 are
// both reasonable answers.
const anyStatus = 0

func expectError(t *testing.T, conn mconn, x *mexchange, what string, code, status int) map[string]any {
	t.Helper()
	e := x.rpcError()
	if e == nil {
		t.Errorf("%s: want error %d, got %v", what, code, x.resp)
		return map[string]any{}
	}
	if e["code"] != float64(code) {
		t.Errorf("%s: error %v, want code %d", what, e, code)
	}
	if conn.isHTTP() && status == anyStatus && x.status != http.StatusOK && x.status != http.StatusBadRequest {
		t.Errorf("%s: HTTP status %d, want 200 or 400 (error %v)", what, x.status, e)
	}
	if conn.isHTTP() && status != anyStatus && x.status != status {
		t.Errorf("%s: HTTP status %d, want %d (error %v)", what, x.status, status, e)
	}
	if conn.isHTTP() && x.status >= 400 {
		if mt, _, _ := mime.ParseMediaType(x.header.Get("Content-Type")); mt != "application/json" {
			t.Errorf("%s: an error with status %d comes as %q, want application/json", what, x.status, x.header.Get("Content-Type"))
		}
	}
	return e
}

// tool calls a tool that must complete and returns the text of its first block.
func (c *mclient) tool(name string, args map[string]any, meta map[string]any) string {
	c.t.Helper()
	params := map[string]any{"name": name}
	if args != nil {
		params["arguments"] = args
	}
	res := c.must("tools/call", params, meta)
	content, _ := res["content"].([]any)
	if len(content) == 0 {
		c.t.Fatalf("%s: no content: %v", name, res)
	}
	s, _ := content[0].(map[string]any)["text"].(string)
	return s
}

// listen opens a subscription and checks its acknowledgement, which must come first, be
// tagged with the request's id and echo the filter the server honours (all of it, here).
func (c *mclient) listen(id any, filter map[string]any) *msub {
	c.t.Helper()
	call := mcall{id: id, method: "subscriptions/listen", params: map[string]any{"notifications": filter}}
	c.build(&call)
	sub := c.conn.listen(c.t, &call)
	ack := sub.expect(c.t, "notifications/subscriptions/acknowledged")
	p, _ := ack["params"].(map[string]any)
	if got, _ := json.Marshal(p["notifications"]); !jsonEqual(got, filter) {
		c.t.Errorf("acknowledged %s, want %v", got, filter)
	}
	return sub
}

func jsonEqual(a []byte, b any) bool {
	bb, _ := json.Marshal(b)
	var x, y any
	json.Unmarshal(a, &x)
	json.Unmarshal(bb, &y)
	return fmt.Sprint(x) == fmt.Sprint(y)
}

// checkStatelessMessage applies the rules of the revision a schema cannot state to a message
// about a request (not a subscription): a response carries the request's id with its type,
// a result names the server, an error uses no code the revision reserves or retired, and
// the only notifications are the request's progress (with its token) and log messages.
func checkStatelessMessage(t *testing.T, call *mcall, m map[string]any) {
	t.Helper()
	if method, ok := m["method"].(string); ok {
		switch method {
		case "notifications/progress":
			p, _ := m["params"].(map[string]any)
			if call.progress == nil || fmt.Sprint(p["progressToken"]) != fmt.Sprint(call.progress) {
				t.Errorf("%s: progress for token %v, but the request's token is %v", call.method, p["progressToken"], call.progress)
			}
		case "notifications/message":
		default:
			t.Errorf("%s: %s on the request's stream: only its progress, log messages and response belong there", call.method, method)
		}
		return
	}
	if id, _ := json.Marshal(m["id"]); string(id) != call.idJSON {
		t.Errorf("%s: response id %s, want %s", call.method, id, call.idJSON)
	}
	if e, ok := m["error"].(map[string]any); ok && call.version == statelessRev {
		code, _ := e["code"].(float64)
		if code >= -32099 && code <= -32000 && code != -32020 && code != -32021 && code != -32022 {
			t.Errorf("%s: error code %v is reserved or retired in revision %s: %v", call.method, code, statelessRev, e)
		}
	}
	if r, ok := m["result"].(map[string]any); ok && call.version == statelessRev {
		meta, _ := r["_meta"].(map[string]any)
		if info, _ := meta["io.modelcontextprotocol/serverInfo"].(map[string]any); info["name"] != "mcpgen-everything" || info["version"] != "1.0.0" {
			t.Errorf("%s: result without the server's identity in _meta: %v", call.method, r)
		}
	}
}

// checkSubscriptionMessage checks a message of a subscription's stream: every notification
// is tagged with the subscription's id, with the id's type, and the only response is the
// result that ends the subscription, tagged too.
func checkSubscriptionMessage(t *testing.T, call *mcall, m map[string]any) {
	t.Helper()
	var meta map[string]any
	if _, isCall := m["method"]; isCall {
		p, _ := m["params"].(map[string]any)
		meta, _ = p["_meta"].(map[string]any)
	} else {
		if id, _ := json.Marshal(m["id"]); string(id) != call.idJSON {
			t.Errorf("listen: response id %s, want %s", id, call.idJSON)
		}
		r, ok := m["result"].(map[string]any)
		if !ok {
			t.Errorf("listen: ended with %v", m)
			return
		}
		if r["resultType"] != "complete" {
			t.Errorf("listen: ended with %v, want resultType complete", r)
		}
		meta, _ = r["_meta"].(map[string]any)
	}
	if sid, _ := json.Marshal(meta["io.modelcontextprotocol/subscriptionId"]); string(sid) != call.idJSON {
		t.Errorf("listen %s: message tagged with subscription %s: %v", call.idJSON, sid, m)
	}
}

// --- stdio ---------------------------------------------------------------------------------

// mstdio is a server process spoken to over stdin and stdout. One goroutine reads what the
// server writes and routes it: responses to the requests waiting for them, notifications
// tagged with a subscription to it, and other notifications to the requests in progress.
type mstdio struct {
	t    *testing.T
	tr   *stdioTransport
	done chan struct{} // closed when stdout ends

	mu       sync.Mutex
	pending  map[string]*stdioPending // by id, as JSON
	subs     map[string]*stdioPending // open subscriptions, by id, as JSON
	stray    []map[string]any         // notifications that came when no request was waiting
	stateful bool                     // a stateful session is open: untagged notifications may be stateful ones
}

type stdioPending struct {
	call  *mcall
	msgs  []map[string]any
	resp  chan map[string]any
	sub   *msub
	ended bool // the subscription's stream has been closed (cancelled)
}

func startStatelessStdio(t *testing.T) *mstdio {
	s := &mstdio{t: t, tr: startStdio(t, everythingBin), done: make(chan struct{}),
		pending: map[string]*stdioPending{}, subs: map[string]*stdioPending{}}
	go s.read()
	t.Cleanup(func() {
		s.tr.close()
		select {
		case <-s.done:
		case <-time.After(10 * time.Second):
			t.Error("the server did not exit within 10s of stdin closing")
			s.tr.cmd.Process.Kill()
			<-s.done
		}
	})
	return s
}

func (s *mstdio) isHTTP() bool { return false }

func (s *mstdio) read() {
	defer close(s.done)
	for line := range s.tr.incoming() {
		s.route(line)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.subs {
		if !p.ended {
			p.ended = true
			close(p.sub.msgs)
		}
	}
}

func (s *mstdio) route(line []byte) {
	t := s.t
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		t.Errorf("server sent invalid JSON: %v: %s", err, line)
		return
	}
	if !bytes.HasSuffix(line, []byte("\n")) || bytes.Count(line, []byte("\n")) != 1 {
		t.Errorf("message not on one line: %q", line)
	}
	idJSON, _ := json.Marshal(m["id"])
	_, isCall := m["method"]
	s.mu.Lock()
	defer s.mu.Unlock()
	var sid []byte
	if isCall {
		p, _ := m["params"].(map[string]any)
		meta, _ := p["_meta"].(map[string]any)
		if v, ok := meta["io.modelcontextprotocol/subscriptionId"]; ok {
			sid, _ = json.Marshal(v)
		}
	}
	switch {
	case isCall && m["id"] != nil:
		checkSchema(s.t, statelessRev, line, "")
		t.Errorf("the server sent a request over stdio: %s", line)
	case !isCall:
		if sub := s.subs[string(idJSON)]; sub != nil {
			checkSchema(s.t, statelessRev, line, "subscriptions/listen")
			s.toSub(sub, m)
			return
		}
		p := s.pending[string(idJSON)]
		if p == nil {
			checkSchema(s.t, statelessRev, line, "")
			t.Errorf("a response to no request in progress: %s", line)
			return
		}
		delete(s.pending, string(idJSON))
		checkSchema(s.t, p.call.version, line, p.call.method)
		checkStatelessMessage(t, p.call, m)
		p.msgs = append(p.msgs, m)
		p.resp <- m
	case sid != nil:
		checkSchema(s.t, statelessRev, line, "")
		sub := s.subs[string(sid)]
		if sub == nil {
			t.Errorf("a notification of no subscription: %s", line)
			return
		}
		s.toSub(sub, m)
	default:
		if s.stateful {
			s.checkEither(line)
		} else {
			checkSchema(s.t, statelessRev, line, "")
			// Without a stateful session, a notification that belongs to no subscription
			// belongs to a request in progress: its progress or its log messages.
			if method := m["method"]; method != "notifications/progress" && method != "notifications/message" {
				t.Errorf("%v outside any subscription, with no stateful session: %s", method, line)
			}
			if m["method"] == "notifications/progress" {
				p, _ := m["params"].(map[string]any)
				mine := false
				for _, pr := range s.pending {
					mine = mine || (pr.call.progress != nil && fmt.Sprint(pr.call.progress) == fmt.Sprint(p["progressToken"]))
				}
				if !mine {
					t.Errorf("progress for no request in progress: %s", line)
				}
			}
		}
		if len(s.pending) == 0 {
			s.stray = append(s.stray, m)
		}
		for _, p := range s.pending {
			p.msgs = append(p.msgs, m)
		}
	}
}

// toSub hands a message to a subscription; s.mu is held. A subscription the client has
// cancelled must hear nothing more: no response, no notification.
func (s *mstdio) toSub(p *stdioPending, m map[string]any) {
	if p.ended {
		s.t.Errorf("subscription %s: a message after the client cancelled it: %v", p.call.idJSON, m)
		return
	}
	checkSubscriptionMessage(s.t, p.call, m)
	select {
	case p.sub.msgs <- m:
	default:
		s.t.Errorf("subscription %s: too many messages unread", p.call.idJSON)
	}
}

// checkEither accepts an untagged notification valid in either era, when both are in use.
func (s *mstdio) checkEither(line []byte) {
	errStateless := referee.Check(statelessRev, line, "")
	errStateful := referee.Check(statefulRev, line, "")
	if errStateless != nil && errStateful != nil {
		s.t.Errorf("server sent a notification valid in neither era: %v; %v\n%s", errStateless, errStateful, line)
	}
}

func (s *mstdio) send(t *testing.T, msg []byte) {
	t.Helper()
	if err := s.tr.send(msg); err != nil {
		t.Fatalf("writing to the server: %v", err)
	}
}

func (s *mstdio) exchange(t *testing.T, call *mcall) *mexchange {
	t.Helper()
	if call.notify {
		s.send(t, call.rawMsg)
		return &mexchange{}
	}
	p := &stdioPending{call: call, resp: make(chan map[string]any, 1)}
	s.mu.Lock()
	s.pending[call.idJSON] = p
	s.mu.Unlock()
	s.send(t, call.rawMsg)
	select {
	case resp := <-p.resp:
		s.mu.Lock()
		defer s.mu.Unlock()
		return &mexchange{msgs: p.msgs, resp: resp}
	case <-time.After(20 * time.Second):
		t.Fatalf("%s: no response within 20s; stderr:\n%s", call.method, s.tr.stderr)
		return nil
	}
}

func (s *mstdio) listen(t *testing.T, call *mcall) *msub {
	t.Helper()
	sub := &msub{id: call.id, msgs: make(chan map[string]any, 64)}
	p := &stdioPending{call: call, sub: sub}
	sub.cancel = func() {
		s.mu.Lock()
		if !p.ended {
			p.ended = true
			close(sub.msgs)
		}
		s.mu.Unlock()
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled",
			"params": map[string]any{"requestId": call.id, "reason": "done listening"}})
		s.send(t, b)
	}
	s.mu.Lock()
	s.subs[call.idJSON] = p
	s.mu.Unlock()
	s.send(t, call.rawMsg)
	return sub
}

// takeStray returns the notifications that came while no request was in progress.
func (s *mstdio) takeStray() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.stray
	s.stray = nil
	return out
}

// --- Streamable HTTP -----------------------------------------------------------------------

// mhttp is a server process spoken to over Streamable HTTP: each request is a POST of its
// own, with the headers that mirror its body, answered with JSON or an SSE stream.
type mhttp struct {
	t  *testing.T
	tr *httpTransport // the process and its HTTP client; its session machinery is not used
	wg sync.WaitGroup // subscription streams being read
}

func startStatelessHTTP(t *testing.T) *mhttp {
	h := &mhttp{t: t, tr: startHTTP(t, everythingBin)}
	t.Cleanup(h.wg.Wait) // runs before the server is stopped
	return h
}

func (h *mhttp) isHTTP() bool { return true }

// headerParams are the tool arguments the everything server mirrors into headers
// (x-mcp-header), by tool: argument -> header.
var headerParams = map[string]map[string]string{"test_custom_header": {"region": "Region"}}

// request builds the POST of a call, with the headers a client of the revision sends.
func (h *mhttp) request(ctx context.Context, call *mcall) *http.Request {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.tr.url, bytes.NewReader(call.rawMsg))
	if err != nil {
		h.t.Fatal(err)
	}
	hd := req.Header
	hd.Set("Content-Type", "application/json")
	hd.Set("Accept", "application/json, text/event-stream")
	version := statelessRev
	if v, ok := call.meta["io.modelcontextprotocol/protocolVersion"].(string); ok {
		version = v
	}
	hd.Set("Mcp-Protocol-Version", version)
	hd.Set("Mcp-Method", call.method)
	switch call.method {
	case "tools/call", "prompts/get":
		if name, ok := call.params["name"].(string); ok {
			hd.Set("Mcp-Name", name)
		}
	case "resources/read":
		if uri, ok := call.params["uri"].(string); ok {
			hd.Set("Mcp-Name", uri)
		}
	}
	if call.method == "tools/call" {
		name, _ := call.params["name"].(string)
		args, _ := call.params["arguments"].(map[string]any)
		for arg, header := range headerParams[name] {
			if v, ok := args[arg]; ok && v != nil {
				hd.Set("Mcp-Param-"+header, fmt.Sprint(v))
			}
		}
	}
	for k, v := range call.header {
		hd.Del(k)
		if v != "" {
			hd[k] = []string{v} // as written: header names are case-insensitive on the wire
		}
	}
	return req
}

func (h *mhttp) check(t *testing.T, call *mcall, raw []byte) map[string]any {
	t.Helper()
	checkSchema(t, call.version, raw, call.method)
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Errorf("server sent invalid JSON: %v: %s", err, raw)
		return nil
	}
	if _, isCall := m["method"]; isCall && m["id"] != nil {
		t.Errorf("the server sent a request on a response stream: %s", raw)
	}
	return m
}

func (h *mhttp) exchange(t *testing.T, call *mcall) *mexchange {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	resp, err := h.tr.hc.Do(h.request(ctx, call))
	if err != nil {
		t.Fatalf("POST %s: %v", call.method, err)
	}
	defer resp.Body.Close()
	x := &mexchange{status: resp.StatusCode, header: resp.Header}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	var raws [][]byte
	switch mt {
	case "application/json":
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("POST %s: reading the answer: %v", call.method, err)
		}
		raws = append(raws, body)
	case "text/event-stream":
		if resp.Header.Get("Mcp-Session-Id") != "" {
			t.Errorf("POST %s: a session id in revision %s", call.method, statelessRev)
		}
		events := make(chan []byte)
		go readSSE(resp.Body, events)
		for ev := range events {
			raws = append(raws, ev)
		}
		if ctx.Err() != nil {
			t.Fatalf("POST %s: the stream did not end within 20s", call.method)
		}
	default:
		body, _ := io.ReadAll(resp.Body)
		if len(body) > 0 || !call.notify {
			t.Fatalf("POST %s: status %d, %q: %s", call.method, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	}
	for i, raw := range raws {
		m := h.check(t, call, raw)
		if m == nil {
			continue
		}
		checkStatelessMessage(t, call, m)
		x.msgs = append(x.msgs, m)
		if _, isCall := m["method"]; !isCall {
			if x.resp != nil {
				t.Errorf("POST %s: a second response: %v", call.method, m)
			}
			x.resp = m
			if i != len(raws)-1 {
				t.Errorf("POST %s: messages after the response: %s", call.method, raws[i+1:])
			}
		}
	}
	if call.notify {
		if x.status != http.StatusAccepted || len(raws) > 0 {
			t.Errorf("notification %s: status %d with %d messages, want 202 and none", call.method, x.status, len(raws))
		}
		return x
	}
	if x.resp == nil {
		t.Fatalf("POST %s: no response (status %d)", call.method, x.status)
	}
	if x.rpcError() == nil && x.status != http.StatusOK {
		t.Errorf("POST %s: a result with status %d", call.method, x.status)
	}
	return x
}

// readSSE sends the data of each event of a stream, and closes events at its end.
func readSSE(body io.Reader, events chan<- []byte) {
	defer close(events)
	r := bufio.NewReader(body)
	var data []string
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "" && len(data) > 0:
			events <- []byte(strings.Join(data, "\n"))
			data = nil
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
}

func (h *mhttp) listen(t *testing.T, call *mcall) *msub {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	resp, err := h.tr.hc.Do(h.request(ctx, call))
	if err != nil {
		cancel()
		t.Fatalf("POST subscriptions/listen: %v", err)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); resp.StatusCode != http.StatusOK || mt != "text/event-stream" {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		t.Fatalf("subscriptions/listen: status %d, %q: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	sub := &msub{id: call.id, msgs: make(chan map[string]any, 64)}
	var once sync.Once
	stopped := make(chan struct{})
	sub.cancel = func() {
		once.Do(func() {
			cancel()
			<-stopped
		})
	}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		defer close(stopped)
		defer close(sub.msgs)
		defer resp.Body.Close()
		events := make(chan []byte)
		go readSSE(resp.Body, events)
		ended := false
		for raw := range events {
			if ended {
				t.Errorf("subscription %s: a message after its response: %s", call.idJSON, raw)
				continue
			}
			m := h.check(t, call, raw)
			if m == nil {
				continue
			}
			checkSubscriptionMessage(t, call, m)
			_, isCall := m["method"]
			ended = !isCall
			select {
			case sub.msgs <- m:
			default:
				t.Errorf("subscription %s: too many messages unread", call.idJSON)
			}
		}
	}()
	t.Cleanup(sub.cancel)
	return sub
}

// post sends one raw POST and returns its status and body, for the methods and requests
// the client above would not send.
func (h *mhttp) post(t *testing.T, method string, header map[string]string, body string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, h.tr.url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := h.tr.hc.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

// --- the tests ---------------------------------------------------------------------------

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

// inputMethods maps the keys of an InputRequiredResult's inputRequests to their methods.
func inputMethods(res map[string]any) map[string]string {
	out := map[string]string{}
	reqs, _ := res["inputRequests"].(map[string]any)
	for k, v := range reqs {
		m, _ := v.(map[string]any)
		out[k], _ = m["method"].(string)
	}
	return out
}

// inputRequired sends a request that must answer with an InputRequiredResult, and returns it.
func (c *mclient) inputRequired(method string, params, meta map[string]any) map[string]any {
	c.t.Helper()
	x := c.do(mcall{method: method, params: params, meta: meta})
	res := x.result()
	if res == nil || res["resultType"] != "input_required" {
		c.t.Fatalf("%s %v: want an InputRequiredResult, got %v", method, params["name"], x.resp)
	}
	if _, hint := res["ttlMs"]; hint {
		c.t.Errorf("an InputRequiredResult with a cache hint: %v", res)
	}
	return res
}

// retry is params with a retry's answers and state.
func retry(params map[string]any, responses map[string]any, state any) map[string]any {
	out := map[string]any{}
	for k, v := range params {
		out[k] = v
	}
	if responses != nil {
		out["inputResponses"] = responses
	}
	if state != nil {
		out["requestState"] = state
	}
	return out
}

func accept(content map[string]any) map[string]any {
	return map[string]any{"action": "accept", "content": content}
}

func statelessInputRequired(t *testing.T, c *mclient) {
	params := map[string]any{"name": "test_input_required_result_elicitation", "arguments": map[string]any{}}
	res := c.inputRequired("tools/call", params, elicitCaps)
	req, _ := res["inputRequests"].(map[string]any)["user_name"].(map[string]any)
	if len(res["inputRequests"].(map[string]any)) != 1 || req["method"] != "elicitation/create" {
		t.Fatalf("inputRequests %v, want user_name alone", res["inputRequests"])
	}
	p := req["params"].(map[string]any)
	schema, _ := json.Marshal(p["requestedSchema"])
	if p["message"] != "What is your name?" || !strings.Contains(string(schema), `"name":{`) {
		t.Errorf("elicitation request %v", p)
	}
	state, _ := res["requestState"].(string)
	if state == "" {
		t.Fatalf("no requestState: %v", res)
	}
	// The retry, a new request with the answer and the state, completes.
	done := c.must("tools/call", retry(params, map[string]any{"user_name": accept(map[string]any{"name": "Alice"})}, state), elicitCaps)
	if got := fmt.Sprint(done["content"]); !strings.Contains(got, "Hello, Alice!") {
		t.Errorf("after the answer: %v", done)
	}
	// An answer under an unknown key only: asked again, not an error and not complete.
	res = c.inputRequired("tools/call", retry(params, map[string]any{"wrong_key": accept(map[string]any{"data": "wrong"})}, nil), elicitCaps)
	if inputMethods(res)["user_name"] != "elicitation/create" {
		t.Errorf("a wrong key was not asked again: %v", res)
	}
	// Extra answers are ignored; the state is optional.
	done = c.must("tools/call", retry(params, map[string]any{"user_name": accept(map[string]any{"name": "Bob"}),
		"unknown_extra_key": map[string]any{"whatever": true}}, nil), elicitCaps)
	if !strings.Contains(fmt.Sprint(done["content"]), "Hello, Bob!") {
		t.Errorf("with extra answers: %v", done)
	}
	// An answer that is not a result is not taken as one.
	x := c.do(mcall{method: "tools/call", params: retry(params, map[string]any{"user_name": 12345}, nil), meta: elicitCaps})
	if r := x.result(); r != nil && r["resultType"] != "input_required" {
		t.Errorf("a malformed answer completed the request: %v", x.resp)
	}
	// A declined form is the tool's error, not a protocol error.
	done = c.must("tools/call", retry(params, map[string]any{"user_name": map[string]any{"action": "decline"}}, state), elicitCaps)
	if done["isError"] != true {
		t.Errorf("declined: %v", done)
	}
	// The question never comes as a request of the server's (the mconn checks that), and
	// the streaming variant answers the same way.
	if res := c.inputRequired("tools/call", map[string]any{"name": "test_streaming_elicitation", "arguments": map[string]any{}}, elicitCaps); inputMethods(res)["user_name"] != "elicitation/create" {
		t.Errorf("test_streaming_elicitation: %v", res)
	}
}

func statelessMultiRound(t *testing.T, c *mclient) {
	params := map[string]any{"name": "test_input_required_result_multi_round", "arguments": map[string]any{}}
	r1 := c.inputRequired("tools/call", params, elicitCaps)
	s1, _ := r1["requestState"].(string)
	if got := inputMethods(r1); len(got) != 1 || got["step1"] != "elicitation/create" || s1 == "" {
		t.Fatalf("round 1: %v", r1)
	}
	r2 := c.inputRequired("tools/call", retry(params, map[string]any{"step1": accept(map[string]any{"name": "Alice"})}, s1), elicitCaps)
	s2, _ := r2["requestState"].(string)
	if got := inputMethods(r2); len(got) != 1 || got["step2"] != "elicitation/create" {
		t.Fatalf("round 2 asks %v, want step2 alone", got)
	}
	if s2 == "" || s2 == s1 {
		t.Fatalf("round 2's state %q is round 1's, or missing", s2)
	}
	if msg := r2["inputRequests"].(map[string]any)["step2"].(map[string]any)["params"].(map[string]any)["message"]; !strings.Contains(fmt.Sprint(msg), "Alice") {
		t.Errorf("round 2's question does not know round 1's answer: %v", msg)
	}
	// Round 3 sends only step2's answer: step1's travels in the state.
	r3 := c.must("tools/call", retry(params, map[string]any{"step2": accept(map[string]any{"color": "blue"})}, s2), elicitCaps)
	if got := fmt.Sprint(r3["content"]); !strings.Contains(got, "Alice likes blue") {
		t.Errorf("round 3: %v", r3)
	}
	// Round 1's state does not carry step1's answer: with it, step1 is asked again.
	again := c.inputRequired("tools/call", retry(params, map[string]any{"step2": accept(map[string]any{"color": "blue"})}, s1), elicitCaps)
	if inputMethods(again)["step1"] != "elicitation/create" {
		t.Errorf("round 1's state with only step2's answer: %v", again)
	}
}

func statelessMultipleInputs(t *testing.T, c *mclient) {
	params := map[string]any{"name": "test_input_required_result_multiple_inputs", "arguments": map[string]any{}}
	res := c.inputRequired("tools/call", params, allCaps)
	want := map[string]string{"user_name": "elicitation/create", "greeting": "sampling/createMessage", "client_roots": "roots/list"}
	if got := inputMethods(res); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("inputRequests %v, want %v", got, want)
	}
	if mt := res["inputRequests"].(map[string]any)["greeting"].(map[string]any)["params"].(map[string]any)["maxTokens"]; mt != 50.0 {
		t.Errorf("greeting maxTokens %v", mt)
	}
	done := c.must("tools/call", retry(params, map[string]any{
		"user_name":    accept(map[string]any{"name": "Alice"}),
		"greeting":     map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": "Hello there!"}, "model": "test-model", "stopReason": "endTurn"},
		"client_roots": map[string]any{"roots": []any{map[string]any{"uri": "file:///test/root", "name": "Test Root"}}},
	}, res["requestState"]), allCaps)
	if got := fmt.Sprint(done["content"]); !strings.Contains(got, "Hello there!, Alice (roots: file:///test/root)") {
		t.Errorf("all answered: %v", done)
	}
	// Two of three answered: the third is asked again, alone.
	partial := c.inputRequired("tools/call", retry(params, map[string]any{
		"user_name":    accept(map[string]any{"name": "Alice"}),
		"client_roots": map[string]any{"roots": []any{}},
	}, res["requestState"]), allCaps)
	if got := inputMethods(partial); len(got) != 1 || got["greeting"] != "sampling/createMessage" {
		t.Errorf("partly answered: %v", got)
	}
}

func statelessRequestState(t *testing.T, c *mclient) {
	params := map[string]any{"name": "test_input_required_result_tampered_state", "arguments": map[string]any{}}
	res := c.inputRequired("tools/call", params, elicitCaps)
	state, _ := res["requestState"].(string)
	if state == "" || inputMethods(res)["confirm"] != "elicitation/create" {
		t.Fatalf("first round: %v", res)
	}
	answer := map[string]any{"confirm": accept(map[string]any{"ok": true})}
	for _, bad := range []string{state + "-TAMPERED", state[:len(state)-2], "", "not-a-state"} {
		x := c.do(mcall{method: "tools/call", params: retry(params, answer, bad), meta: elicitCaps})
		if x.rpcError() == nil {
			t.Errorf("requestState %q: want an error, got %v", bad, x.resp)
		}
	}
	// A state with an answer in it (round 2 of multi_round) is bound to its request: not to
	// another tool, nor to other arguments, nor to another method.
	mr := map[string]any{"name": "test_input_required_result_multi_round", "arguments": map[string]any{}}
	r1 := c.inputRequired("tools/call", mr, elicitCaps)
	r2 := c.inputRequired("tools/call", retry(mr, map[string]any{"step1": accept(map[string]any{"name": "Mallory"})}, r1["requestState"]), elicitCaps)
	s2 := r2["requestState"]
	for what, call := range map[string]mcall{
		"another tool": {method: "tools/call", params: retry(map[string]any{"name": "test_input_required_result_elicitation", "arguments": map[string]any{}}, nil, s2)},
		"other arguments": {method: "tools/call", params: retry(map[string]any{"name": "test_input_required_result_multi_round",
			"arguments": map[string]any{"extra": 1}}, map[string]any{"step2": accept(map[string]any{"color": "red"})}, s2)},
		"another method": {method: "prompts/get", params: retry(map[string]any{"name": "test_input_required_result_prompt"}, nil, s2)},
	} {
		call.meta = elicitCaps
		if x := c.do(call); x.rpcError() == nil {
			t.Errorf("round 2's state replayed on %s: want an error, got %v", what, x.resp)
		}
	}
	// Its own request still takes it.
	if done := c.must("tools/call", retry(mr, map[string]any{"step2": accept(map[string]any{"color": "red"})}, s2), elicitCaps); !strings.Contains(fmt.Sprint(done["content"]), "Mallory likes red") {
		t.Errorf("the state on its own request: %v", done)
	}
	// test_input_required_result_request_state: answered with its state, it says so.
	rs := map[string]any{"name": "test_input_required_result_request_state", "arguments": map[string]any{}}
	res = c.inputRequired("tools/call", rs, elicitCaps)
	if done := c.must("tools/call", retry(rs, answer, res["requestState"]), elicitCaps); !strings.Contains(fmt.Sprint(done["content"]), "state-ok") {
		t.Errorf("request state tool: %v", done)
	}
}

func statelessInputCapabilities(t *testing.T, c *mclient) {
	params := map[string]any{"name": "test_input_required_result_capabilities", "arguments": map[string]any{}}
	// Capabilities come from each request alone: with sampling only, the tool asks the model.
	res := c.inputRequired("tools/call", params, samplingCaps)
	got := inputMethods(res)
	if len(got) == 0 {
		t.Errorf("no input requests: %v", res)
	}
	for k, m := range got {
		if m == "elicitation/create" {
			t.Errorf("an elicitation (%s) for a client without the capability: %v", k, res)
		}
	}
	if got["confirm_by_model"] != "sampling/createMessage" {
		t.Errorf("with sampling only: %v", got)
	}
	// With elicitation, it asks the user.
	if got := inputMethods(c.inputRequired("tools/call", params, elicitCaps)); got["confirm"] != "elicitation/create" || len(got) != 1 {
		t.Errorf("with elicitation: %v", got)
	}
	// An earlier request's capabilities do not carry over to one without them.
	x := c.do(mcall{method: "tools/call", params: params})
	if r := x.result(); r != nil && r["resultType"] == "input_required" {
		t.Errorf("input requested of a client with no capabilities: %v", r)
	}
	// Only the three methods of multi round-trip requests ever answer input_required.
	for _, m := range []string{"tools/list", "prompts/list"} {
		if r := c.must(m, nil, allCaps); r["resultType"] != "complete" {
			t.Errorf("%s: %v", m, r["resultType"])
		}
	}
}

func statelessInputRequiredPrompt(t *testing.T, c *mclient) {
	params := map[string]any{"name": "test_input_required_result_prompt"}
	res := c.inputRequired("prompts/get", params, elicitCaps)
	if got := inputMethods(res); len(got) != 1 || got["user_context"] != "elicitation/create" {
		t.Fatalf("prompt input requests %v", got)
	}
	done := c.must("prompts/get", retry(params, map[string]any{"user_context": accept(map[string]any{"context": "test context"})}, res["requestState"]), elicitCaps)
	msgs, _ := done["messages"].([]any)
	if got, _ := json.Marshal(msgs); len(msgs) == 0 || !strings.Contains(string(got), "Use this context: test context") {
		t.Errorf("prompt: %v", done)
	}
	// Without elicitation the prompt cannot ask: the client lacks a capability.
	x := c.do(mcall{method: "prompts/get", params: params})
	expectError(t, c.conn, x, "prompt without elicitation", -32021, 400)
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

// TestStatelessHTTP covers what only Streamable HTTP has: the headers that mirror the body,
// their statuses, the methods a stateless endpoint refuses, and subscriptions that end with
// the server.
func TestStatelessHTTP(t *testing.T) {
	t.Parallel()
	h := startStatelessHTTP(t)
	c := &mclient{t: t, conn: h}
	toolName := names(c.must("tools/list", nil, nil)["tools"].([]any), "name")[0]
	b64 := func(s string) string { return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?=" }
	// customHeader calls test_custom_header, whose region the client mirrors into
	// Mcp-Param-Region, with the header overrides.
	customHeader := func(region string, header map[string]string) mcall {
		return mcall{method: "tools/call", params: map[string]any{"name": "test_custom_header", "arguments": map[string]any{"region": region}}, header: header}
	}

	for _, tc := range []struct {
		name   string
		call   mcall
		status int // 200: a result; else the status of a -32020 error
	}{
		{"no MCP-Protocol-Version", mcall{method: "tools/list", header: map[string]string{"Mcp-Protocol-Version": ""}}, 400},
		{"MCP-Protocol-Version differs from _meta", mcall{method: "tools/list", header: map[string]string{"MCP-Protocol-Version": "2025-11-25"}}, 400},
		{"_meta differs from MCP-Protocol-Version", mcall{method: "server/discover", meta: map[string]any{"io.modelcontextprotocol/protocolVersion": "v999.0.0"},
			header: map[string]string{"Mcp-Protocol-Version": statelessRev}}, 400},
		{"no Mcp-Method", mcall{method: "tools/list", header: map[string]string{"Mcp-Method": ""}}, 400},
		{"another Mcp-Method", mcall{method: "tools/list", header: map[string]string{"Mcp-Method": "prompts/list"}}, 400},
		{"Mcp-Method in capitals", mcall{method: "tools/list", header: map[string]string{"Mcp-Method": "TOOLS/LIST"}}, 400},
		{"mcp-method in lower case", mcall{method: "tools/list", header: map[string]string{"Mcp-Method": "", "mcp-method": "tools/list"}}, 200},
		{"MCP-METHOD in capitals", mcall{method: "tools/list", header: map[string]string{"Mcp-Method": "", "MCP-METHOD": "tools/list"}}, 200},
		{"no Mcp-Name", mcall{method: "tools/call", params: map[string]any{"name": toolName, "arguments": map[string]any{}}, header: map[string]string{"Mcp-Name": ""}}, 400},
		{"wrong Mcp-Name", mcall{method: "tools/call", params: map[string]any{"name": toolName, "arguments": map[string]any{}}, header: map[string]string{"Mcp-Name": "wrong_tool_name"}}, 400},
		{"Mcp-Name with spaces", mcall{method: "tools/call", params: map[string]any{"name": toolName, "arguments": map[string]any{}}, header: map[string]string{"Mcp-Name": "  " + toolName + "  "}}, 200},
		{"Mcp-Name in base64", mcall{method: "tools/call", params: map[string]any{"name": "test_simple_text"}, header: map[string]string{"Mcp-Name": b64("test_simple_text")}}, 200},
		{"Mcp-Name in base64 of another", mcall{method: "tools/call", params: map[string]any{"name": "test_simple_text"}, header: map[string]string{"Mcp-Name": b64("test_error_handling")}}, 400},
		{"Mcp-Name in bad base64", mcall{method: "tools/call", params: map[string]any{"name": "test_simple_text"}, header: map[string]string{"Mcp-Name": "=?base64?dGVzdF9zaW1wbGVfdGV4dA?="}}, 400},
		{"Mcp-Name of a prompt", mcall{method: "prompts/get", params: map[string]any{"name": "test_simple_prompt"}, header: map[string]string{"Mcp-Name": "test_prompt_with_image"}}, 400},
		{"Mcp-Name of a resource", mcall{method: "resources/read", params: map[string]any{"uri": "test://static-text"}, header: map[string]string{"Mcp-Name": "test://static-binary"}}, 400},
		{"no Mcp-Name on resources/read", mcall{method: "resources/read", params: map[string]any{"uri": "test://static-text"}, header: map[string]string{"Mcp-Name": ""}}, 400},
		{"Mcp-Name of a resource in base64", mcall{method: "resources/read", params: map[string]any{"uri": "test://static-text"}, header: map[string]string{"Mcp-Name": b64("test://static-text")}}, 200},
		{"Mcp-Param-Region matches", customHeader("us-east", nil), 200},
		{"Mcp-Param-Region differs", customHeader("us-east", map[string]string{"Mcp-Param-Region": "eu-west"}), 400},
		{"no Mcp-Param-Region", customHeader("test-value", map[string]string{"Mcp-Param-Region": ""}), 400},
		{"Mcp-Param-Region in base64", customHeader("Hello", map[string]string{"Mcp-Param-Region": "=?base64?SGVsbG8=?="}), 200},
		{"Mcp-Param-Region in base64 of non-ASCII", customHeader("Zürich", map[string]string{"Mcp-Param-Region": b64("Zürich")}), 200},
		{"Mcp-Param-Region in base64 without padding", customHeader("Hello", map[string]string{"Mcp-Param-Region": "=?base64?SGVsbG8?="}), 400},
		{"Mcp-Param-Region in base64 with bad characters", customHeader("Hello", map[string]string{"Mcp-Param-Region": "=?base64?SGVs!!!bG8=?="}), 400},
		{"Mcp-Param-Region that looks like base64", customHeader("SGVsbG8=", map[string]string{"Mcp-Param-Region": "SGVsbG8="}), 200},
		{"Mcp-Param-Region without the suffix", customHeader("=?base64?SGVsbG8=", map[string]string{"Mcp-Param-Region": "=?base64?SGVsbG8="}), 200},
		{"Mcp-Param-Region with spaces", customHeader("us-east", map[string]string{"Mcp-Param-Region": "  us-east "}), 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &mclient{t: t, conn: h}
			x := c.do(tc.call)
			if tc.status == 200 {
				if x.result() == nil || x.status != 200 {
					t.Errorf("status %d, %v; want a result", x.status, x.resp)
				}
				return
			}
			e := expectError(t, h, x, tc.name, -32020, tc.status)
			if !strings.Contains(fmt.Sprint(e["message"]), "eader") {
				t.Errorf("the message does not say which header: %v", e)
			}
		})
	}

	t.Run("notification", func(t *testing.T) {
		c := &mclient{t: t, conn: h}
		c.do(mcall{method: "notifications/cancelled", params: map[string]any{"requestId": 99}, notify: true})
	})

	t.Run("GET and DELETE", func(t *testing.T) {
		for _, method := range []string{http.MethodGet, http.MethodDelete} {
			status, hd, body := h.post(t, method, map[string]string{"Accept": "text/event-stream", "MCP-Protocol-Version": statelessRev}, "")
			if status != http.StatusMethodNotAllowed || !strings.Contains(hd.Get("Allow"), "POST") {
				t.Errorf("%s with a stateless version: %d, Allow %q: %s", method, status, hd.Get("Allow"), body)
			}
		}
	})

	t.Run("no sessions", func(t *testing.T) {
		// A session id means nothing to a stateless request, and none is given.
		x := c.do(mcall{method: "tools/list", header: map[string]string{"Mcp-Session-Id": "no-such-session"}})
		if x.result() == nil || x.header.Get("Mcp-Session-Id") != "" {
			t.Errorf("with a session id: %d %v %v", x.status, x.header, x.resp)
		}
	})
}

// TestStatelessHTTPShutdown: a server that stops ends its subscriptions gracefully, with the
// listen request's result.
func TestStatelessHTTPShutdown(t *testing.T) {
	t.Parallel()
	h := startStatelessHTTP(t)
	c := &mclient{t: t, conn: h}
	sub := c.listen(5, map[string]any{"toolsListChanged": true})
	if err := h.tr.interrupt(); err != nil {
		t.Fatal(err)
	}
	m, ok := sub.next(10 * time.Second)
	if !ok {
		t.Fatal("the subscription ended without its result")
	}
	if r, _ := m["result"].(map[string]any); r == nil || r["resultType"] != "complete" {
		t.Errorf("the subscription ended with %v", m)
	}
	if m, ok := sub.next(10 * time.Second); ok {
		t.Errorf("after the result: %v", m)
	}
}

// TestStatelessStdioCancelAtOnce: a subscription cancelled in the same write as the request
// that opened it is cancelled: nothing more comes for it, and the server exits when its
// input ends. The notification must be matched with the request in the order they arrive,
// not after the request has started on its own goroutine.
func TestStatelessStdioCancelAtOnce(t *testing.T) {
	t.Parallel()
	s := startStatelessStdio(t)
	c := &mclient{t: t, conn: s}
	var subs []*msub
	for i := range 20 {
		call := mcall{id: fmt.Sprintf("at-once-%d", i), method: "subscriptions/listen", params: map[string]any{"notifications": map[string]any{"toolsListChanged": true}}}
		c.build(&call)
		sub := &msub{id: call.id, msgs: make(chan map[string]any, 64)}
		p := &stdioPending{call: &call, sub: sub, ended: false}
		s.mu.Lock()
		s.subs[call.idJSON] = p
		s.mu.Unlock()
		cancel, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": map[string]any{"requestId": call.id}})
		s.send(t, slices.Concat(call.rawMsg, []byte("\n"), cancel))
		subs = append(subs, sub)
	}
	time.Sleep(300 * time.Millisecond)
	// The acknowledgement may have gone out before the cancellation was read; nothing after.
	for _, sub := range subs {
		for {
			m, ok := sub.next(0)
			if !ok {
				break
			}
			if m["method"] != "notifications/subscriptions/acknowledged" {
				t.Errorf("subscription %v: %v before the change", sub.id, m)
			}
		}
	}
	c.tool("test_trigger_tool_change", nil, nil)
	time.Sleep(300 * time.Millisecond)
	live := 0
	for _, sub := range subs {
		for _, m := range sub.drain(0) {
			if m["method"] != "notifications/subscriptions/acknowledged" {
				live++
				t.Logf("subscription %v: %v", sub.id, m)
				break
			}
		}
	}
	if live > 0 {
		t.Errorf("%d of %d subscriptions cancelled in the write that opened them still heard of a change", live, len(subs))
	}
}

// TestStatelessStdioEOF: when the client closes the server's input, the server ends its
// subscriptions and exits, as a stdio server does when its client goes.
func TestStatelessStdioEOF(t *testing.T) {
	t.Parallel()
	s := startStatelessStdio(t)
	c := &mclient{t: t, conn: s}
	c.listen(1, map[string]any{"toolsListChanged": true})
	s.tr.close()
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		t.Error("the server did not exit within 5s of its input closing while a subscription was open")
		s.tr.cmd.Process.Kill()
	}
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
