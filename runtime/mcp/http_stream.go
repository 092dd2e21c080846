package mcp

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp/internal/sse"
)

// A stream is the sequence of messages the server sends a client of the Streamable HTTP
// transport about one thing, as one JSON answer or as one SSE stream:
//
//   - the stream of one POSTed request of a session: its notifications, its requests to the
//     client, and at last its response;
//   - a session's standalone stream (number 0): the messages that belong to no request,
//     read with GET;
//   - the stream of one stateless request: the same as a session's request's, but not
//     resumable: no event ids, nothing kept for a reconnection.
//
// A resumable stream keeps its messages in a log, numbered, so that a client whose
// connection broke can resume it with Last-Event-ID and miss nothing. A connection that
// writes the stream attaches to it; only one does at a time, and a connection that another
// took the stream from stops writing (the old connection is one its client gave up on).
// Sending never blocks on the network.
type stream struct {
	num         int64         // unique in the session; 0 is the standalone stream
	resumeAfter time.Duration // how long an orphaned stream waits for its client
	abandon     func()        // cancels the request of a stream nobody reads
	session     *httpSession  // that forgets the stream once it has been written to its end

	mu        sync.Mutex
	events    []event // retained, in order
	size      int     // bytes of data in events
	next      int64   // number of the next event; events are numbered from 1
	delivered int64   // the last event handed to a connection
	owner     *attachment
	orphaned  *time.Timer // runs abandon if no connection comes back in time
	status    int32       // the HTTP status of the response, when it goes as JSON

	standalone bool
	resumable  bool
	finished   bool // the request's stream is complete: nothing more will be sent
	replied    bool // ... and it ended with a response
	sse        bool // SSE was forced or began: no JSON answer; if resumable, the client can resume
	everOwned  bool
	drainFirst bool // closeConnection came before any connection attached
}

type event struct {
	seq  int64
	name string // the SSE event type; "" for message
	data []byte
}

// attachment is one connection writing a stream. stop tells it to let go: another
// connection took the stream over, or (drain) the server wants the client to reconnect.
type attachment struct {
	wake     chan struct{} // there is something to write
	stop     chan struct{}
	stopOnce sync.Once
	drain    bool // set before stop by closeConnection: send what is pending, then end
}

func (a *attachment) release() { a.stopOnce.Do(func() { close(a.stop) }) }

// Bounds on the log of a stream nobody reads; the oldest events go first.
const (
	maxStreamEvents = 4096
	maxStreamBytes  = 16 << 20
)

// standaloneReplay is how many delivered events the standalone stream keeps for resumption.
const standaloneReplay = 64

var errStreamFinished = errors.New("mcp: the request's stream has ended")

// newSessionStream returns stream num of a session: resumable, and standalone if num is 0.
func newSessionStream(num int64) *stream {
	return &stream{num: num, standalone: num == 0, resumable: true, next: 1, status: http.StatusOK}
}

// newStatelessStream returns the stream of a stateless request.
func newStatelessStream() *stream {
	return &stream{next: 1, status: http.StatusOK}
}

// addEvent adds an event of another type than message (the HTTP+SSE transport's endpoint).
func (st *stream) addEvent(name string, data []byte) {
	st.add(data, false, 0)
	st.mu.Lock()
	st.events[len(st.events)-1].name = name
	st.mu.Unlock()
}

// Write adds a message: one about a request, or, as the writer of its session's or request's
// notifier (a subscription's), about none. A message about no request (RequestFrom(ctx) is nil) is a change (a list
// changed, a resource was updated), so one the same as a message still unread on the
// standalone stream is left out. The client learns of the change either way, and a session
// whose client never opens the stream holds one of each, not one per change.
func (st *stream) Write(ctx context.Context, msg []byte) error {
	if st.standalone && RequestFrom(ctx) == nil {
		st.mu.Lock()
		pending := slices.ContainsFunc(st.events, func(ev event) bool { return ev.seq > st.delivered && bytes.Equal(ev.data, msg) })
		st.mu.Unlock()
		if pending {
			return nil
		}
	}
	return st.add(msg, false, 0)
}

// Unread is how many bytes of events no connection has been handed yet: what a client that
// does not read leaves behind (a subscription is ended past a bound).
func (st *stream) Unread() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	n := 0
	for i := len(st.events) - 1; i >= 0 && st.events[i].seq > st.delivered; i-- {
		n += len(st.events[i].data)
	}
	return n
}

