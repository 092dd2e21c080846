package mcp

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

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

	mu       sync.Mutex
	streams  map[int64]*stream // the standalone stream (0) and the streams of requests in progress or unread
	nextNum  int64
	lastUsed time.Time
	ended    bool
	idle     *time.Timer
	busy     int // requests and connections in progress
	requests int // requests being served, until answered (MaxConcurrentRequests)
}

func (h *HTTPHandler) newSession() *httpSession {
	ctx, cancel := context.WithCancel(context.Background())
	standalone := newSessionStream(0)
	hs := &httpSession{h: h, ctx: ctx, cancel: cancel, standalone: standalone,
		streams: map[int64]*stream{0: standalone}, nextNum: 1, lastUsed: time.Now()}
	hs.session = newSession(h.srv, standalone)
	hs.session.id = newSessionID()
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

// use marks the session busy for one request or connection; the returned function ends it.
// A session is idle only while nothing uses it; its idle timer starts when the last use ends.
func (hs *httpSession) use() func() {
	hs.mu.Lock()
	hs.busy++
	hs.mu.Unlock()
	return func() {
		hs.mu.Lock()
		defer hs.mu.Unlock()
		hs.busy--
		hs.lastUsed = time.Now()
		if hs.busy == 0 && hs.idle != nil && !hs.ended {
			hs.idle.Reset(hs.h.opts.SessionIdleTimeout)
		}
	}
}

// startRequest counts a request the session is to serve, unless it serves max already
// (max 0: no bound); endRequest counts it answered.
func (hs *httpSession) startRequest(max int) bool {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if max > 0 && hs.requests >= max {
		return false
	}
	hs.requests++
	return true
}

func (hs *httpSession) endRequest() {
	hs.mu.Lock()
	hs.requests--
	hs.mu.Unlock()
}

// watchIdle ends the session once it has been idle for the timeout.
func (hs *httpSession) watchIdle() {
	timeout := hs.h.opts.SessionIdleTimeout
	if timeout < 0 {
		return
	}
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if hs.ended {
		return
	}
	hs.idle = time.AfterFunc(timeout, func() {
		hs.mu.Lock()
		idleFor := time.Since(hs.lastUsed)
		expired := hs.busy == 0 && idleFor >= timeout && !hs.ended
		if hs.busy == 0 && !expired && !hs.ended {
			hs.idle.Reset(timeout - idleFor)
		}
		hs.mu.Unlock()
		if expired {
			hs.h.remove(hs)
			hs.end()
		}
	})
}

// end ends the session: its requests are cancelled and its streams' connections close.
func (hs *httpSession) end() {
	hs.mu.Lock()
	if hs.ended {
		hs.mu.Unlock()
		return
	}
	hs.ended = true
	if hs.idle != nil {
		hs.idle.Stop()
	}
	streams := hs.streams
	hs.streams = map[int64]*stream{}
	hs.mu.Unlock()
	hs.cancel()
	hs.session.close()
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

// newRequestStream opens the stream of one request; abandon cancels the request.
func (hs *httpSession) newRequestStream(abandon func()) *stream {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	st := newSessionStream(hs.nextNum)
	hs.nextNum++
	st.resumeAfter = hs.h.opts.ResumeTimeout
	st.abandon = func() {
		abandon()
		hs.dropStream(st)
	}
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
