package mcp

import (
	"context"
	"net"
	"net/http"
	"strconv"
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
	// MaxBodySize bounds the body of a POST, in bytes; a larger one gets 413. The default
	// is 16 MiB. A body's bytes count against the server's ServerOptions.MaxBytesInFlight,
	// from Content-Length (MaxBodySize when it is not given) until the request is answered:
	// past it, a POST gets 503 with Retry-After.
	MaxBodySize int64
	// BodyTimeout bounds the wait for a request's body, from when its headers are read: a
	// client that announces a body and sends it slowly, or never, loses its connection then,
	// whatever the answer (a POST for an unknown session is answered at once, but its
	// connection is held while net/http reads what remains of the body). The default is 30
	// seconds.
	BodyTimeout time.Duration
	// WriteTimeout bounds each write of an answer (a JSON response, an SSE flush): a client
	// that stops reading loses its connection then, and what it held is let go. The default
	// is 30 seconds.
	WriteTimeout time.Duration
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
	// MaxConns bounds the connections ListenAndServeHTTP and ServeHTTPListener hold open:
	// past it, a new connection sheds the connection that has been idle for longest (between
	// requests, or before its first), or is closed itself when none is idle. The default is
	// the process's limit of open files (RLIMIT_NOFILE) less a margin for its other files
	// (an eighth of the limit, at least 64); a negative value sets no bound.
	MaxConns int
	// SSEPath is where clients of the deprecated HTTP+SSE transport (revision 2024-11-05)
	// open their stream; they POST their messages to SSEPath + "/message". The default is
	// "/sse"; "-" serves no such transport. ListenAndServeHTTP and ServeHTTPListener mount
	// both paths; a program that mounts the handler itself mounts them too.
	SSEPath string
	// Routes, for ListenAndServeHTTP and ServeHTTPListener, serves every request for a path
	// other than Path: the program's own routes beside MCP on the same HTTP server (another
	// transport such as runtime/mcp/ws, a status page), shut down gracefully with it.
	// Without it, other paths get 404. Routes pass the same guard as Path: the host and
	// origin checks and, with Auth, the bearer token, whose caller a handler finds in its
	// request's context (AuthInfoFrom): a WebSocket handler mounted here serves only the
	// callers /mcp serves, with their scopes.
	Routes http.Handler
	// PublicRoutes, for ListenAndServeHTTP and ServeHTTPListener, serves the paths it has
	// a pattern for, before Routes and without the guard: what anyone who reaches the port
	// may read, such as a health check, or /metrics for a scraper. An MCP transport mounted
	// here on a protected server refuses every conversation (ServeConn returns
	// ErrUnauthenticated): it has no caller to serve.
	PublicRoutes *http.ServeMux
	// Auth protects the server (basic/authorization): every request needs a bearer token
	// that Auth.Verifier accepts, tools with scopes need them in the token, and the
	// protected resource metadata is served at /.well-known/oauth-protected-resource. nil:
	// no protection. A server that takes hosts other than the local machine's
	// (AllowedHosts) needs Auth.Resource.
	Auth *AuthOptions
}

// HTTPHandler serves MCP's Streamable HTTP transport, for every revision: sessions, JSON or
// SSE answers to POSTed requests, the GET stream for messages that belong to no request,
// resumption and DELETE for the revisions with sessions (2025-03-26 to 2025-11-25);
// stateless POSTs for revision 2026-07-28. At HTTPOptions.SSEPath it serves the HTTP+SSE
// transport of revision 2024-11-05 (http_legacy.go).
type HTTPHandler struct {
	srv  *Server
	opts HTTPOptions

	mu          sync.Mutex
	sessions    map[string]*httpSession
	sseSessions map[string]*sseSession
	closing     bool
	requests    sync.WaitGroup // requests being served, on their own goroutines
	// stopping ends when the handler shuts down: subscriptions (subscriptions/listen) end
	// with it, gracefully, rather than hold the shutdown up.
	stopping context.Context
	stop     context.CancelFunc
	workers  *workers // the goroutines requests of sessions are served on; they end with stopping
	guard    *guard   // the checks every request passes first (http_guard.go)
}

