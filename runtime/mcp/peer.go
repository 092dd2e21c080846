package mcp

import (
	"context"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// parser reads every message, knowing the names of MCP's methods and notifications (the
// method table's, methods.go).
var parser *jsonrpc.Parser

// peer is one side of an MCP conversation over a connection, whichever side: it sends
// requests and waits for their responses, serves the other side's requests, and carries
// cancellation both ways and the progress of its own requests. What the side does with what
// it is sent is its peerSide's business: a server's session (session.go) or a client.
type peer struct {
	side peerSide
	// w is the conversation's write half: the answers to the other side's requests, and
	// this side's requests about none of them. ctx is what answers are written with: the
	// conversation's values, never cancelled, so that an answer is written whole as the
	// conversation stops (ServeConn bounds that by ShutdownTimeout). later is w, where it
	// holds answers back to write many at once (stdio); nil elsewhere.
	w      messageWriter
	ctx    context.Context
	later  LaterWriter
	notes  *notifier // writes messages about no request in particular; nil on a client
	logger *slog.Logger
	nextID atomic.Int64 // of the requests this side sends

	// concurrent: each request is served on a goroutine of its own, so that a slow one never
	// holds up the others (stream transports); otherwise on the goroutine that delivered it
	// (an HTTP request's own). running counts the goroutines.
	concurrent bool
	// ownsMessages: the messages handed to the peer are its own to keep (a client's, read
	// from a Connection, whose Read gives up the slice), so a response is kept without a
	// copy.
	ownsMessages bool
	// maxConcurrent bounds the concurrent requests in flight (0: no bound); beyond it a
	// request is refused with codeServerBusy.
	maxConcurrent int
	active        int // under mu: concurrent requests admitted and not yet answered
	running       sync.WaitGroup
	workers       *workers // the goroutines of concurrent requests
	stopWorkers   chan struct{}
	// budget, on a server, holds the bytes of the messages being served (door.go); seat is
	// the door's record of the conversation, in use while a request is served. nil on a
	// client, and for conversations the door does not count (stdio, memory).
	budget *budget
	seat   *seat
	// reading, for a stream transport, is its read loop, whose goroutine serves requests
	// inline while they are quick (turns.go); nil where each request has a goroutine of its
	// own already (HTTP) or a worker (a client's peer).
	reading *reading

	// mw is the side's middleware (Server.mw, Client.mw), which the notifications the peer
	// handles and sends go through; nil without. describe fills in what a Message says of
	// the conversation; server says which side this is.
	mw       Handler
	describe func(*Message)
	server   bool

	mu       sync.Mutex
	inflight map[string]*inflight // the other side's requests being served, by raw id
	pending  map[string]*call     // this side's requests waiting for a response, by raw id
	closed   error                // why no response will come any more, once none will
}

// peerSide is what a peer serves: one side of the protocol.
type peerSide interface {
	// admit decides, in the order messages arrive, how a request from the other side is
	// served: refused at once with an error, served inline (before the next message is
	// read), or on its own goroutine. state is handed back to serve. ctx is the request's,
	// with the caller it came from (AuthInfoFrom).
	admit(ctx context.Context, m *jsonrpc.Message) (a admission)
	// serve serves an admitted request and returns its response message: r.m, with r.state
	// what admit read of it, r.w what messages about it are written to, and r.tk its
	// ticket (a task that keeps some of its bytes in the budget takes them over).
	serve(ctx context.Context, r *inflight) []byte
	// notified handles a notification other than cancellation and progress.
	notified(m *jsonrpc.Message)
}

// admission is a side's decision about a request, made as it arrives.
type admission struct {
	refuse *jsonrpc.Error // answer with this error, and serve nothing
	why    refusal        // what kind of refusal refuse is, for HTTP's status
	need   []string       // the scopes a refusedScope lacked
	inline bool           // serve before reading the next message
	long   bool           // a subscription: it lasts until cancelled or the other side leaves
	state  any            // what the side read of the request, for serve
	tk     ticket         // on a server, what the door read of the request (door.go)
}

// inflight is a request of the other side's being served: all it takes to serve it, so that
// serving it needs no closure of its own.
type inflight struct {
	p         *peer
	ctx       context.Context
	cancel    context.CancelFunc
	m         *jsonrpc.Message // its id is its key in p.inflight
	state     any              // what the side's admit read of it
	w         messageWriter    // what messages about it, and its response, are written to
	stream    RequestStream    // w, when it is a stream of its own (an HTTP POST's): handed the response
	long      bool
	buffered  bool   // served inline: the response goes to the writer's next write (later)
	counted   bool   // in p.active, until answered
	cancelled bool   // by the other side, under p.mu: the response must not be sent
	tk        ticket // what the door read of it, and its bytes in the budget, given back once answered
	// begun, for a subscription read from a stream, is closed once it has taken effect (or
	// ended): the reader waits for it before it reads the next message.
	begun     chan struct{}
	beginOnce sync.Once
}

// call is one of this side's requests, waiting for its response.
type call struct {
	done     chan callResult
	method   string
	progress func(params []byte) // notifications/progress for the call's token
	token    string              // the progress token, raw JSON
}

// callResult is how a call ends: with a response, or with the error that means none will
// come (the connection broke, the peer closed).
type callResult struct {
	m   *jsonrpc.Message
	err error
}

func newPeer(side peerSide, w messageWriter, notes *notifier, logger *slog.Logger) *peer {
	return &peer{side: side, w: w, ctx: context.Background(), notes: notes, logger: logger,
		inflight: map[string]*inflight{}, pending: map[string]*call{}}
}

// codeServerBusy is the JSON-RPC error (of the range left to implementations) of a request
// refused because the session serves as many as it may at once.
const codeServerBusy = -32000

// errServerBusy refuses a request of a session that serves max at once already.
func errServerBusy(max int) *jsonrpc.Error {
	return jsonrpc.NewError(codeServerBusy, "server busy: "+strconv.Itoa(max)+" requests of this session are in progress; wait for their answers, then send more")
}

// receive handles one message the transport read, held bytes of which are in the server's
// budget until it is answered (or handled, if it is no request); messages about it are
// written to the conversation's writer.
func (p *peer) receive(ctx context.Context, data []byte, held int64) {
	m, perr := parser.Parse(data)
	if perr != nil {
		p.budget.give(held)
		if m.IsMalformedResponse() {
			// A response gets no reply, even a malformed one: the other side would take an
			// error response for a response to a request of its own.
			p.logger.Warn("mcp: dropped a malformed response", "error", perr.Message)
			return
		}
		p.reply(p.w, jsonrpc.AppendError(nil, m.ID, perr))
		return
	}
	p.accept(ctx, &m, p.w, held)
}

// accept hands the peer a message, and answers a request it refuses on w, as a stream does:
// written by the reading goroutine, so that a client that does not read its answers stops
// being read, and holds nothing more.
func (p *peer) accept(ctx context.Context, m *jsonrpc.Message, w messageWriter, held int64) {
	if _, refused, _, _ := p.handle(ctx, m, w, held); refused != nil {
		p.reply(w, refused)
	}
}

// handle is the one way into the peer for a message a transport received, whatever the
// transport: read from a stream (receive), or pushed by an HTTP POST. A request passes the
// side's admission (admit) and record, and is served, messages about it written to w, its
// response too (or, where w is a RequestStream, handed to it); held bytes of it are in the
// server's budget until it is answered. handle returns the request, or for one refused, its
// answer and why (a says how it was admitted), for the transport to answer as its protocol
// does. Notifications and responses are handled, and return nothing.
func (p *peer) handle(ctx context.Context, m *jsonrpc.Message, w messageWriter, held int64) (r *inflight, refused []byte, a admission, why refusal) {
	if m.IsRequest() {
		a = p.side.admit(ctx, m)
		if r, refused, why = p.record(ctx, m, w, a, held); r != nil {
			p.dispatch(r, a)
		}
		return r, refused, a, why
	}
	defer p.budget.give(held)
	switch {
	case m.IsResponse():
		p.deliver(m)
	case p.mw != nil:
		p.notifiedThroughMiddleware(ctx, m)
	default:
		p.notified(m)
	}
	return nil, nil, a, why
}

// notified handles a notification from the other side.
func (p *peer) notified(m *jsonrpc.Message) {
	switch m.Method {
	case notificationCancelled:
		p.cancelled(m.Params)
	case notificationProgress:
		if !p.progressed(m.Params) {
			p.side.notified(m)
		}
	default:
		p.side.notified(m)
	}
}

// message is a message of this conversation, as the side's middleware sees it.
func (p *peer) message(method string, params []byte, outgoing bool) *Message {
	msg := &Message{Method: method, Params: params, Outgoing: outgoing, Server: p.server}
	if p.describe != nil {
		p.describe(msg)
	}
	return msg
}

// notifiedThroughMiddleware handles a notification inside the side's middleware.
func (p *peer) notifiedThroughMiddleware(ctx context.Context, m *jsonrpc.Message) {
	runMiddleware(ctx, p.mw, p.message(m.Method, m.Params, false), func(ctx context.Context, msg *Message) ([]byte, error) {
		n := *m
		n.Params = msg.Params
		p.notified(&n)
		return nil, nil
	}, p.logger)
}

// sendThroughMiddleware sends a notification inside the side's middleware: write writes it,
// with the params as the middleware leave them.
func (p *peer) sendThroughMiddleware(ctx context.Context, method string, params []byte, write func(msg []byte) error) error {
	_, err := runMiddleware(ctx, p.mw, p.message(method, params, true), func(ctx context.Context, msg *Message) ([]byte, error) {
		return nil, write(jsonrpc.AppendNotification(nil, method, msg.Params))
	}, p.logger)
	return err
}

// record records a request the side admitted (a), as it arrives, so that a cancellation
// that comes right after finds it: the one step every request of the other side's takes,
// pulled from a stream or pushed by HTTP. It returns the request to serve, or, for one
// refused (by the side, as a duplicate id, or past maxConcurrent), nil and the response to
// answer it with, and why it was refused.
func (p *peer) record(ctx context.Context, m *jsonrpc.Message, w messageWriter, a admission, held int64) (*inflight, []byte, refusal) {
	if a.refuse != nil {
		p.budget.give(held)
		return nil, jsonrpc.AppendError(nil, m.ID, a.refuse), a.why
	}
	r := &inflight{p: p, m: m, state: a.state, w: w, long: a.long, tk: a.tk, counted: !a.inline}
	r.stream, _ = w.(RequestStream)
	r.tk.held = held
	r.ctx, r.cancel = context.WithCancel(ctx)
	p.mu.Lock()
	_, dup := p.inflight[string(m.ID)]
	busy := !dup && r.counted && p.maxConcurrent > 0 && p.active >= p.maxConcurrent
	if dup || busy {
		p.mu.Unlock()
		r.cancel()
		p.budget.give(held)
		if dup {
			return nil, errIDInUse(m.ID), refusedOther
		}
		return nil, jsonrpc.AppendError(nil, m.ID, errServerBusy(p.maxConcurrent)), refusedBusy
	}
	p.inflight[string(m.ID)] = r
	if r.counted {
		p.active++
	}
	p.mu.Unlock()
	p.seat.use()
	return r, nil, refusedOther
}

// dispatch serves a request record recorded: before the next message is read if its
// admission says so (or the peer serves each on the goroutine that hands it over), else
// inline under a stream's turn at reading (turns.go), or on a worker.
func (p *peer) dispatch(r *inflight, a admission) {
	if a.inline || !p.concurrent {
		r.run()
		return
	}
	p.mu.Lock()
	if p.workers == nil {
		p.stopWorkers = make(chan struct{})
		p.workers = newWorkers(p.stopWorkers)
	}
	workers := p.workers
	p.mu.Unlock()
	if p.reading != nil && !a.long {
		p.serveInline(r)
		return
	}
	p.running.Add(1)
	if a.long && p.reading != nil {
		// A subscription waits on a worker of its own, but takes effect before the next
		// message is read: a call written right after it finds it registered, and a change
		// the call makes reaches it. The messages of a stream take effect in the order read.
		r.begun = make(chan struct{})
		r.ctx = context.WithValue(r.ctx, begunKey{}, r)
		workers.run(r)
		<-r.begun
		return
	}
	workers.run(r)
}

type begunKey struct{}

// begin tells the reader of a stream, which waits for it, that the subscription being
// served (ctx's) has taken effect: registered, and acknowledged. Elsewhere it does nothing.
func begin(ctx context.Context) {
	if r, ok := ctx.Value(begunKey{}).(*inflight); ok {
		r.beginOnce.Do(func() { close(r.begun) })
	}
}

// serveInline serves a request on the goroutine that read it, under its turn at reading
// (turns.go), with its answer buffered for the next write.
func (p *peer) serveInline(r *inflight) {
	r.buffered = true
	kept := p.reading.current.Load().serve(r.run)
	if !kept {
		// The turn passed while r ran: its answer may be waiting for a reader's write
		// that will not come before the next message arrives.
		if p.later != nil {
			p.later.Flush()
		}
		defer p.running.Done()
	}
}

// wait waits for the requests being served on goroutines of their own.
func (p *peer) wait() { p.running.Wait() }

// work serves a request on a worker.
func (r *inflight) work() {
	defer r.p.running.Done()
	r.run()
}

// answered lets go of what the request held until answered (or refused): its count in
// p.active, its bytes in the budget, its use of the conversation. A request whose answer
// the client does not read still holds them, as it holds its goroutine.
func (r *inflight) answered() {
	p := r.p
	if r.counted {
		p.mu.Lock()
		p.active--
		p.mu.Unlock()
	}
	p.budget.give(r.tk.held)
	p.seat.done()
	if r.stream != nil {
		r.stream.Done()
	}
}

// run serves the request and sends its response, unless the other side cancelled it.
func (r *inflight) run() {
	defer r.answered()
	defer r.cancel()
	if r.begun != nil {
		// A subscription refused, or one that ended before it began, has taken effect too.
		defer r.beginOnce.Do(func() { close(r.begun) })
	}
	p := r.p
	resp := r.serve()
	if resp == nil {
		return
	}
	var err error
	if r.stream != nil {
		err = r.stream.Respond(resp)
	} else if r.buffered && p.later != nil {
		err = p.later.WriteLater(resp)
	} else {
		err = p.answer(r.w, resp)
	}
	if err != nil {
		p.logger.LogAttrs(r.ctx, slog.LevelDebug, "mcp: cannot send response", messageAttrs(r.m, "", slog.Any("error", err))...)
	}
}

// serve serves the request and returns its response: nil if the other side cancelled it,
// then no response must be sent.
func (r *inflight) serve() []byte {
	p := r.p
	resp := p.side.serve(r.ctx, r)
	p.mu.Lock()
	delete(p.inflight, string(r.m.ID))
	cancelled := r.cancelled
	p.mu.Unlock()
	if cancelled {
		return nil
	}
	return resp
}

// errIDInUse answers a request whose id is that of a request in progress.
func errIDInUse(id []byte) []byte {
	return jsonrpc.AppendError(nil, id, jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
		"invalid request: id "+string(id)+" is already in use by a request in progress"))
}

