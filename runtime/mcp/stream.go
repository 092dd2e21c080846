package mcp

import (
	"bytes"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A stream is the sequence of messages the server sends a client of the Streamable HTTP
// transport on one SSE stream: the stream of one POSTed request (its notifications, its
// requests to the client, and at last its response), or a session's standalone stream (the
// messages that belong to no request, read with GET).
//
// Messages are kept in a log, numbered, so that a client whose connection broke can resume
// the stream with Last-Event-ID and miss nothing. A connection that writes the stream
// attaches to it; only one does at a time, and a connection that another took the stream
// from stops writing (the old connection is one its client gave up on). Sending never
// blocks on the network.
type stream struct {
	num        int64 // unique in the session; 0 is the standalone stream
	standalone bool

	mu          sync.Mutex
	events      []event // retained, in order
	size        int     // bytes of data in events
	next        int64   // number of the next event; events are numbered from 1
	delivered   int64   // the last event written to a connection
	finished    bool    // the request's stream is complete: nothing more will be sent
	replied     bool    // ... and it ended with a response
	sse         bool    // an event id went out: the client can resume; no JSON answer
	owner       *attachment
	everOwned   bool
	drainFirst  bool        // closeConnection came before any connection attached
	orphaned    *time.Timer // runs abandon if no connection comes back in time
	abandon     func()      // cancels the request of a stream nobody reads
	resumeAfter time.Duration
}

type event struct {
	seq  int64
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

func newStream(num int64) *stream {
	return &stream{num: num, standalone: num == 0, next: 1}
}

func (st *stream) send(msg []byte) error { return st.add(msg, false) }

func (st *stream) reply(msg []byte) error { return st.add(msg, true) }

func (st *stream) add(msg []byte, final bool) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.finished {
		return errStreamFinished
	}
	st.events = append(st.events, event{seq: st.next, data: msg}) // the outbox owns msg
	st.size += len(msg)
	st.next++
	if final && !st.standalone {
		st.finished, st.replied = true, true
	}
	st.trim()
	st.poke()
	return nil
}

// trim drops what no one can ask for any more: events beyond the bounds (but never the
// newest), and on the standalone stream, delivered events beyond the replay window. st.mu
// is held.
func (st *stream) trim() {
	atLeast := 0
	if st.standalone {
		delivered := 0
		for _, ev := range st.events {
			if ev.seq > st.delivered {
				break
			}
			delivered++
		}
		atLeast = delivered - standaloneReplay
	}
	st.events, st.size = bound(st.events, st.size, atLeast, func(ev event) int { return len(ev.data) })
}

// bound drops the oldest entries of a log, at least atLeast of them, until it keeps within
// maxStreamEvents and maxStreamBytes, but never the newest: a stream's and a modern
// request's responseStream alike. size is the log's bytes (by sizeOf), before and after.
func bound[E any](log []E, size, atLeast int, sizeOf func(E) int) ([]E, int) {
	drop := max(len(log)-maxStreamEvents, atLeast, 0)
	for _, e := range log[:drop] {
		size -= sizeOf(e)
	}
	for drop < len(log)-1 && size > maxStreamBytes {
		size -= sizeOf(log[drop])
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
	orphan := !st.standalone && !st.finished && st.abandon != nil
	resumable := st.sse
	if orphan && resumable {
		st.orphaned = time.AfterFunc(st.resumeAfter, func() {
			st.mu.Lock()
			still := st.owner == nil && !st.finished
			st.mu.Unlock()
			if still {
				st.abandon()
			}
		})
	}
	st.mu.Unlock()
	if orphan && !resumable {
		st.abandon() // no event id went out: nobody can resume
	}
}

// stopTimers stops what would act on the stream later; the session is ending.
func (st *stream) stopTimers() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.orphaned != nil {
		st.orphaned.Stop()
	}
}

// closeConnection asks the connection writing the stream to end, after sending what is
// pending, while the stream goes on: the client reconnects and resumes it. A POST that has
// not answered yet answers with SSE, so the client gets an event id to resume from.
func (st *stream) closeConnection() {
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

// jsonAnswer returns the response, if the stream can still answer its POST with plain JSON:
// the response is its only message, and nothing forced SSE.
func (st *stream) jsonAnswer() ([]byte, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.sse || !st.replied || len(st.events) != 1 {
		return nil, false
	}
	return st.events[0].data, true
}

// eventID names the position after event seq of stream num: "<num>-<seq>". It is what a
// client sends back as Last-Event-ID.
func eventID(num, seq int64) string {
	return strconv.FormatInt(num, 10) + "-" + strconv.FormatInt(seq, 10)
}

func parseEventID(id string) (num, seq int64, ok bool) {
	a, b, found := strings.Cut(id, "-")
	if !found {
		return 0, 0, false
	}
	num, err1 := strconv.ParseInt(a, 10, 64)
	seq, err2 := strconv.ParseInt(b, 10, 64)
	return num, seq, err1 == nil && err2 == nil && num >= 0 && seq >= 0
}

// writeTimeout bounds one write to a client; a client that stops reading loses its
// connection instead of holding a goroutine and the stream.
const writeTimeout = 30 * time.Second

// sseWriter writes Server-Sent Events to a response.
type sseWriter struct {
	w   http.ResponseWriter
	rc  *http.ResponseController
	buf bytes.Buffer
}

func newSSEWriter(w http.ResponseWriter) *sseWriter {
	return &sseWriter{w: w, rc: http.NewResponseController(w)}
}

// start sends the headers and the retry interval, and, when primingID is set, the priming
// event: an id, with which the client can resume the stream from here, and no data. A
// resumed stream needs none: its client already holds an id.
func (sw *sseWriter) start(primingID string, retryMillis int64) error {
	sw.writeHeader()
	if primingID != "" {
		sw.buf.WriteString("id: " + primingID + "\n")
	}
	sw.buf.WriteString("retry: " + strconv.FormatInt(retryMillis, 10) + "\n")
	if primingID != "" {
		sw.buf.WriteString("data: \n")
	}
	sw.buf.WriteString("\n")
	return sw.flush()
}

// writeHeader sends the response headers of an SSE stream.
func (sw *sseWriter) writeHeader() {
	h := sw.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // keep proxies such as nginx from buffering the stream
	sw.w.WriteHeader(http.StatusOK)
}

// event buffers one message event.
func (sw *sseWriter) event(id string, data []byte) {
	if id != "" {
		sw.buf.WriteString("id: " + id + "\n")
	}
	sw.buf.WriteString("event: message\n")
	// A message is one line of JSON, but one written by hand could hold line breaks: each
	// line becomes a data line, which the client joins back with newlines.
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	data = bytes.ReplaceAll(data, []byte("\r"), []byte("\n"))
	for line := range bytes.Lines(data) {
		sw.buf.WriteString("data: ")
		sw.buf.Write(bytes.TrimSuffix(line, []byte("\n")))
		sw.buf.WriteByte('\n')
	}
	sw.buf.WriteByte('\n')
}

func (sw *sseWriter) flush() error {
	sw.rc.SetWriteDeadline(time.Now().Add(writeTimeout))
	if _, err := sw.w.Write(sw.buf.Bytes()); err != nil {
		return err
	}
	sw.buf.Reset()
	return sw.rc.Flush()
}
