package ws

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// Options configure a Handler. The zero value checks what mcp.HTTPHandler's zero options
// check: the Host is the local machine's name and an Origin, if any, a page of the local
// machine's (against DNS rebinding, by which a web page reaches a server on the machine
// that runs its browser). That defends against web pages, not the network: on a listener
// other machines reach, a client anywhere may send "Host: localhost" and is served. Listen
// on 127.0.0.1, or protect the handler (mcp.GuardHTTP with HTTPOptions.Auth in front of it,
// or HTTPOptions.Routes of a protected server); the handler warns once when a handshake
// arrives on such an address with no verified caller. What a conversation may hold is the
// server's to bound, as for
// every transport: its messages' size and its share of the bytes in flight, its requests
// at once, and how many conversations are open (mcp.ServerOptions).
type Options struct {
	// AllowedHosts are the Host header values accepted besides localhost, 127.0.0.1 and
	// [::1] (with any port), as mcp.HTTPOptions.AllowedHosts. "*" accepts any.
	AllowedHosts []string
	// AllowedOrigins are the Origin header values (scheme://host[:port]) accepted besides
	// those of the loopback names; a handshake without Origin (not from a browser) is
	// accepted. "*" accepts any.
	AllowedOrigins []string
	// WriteTimeout bounds the write of one message: a client that does not read for that
	// long loses its connection. The default is 30 seconds.
	WriteTimeout time.Duration
}

// Handler serves MCP over WebSocket: each connection it accepts is one conversation of
// srv's (Server.ServeConn), in either era. Mount it where clients connect:
//
//	h := ws.NewHandler(srv, nil)
//	defer h.Shutdown(ctx)
//	http.Handle("/ws", h)
//
// Mounted in mcp.HTTPOptions.Routes, it passes the MCP endpoint's guard, with its bearer
// token on a protected server.
type Handler struct {
	srv   *mcp.Server
	opts  Options
	guard http.Handler    // the Host and Origin checks, mcp.GuardHTTP's
	ctx   context.Context // ends with Shutdown: every conversation ends
	stop  context.CancelFunc

	mu      sync.Mutex
	closing bool
	served  sync.WaitGroup
}

// NewHandler returns a handler serving srv; opts may be nil.
func NewHandler(srv *mcp.Server, opts *Options) *Handler {
	h := &Handler{srv: srv}
	if opts != nil {
		h.opts = *opts
	}
	h.guard = mcp.GuardHTTP(&mcp.HTTPOptions{AllowedHosts: h.opts.AllowedHosts, AllowedOrigins: h.opts.AllowedOrigins}, http.HandlerFunc(h.serve))
	h.ctx, h.stop = context.WithCancel(context.Background())
	return h
}

// ServeHTTP checks the Host and Origin headers, takes the handshake, and serves the
// conversation until it ends (the client closes, the connection fails, Shutdown, or the
// server sheds it). The AuthInfo of the request's context goes with every request of the
// conversation: behind mcp.GuardHTTP, or in a protected server's HTTPOptions.Routes, each
// request is served only if the caller's token has the scopes it needs, and the
// conversation ends when the token expires (ServeConn).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.guard.ServeHTTP(w, r) }

func (h *Handler) serve(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	if h.closing {
		h.mu.Unlock()
		http.Error(w, "the server is shutting down", http.StatusServiceUnavailable)
		return
	}
	h.served.Add(1)
	h.mu.Unlock()
	defer h.served.Done()
	// Host and Origin were checked by the guard, with the HTTP transport's rules.
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
	// Refused (no caller on a protected server, every conversation in use) or ended by the
	// server (shed, idle, its token expired), the conversation's end is the server's to log.
	h.srv.ServeConn(ctx, newConn(c, -1, h.opts.WriteTimeout))
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
