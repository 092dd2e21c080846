package mcp

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// The one door. Whatever carried a message (stdio, memory, Streamable HTTP, HTTP+SSE,
// WebSocket, a Connection of another package), the server admits it in one place before
// any handler sees it, with the same guards and budgets:
//
//   - its size: MaxMessageSize;
//   - its bytes, from when they are read until it is answered, in one budget for the whole
//     server (MaxBytesInFlight), which request bodies, messages of every conversation and the
//     arguments of running tasks share;
//   - the caller: on a protected server, the identity the transport hands over with the
//     message (WithAuthInfo), and the scopes the method table says the message needs;
//   - the conversation's concurrency: MaxConcurrentRequests;
//   - the conversations themselves: MaxConversations, the one idle longest shed first, and
//     those idle for IdleTimeout ended.
//
// A transport hands over the message and who sent it; it has no check of its own to
// forget, and a new transport has every one. This file holds the budget, the conversations
// and the refusals; session.admit (session.go) is the admission of a message.

// budget counts the bytes a server holds for messages in flight, across every
// conversation and transport.
type budget struct {
	limit int64 // negative: no bound
	used  atomic.Int64
}

// take counts n more bytes of a message of which held bytes are counted already, and
// reports whether they fit. A message alone in flight always fits (MaxMessageSize bounds
// it), so that one larger than the budget is not refused forever.
func (b *budget) take(n, held int64) bool {
	if b == nil || b.limit < 0 || n == 0 {
		return true
	}
	total := b.used.Add(n)
	if total > b.limit && total-n-held > 0 {
		b.used.Add(-n)
		return false
	}
	return true
}

// wait takes n bytes, waiting for room as long as ctx lets it: for what must be done, not
// refused (a task's result, to be stored). It returns what it took: n, or 0 once ctx ended
// without room (the work goes on, uncounted, rather than be lost).
func (b *budget) wait(ctx context.Context, n int64) int64 {
	for pause := time.Millisecond; !b.take(n, 0); pause = min(2*pause, 50*time.Millisecond) {
		select {
		case <-ctx.Done():
			return 0
		case <-time.After(pause):
		}
	}
	return n
}

// give gives n bytes back.
func (b *budget) give(n int64) {
	if b != nil && n != 0 && b.limit >= 0 {
		b.used.Add(-n)
	}
}

// errBudget answers a message refused because the server holds as many bytes in flight as
// it may: the client is to try again shortly (over HTTP, 503 with Retry-After).
var errBudget = jsonrpc.NewError(codeServerBusy, "server busy: too many bytes of requests in flight (messages being served, arguments of running tasks); try again shortly")

// A refusal says why the door turned a message away, in the words every transport answers
// with: a JSON-RPC error, and for HTTP the status and headers that go with it.
type refusal uint8

const (
	refusedOther refusal = iota // answered with its error (HTTP: 200, or 400 in the stateless revision)
	refusedBusy                 // the server or the conversation is at a bound: 503, Retry-After
	refusedScope                // the caller's token lacks a scope: 403 insufficient_scope
)

// insufficientScope refuses a request whose caller's token lacks scopes it needs.
func insufficientScope(method string, need []string) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "insufficient_scope: "+method+" needs the scopes "+strings.Join(need, " "))
}

// ErrUnauthenticated is returned by ServeConn for a conversation that carries no verified
// caller on a protected server (one whose HTTPHandler has HTTPOptions.Auth): a transport
// mounted where the guard does not reach it (outside HTTPOptions.Routes, without
// GuardHTTP) serves nobody rather than everybody.
var ErrUnauthenticated = errors.New("mcp: the server is protected (HTTPOptions.Auth), and the conversation carries no verified caller: serve its transport behind mcp.GuardHTTP, or in HTTPOptions.Routes")

// errShed is why a conversation the server shed for a new one ended.
var errShed = errors.New("mcp: the conversation was idle the longest when the server had as many as it may (ServerOptions.MaxConversations) and another began")

// conversations are those the server's transports hold open (sessions of Streamable HTTP
// and HTTP+SSE, Connections served by ServeConn), at most max at once. A conversation is
// idle while it serves no request and holds no stream open; one idle for idleTimeout ends,
// and when max are open a new one sheds the one idle longest. A flood of conversations that
// never send anything cannot keep anyone out.
type conversations struct {
	max         int
	idleTimeout time.Duration // negative: idle conversations are kept

	mu   sync.Mutex
	open map[*seat]struct{}
}

// seat is the door's record of one conversation: its place among MaxConversations.
type seat struct {
	set  *conversations
	end  func(error) // ends the conversation, with why: it was shed, or idle too long
	busy atomic.Int32
	last atomic.Int64 // UnixNano of when it was last used
	idle *time.Timer
	gone bool // under set.mu: left the set
}

func newConversations(max int, idleTimeout time.Duration) *conversations {
	return &conversations{max: max, idleTimeout: idleTimeout, open: map[*seat]struct{}{}}
}