// HTTPHandler returns an http.Handler for the Streamable HTTP transport; opts may be nil.
// Mount it on the endpoint path, and call Shutdown when the server stops.
func (s *Server) HTTPHandler(opts *HTTPOptions) *HTTPHandler {
	if err := opts.authProblem(); err != nil {
		panic(err)
	}
	h := &HTTPHandler{srv: s, opts: withHTTPDefaults(opts), sessions: map[string]*httpSession{}, sseSessions: map[string]*sseSession{}}
	if h.opts.Auth != nil {
		s.protect()
	}
	h.stopping, h.stop = context.WithCancel(context.Background())
	h.workers = newWorkers(h.stopping.Done())
	h.guard = newGuard(&h.opts, s.logger)
	return h
}

// withHTTPDefaults is a copy of opts (nil: the zero options) with every default filled in.
func withHTTPDefaults(opts *HTTPOptions) HTTPOptions {
	var o HTTPOptions
	if opts != nil {
		o = *opts
	}
	if o.Path == "" {
		o.Path = "/mcp"
	}
	if o.SSEPath == "" {
		o.SSEPath = "/sse"
	}
	if o.MaxBodySize <= 0 {
		o.MaxBodySize = 16 << 20
	}
	if o.BodyTimeout <= 0 {
		o.BodyTimeout = 30 * time.Second
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = 30 * time.Second
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
	if o.MaxConns == 0 {
		o.MaxConns = defaultMaxConns()
	}
	return o
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
	if err := opts.authProblem(); err != nil {
		return err
	}
	h := s.HTTPHandler(opts)
	h.guard.warnIfExposed(ln.Addr(), nil) // as it starts, not at its first request
	mux := http.NewServeMux()
	mux.Handle(h.opts.Path, h)
	if h.opts.SSEPath != "-" {
		mux.Handle(h.opts.SSEPath, h)
		mux.Handle(h.sseMessagePath(), h)
	}
	if h.opts.Auth != nil {
		mux.Handle("/.well-known/oauth-protected-resource", h)
		mux.Handle("/.well-known/oauth-protected-resource/", h)
	}
	if h.opts.Routes != nil || h.opts.PublicRoutes != nil {
		mux.Handle("/", h.routes())
	}
	hs := &http.Server{
		// A body must come within BodyTimeout on every path, whoever answers it (the program's
		// routes, the mux's 404 or redirect), not only on MCP's.
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.guard.bodyDeadline(w, r)
			mux.ServeHTTP(w, r)
		}),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		// Requests outlive ctx by the shutdown grace: their own contexts must not end with it.
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	if h.opts.MaxConns > 0 {
		hs.ConnState = newConnLimit(h.opts.MaxConns).track
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

// routes serves the program's routes: a path PublicRoutes has a pattern for there, without
// the guard; any other through the guard to Routes (404 without it).
func (h *HTTPHandler) routes() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if pub := h.opts.PublicRoutes; pub != nil {
			if _, pattern := pub.Handler(r); pattern != "" {
				pub.ServeHTTP(w, r)
				return
			}
		}
		r, ok := h.guard.check(w, r)
		switch {
		case !ok:
		case h.opts.Routes != nil:
			h.opts.Routes.ServeHTTP(w, r)
		default:
			http.NotFound(w, r)
		}
	})
}

