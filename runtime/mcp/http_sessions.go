package mcp

import (
	"context"
	"net/http"
	"strconv"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// The endpoint of the sessions of Streamable HTTP (revisions 2025-03-26 to 2025-11-25): a
// POST the router found of a session's era (initialize, or a message of the session its
// Mcp-Session-Id names), the GET stream and its resumption, DELETE. The sessions themselves
// are kept in http_session_store.go.

// postSession serves a POST of a session's era that passed the preamble.
func (h *HTTPHandler) postSession(w http.ResponseWriter, r *http.Request, p *post) {
	if !protocolVersionOK(w, r) {
		return
	}
	hs, m := p.hs, &p.m // the router found the session its id names, before the body
	if hs == nil {
		if m.Method == methodInitialize && m.IsRequest() {
			owner, kerr := callerKey(r.Context())
			if kerr != nil {
				writeJSON(w, http.StatusForbidden, jsonrpc.AppendError(nil, m.ID, kerr))
				return
			}
			h.initialize(w, m, p.acceptJSON, owner, r.RemoteAddr)
			return
		}
		h.session(w, r) // answers that the session id is missing
		return
	}
	done := hs.use()
	defer done()
	if !m.IsRequest() {
		// Notifications and responses are handled at once; they get no answer of their own.
		hs.exchange(hs.ctx, m, nil)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	h.serveRequest(w, r, hs, m, p.acceptJSON, p.acceptSSE)
}

// initialize starts a session with an initialize request.
func (h *HTTPHandler) initialize(w http.ResponseWriter, m *jsonrpc.Message, acceptJSON bool, owner, remote string) {
	hs := h.newSession()
	hs.owner = owner
	hs.session.peerAddr = remote
	resp := hs.exchange(hs.ctx, m, nil)
	registered, full := false, false
	var shed *httpSession
	if hs.ready() {
		h.mu.Lock()
		if h.closing {
			resp = nil
		} else if shed, registered = h.registerLocked(hs); !registered {
			resp, full = nil, true
		}
		h.mu.Unlock()
	}
	if shed != nil {
		shed.end()
	}
	if !registered { // the handshake failed, or there is no room: no session
		hs.end()
		if full {
			w.Header().Set("Retry-After", "5")
			httpError(w, http.StatusServiceUnavailable, jsonrpc.CodeInternalError, "too many sessions ("+strconv.Itoa(h.opts.MaxSessions)+"); try again later")
			return
		}
		if resp == nil {
			shuttingDown(w)
			return
		}
	} else {
		h.srv.track(hs.session)
		hs.watchIdle()
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
func (h *HTTPHandler) serveRequest(w http.ResponseWriter, r *http.Request, hs *httpSession, m *jsonrpc.Message, acceptJSON, acceptSSE bool) {
	// Counted until answered, as over stdio: requests whose clients went away, kept for
	// resumption, count too.
	if max := max(h.srv.opts.MaxConcurrentRequests, 0); !hs.startRequest(max) {
		w.Header().Set("Retry-After", "1")
		writeJSON(w, http.StatusServiceUnavailable, jsonrpc.AppendError(nil, m.ID, errServerBusy(max)))
		return
	}
	if !h.begin() {
		hs.endRequest()
		shuttingDown(w)
		return
	}
	ctx, cancel := context.WithCancel(hs.ctx)
	if h.opts.Auth != nil {
		ctx = WithAuthInfo(ctx, AuthInfoFrom(r.Context())) // the session outlives the request; the caller is the request's
	}
	st := hs.newRequestStream(cancel)
	if acceptSSE {
		// The request's notifications and requests go on its stream (sessionConn); a client
		// that takes JSON only hears them on its GET stream, and the response comes back here.
		ctx = context.WithValue(ctx, postStreamKey{}, st)
	}
	inUse := hs.use() // until answered, though the client may go away before
	h.workers.run(&requestJob{hs: hs, ctx: ctx, cancel: cancel, m: m, st: st, done: func() { inUse(); h.requests.Done() }})
	if h.writeStream(w, r, st, 0, acceptJSON, acceptSSE, hs.ctx.Done()) == writeNothingWritten {
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
	hs     *httpSession
	ctx    context.Context
	cancel context.CancelFunc
	m      *jsonrpc.Message
	st     *stream
	done   func()
}

func (j *requestJob) work() {
	defer j.done()
	defer j.hs.endRequest()
	defer j.cancel()
	if resp := j.hs.exchange(j.ctx, j.m, nil); resp != nil { // of the session's era: decided by the router
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
	done := hs.use()
	defer done()
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
	if h.writeStream(w, r, st, after, false, true, hs.ctx.Done()) == writeNothingWritten {
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
