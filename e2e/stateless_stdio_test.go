package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

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
