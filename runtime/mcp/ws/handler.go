package ws

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// Options configure a Handler. The zero value serves clients on this machine only.
type Options struct {
	// AllowedHosts are the Host header values accepted besides localhost, 127.0.0.1 and
	// [::1] (with any port), as mcp.HTTPOptions.AllowedHosts: a web page must not reach a
	// server on the local machine through a name it controls (DNS rebinding). "*" accepts
	// any.
	AllowedHosts []string
	// AllowedOrigins are the Origin header values (scheme://host[:port]) accepted besides
	// those of the loopback names; a handshake without Origin (not from a browser) is
	// accepted. "*" accepts any.
	AllowedOrigins []string
	// MaxMessageSize bounds a message from a client; a larger one ends its connection
	// (close 1009). The default is 64 MiB.
	MaxMessageSize int
	// WriteTimeout bounds the write of one message: a client that does not read for that
	// long loses its connection. The default is 30 seconds.
	WriteTimeout time.Duration
	// MaxConnections bounds the connections served at once; past it a handshake is
	// answered 503 with Retry-After. The default is 10000.
	MaxConnections int
}

// Handler serves MCP over WebSocket: each connection it accepts is one conversation of
// srv's (Server.ServeConn), in either era. Mount it where clients connect:
//
//	h := ws.NewHandler(srv, nil)
//	defer h.Shutdown(ctx)
//	http.Handle("/ws", h)
type Handler struct {
	srv  *mcp.Server
	opts Options
	ctx  context.Context // ends with Shutdown: every conversation ends
	stop context.CancelFunc

	mu      sync.Mutex
	conns   int
	closing bool
	served  sync.WaitGroup
}

// NewHandler returns a handler serving srv; opts may be nil.
func NewHandler(srv *mcp.Server, opts *Options) *Handler {
	h := &Handler{srv: srv}
	if opts != nil {
		h.opts = *opts
	}
	if h.opts.MaxConnections <= 0 {
		h.opts.MaxConnections = 10000
	}
	h.ctx, h.stop = context.WithCancel(context.Background())
	return h
}

// ServeHTTP checks the Host and Origin headers, takes the handshake, and serves the
// conversation until it ends (the client closes, the connection fails, or Shutdown).
// The AuthInfo of the request's context goes with every request of the conversation: behind
// mcp.GuardHTTP, which verifies the handshake's token, each request is served only if the
// token has its scopes, and the conversation ends when the token expires (ServeConn).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !hostAllowed(h.opts.AllowedHosts, r.Host) {
		http.Error(w, "forbidden: host "+r.Host+" is not allowed (see ws.Options.AllowedHosts)", http.StatusForbidden)
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" && !originAllowed(h.opts.AllowedOrigins, origin) {
		http.Error(w, "forbidden: origin "+origin+" is not allowed (see ws.Options.AllowedOrigins)", http.StatusForbidden)
		return
	}
	h.mu.Lock()
	switch {
	case h.closing:
		h.mu.Unlock()
		http.Error(w, "the server is shutting down", http.StatusServiceUnavailable)
		return
	case h.conns >= h.opts.MaxConnections:
		h.mu.Unlock()
		w.Header().Set("Retry-After", "1")
		http.Error(w, "too many connections", http.StatusServiceUnavailable)
		return
	}
	h.conns++
	h.served.Add(1)
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		h.conns--
		h.mu.Unlock()
		h.served.Done()
	}()
	// Host and Origin were checked above, with the HTTP transport's rules.
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{Subprotocol}, InsecureSkipVerify: true})
	if err != nil {
		return // Accept answered the request
	}
	if c.Subprotocol() != Subprotocol {
		c.Close(websocket.StatusPolicyViolation, "the subprotocol must be "+Subprotocol)
		return
	}
	ctx := h.ctx
	if info := mcp.AuthInfoFrom(r.Context()); info != nil {
		ctx = mcp.WithAuthInfo(ctx, info)
	}
	h.srv.ServeConn(ctx, newConn(c, h.opts.MaxMessageSize, h.opts.WriteTimeout))
}

// Shutdown refuses new connections, ends the conversations in progress (their requests
// are cancelled, their connections closed) and the server's tasks (mcp.Server.Shutdown), and
// waits for them, as long as ctx lets it. An http.Server's Shutdown does not: the
// connections it hands to WebSocket are not its own any more.
func (h *Handler) Shutdown(ctx context.Context) error {
	h.mu.Lock()
	h.closing = true
	h.mu.Unlock()
	h.stop()
	h.srv.Shutdown(ctx)
	done := make(chan struct{})
	go func() {
		h.served.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func isLoopbackName(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func hostAllowed(allowed []string, host string) bool {
	if slices.Contains(allowed, "*") || slices.Contains(allowed, host) {
		return true
	}
	name := host
	if n, _, err := net.SplitHostPort(host); err == nil {
		name = n
	}
	return isLoopbackName(strings.Trim(name, "[]")) || slices.Contains(allowed, name)
}

func originAllowed(allowed []string, origin string) bool {
	if slices.Contains(allowed, "*") || slices.Contains(allowed, origin) {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && isLoopbackName(u.Hostname())
}