// Respond and Done make a request's stream its RequestStream: the response is its last
// message, and a request over without one (the client cancelled it) ends it all the same.
// The standalone stream, which carries the responses of the HTTP+SSE transport among its
// messages, goes on.
func (st *stream) Respond(msg []byte) error { return st.respond(msg, http.StatusOK) }

func (st *stream) Done() {
	if !st.standalone {
		st.finish()
	}
}

// respond adds the response to a request, with the status it goes with as JSON: the
// stream's last message (but the standalone stream's, which carries the responses of the
// HTTP+SSE transport).
func (st *stream) respond(msg []byte, status int) error { return st.add(msg, true, status) }

func (st *stream) add(msg []byte, final bool, status int) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.finished {
		return errStreamFinished
	}
	st.events = append(st.events, event{seq: st.next, data: msg}) // handed over for good (messageWriter)
	st.size += len(msg)
	st.next++
	if final && !st.standalone {
		st.finished, st.replied, st.status = true, true, int32(status)
	}
	st.trim()
	st.poke()
	return nil
}

// trim drops what no one can ask for any more: events beyond the bounds (but never the
// newest); on the standalone stream, delivered events beyond the replay window; on a stream
// that cannot be resumed, every delivered event. st.mu is held.
func (st *stream) trim() {
	atLeast := 0
	if st.standalone || !st.resumable {
		delivered := 0
		for _, ev := range st.events {
			if ev.seq > st.delivered {
				break
			}
			delivered++
		}
		atLeast = delivered
		if st.standalone && st.resumable {
			atLeast -= standaloneReplay
		}
	}
	st.events, st.size = bound(st.events, st.size, atLeast)
}

// bound drops the oldest events of a log, at least atLeast of them, until it keeps within
// maxStreamEvents and maxStreamBytes, but never the newest. size is the log's bytes, before
// and after.
func bound(log []event, size, atLeast int) ([]event, int) {
	drop := max(len(log)-maxStreamEvents, atLeast, 0)
	for _, e := range log[:drop] {
		size -= len(e.data)
	}
	for drop < len(log)-1 && size > maxStreamBytes {
		size -= len(log[drop].data)
		drop++
	}
	if drop == 0 {
		return log, size
	}
	return append(log[:0], log[drop:]...), size
}

// finish marks a request's stream complete, with or without a response (a request the
// client cancelled gets none).
func (st *stream) finish() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.finished = true
	st.poke()
}

// poke wakes the owner. st.mu is held.
func (st *stream) poke() {
	if st.owner != nil {
		select {
		case st.owner.wake <- struct{}{}:
		default:
		}
	}
}

// attach makes a connection the stream's writer, taking over from any other, to write the
// events after seq; a negative seq means after the last event handed to a connection, which
// is read in the same step, so no event goes out on both the old and the new connection.
func (st *stream) attach(after int64) (*attachment, int64) {
	a := &attachment{wake: make(chan struct{}, 1), stop: make(chan struct{})}
	st.mu.Lock()
	if after < 0 {
		after = st.delivered
	}
	old := st.owner
	st.owner, st.everOwned = a, true
	if st.orphaned != nil {
		st.orphaned.Stop()
		st.orphaned = nil
	}
	if st.drainFirst {
		st.drainFirst, a.drain = false, true
		a.release()
	}
	st.poke()
	st.mu.Unlock()
	if old != nil {
		old.release()
	}
	return a, after
}

// detach lets go of the stream, if a is still its writer. A request's stream left without
// a writer before its end waits for its client to come back (if the client can resume);
// when it does not, the request is abandoned.
func (st *stream) detach(a *attachment) {
	st.mu.Lock()
	if st.owner != a {
		st.mu.Unlock()
		return
	}
	st.owner = nil
	request := !st.standalone && st.abandon != nil
	resumable := st.resumable && st.sse
	if request && resumable {
		// The client has ResumeTimeout to come back; then a request still running is
		// cancelled, and a finished one's unread events are let go.
		st.orphaned = time.AfterFunc(st.resumeAfter, func() {
			st.mu.Lock()
			gone, finished := st.owner == nil, st.finished
			st.mu.Unlock()
			switch {
			case !gone:
			case finished:
				st.forget()
			default:
				st.abandon()
			}
		})
	}
	finished := st.finished
	st.mu.Unlock()
	if request && !resumable { // no event id went out: nobody can resume
		if finished {
			st.forget()
		} else {
			st.abandon()
		}
	}
}

