package mcp

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// HTTPOptions configure the Streamable HTTP transport. The zero value is a sensible
// default for a server on the local machine.
type HTTPOptions struct {
	// Path is the MCP endpoint's path, for ListenAndServeHTTP; the default is "/mcp".
	// An HTTPHandler answers on whatever path it is mounted at.
	Path string
	// AllowedHosts are the Host header values accepted besides localhost, 127.0.0.1 and
	// [::1] (with any port): names such as "mcp.example.com" or "mcp.example.com:8443".
	// "*" accepts any host. Checking the host keeps web pages from reaching a server on
	// the local machine through DNS rebinding; answers to other hosts are 403.
	AllowedHosts []string
	// AllowedOrigins are the Origin header values (scheme://host[:port]) accepted besides
	// those of localhost; "*" accepts any. Requests without an Origin (not from a browser)
	// are accepted. Browsers on an allowed origin get the CORS headers they need.
	AllowedOrigins []string
	// MaxBodySize bounds the body of a POST, in bytes. The default is 16 MiB.
	MaxBodySize int64
	// MaxSessions bounds the sessions open at once; initialize gets 503 beyond it. The
	// default is 10000.
	MaxSessions int
	// SessionIdleTimeout ends sessions that have had no request and no open stream for this
	// long. The default is 30 minutes; a negative value keeps sessions until they are
	// deleted or the server stops.
	SessionIdleTimeout time.Duration
	// ResumeTimeout is how long a request whose client disconnected keeps running, waiting
	// for the client to resume its stream (GET with Last-Event-ID), before it is cancelled.
	// The default is 30 seconds.
	ResumeTimeout time.Duration
	// RetryInterval is the reconnection delay the server asks of clients (SSE retry). The
	// default is one second.
	RetryInterval time.Duration
	// ShutdownTimeout bounds how long ListenAndServeHTTP waits for requests in progress to
	// finish once its context is cancelled. The default is 10 seconds.
	ShutdownTimeout time.Duration
	// Routes, for ListenAndServeHTTP and ServeHTTPListener, serves every request for a path
	// other than Path: the program's own routes beside MCP on the same HTTP server (a health
	// check, metrics), shut down gracefully with it. Without it, other paths get 404. The
	// host and origin checks above are MCP's, not applied to Routes.
	Routes http.Handler
}

// HTTPHandler serves MCP's Streamable HTTP transport (revision 2025-11-25 and the older
// ones it is compatible with): sessions, JSON or SSE answers to POSTed requests, the GET
// stream for messages that belong to no request, resumption, and DELETE.
type HTTPHandler struct {
	srv  *Server
	opts HTTPOptions

	mu       sync.Mutex
	sessions map[string]*httpSession
	closing  bool
	requests sync.WaitGroup // requests being served, on their own goroutines
	// stopping ends when the handler shuts down: subscriptions (subscriptions/listen) end
	// with it, gracefully, rather than hold the shutdown up.
	stopping context.Context
	stop     context.CancelFunc
}

// HTTPHandler returns an http.Handler for the Streamable HTTP transport; opts may be nil.
// Mount it on the endpoint path, and call Shutdown when the server stops.
func (s *Server) HTTPHandler(opts *HTTPOptions) *HTTPHandler {
	h := &HTTPHandler{srv: s, sessions: map[string]*httpSession{}}
	h.stopping, h.stop = context.WithCancel(context.Background())
	if opts != nil {
		h.opts = *opts
	}
	o := &h.opts
	if o.Path == "" {
		o.Path = "/mcp"
	}
	if o.MaxBodySize <= 0 {
		o.MaxBodySize = 16 << 20
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = 10000
	}
	if o.SessionIdleTimeout == 0 {
		o.SessionIdleTimeout = 30 * time.Minute
	}
	if o.ResumeTimeout <= 0 {
		o.ResumeTimeout = 30 * time.Second
	}
	if o.RetryInterval <= 0 {
		o.RetryInterval = time.Second
	}
	if o.ShutdownTimeout <= 0 {
		o.ShutdownTimeout = 10 * time.Second
	}
	return h
}

