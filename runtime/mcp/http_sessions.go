package mcp

import (
	"context"
	"net/http"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// The endpoint of the sessions of Streamable HTTP (revisions 2025-03-26 to 2025-11-25): a
// POST the router found of a session's era (initialize, or a message of the session its
// Mcp-Session-Id names), the GET stream and its resumption, DELETE. The sessions themselves
// are kept in http_session_store.go.

// postSession serves a POST of a session's era that passed the preamble.
func (h *HTTPHandler) postSession(w http.ResponseWriter, r *http.Request, p *post) {
	hs, m := p.hs, &p.m // the router found the session its id names, before the body
	if hs == nil {
		if m.Method == methodInitialize && m.IsRequest() {
			owner, kerr := callerKey(r.Context())
			if kerr != nil {
				writeJSON(w, http.StatusForbidden, jsonrpc.AppendError(nil, m.ID, kerr))
				return
			}
			h.initialize(w, r, p, owner)
			return
		}
		h.session(w, r) // answers that the session id is missing
		return
	}
	if !m.IsRequest() {
		// Notifications and responses are handled at once; they get no answer of their own.
		hs.seat.touch()
		hs.handle(hs.ctx, m, hs.w, 0)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	h.serveRequest(w, r, hs, p)
}

// initialize starts a session with an initialize request.
func (h *HTTPHandler) initialize(w http.ResponseWriter, r *http.Request, p *post, owner string) {
	m, acceptJSON := &p.m, p.acceptJSON
	hs := h.newSession()
	hs.owner = owner
	hs.session.peerAddr = r.RemoteAddr
	ctx := hs.ctx
	if auth := AuthInfoFrom(r.Context()); auth != nil {
		ctx = WithAuthInfo(ctx, auth)
	}
	a := hs.admitEra(ctx, m, nil)
	rq, resp, why := hs.enter(ctx, m, a, p.take())
	if rq == nil {
		hs.end()
		h.httpRefuse(w, r, m, a, why, resp, http.StatusOK)
		return
	}
	resp = rq.exchange()
	registered, full := false, false
	if hs.ready() {
		if registered, full = h.register(hs); !registered && !full {
			resp = nil // shutting down
		}
	}
	if !registered { // the handshake failed, or there is no room: no session
		hs.end()
		if full {
			w.Header().Set("Retry-After", "5")
			httpError(w, http.StatusServiceUnavailable, jsonrpc.CodeInternalError, errTooManyConversations(h.srv.opts.MaxConversations))
			return
		}
		if resp == nil {
			shuttingDown(w)
			return
		}
	} else {
		h.srv.track(hs.session)
		w.Header().Set("Mcp-Session-Id", hs.id)
	}
	if acceptJSON {
		writeJSON(w, http.StatusOK, resp)
		return
	}
	sw := newSSEWriter(w, h.opts.WriteTimeout)
	sw.start("", h.opts.RetryInterval.Milliseconds())
	sw.event("", "", resp)
	sw.flush()
}

// serveRequest runs a request on its own goroutine and writes its stream to the response:
// as plain JSON if the response is all there is to send, else as SSE from the first
// message on. If the client disconnects before the response, the request goes on for a
// while, for the client to resume the stream; then it is cancelled.
func (h *HTTPHandler) serveRequest(w http.ResponseWriter, r *http.Request, hs *httpSession, p *post) {
	m, acceptJSON, acceptSSE := &p.m, p.acceptJSON, p.acceptSSE
	if !h.begin() {
		shuttingDown(w)
		return
	}
	ctx, cancel := context.WithCancel(hs.ctx)
	if auth := AuthInfoFrom(r.Context()); auth != nil {
		ctx = WithAuthInfo(ctx, auth) // the session outlives the request; the caller is the request's
	}
	st := hs.newRequestStream(cancel)
	if acceptSSE {
		// The request's notifications and requests go on its stream (sessionConn); a client
		// that takes JSON only hears them on its GET stream, and the response comes back here.
		ctx = context.WithValue(ctx, postStreamKey{}, st)
	}
	// The door (door.go): the caller's scopes, and MaxConcurrentRequests, counted until
	// answered, as over stdio (requests whose clients went away, kept for resumption, count
	// too), while the session is in use.
	a := hs.admitEra(ctx, m, nil)
	rq, resp, why := hs.enter(ctx, m, a, p.take())
	if rq == nil {
		cancel()
		hs.dropStream(st)
		h.requests.Done()
		h.httpRefuse(w, r, m, a, why, resp, http.StatusOK)
		return
	}
	h.workers.run(&requestJob{rq: rq, cancel: cancel, st: st, done: h.requests.Done})
	if h.writeStream(w, r, st, 0, false, acceptJSON, acceptSSE, hs.ctx.Done()) == writeNothingWritten {
		// The session ended or the server is shutting down before anything was sent.
		if h.isClosing() {
			shuttingDown(w)
		} else {
			httpError(w, http.StatusNotFound, jsonrpc.CodeInvalidRequest, "session ended before the request was answered")
		}
	}
}

// requestJob is a request of a session being served on a worker, while the connection's
// goroutine writes its stream.
type requestJob struct {
	rq     *inflight
	cancel context.CancelFunc
	st     *stream
	done   func()
}

func (j *requestJob) work() {
	defer j.done()
	defer j.cancel()
	if resp := j.rq.exchange(); resp != nil {
		j.st.respond(resp, http.StatusOK)
	}
	j.st.finish()
}

// postStreamKey is the ctx value that names the stream of the POST a request came in: there
// its messages go (sessionConn), while its client takes SSE there.
type postStreamKey struct{}

// postStream is the stream of the POST of the request ctx belongs to, if its client takes
// SSE there; nil otherwise.
func postStream(ctx context.Context) *stream {
	st, _ := ctx.Value(postStreamKey{}).(*stream)
	return st
}

// sessionConn is the write half of a session of Streamable HTTP (its peer's writer): a
// message about a request goes to the stream of the POST that request came in, while its
// client takes SSE there; any other (about no request, or about one of a client that takes
// JSON only) to the session's standalone stream, read with GET. Neither blocks.
type sessionConn struct{ standalone *stream }

func (c sessionConn) Write(ctx context.Context, msg []byte) error {
	if st := postStream(ctx); st != nil {
		return st.Write(ctx, msg)
	}
	return c.standalone.Write(ctx, msg)
}

// get opens the standalone stream, or resumes a stream with Last-Event-ID.
func (h *HTTPHandler) get(w http.ResponseWriter, r *http.Request) {
	if !accepts(r.Header.Values("Accept"), "text/event-stream") {
		httpError(w, http.StatusNotAcceptable, jsonrpc.CodeInvalidRequest, "not acceptable: GET opens an SSE stream; accept text/event-stream")
		return
	}
	if h.isClosing() {
		shuttingDown(w)
		return
	}
	if !protocolVersionOK(w, r) {
		return
	}
	hs := h.session(w, r)
	if hs == nil {
		return
	}
	hs.seat.use() // an open stream: the session is not idle
	defer hs.seat.done()
	st, after := hs.standalone, int64(-1)
	if last := r.Header.Get("Last-Event-Id"); last != "" {
		num, seq, ok := parseEventID(last)
		st = nil
		if ok {
			st = hs.stream(num)
		}
		resumable := false
		if st != nil {
			st.mu.Lock()
			// Only a stream that gave out event ids can be resumed, only from one of them.
			resumable = (st.sse || st.standalone) && seq < st.next
			st.mu.Unlock()
		}
		if !resumable {
			httpError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "bad request: Last-Event-ID "+last+" names no stream that can be resumed")
			return
		}
		after = seq
	}
	// Without Last-Event-ID (after < 0), a new standalone connection gets what no
	// connection has been handed yet.
	if h.writeStream(w, r, st, after, after >= 0, false, true, hs.ctx.Done()) == writeNothingWritten {
		httpError(w, http.StatusNotFound, jsonrpc.CodeInvalidRequest, "session ended")
	}
}

// delete ends a session.
func (h *HTTPHandler) delete(w http.ResponseWriter, r *http.Request) {
	if !protocolVersionOK(w, r) {
		return
	}
	hs := h.session(w, r)
	if hs == nil {
		return
	}
	h.remove(hs)
	hs.end()
	w.WriteHeader(http.StatusNoContent)
}
