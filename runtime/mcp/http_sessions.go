package mcp

import (
	"context"
	"net/http"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp/internal/sse"
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
	// Served now, as the first message of the session: what it writes before its response
	// (a log from middleware) goes to the new session's GET stream.
	answer := &initAnswer{get: hs.standalone}
	_, refused, a, why := hs.handle(ctx, m, answer, p.take())
	if refused != nil {
		hs.end()
		h.httpRefuse(w, r, m, a, why, refused, http.StatusOK)
		return
	}
	resp := answer.resp
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
	sw := sse.NewWriter(w, h.opts.WriteTimeout)
	sw.Start("", h.opts.RetryInterval.Milliseconds())
	sw.Event("", "", resp)
	sw.Flush()
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
	defer h.requests.Done()
	ctx := hs.ctx
	if auth := AuthInfoFrom(r.Context()); auth != nil {
		ctx = WithAuthInfo(ctx, auth) // the session outlives the request; the caller is the request's
	}
	st := hs.newRequestStream()
	// The request's notifications and requests go on its stream; a client that takes JSON
	// only hears them on its GET stream (the session's writer), and the response comes back
	// here.
	var out RequestStream = st
	if !acceptSSE {
		out = jsonOnly{post: st, get: hs.standalone}
	}
	// Into the peer, as every transport's messages go (peer.handle): the door's admission
	// (the caller's scopes, MaxConcurrentRequests, counted until answered, as over stdio:
	// requests whose clients went away, kept for resumption, count too), then served on a
	// worker, while this goroutine writes the stream.
	rq, refused, a, why := hs.handle(ctx, m, out, p.take())
	if rq == nil {
		hs.dropStream(st)
		h.httpRefuse(w, r, m, a, why, refused, http.StatusOK)
		return
	}
	st.abandon = func() {
		rq.cancel()
		hs.dropStream(st)
	}
	if h.writeStream(w, r, st, 0, false, acceptJSON, acceptSSE, hs.ctx.Done()) == writeNothingWritten {
		// The session ended or the server is shutting down before anything was sent.
		if h.isClosing() {
			shuttingDown(w)
		} else {
			httpError(w, http.StatusNotFound, jsonrpc.CodeInvalidRequest, "session ended before the request was answered")
		}
	}
}

// jsonOnly is the writer of a request whose client takes JSON only: its messages go on the
// session's GET stream, its response on its POST's.
type jsonOnly struct{ post, get *stream }

func (j jsonOnly) Write(ctx context.Context, msg []byte) error { return j.get.Write(ctx, msg) }
func (j jsonOnly) Respond(msg []byte) error                    { return j.post.Respond(msg) }
func (j jsonOnly) Done()                                       { j.post.Done() }

// initAnswer is the writer of a session's initialize: its response is the POST's answer,
// anything before it goes to the session's GET stream.
type initAnswer struct {
	get  *stream
	resp []byte
}

func (a *initAnswer) Write(ctx context.Context, msg []byte) error { return a.get.Write(ctx, msg) }
func (a *initAnswer) Respond(msg []byte) error                    { a.resp = msg; return nil }
func (a *initAnswer) Done()                                       {}

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
		num, seq, ok := sse.ParseEventID(last)
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