// ListenAndServeHTTP serves the Streamable HTTP transport on addr (host:port; the default
// "127.0.0.1:8080" listens on the local machine only) at opts.Path, until ctx is cancelled.
// It then stops taking requests, lets those in progress finish for up to
// opts.ShutdownTimeout, and returns nil.
func (s *Server) ListenAndServeHTTP(ctx context.Context, addr string, opts *HTTPOptions) error {
	if addr == "" {
		addr = "127.0.0.1:8080"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return s.ServeHTTPListener(ctx, ln, opts)
}

// LocalURL returns the URL that reaches path on a listener from this machine: the
// listener's address, or for one listening on every interface (":8080", "0.0.0.0:8080"),
// the loopback address, which the host check accepts. Servers print it so that a person, or
// a script that started them on port 0, knows where to connect.
func LocalURL(addr net.Addr, path string) string {
	hostport := addr.String()
	if tcp, ok := addr.(*net.TCPAddr); ok && tcp.IP.IsUnspecified() {
		hostport = net.JoinHostPort("127.0.0.1", strconv.Itoa(tcp.Port))
	}
	return "http://" + hostport + path
}

// ServeHTTPListener is ListenAndServeHTTP on a listener of the caller's.
func (s *Server) ServeHTTPListener(ctx context.Context, ln net.Listener, opts *HTTPOptions) error {
	h := s.HTTPHandler(opts)
	mux := http.NewServeMux()
	mux.Handle(h.opts.Path, h)
	if h.opts.Routes != nil {
		mux.Handle("/", h.opts.Routes)
	}
	hs := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		// Requests outlive ctx by the shutdown grace: their own contexts must not end with it.
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		h.Close()
		return err
	case <-ctx.Done():
	}
	// Running requests get their time; then sessions end, which closes the streams, and the
	// connections, now idle, close.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), h.opts.ShutdownTimeout)
	defer cancel()
	h.Shutdown(sctx)
	if err := hs.Shutdown(sctx); err != nil {
		hs.Close()
	}
	<-served
	return nil
}

// Shutdown stops taking new sessions and requests, waits for the requests in progress to
// finish or for ctx to end, then ends every session, cancelling what still runs. It returns
// ctx's error if requests were still running at its deadline. A tool that ignores its
// context's cancellation may run on after Shutdown returns.
func (h *HTTPHandler) Shutdown(ctx context.Context) error {
	h.mu.Lock()
	h.closing = true
	h.mu.Unlock()
	h.stop()
	done := make(chan struct{})
	go func() {
		h.requests.Wait()
		close(done)
	}()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = ctx.Err()
	}
	h.Close()
	select {
	case <-done:
	case <-time.After(time.Second): // cancelled requests get a moment to wind down
		h.srv.logger.Warn("mcp: requests still running after shutdown cancelled them")
	}
	return err
}

// Close ends every session at once, cancelling the requests in progress.
func (h *HTTPHandler) Close() {
	h.stop()
	h.mu.Lock()
	h.closing = true
	sessions := h.sessions
	h.sessions = map[string]*httpSession{}
	h.mu.Unlock()
	for _, hs := range sessions {
		hs.end()
	}
}

// begin counts a request that is about to run, unless the handler is shutting down.
func (h *HTTPHandler) begin() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closing {
		return false
	}
	h.requests.Add(1)
	return true
}

// httpSession is a session of the HTTP transport: the protocol session, the streams of its
// requests, and its standalone stream.
type httpSession struct {
	*session
	h          *HTTPHandler
	ctx        context.Context // ends with the session
	cancel     context.CancelFunc
	standalone *stream

	mu       sync.Mutex
	streams  map[int64]*stream // the standalone stream (0) and the streams of requests in progress or unread
	nextNum  int64
	lastUsed time.Time
	ended    bool
	idle     *time.Timer
	busy     int // requests and connections in progress
}

