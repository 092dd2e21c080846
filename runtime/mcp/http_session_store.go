package mcp

import (
	"container/list"
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
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

	// Under h.mu: whether the session is in use, and since when it is not. A session is idle
	// while it serves no request and no connection (a POST, its GET stream): only an idle
	// session expires, or is shed for a new one when MaxSessions are open.
	busy     int           // requests and connections in progress
	lastUsed time.Time     // when the last one ended
	idleAt   *list.Element // in h.idle, while idle and registered

	mu       sync.Mutex
	streams  map[int64]*stream // the standalone stream (0) and the streams of requests in progress or unread
	nextNum  int64
	ended    bool
	idle     *time.Timer
	requests int // requests being served, until answered (MaxConcurrentRequests)
}

func (h *HTTPHandler) newSession() *httpSession {
	ctx, cancel := context.WithCancel(context.Background())
	standalone := newSessionStream(0)
	hs := &httpSession{h: h, ctx: ctx, cancel: cancel, standalone: standalone,
		streams: map[int64]*stream{0: standalone}, nextNum: 1, lastUsed: time.Now()}
	hs.session = newSession(h.srv, sessionConn{standalone}, newNotifier(ctx, standalone, h.srv.logger))
	hs.session.id = newSessionID()
	hs.session.transport = TransportHTTP
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
// A session is idle only while nothing uses it; its idle timer starts when the last use
// ends, and it goes to the back of the handler's idle sessions.
func (hs *httpSession) use() func() {
	h := hs.h
	h.mu.Lock()
	hs.busy++
	if hs.idleAt != nil {
		h.idle.Remove(hs.idleAt)
		hs.idleAt = nil
	}
	h.mu.Unlock()
	return func() {
		h.mu.Lock()
		hs.busy--
		hs.lastUsed = time.Now()
		idle := hs.busy == 0
		if idle && h.sessions[hs.id] == hs {
			hs.idleAt = h.idle.PushBack(hs)
		}
		h.mu.Unlock()
		if idle {
			hs.mu.Lock()
			if hs.idle != nil && !hs.ended {
				hs.idle.Reset(h.opts.SessionIdleTimeout)
			}
			hs.mu.Unlock()
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
		hs.h.mu.Lock()
		idleFor := time.Since(hs.lastUsed)
		busy := hs.busy > 0
		hs.h.mu.Unlock()
		expired := !busy && idleFor >= timeout
		hs.mu.Lock()
		if hs.ended {
			expired = false
		} else if !busy && !expired {
			hs.idle.Reset(timeout - idleFor)
		}
		hs.mu.Unlock()
		if expired {
			hs.session.failed(fmt.Errorf("mcp: the session was idle for %v: %w", timeout, context.DeadlineExceeded))
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
	hs.notes.close()
	for _, st := range streams {
		st.end()
	}
}

func (h *HTTPHandler) remove(hs *httpSession) {
	h.mu.Lock()
	h.removeLocked(hs)
	h.mu.Unlock()
}

func (h *HTTPHandler) removeLocked(hs *httpSession) {
	if h.sessions[hs.id] == hs {
		delete(h.sessions, hs.id)
	}
	if hs.idleAt != nil {
		h.idle.Remove(hs.idleAt)
		hs.idleAt = nil
	}
}

// registerLocked adds a new session, shedding the session idle for longest if MaxSessions
// are open; it returns the session shed, for the caller to end, and false if every session
// is in use. (A flood of sessions never used cannot lock out a client that uses its own.)
func (h *HTTPHandler) registerLocked(hs *httpSession) (shed *httpSession, ok bool) {
	if len(h.sessions)+len(h.sseSessions) >= h.opts.MaxSessions {
		if shed = h.shedLocked(); shed == nil {
			return nil, false
		}
	}
	h.sessions[hs.id] = hs
	if hs.busy == 0 {
		hs.idleAt = h.idle.PushBack(hs)
	}
	return shed, true
}

// shedLocked takes the session idle for longest out, if there is one idle.
func (h *HTTPHandler) shedLocked() *httpSession {
	front := h.idle.Front()
	if front == nil {
		return nil
	}
	hs := front.Value.(*httpSession)
	h.removeLocked(hs)
	return hs
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