// Shutdown stops taking new sessions and requests, waits for the requests in progress to
// finish or for ctx to end, then ends every session, cancelling what still runs. It returns
// ctx's error if requests were still running at its deadline. A tool that ignores its
// context's cancellation may run on after Shutdown returns.
func (h *HTTPHandler) Shutdown(ctx context.Context) error {
	h.mu.Lock()
	h.closing = true
	var peers []*peer
	for _, hs := range h.sessions {
		peers = append(peers, hs.peer)
	}
	for _, ss := range h.sseSessions {
		peers = append(peers, ss.peer)
	}
	h.mu.Unlock()
	h.stop()
	h.srv.Shutdown(ctx)
	done := make(chan struct{})
	go func() {
		h.requests.Wait() // the POSTs in progress
		for _, p := range peers {
			p.wait() // the requests of every session, served on, until answered
		}
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
	sessions, sse := h.sessions, h.sseSessions
	h.sessions, h.sseSessions = map[string]*httpSession{}, map[string]*sseSession{}
	h.mu.Unlock()
	for _, hs := range sessions {
		hs.end()
	}
	for _, ss := range sse {
		h.endSSE(ss)
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

func (h *HTTPHandler) isClosing() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.closing
}

// ServeHTTP serves one HTTP request to the MCP endpoint, or to the endpoints of the
// HTTP+SSE transport. It routes: every request passes the guard (http_guard.go); a POST the
// one preamble (http_post.go), which decides its era; then the endpoint of that era serves
// it: a session's (http_sessions.go), the stateless revision's (http_stateless.go), or
// HTTP+SSE's (http_legacy.go). GET and DELETE are a session's, told by their header.
func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	r, ok := h.guard.check(w, r)
	if !ok {
		return
	}
	if h.opts.SSEPath != "-" && (r.URL.Path == h.opts.SSEPath || r.URL.Path == h.sseMessagePath()) {
		h.serveLegacy(w, r)
		return
	}
	switch r.Method {
	case http.MethodPost:
		h.routePost(w, r)
	case http.MethodGet, http.MethodDelete:
		if isStatelessHeader(r.Header.Get("Mcp-Protocol-Version")) {
			// The stateless revision has neither the GET stream nor sessions to delete.
			w.Header().Set("Allow", "POST, OPTIONS")
			httpError(w, http.StatusMethodNotAllowed, jsonrpc.CodeInvalidRequest, "method not allowed: in revision "+StatelessProtocolVersion+" the MCP endpoint takes POST only")
		} else if r.Method == http.MethodGet {
			h.get(w, r)
		} else {
			h.delete(w, r)
		}
	case http.MethodOptions:
		w.Header().Set("Allow", "GET, POST, DELETE, OPTIONS")
		w.WriteHeader(http.StatusNoContent)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE, OPTIONS")
		httpError(w, http.StatusMethodNotAllowed, jsonrpc.CodeInvalidRequest, "method not allowed: the MCP endpoint takes POST, GET and DELETE")
	}
}

// routePost takes a POST to the MCP endpoint through the preamble to its era's endpoint. A
// session's request is looked up before its body is read: a request for no session costs
// nothing. (A request whose header names the stateless revision has no session, whatever
// its Mcp-Session-Id; one whose _meta alone does is stateless all the same once read.)
func (h *HTTPHandler) routePost(w http.ResponseWriter, r *http.Request) {
	p, ok := h.startPost(w, r, false)
	if !ok {
		return
	}
	if !isStatelessHeader(r.Header.Get("Mcp-Protocol-Version")) {
		if !protocolVersionOK(w, r) { // once, for every POST of a session's era
			return
		}
		if r.Header.Get("Mcp-Session-Id") != "" {
			if p.hs = h.session(w, r); p.hs == nil {
				return
			}
		}
	}
	if !h.readPost(w, r, p) {
		return
	}
	defer p.release() // once answered (the endpoints wait for the answer), what was not handed on
	if p.stateless {
		h.postStateless(w, r, p)
		return
	}
	h.postSession(w, r, p)
}

// routeLegacyPost takes a message POSTed to HTTP+SSE's message endpoint through the
// preamble to its session.
func (h *HTTPHandler) routeLegacyPost(w http.ResponseWriter, r *http.Request) {
	p, ok := h.startPost(w, r, true)
	if !ok {
		return
	}
	if p.ss = h.legacySession(w, r); p.ss == nil {
		return
	}
	if !h.readPost(w, r, p) {
		return
	}
	h.postLegacy(w, r, p)
}