// cancelled cancels the request a notifications/cancelled names; its response is not sent.
func (p *peer) cancelled(params []byte) {
	id := rawParam(params, "requestId")
	if id == nil {
		return
	}
	p.mu.Lock()
	if r := p.inflight[string(id)]; r != nil {
		r.cancelled = true
		r.cancel()
	}
	p.mu.Unlock()
}

// progressed hands a notifications/progress to the call whose token it names, reporting
// whether there was one.
func (p *peer) progressed(params []byte) bool {
	token := rawParam(params, "progressToken")
	if token == nil {
		return false
	}
	p.mu.Lock()
	var to func([]byte)
	for _, c := range p.pending {
		if c.progress != nil && c.token == string(token) {
			to = c.progress
			break
		}
	}
	p.mu.Unlock()
	if to == nil {
		return false
	}
	to(params)
	return true
}

// rawParam reads a member of a params object as raw JSON; nil if absent.
func rawParam(params []byte, name string) []byte {
	var raw []byte
	d := jsonwire.NewDecoder(params)
	if params == nil || d.Peek() != jsonwire.Object {
		return nil
	}
	for key := range d.Members {
		if string(key) == name {
			raw = d.Raw()
		} else {
			d.Skip()
		}
	}
	return raw
}

// answer writes the response to a request to w, the last message about it, with the
// conversation's values and no cancellation.
func (p *peer) answer(w messageWriter, msg []byte) error { return w.Write(p.ctx, msg) }

