package mcp

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// ServeConn serves one conversation on c, of either era (a session begins with initialize;
// stateless requests are served each on its own), as Serve does over a byte stream: for
// transports of other packages (runtime/mcp/ws) and any Connection. It returns nil once c's
// Read returns io.EOF, after answering what is in progress; when ctx ends, it cancels what
// runs, waits for it, and returns ctx's cause; when c fails (Read, or a Write, returns an
// error), it stops the same way and returns that error. It closes c before it returns.
//
// A protected conversation is one whose ctx carries the caller (WithAuthInfo; a handler
// behind GuardHTTP finds it in its request's context): each request is served only if the
// caller's token has the scopes it needs (Tool.Scopes and the like), else answered with
// -32600 insufficient_scope, and the conversation ends when the token expires
// (ErrTokenExpired).
//
// Answers and requests to the client are written as they come, with c's Write, under the
// conversation's context; notifications about no request in particular (list changes,
// resource updates) are queued, and written by a goroutine of the server's, so that AddTool
// and NotifyResourceUpdated never wait for a client that does not read (notifier.go: the
// queue is bounded; past it the oldest resource updates go).
func (s *Server) ServeConn(ctx context.Context, c Connection) error {
	auth := AuthInfoFrom(ctx)
	if auth != nil && !auth.Expiry.IsZero() {
		var stop context.CancelFunc
		ctx, stop = context.WithDeadlineCause(ctx, auth.Expiry, ErrTokenExpired)
		defer stop()
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	w := &servedConn{c: c, ctx: ctx, failed: cancel}
	w.later, _ = c.(laterWriter)
	notes := newNotifier(ctx, w, s.logger)
	// Once ctx ends, what is in progress has ShutdownTimeout to end (a client that does not
	// read its answers holds their writes); then Close ends the writes that wait.
	var mu sync.Mutex
	var abandon *time.Timer
	served := false
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if !served {
			abandon = time.AfterFunc(s.opts.ShutdownTimeout, func() {
				mu.Lock()
				defer mu.Unlock()
				if !served {
					s.logger.Warn("mcp: the client has not read its answers for " + s.opts.ShutdownTimeout.String() + " since the server began to stop; they are abandoned")
					c.Close()
				}
			})
		}
	})
	defer func() {
		stop()
		mu.Lock()
		served = true
		if abandon != nil {
			abandon.Stop()
		}
		mu.Unlock()
	}()
	err := s.serveStream(ctx, cancel, &connReader{ctx: ctx, c: c, s: s, auth: auth, w: w}, w, notes, transportName(c))
	// The notifications queued are written, if the client reads them within the
	// ShutdownTimeout; then Close ends a write that waits.
	drained := make(chan struct{})
	go func() {
		notes.close()
		close(drained)
	}()
	t := time.NewTimer(s.opts.ShutdownTimeout)
	defer t.Stop()
	select {
	case <-drained:
	case <-t.C:
		s.logger.Warn("mcp: the client has not read the notifications queued for it for " + s.opts.ShutdownTimeout.String() + " since the conversation ended; they are dropped")
		c.Close()
		<-drained
	}
	c.Close()
	return err
}

// ErrTokenExpired is the cause ServeConn returns when the access token of a protected
// conversation (AuthInfo.Expiry) expires: a conversation lasts no longer than its token.
var ErrTokenExpired = errors.New("mcp: the access token of the conversation expired")

// connReader reads a Connection for serveStream. In a protected conversation (the caller's
// AuthInfo in ServeConn's context, as a handler behind GuardHTTP has it) it checks each
// request's scopes, as the HTTP transport does per POST, and answers one whose token lacks
// them with an error instead of serving it.
type connReader struct {
	ctx  context.Context
	c    Connection
	s    *Server
	auth *AuthInfo
	w    messageWriter
}

func (r *connReader) readMessage() ([]byte, error) {
	for {
		msg, err := r.c.Read(r.ctx)
		if err != nil && errors.Is(err, ErrMessageTooLarge) {
			return nil, errTooLarge
		}
		if err != nil || r.auth == nil || r.allowed(msg) {
			return msg, err
		}
	}
}

// allowed reports whether the caller's token has the scopes msg needs, and answers it if
// not.
func (r *connReader) allowed(msg []byte) bool {
	m, perr := parser.Parse(msg)
	if perr != nil || !m.IsRequest() {
		return true // served as any other: an error, a response, a notification
	}
	need := r.s.requiredScopes(&m)
	if len(need) == 0 || r.auth.HasScopes(need) {
		return true
	}
	r.w.Write(r.ctx, jsonrpc.AppendError(nil, m.ID, jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
		"insufficient_scope: "+m.Method+" needs the scopes "+strings.Join(need, " "))))
	return false
}

// servedConn is the write half of a conversation ServeConn serves: c's Write, and, where c
// has them (stdio), its ways to hold messages back for its next write (laterWriter). A
// write that fails ends the conversation: failed is told, unless it failed because ctx (the
// conversation's, or the writer's) ended.
type servedConn struct {
	c      Connection
	ctx    context.Context
	failed func(error)
	later  laterWriter // c's, or nil
}

func (w *servedConn) Write(ctx context.Context, msg []byte) error {
	return w.check(ctx, w.c.Write(ctx, msg))
}

func (w *servedConn) writeLater(msg []byte) error {
	if w.later == nil {
		return w.Write(context.WithoutCancel(w.ctx), msg)
	}
	return w.check(w.ctx, w.later.writeLater(msg))
}

func (w *servedConn) noteLater(msg []byte) bool { return w.later != nil && w.later.noteLater(msg) }

func (w *servedConn) flush() error {
	if w.later == nil {
		return nil
	}
	return w.check(w.ctx, w.later.flush())
}

// unread is what c holds that its client has not read, where c says.
func (w *servedConn) unread() int {
	if b, ok := w.c.(backlogged); ok {
		return b.unread()
	}
	return 0
}

func (w *servedConn) check(ctx context.Context, err error) error {
	if err != nil && w.ctx.Err() == nil && ctx.Err() == nil {
		w.failed(err)
	}
	return err
}

// transportName is what a Message says of c's transport (Message.Transport): what c says,
// if it has a method TransportName (the WebSocket transport's "websocket"), else nothing.
func transportName(c Connection) string {
	if n, ok := c.(interface{ TransportName() string }); ok {
		return n.TransportName()
	}
	return ""
}