// end stops what would act on the stream later, and lets its connection go: the session is
// ending.
func (st *stream) end() {
	st.mu.Lock()
	if st.orphaned != nil {
		st.orphaned.Stop()
	}
	owner := st.owner
	st.mu.Unlock()
	if owner != nil {
		owner.release()
	}
}

// primes reports whether a new SSE connection of the stream starts with a priming event (an
// id and empty data), which clients of 2025-11-25 and later resume from. Earlier clients
// (the TypeScript SDK of 2025-03-26 and 2025-06-18) take the empty data for a message that
// is not JSON, so their streams have none.
func (st *stream) primes() bool {
	return st.session == nil || st.session.revision().primingEvents()
}

// closeConnection asks the connection writing a resumable stream to end, after sending what
// is pending, while the stream goes on: the client reconnects and resumes it. A POST that has
// not answered yet answers with SSE, so the client gets an event id to resume from. Only
// clients of 2025-11-25 and later reconnect to poll: for earlier ones, and for streams that
// cannot be resumed, it does nothing.
func (st *stream) closeConnection() {
	if !st.resumable || !st.primes() {
		return
	}
	st.mu.Lock()
	st.sse = true
	owner := st.owner
	if owner != nil {
		owner.drain = true
	} else if !st.everOwned {
		st.drainFirst = true // the POST's connection has not attached yet
	}
	st.mu.Unlock()
	if owner != nil {
		owner.release()
	}
}

// CloseSSEStream closes the HTTP connection that carries the SSE stream of the request ctx
// belongs to, without ending the stream: the client reconnects after the retry interval and
// resumes the stream where it left off (GET with Last-Event-ID), missing nothing. A server
// uses it to avoid holding a connection open through a long call. Over stdio, and for a
// stateless request, which cannot be resumed, it does nothing.
func CloseSSEStream(ctx context.Context) {
	if r := RequestFrom(ctx); r != nil {
		if st, ok := r.w.(*stream); ok && !st.standalone {
			st.closeConnection()
		}
	}
}

// pending returns the events after seq, and whether the stream is complete with all of them,
// for a, its writer; owned is false when another connection has taken the stream over. With
// deliver, the events are handed to a from now on, in the same step as the ownership check: a
// connection that takes the stream over later starts after them, and one that took it
// earlier made a lose it. A message is thus sent on one connection only, as the transport
// requires; if that connection breaks, its client resumes with Last-Event-ID.
func (st *stream) pending(a *attachment, after int64, deliver bool) (evs []event, done, owned bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.owner != a {
		return nil, false, false
	}
	for _, ev := range st.events {
		if ev.seq > after {
			evs = append(evs, ev)
		}
	}
	if deliver && len(evs) > 0 {
		st.delivered = max(st.delivered, evs[len(evs)-1].seq)
		st.trim()
	}
	return evs, st.finished, true
}

// jsonAnswer returns the response and its status, if the stream can still answer its POST
// with plain JSON: nothing forced SSE, and the response is its only message, or the client
// takes JSON only (then the messages before the response are dropped).
func (st *stream) jsonAnswer(acceptJSON, acceptSSE bool) ([]byte, int, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.standalone || st.sse || !st.replied || len(st.events) == 0 || !(acceptJSON && len(st.events) == 1 || !acceptSSE) {
		return nil, 0, false
	}
	return st.events[len(st.events)-1].data, int(st.status), true
}

// keepAliveInterval is how often a quiet SSE stream gets a comment, so that proxies and
// clients do not close it for idleness.
const keepAliveInterval = 25 * time.Second

type writeResult int

const (
	writeComplete       writeResult = iota // the stream was written to its end
	writeInterrupted                       // the connection ended (or was let go) mid-stream
	writeNothingWritten                    // it ended before a byte of the response was written
)

