package mcp

import (
	"context"
	"net/http"
	"net/url"
	"sync"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// The HTTP+SSE transport of revision 2024-11-05, deprecated since 2025-03-26 and still the
// only one some clients speak (the TypeScript SDK's SSEClientTransport, go-sdk's and
// mcp-go's SSE transports, the Inspector's sse mode). It is served beside the Streamable
// HTTP endpoint, as the 2025-03-26 revision's backwards-compatibility section describes: a
// GET of HTTPOptions.SSEPath opens a session's one SSE stream, whose first event, endpoint,
// names where the client POSTs its messages (SSEPath + "/message?sessionId=..."); every
// message of the server, responses included, goes on the stream. The host and origin
// checks, the body limit and the session bound apply as on the MCP endpoint. A session
// lasts as long as its stream.

// sseSession is a session of the HTTP+SSE transport.
type sseSession struct {
	*session
	st     *stream // every message the server sends the client
	ctx    context.Context
	cancel context.CancelFunc
	once   sync.Once
	owner  string // the callerKey of the token that opened it ("" unprotected)
}

// sseMessagePath is where the clients of SSEPath POST their messages.
func (h *HTTPHandler) sseMessagePath() string { return h.opts.SSEPath + "/message" }

// serveLegacy serves the two endpoints of the HTTP+SSE transport (the guard has passed
// the request).
func (h *HTTPHandler) serveLegacy(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodOptions:
		w.WriteHeader(http.StatusNoContent)
	case r.URL.Path == h.opts.SSEPath && r.Method == http.MethodGet:
		h.openSSE(w, r)
	case r.URL.Path == h.sseMessagePath() && r.Method == http.MethodPost:
		h.routeLegacyPost(w, r)
	case r.URL.Path == h.opts.SSEPath:
		w.Header().Set("Allow", "GET, OPTIONS")
		httpError(w, http.StatusMethodNotAllowed, jsonrpc.CodeInvalidRequest, "method not allowed: GET "+h.opts.SSEPath+" opens the stream of the HTTP+SSE transport; a Streamable HTTP client POSTs to "+h.opts.Path)
	default:
		w.Header().Set("Allow", "POST, OPTIONS")
		httpError(w, http.StatusMethodNotAllowed, jsonrpc.CodeInvalidRequest, "method not allowed: messages of the HTTP+SSE transport are POSTed")
	}
}

// openSSE starts a session and writes its stream until the client goes away or the
// session ends.
func (h *HTTPHandler) openSSE(w http.ResponseWriter, r *http.Request) {
	if !accepts(r.Header.Values("Accept"), "text/event-stream") {
		httpError(w, http.StatusNotAcceptable, jsonrpc.CodeInvalidRequest, "not acceptable: "+h.opts.SSEPath+" opens an SSE stream; accept text/event-stream")
		return
	}
	owner, kerr := callerKey(r.Context())
	if kerr != nil {
		httpError(w, http.StatusForbidden, kerr.Code, kerr.Message)
		return
	}
	st := &stream{standalone: true, next: 1}
	ss := &sseSession{st: st, owner: owner}
	ss.ctx, ss.cancel = context.WithCancel(context.Background())
	ss.session = newSession(h.srv, st, newNotifier(ss.ctx, st, h.srv.logger, true))
	ss.session.id = newSessionID()
	ss.session.transport, ss.session.peerAddr = TransportSSE, r.RemoteAddr
	ss.session.maxConcurrent = max(h.srv.opts.MaxConcurrentRequests, 0)
	ss.session.concurrent, ss.session.workers = true, h.workers // its requests on the handler's workers
	ss.session.sessionsOnly = true
	// One of the server's conversations (door.go), always in use while its stream is open,
	// as it is while it lasts: never idle, never shed.
	seat := h.srv.conversations.enter(func(error) { h.endSSE(ss) })
	if seat == nil {
		w.Header().Set("Retry-After", "5")
		httpError(w, http.StatusServiceUnavailable, jsonrpc.CodeInternalError, errTooManyConversations(h.srv.opts.MaxConversations))
		return
	}
	seat.use()
	ss.session.seat = seat
	h.mu.Lock()
	if h.closing {
		h.mu.Unlock()
		seat.leave()
		shuttingDown(w)
		return
	}
	h.sseSessions[ss.id] = ss
	h.mu.Unlock()
	h.srv.track(ss.session)
	defer h.endSSE(ss)

	// The endpoint is relative, so that it is right however the client reached us.
	st.addEvent("endpoint", []byte(h.sseMessagePath()+"?sessionId="+url.QueryEscape(ss.id)))
	h.writeStream(w, r, st, -1, false, false, true, ss.ctx.Done())
}

// endSSE ends a session of the HTTP+SSE transport: its requests are cancelled and its stream
// ends.
func (h *HTTPHandler) endSSE(ss *sseSession) {
	ss.once.Do(func() {
		h.mu.Lock()
		if h.sseSessions[ss.id] == ss {
			delete(h.sseSessions, ss.id)
		}
		h.mu.Unlock()
		ss.session.seat.leave()
		ss.cancel()
		ss.session.close()
		ss.notes.close()
		ss.st.end()
	})
}

// legacySession finds the session a POST to the message endpoint names (?sessionId=), or
// answers with the error and returns nil. A session is its caller's, as with Streamable
// HTTP.
func (h *HTTPHandler) legacySession(w http.ResponseWriter, r *http.Request) *sseSession {
	h.mu.Lock()
	ss := h.sseSessions[r.URL.Query().Get("sessionId")]
	h.mu.Unlock()
	if ss == nil || !callerOwns(r.Context(), ss.owner) {
		httpError(w, http.StatusNotFound, jsonrpc.CodeInvalidRequest, "session not found: its stream closed, or it never existed; open a new one with GET "+h.opts.SSEPath)
		return nil
	}
	return ss
}

// postLegacy hands a message that passed the preamble to its session; the answer goes on
// the session's stream. A request is served on a worker, counted in MaxConcurrentRequests
// and holding its body in the server's MaxBytesInFlight until it is answered, as the
// Streamable HTTP endpoint does (a request served on after its POST was answered would
// otherwise let a client hold any number of bodies); what the next messages depend on
// (initialize, a subscription, the log level) is served before the POST is answered.
func (h *HTTPHandler) postLegacy(w http.ResponseWriter, r *http.Request, p *post) {
	defer p.release() // what of the body's bytes was not handed to the request
	if !h.begin() {
		shuttingDown(w)
		return
	}
	defer h.requests.Done()
	ss := p.ss
	ctx := ss.ctx
	if a := AuthInfoFrom(r.Context()); a != nil {
		ctx = WithAuthInfo(ctx, a) // the caller is the message's
	}
	// Into the peer, as every transport's messages go (peer.handle), in the order the POSTs
	// arrive: a cancellation POSTed once this one is answered finds the request. What the
	// next messages depend on (initialize, a subscription, the log level) is served before
	// the 202; any other request on a worker, its answer on the stream. A refusal for a scope
	// is the POST's 403; any other goes on the stream.
	_, refused, a, why := ss.handle(ctx, &p.m, ss.w, p.take())
	switch {
	case refused != nil && a.why == refusedScope:
		h.httpRefuse(w, r, &p.m, a, why, refused, 0)
		return
	case refused != nil:
		ss.respond(refused)
	}
	w.WriteHeader(http.StatusAccepted)
}

// respond writes a response on the session's stream; nil is none.
func (ss *sseSession) respond(resp []byte) {
	if resp != nil {
		ss.st.respond(resp, http.StatusOK)
	}
}