func (h *HTTPHandler) newSession() *httpSession {
	ctx, cancel := context.WithCancel(context.Background())
	standalone := newStream(0)
	hs := &httpSession{h: h, ctx: ctx, cancel: cancel, standalone: standalone,
		streams: map[int64]*stream{0: standalone}, nextNum: 1, lastUsed: time.Now()}
	hs.session = newSession(h.srv, standalone)
	hs.session.id = newSessionID()
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
		st.stopTimers()
		st.mu.Lock()
		owner := st.owner
		st.mu.Unlock()
		if owner != nil {
			owner.release()
		}
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
	st := newStream(hs.nextNum)
	hs.nextNum++
	st.resumeAfter = hs.h.opts.ResumeTimeout
	st.abandon = func() {
		abandon()
		hs.dropStream(st)
	}
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

// ServeHTTP serves one HTTP request to the MCP endpoint.
func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if msg := h.forbidden(r); msg != "" {
		httpError(w, http.StatusForbidden, jsonrpc.CodeInvalidRequest, msg)
		return
	}
	h.cors(w, r)
	if (r.Method == http.MethodGet || r.Method == http.MethodDelete) && isModernHeader(r.Header.Get("Mcp-Protocol-Version")) {
		// Revision 2026-07-28 has neither the GET stream nor sessions to delete.
		w.Header().Set("Allow", "POST, OPTIONS")
		httpError(w, http.StatusMethodNotAllowed, jsonrpc.CodeInvalidRequest, "method not allowed: in revision "+ModernProtocolVersion+" the MCP endpoint takes POST only")
		return
	}
	switch r.Method {
	case http.MethodPost:
		h.post(w, r)
	case http.MethodGet:
		h.get(w, r)
	case http.MethodDelete:
		h.delete(w, r)
	case http.MethodOptions:
		w.Header().Set("Allow", "GET, POST, DELETE, OPTIONS")
		w.WriteHeader(http.StatusNoContent)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE, OPTIONS")
		httpError(w, http.StatusMethodNotAllowed, jsonrpc.CodeInvalidRequest, "method not allowed: the MCP endpoint takes POST, GET and DELETE")
	}
}

// cors gives a browser on an allowed origin what it needs to talk to the endpoint and to
// read the session id.
func (h *HTTPHandler) cors(w http.ResponseWriter, r *http.Request) {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return
	}
	hd := w.Header()
	hd.Set("Access-Control-Allow-Origin", origin)
	hd.Add("Vary", "Origin")
	hd.Set("Access-Control-Expose-Headers", "Mcp-Session-Id")
	if r.Method == http.MethodOptions {
		hd.Set("Access-Control-Allow-Methods", "GET, POST, DELETE")
		// Mcp-Param-* headers are named by the tools: a preflight's list is echoed.
		allowed := "Content-Type, Accept, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID, Mcp-Method, Mcp-Name"
		if asked := r.Header.Get("Access-Control-Request-Headers"); asked != "" {
			allowed += ", " + asked
		}
		hd.Set("Access-Control-Allow-Headers", allowed)
		hd.Set("Access-Control-Max-Age", "86400")
	}
}

// httpError answers with an HTTP error status and a JSON-RPC error without an id.
func httpError(w http.ResponseWriter, status, code int, msg string) {
	writeJSON(w, status, jsonrpc.AppendError(nil, nil, jsonrpc.NewError(code, msg)))
}

// forbidden checks the Host and Origin headers against DNS rebinding: a web page must not
// reach a server on the local machine through a name it controls.
func (h *HTTPHandler) forbidden(r *http.Request) string {
	if !h.hostAllowed(r.Host) {
		return "forbidden: host " + r.Host + " is not allowed (see HTTPOptions.AllowedHosts)"
	}
	if origin := r.Header.Get("Origin"); origin != "" && !h.originAllowed(origin) {
		return "forbidden: origin " + origin + " is not allowed (see HTTPOptions.AllowedOrigins)"
	}
	return ""
}

