package e2e

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"sync"
	"testing"
	"time"
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