// enter adds a conversation whose end ends it, shedding the one idle longest if max are
// open. It returns nil when every conversation is in use: the caller refuses the new one
// (503 over HTTP).
func (cs *conversations) enter(end func(error)) *seat {
	c := &seat{set: cs, end: end}
	c.last.Store(time.Now().UnixNano())
	cs.mu.Lock()
	var shed *seat
	if len(cs.open) >= cs.max {
		if shed = cs.idlest(); shed == nil {
			cs.mu.Unlock()
			return nil
		}
		cs.removeLocked(shed)
	}
	cs.open[c] = struct{}{}
	if cs.idleTimeout >= 0 {
		c.idle = time.AfterFunc(cs.idleTimeout, c.expire)
	}
	cs.mu.Unlock()
	if shed != nil {
		shed.end(errShed)
	}
	return c
}

// idlest is the conversation idle for longest, if one is idle. cs.mu is held. The set is
// scanned only when full, which a server at its bound of conversations pays once per new
// one: no list to keep in order on every request.
func (cs *conversations) idlest() *seat {
	var found *seat
	for c := range cs.open {
		if c.busy.Load() == 0 && (found == nil || c.last.Load() < found.last.Load()) {
			found = c
		}
	}
	return found
}

func (cs *conversations) removeLocked(c *seat) {
	if c.gone {
		return
	}
	c.gone = true
	delete(cs.open, c)
	if c.idle != nil {
		c.idle.Stop()
	}
}

// count is how many conversations are open.
func (cs *conversations) count() int {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return len(cs.open)
}

// use marks the conversation in use (a request served, a stream open) until done.
func (c *seat) use() {
	if c != nil {
		c.busy.Add(1)
	}
}

// done ends one use; the conversation is idle from now when it was the last.
func (c *seat) done() {
	if c != nil {
		c.last.Store(time.Now().UnixNano())
		c.busy.Add(-1)
	}
}

// touch records that the conversation was used now (a message arrived).
func (c *seat) touch() {
	if c != nil {
		c.last.Store(time.Now().UnixNano())
	}
}

// leave takes the conversation out of the set: it has ended.
func (c *seat) leave() {
	if c == nil {
		return
	}
	c.set.mu.Lock()
	c.set.removeLocked(c)
	c.set.mu.Unlock()
}

// expire ends the conversation if it has been idle for the timeout, else looks again when
// it could be.
func (c *seat) expire() {
	timeout := c.set.idleTimeout
	idleFor := time.Since(time.Unix(0, c.last.Load()))
	c.set.mu.Lock()
	if c.gone {
		c.set.mu.Unlock()
		return
	}
	if c.busy.Load() > 0 || idleFor < timeout {
		c.idle.Reset(max(timeout-idleFor, timeout/10, time.Millisecond))
		c.set.mu.Unlock()
		return
	}
	c.set.removeLocked(c)
	c.set.mu.Unlock()
	c.end(errIdle(timeout))
}

// errIdle is why a conversation idle for the timeout ended.
func errIdle(timeout time.Duration) error {
	return fmt.Errorf("mcp: the conversation was idle for %v (ServerOptions.IdleTimeout): %w", timeout, context.DeadlineExceeded)
}

// errTooManyConversations answers a conversation refused because every one open is in use.
func errTooManyConversations(max int) string {
	return "too many conversations (" + strconv.Itoa(max) + "), all in use; try again later"
}

// A ticket is what the door gives a request it admits, carried to its handler
// (Request.tk): its bytes in the server's budget, and what the method table let the door
// read of it, once, for everything after it (the scopes, the handler, middleware's
// Message): for tools/call, its name, the tool, and its arguments. Nothing parses the same
// params twice.
type ticket struct {
	held int64      // the request's bytes in the budget, given back once it is answered
	tool *toolEntry // tools/call: the tool its name names; nil for an unknown one
	name []byte     // tools/call: the name, as in the params
	args []byte     // tools/call: the arguments, raw JSON as in the params
	// task, on a protected server, is the task a tasks/get, tasks/update or tasks/cancel
	// names, read from the store once for its tool's scopes and for tasks/get's answer; nil
	// when it was not read, or found (taskErr says why).
	task    *TaskRecord
	taskErr error
}

// readTicket reads what the door needs of a request, as its method's row says: for
// tools/call, its params once (name, arguments, the tool); on a protected server, the task a
// tasks/ method names. Params it cannot read leave the ticket empty, for the handler to
// answer as invalid.
func (s *Server) readTicket(ctx context.Context, m *jsonrpc.Message, row *method) ticket {
	var tk ticket
	if row == nil || row.serve == nil || m.Params == nil {
		return tk
	}
	switch m.Method {
	case methodTasksGet, methodTasksUpdate, methodTasksCancel:
		if AuthInfoFrom(ctx) != nil { // its scopes matter only to a protected server
			id, _ := stringParam(m.Params, "taskId")
			tk.task, tk.taskErr = s.tasks.store.Get(ctx, id)
		}
		return tk
	case methodToolsCall:
	default:
		return tk
	}
	var p callToolParams
	var d jsonwire.Decoder
	d.Reset(m.Params)
	if p.decode(&d); d.Failed() || !p.hasName {
		return tk
	}
	tk.name, tk.args, tk.tool = p.name, p.arguments, s.lookupTool(p.name)
	return tk
}

// protect marks the server protected: a conversation ServeConn is handed must carry its
// verified caller. HTTPHandler calls it for options with Auth.
func (s *Server) protect() { s.protected.Store(true) }