func isLoopbackName(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback() // 127.0.0.0/8 and ::1
}

func (h *HTTPHandler) hostAllowed(host string) bool {
	if slices.Contains(h.opts.AllowedHosts, "*") || slices.Contains(h.opts.AllowedHosts, host) {
		return true
	}
	name := host
	if n, _, err := net.SplitHostPort(host); err == nil {
		name = n
	}
	return isLoopbackName(strings.Trim(name, "[]")) || slices.Contains(h.opts.AllowedHosts, name)
}

func (h *HTTPHandler) originAllowed(origin string) bool {
	if slices.Contains(h.opts.AllowedOrigins, "*") || slices.Contains(h.opts.AllowedOrigins, origin) {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && isLoopbackName(u.Hostname())
}

// accepts reports whether an Accept header admits a media type. No header admits anything;
// a quality of 0 refuses.
func accepts(header []string, mediaType string) bool {
	if len(header) == 0 {
		return true
	}
	major, _, _ := strings.Cut(mediaType, "/")
	for _, h := range header {
		for part := range strings.SplitSeq(h, ",") {
			mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil {
				continue
			}
			if q, err := strconv.ParseFloat(params["q"], 64); err == nil && q <= 0 {
				continue
			}
			if mt == mediaType || mt == "*/*" || mt == major+"/*" {
				return true
			}
		}
	}
	return false
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
	if hs == nil {
		httpError(w, http.StatusNotFound, jsonrpc.CodeInvalidRequest, "session not found: it ended or never existed; initialize a new one")
		return nil
	}
	return hs
}

// protocolVersionOK checks the MCP-Protocol-Version header: absent, or a revision we speak.
func protocolVersionOK(w http.ResponseWriter, r *http.Request) bool {
	v := r.Header.Get("Mcp-Protocol-Version")
	if v == "" || slices.Contains(supportedVersions, v) {
		return true
	}
	httpError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest,
		"bad request: unsupported MCP-Protocol-Version "+v+"; supported: "+strings.Join(supportedVersions, ", "))
	return false
}

func (h *HTTPHandler) isClosing() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.closing
}

func shuttingDown(w http.ResponseWriter) {
	httpError(w, http.StatusServiceUnavailable, jsonrpc.CodeInternalError, "the server is shutting down")
}

// bodyTimeout bounds the reading of a POST's body, so that a client trickling it cannot
// hold a goroutine forever.
const bodyTimeout = 30 * time.Second