func (p *peer) reply(w messageWriter, msg []byte) {
	if err := p.answer(w, msg); err != nil {
		p.logger.Debug("mcp: cannot send response", "error", err)
	}
}

// write writes a message about no request of the other side's to the conversation.
func (p *peer) write(msg []byte) {
	if err := p.w.Write(p.ctx, msg); err != nil {
		p.logger.Debug("mcp: cannot send message", "error", err)
	}
}

// notify sends a notification that belongs to no request, without waiting for the other
// side to read it.
func (p *peer) notify(method string, params []byte) {
	if p.mw != nil {
		p.sendThroughMiddleware(context.Background(), method, params, func(msg []byte) error {
			p.notes.add(msg, noteKindOf(method))
			return nil
		})
		return
	}
	p.notes.add(jsonrpc.AppendNotification(nil, method, params), noteKindOf(method))
}

// hangUp records that the other side will send nothing more: calls waiting for its answers
// give up, no new ones are sent, and subscriptions end. Requests in progress go on, to be
// answered.
func (p *peer) hangUp() { p.lost(ErrSessionClosed) }

// lost is hangUp with the reason calls give up with: why the connection ended.
func (p *peer) lost(err error) {
	p.mu.Lock()
	if p.closed == nil {
		p.closed = err
	}
	pending := p.pending
	p.pending = map[string]*call{}
	for _, r := range p.inflight {
		if r.long {
			r.cancel()
		}
	}
	p.mu.Unlock()
	for _, c := range pending {
		c.done <- callResult{err: err}
	}
}

// close ends the conversation: requests in progress are cancelled, and calls waiting for the
// other side give up.
func (p *peer) close() {
	p.hangUp()
	p.mu.Lock()
	for _, r := range p.inflight {
		r.cancel()
	}
	if p.stopWorkers != nil {
		close(p.stopWorkers) // idle workers end; busy ones once their request has
		p.stopWorkers = nil
	}
	p.mu.Unlock()
}
