package mcp

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// The session store of the Streamable HTTP transport: sessions by id, their streams, and
// the timers that end idle ones.

// httpSession is a session of the HTTP transport: the protocol session, the streams of its
// requests, and its standalone stream.
type httpSession struct {
	*session
	h          *HTTPHandler
	ctx        context.Context // ends with the session
	cancel     context.CancelFunc
	standalone *stream
	owner      string // the callerKey of the token that initialized it ("" unprotected)
	// seat is the door's record of the session, once registered: it is in use while it
	// serves a request or its GET stream is open, and the server ends it when it has been
	// idle too long, or sheds it for a new conversation (door.go).
	seat *seat

	mu      sync.Mutex
	streams map[int64]*stream // the standalone stream (0) and the streams of requests in progress or unread
	nextNum int64
	ended   bool
}

func (h *HTTPHandler) newSession() *httpSession {
	ctx, cancel := context.WithCancel(context.Background())
	standalone := newSessionStream(0)
	hs := &httpSession{h: h, ctx: ctx, cancel: cancel, standalone: standalone,
		streams: map[int64]*stream{0: standalone}, nextNum: 1}
	hs.session = newSession(h.srv, standalone, newNotifier(ctx, standalone, h.srv.logger, true))
	hs.session.id = newSessionID()
	hs.session.transport = TransportHTTP
	hs.session.maxConcurrent = max(h.srv.opts.MaxConcurrentRequests, 0)
	hs.session.concurrent, hs.session.workers = true, h.workers // its requests on the handler's workers
	standalone.session = hs
	return hs
}

// newSessionID returns 32 random bytes as base64url: visible ASCII, as the spec requires,
// and unguessable.
func newSessionID() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// end ends the session: its requests are cancelled and its streams' connections close.
func (hs *httpSession) end() {
	hs.mu.Lock()
	if hs.ended {
		hs.mu.Unlock()
		return
	}
	hs.ended = true
	streams := hs.streams
	hs.streams = map[int64]*stream{}
	hs.mu.Unlock()
	hs.seat.leave()
	hs.cancel()
	hs.session.close()
	hs.notes.close()
	for _, st := range streams {
		st.end()
	}
}

func (h *HTTPHandler) remove(hs *httpSession) {
	h.mu.Lock()
	if h.sessions[hs.id] == hs {
		delete(h.sessions, hs.id)
	}
	h.mu.Unlock()
}

// register adds an initialized session to the handler's and to the server's conversations,
// shedding the one idle longest if MaxConversations are open (door.go). full reports that
// every conversation is in use, so it cannot; neither, that the handler is shutting down.
func (h *HTTPHandler) register(hs *httpSession) (ok, full bool) {
	seat := h.srv.conversations.enter(func(err error) {
		hs.session.failed(err)
		h.remove(hs)
		hs.end()
	})
	if seat == nil {
		return false, true
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closing {
		seat.leave()
		return false, false
	}
	hs.seat, hs.session.seat = seat, seat
	h.sessions[hs.id] = hs
	return true, false
}

// newRequestStream opens the stream of one request; its caller sets what abandons the
// request (stream.abandon).
func (hs *httpSession) newRequestStream() *stream {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	st := newSessionStream(hs.nextNum)
	hs.nextNum++
	st.resumeAfter = hs.h.opts.ResumeTimeout
	st.session = hs
	if !hs.ended {
		hs.streams[st.num] = st
	}
	return st
}

func (hs *httpSession) stream(num int64) *stream {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	return hs.streams[num]
}

func (hs *httpSession) dropStream(st *stream) {
	hs.mu.Lock()
	if hs.streams[st.num] == st && !st.standalone {
		delete(hs.streams, st.num)
	}
	hs.mu.Unlock()
}

// session finds the session a request names, or answers with the error and returns nil.
func (h *HTTPHandler) session(w http.ResponseWriter, r *http.Request) *httpSession {
	id := r.Header.Get("Mcp-Session-Id")
	if id == "" {
		httpError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "bad request: the Mcp-Session-Id header is missing; initialize a session first")
		return nil
	}
	h.mu.Lock()
	hs := h.sessions[id]
	h.mu.Unlock()
	// A session is its caller's: another caller's token finds no such session, as if the id
	// were unknown.
	if hs == nil || !callerOwns(r.Context(), hs.owner) {
		httpError(w, http.StatusNotFound, jsonrpc.CodeInvalidRequest, "session not found: it ended or never existed; initialize a new one")
		return nil
	}
	return hs
}

// protocolVersionOK checks the MCP-Protocol-Version header of a session's request: absent,
// or a revision with sessions.
func protocolVersionOK(w http.ResponseWriter, r *http.Request) bool {
	v := r.Header.Get("Mcp-Protocol-Version")
	if v == "" || slices.Contains(statefulVersions, v) {
		return true
	}
	httpError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest,
		"bad request: unsupported MCP-Protocol-Version "+v+"; supported: "+strings.Join(statefulVersions, ", "))
	return false
}