func (h *HTTPHandler) post(w http.ResponseWriter, r *http.Request) {
	if h.isClosing() {
		shuttingDown(w)
		return
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		httpError(w, http.StatusUnsupportedMediaType, jsonrpc.CodeInvalidRequest, "unsupported media type: a POST to the MCP endpoint carries application/json")
		return
	}
	acceptJSON, acceptSSE := accepts(r.Header.Values("Accept"), "application/json"), accepts(r.Header.Values("Accept"), "text/event-stream")
	if !acceptJSON && !acceptSSE {
		httpError(w, http.StatusNotAcceptable, jsonrpc.CodeInvalidRequest, "not acceptable: the client must accept application/json or text/event-stream")
		return
	}
	// A legacy request for a session is checked before its body is read: a request for no
	// session costs nothing. (A modern request names its revision in the header; one with a
	// session id as well is modern all the same, and reads on.)
	var hs *httpSession
	header := strings.TrimSpace(r.Header.Get("Mcp-Protocol-Version"))
	if r.Header.Get("Mcp-Session-Id") != "" && !isModernHeader(header) {
		if !protocolVersionOK(w, r) {
			return
		}
		if hs = h.session(w, r); hs == nil {
			return
		}
	}
	http.NewResponseController(w).SetReadDeadline(time.Now().Add(bodyTimeout))
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBodySize))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			httpError(w, http.StatusRequestEntityTooLarge, jsonrpc.CodeInvalidRequest, "request body too large: the limit is "+strconv.FormatInt(h.opts.MaxBodySize, 10)+" bytes")
			return
		}
		httpError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "bad request: cannot read the body: "+err.Error())
		return
	}
	m, perr := jsonrpc.Parse(body)
	if perr != nil {
		// Nothing in a message we cannot read can be answered on a stream.
		writeJSON(w, http.StatusBadRequest, jsonrpc.AppendError(nil, m.ID, perr))
		return
	}
	// The era is the request's: a modern one (by its _meta, or by its header) has no
	// session, whatever headers it carries. A notification or response is modern only if
	// the header names the modern revision itself: a legacy client's mistyped header gets
	// the legacy answer.
	var meta *requestMeta
	modern := slices.Contains(modernVersions, header)
	if m.IsRequest() {
		var bodyModern bool
		meta, bodyModern = modernMeta(&m)
		modern = modern || bodyModern || isModernHeader(header)
	}
	if modern {
		h.postModern(w, r, &m, meta, acceptJSON, acceptSSE)
		return
	}
	if !protocolVersionOK(w, r) {
		return
	}
	if hs == nil && r.Header.Get("Mcp-Session-Id") != "" {
		if hs = h.session(w, r); hs == nil {
			return
		}
	}
	if hs == nil {
		if m.Method == "initialize" && m.IsRequest() {
			h.initialize(w, &m, acceptJSON)
			return
		}
		h.session(w, r) // answers that the session id is missing
		return
	}
	done := hs.use()
	defer done()
	if !m.IsRequest() {
		// Notifications and responses are handled at once; they get no answer of their own.
		hs.handle(hs.ctx, &m, nil, hs.standalone, nil)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	h.serveRequest(w, r, hs, &m, acceptJSON, acceptSSE)
}

// initialize starts a session with an initialize request.
func (h *HTTPHandler) initialize(w http.ResponseWriter, m *jsonrpc.Message, acceptJSON bool) {
	hs := h.newSession()
	var out captured
	hs.handle(hs.ctx, m, nil, &out, nil)
	registered := false
	if hs.ready() {
		h.mu.Lock()
		switch {
		case h.closing:
			out.msg = nil
		case len(h.sessions) >= h.opts.MaxSessions:
			out.msg = jsonrpc.AppendError(nil, m.ID, jsonrpc.NewError(jsonrpc.CodeInternalError, "too many sessions; try again later"))
		default:
			h.sessions[hs.id] = hs
			registered = true
		}
		h.mu.Unlock()
	}
	if !registered { // the handshake failed, or there is no room: no session
		hs.end()
		if out.msg == nil {
			shuttingDown(w)
			return
		}
	} else {
		h.srv.track(hs.session)
		hs.watchIdle()
		w.Header().Set("Mcp-Session-Id", hs.id)
	}
	if acceptJSON {
		writeJSON(w, http.StatusOK, out.msg)
		return
	}
	sw := newSSEWriter(w)
	sw.start("", h.opts.RetryInterval.Milliseconds())
	sw.event("", out.msg)
	sw.flush()
}

// captured is an outbox that keeps the one response of a request handled inline.
type captured struct{ msg []byte }

func (c *captured) send(msg []byte) error  { return nil }
func (c *captured) reply(msg []byte) error { c.msg = append([]byte(nil), msg...); return nil }

// serveRequest runs a request on its own goroutine and writes its stream to the response:
// as plain JSON if the response is all there is to send, else as SSE from the first
// message on. If the client disconnects before the response, the request goes on for a
// while, for the client to resume the stream; then it is cancelled.
func (h *HTTPHandler) serveRequest(w http.ResponseWriter, r *http.Request, hs *httpSession, m *jsonrpc.Message, acceptJSON, acceptSSE bool) {
	if !h.begin() {
		shuttingDown(w)
		return
	}
	ctx, cancel := context.WithCancel(hs.ctx)
	st := hs.newRequestStream(cancel)
	var out outbox = st
	if !acceptSSE {
		// A client that takes JSON only hears the request's notifications and requests on
		// its GET stream; the response comes back here.
		out = &splitOutbox{messages: hs.standalone, response: st}
	}
	go func() {
		defer h.requests.Done()
		defer cancel()
		hs.handle(ctx, m, nil, out, func(run func()) { run() })
		st.finish()
	}()
	if h.pump(w, r, hs, st, 0, acceptJSON, acceptSSE) == pumpNothingWritten {
		// The session ended or the server is shutting down before anything was sent.
		if h.isClosing() {
			shuttingDown(w)
		} else {
			httpError(w, http.StatusNotFound, jsonrpc.CodeInvalidRequest, "session ended before the request was answered")
		}
	}
}