// writeStream writes a stream to a response, from after event seq (see attach for a
// negative seq): as plain JSON when the response is all there is to send, or all the client
// takes, else as SSE from the first message on (for a session's stream, at once). resumed
// says the client resumes the stream from event after (Last-Event-ID), whose id it has: it
// is not primed again with that id. It returns
// when the stream is complete, the client disconnects, another connection takes the stream
// over, the server asks the client to reconnect (CloseSSEStream), or done is closed (the
// session ended).
func (h *HTTPHandler) writeStream(w http.ResponseWriter, r *http.Request, st *stream, after int64, resumed, acceptJSON, acceptSSE bool, done <-chan struct{}) writeResult {
	a, after := st.attach(after)
	defer st.detach(a)
	var (
		sw       *sse.Writer
		stopping bool
		tick     <-chan time.Time
	)
	for {
		// A connection that lost the stream to another writes nothing more: the other
		// goes on from where its client says it is. Only a connection that writes SSE
		// takes events; until then it only looks at them.
		evs, finished, owned := st.pending(a, after, sw != nil)
		if !owned {
			return interrupted(sw)
		}
		if sw == nil {
			if msg, status, ok := st.jsonAnswer(acceptJSON, acceptSSE); ok {
				// An answer can be large: a client that does not read it lets go of it.
				http.NewResponseController(w).SetWriteDeadline(time.Now().Add(h.opts.WriteTimeout))
				writeJSON(w, status, msg)
				st.forget()
				return writeComplete
			}
			if finished && len(evs) == 0 && acceptJSON && !st.standalone {
				// Cancelled by the client: there is no response to give.
				w.WriteHeader(http.StatusAccepted)
				st.forget()
				return writeComplete
			}
			if acceptSSE && (len(evs) > 0 || st.resumable && (st.forcedSSE() || !acceptJSON || st.standalone || stopping)) {
				if sw = h.startSSE(w, st, after, resumed); sw == nil {
					return writeInterrupted
				}
				ticker := time.NewTicker(keepAliveInterval)
				defer ticker.Stop()
				tick = ticker.C
				continue // take the events now that there is a connection to write them
			}
		}
		if sw != nil && len(evs) > 0 {
			for _, ev := range evs {
				id := ""
				if st.resumable {
					id = sse.EventID(st.num, ev.seq)
				}
				sw.Event(id, ev.name, ev.data)
				after = ev.seq
			}
			if sw.Flush() != nil {
				return writeInterrupted
			}
		}
		if sw != nil && finished {
			// pending read the events and the end together: all of them are written.
			st.forget()
			return writeComplete
		}
		if stopping {
			return interrupted(sw)
		}
		select {
		case <-a.wake:
		case <-a.stop:
			st.mu.Lock()
			drain := a.drain
			st.mu.Unlock()
			if !drain {
				return interrupted(sw) // another connection took the stream over
			}
			stopping = true // write what is pending (the priming event at least), then end
		case <-tick:
			if sw.Comment() != nil {
				return writeInterrupted
			}
		case <-r.Context().Done():
			return interrupted(sw)
		case <-done:
			return interrupted(sw)
		}
	}
}

// startSSE starts writing a stream as SSE: a resumable stream with the retry interval and,
// unless the client resumed it, a priming event whose id it can resume from. It returns nil
// if the connection failed.
func (h *HTTPHandler) startSSE(w http.ResponseWriter, st *stream, after int64, resumed bool) *sse.Writer {
	st.mu.Lock()
	st.sse = true
	st.mu.Unlock()
	sw := sse.NewWriter(w, h.opts.WriteTimeout)
	var err error
	switch {
	case !st.resumable:
		err = sw.Start("", -1)
	case resumed || !st.primes():
		err = sw.Start("", h.opts.RetryInterval.Milliseconds()) // the client holds an id already
	default:
		err = sw.Start(sse.EventID(st.num, after), h.opts.RetryInterval.Milliseconds())
	}
	if err != nil {
		return nil
	}
	return sw
}

// forcedSSE reports whether something forced the stream to SSE (CloseSSEStream).
func (st *stream) forcedSSE() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.sse
}

// forget tells the stream's session, if it has one, that the stream has been written to its
// end.
func (st *stream) forget() {
	if st.session != nil && !st.standalone {
		st.session.dropStream(st)
	}
}

func interrupted(sw *sse.Writer) writeResult {
	if sw == nil {
		return writeNothingWritten
	}
	return writeInterrupted
}