// splitOutbox sends a request's messages on one stream and its response on another.
type splitOutbox struct {
	messages, response outbox
}

func (s *splitOutbox) send(msg []byte) error  { return s.messages.send(msg) }
func (s *splitOutbox) reply(msg []byte) error { return s.response.reply(msg) }

// How a pump ended.
type pumpResult int

const (
	pumpComplete       pumpResult = iota // the stream was written to its end
	pumpInterrupted                      // the connection ended (or was let go) mid-stream
	pumpNothingWritten                   // it ended before a byte of the response was written
)

// pump writes a stream to a response, from after event seq (see stream.attach for a
// negative seq). A request's stream answers a
// POST with plain JSON when it can. It returns when the stream is complete, the client
// disconnects, another connection takes the stream over, the server asks the client to
// reconnect (CloseSSEStream), or the session ends.
func (h *HTTPHandler) pump(w http.ResponseWriter, r *http.Request, hs *httpSession, st *stream, after int64, acceptJSON, acceptSSE bool) pumpResult {
	a, after := st.attach(after)
	defer st.detach(a)
	resumed := after > 0
	var sw *sseWriter
	stopping := false
	for {
		// A connection that lost the stream to another writes nothing more: the other
		// goes on from where its client says it is. Only a connection that writes SSE
		// takes events; until then it only looks at them.
		evs, finished, owned := st.pending(a, after, sw != nil)
		if !owned {
			return interrupted(sw)
		}
		if sw == nil && acceptJSON && !st.standalone {
			if msg, ok := st.jsonAnswer(); ok {
				writeJSON(w, http.StatusOK, msg)
				hs.dropStream(st)
				return pumpComplete
			}
			if finished && len(evs) == 0 {
				// Cancelled by the client: there is no response to give.
				w.WriteHeader(http.StatusAccepted)
				hs.dropStream(st)
				return pumpComplete
			}
		}
		if sw == nil && acceptSSE {
			st.mu.Lock()
			forced := st.sse
			st.mu.Unlock()
			if len(evs) > 0 || forced || !acceptJSON || st.standalone || stopping {
				st.mu.Lock()
				st.sse = true
				st.mu.Unlock()
				sw = newSSEWriter(w)
				priming := eventID(st.num, after)
				if resumed {
					priming = "" // the client holds an id already
				}
				if sw.start(priming, h.opts.RetryInterval.Milliseconds()) != nil {
					return pumpInterrupted
				}
				continue // take the events now that there is a connection to write them
			}
		}
		if sw != nil && len(evs) > 0 {
			for _, ev := range evs {
				sw.event(eventID(st.num, ev.seq), ev.data)
				after = ev.seq
			}
			if sw.flush() != nil {
				return pumpInterrupted
			}
		}
		if sw != nil && finished {
			// pending read the events and the end together: all of them are written.
			if !st.standalone {
				hs.dropStream(st)
			}
			return pumpComplete
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
		case <-r.Context().Done():
			return interrupted(sw)
		case <-hs.ctx.Done():
			return interrupted(sw)
		}
	}
}

func interrupted(sw *sseWriter) pumpResult {
	if sw == nil {
		return pumpNothingWritten
	}
	return pumpInterrupted
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
	if h.pump(w, r, hs, st, after, false, true) == pumpNothingWritten {
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
