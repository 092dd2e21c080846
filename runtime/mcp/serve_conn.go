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
// resource updates) are written by a goroutine of the server's, so that AddTool and
// NotifyResourceUpdated never wait for a client that does not read.
func (s *Server) ServeConn(ctx context.Context, c Connection) error {
	auth := AuthInfoFrom(ctx)
	if auth != nil && !auth.Expiry.IsZero() {
		var stop context.CancelFunc
		ctx, stop = context.WithDeadlineCause(ctx, auth.Expiry, ErrTokenExpired)
		defer stop()
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var out closingOutbox
	if w, ok := c.(ownWriter); ok {
		out = w.serverOutbox(cancel)
	} else {
		out = &connOutbox{ctx: ctx, c: c, failed: cancel}
	}
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
	err := s.serveStream(ctx, cancel, &connReader{ctx: ctx, c: c, s: s, auth: auth, out: out}, out, transportName(c))
	// The notifications queued are written, if the client reads them within the
	// ShutdownTimeout; then Close ends a write that waits.
	drained := make(chan struct{})
	go func() {
		out.close()
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

// ownWriter is a Connection of this package's that writes the server's messages its own
// way: stdio's combining line writer (answers of requests served inline batched, a
// goroutine for queued notifications), memory's queue, which never blocks. ServeConn
// writes through serverOutbox instead of Write; failed is told when a write fails.
type ownWriter interface {
	serverOutbox(failed func(error)) closingOutbox
}

// closingOutbox is a conversation's outbox, whose close waits until the notifications
// queued are written (or cannot be); nothing is queued after it.
type closingOutbox interface {
	outbox
	close()
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
	out  outbox
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
	r.out.send(jsonrpc.AppendError(nil, m.ID, jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
		"insufficient_scope: "+m.Method+" needs the scopes "+strings.Join(need, " "))))
	return false
}

// connOutbox writes a served conversation's messages to its Connection.
type connOutbox struct {
	ctx    context.Context
	c      Connection
	failed func(error) // a write failed: the conversation is over

	mu       sync.Mutex
	queued   [][]byte // notifications about no request, waiting for the writing goroutine
	size     int
	draining bool
	drained  sync.WaitGroup
	closed   bool
}

func (o *connOutbox) send(msg []byte) error {
	err := o.c.Write(o.ctx, msg)
	if err != nil && o.ctx.Err() == nil {
		o.failed(err)
	}
	return err
}

func (o *connOutbox) reply(msg []byte) error { return o.send(msg) }

// queue writes msg on a goroutine of the outbox's, in the order queued, and returns at once.
func (o *connOutbox) queue(msg []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return
	}
	o.queued = append(o.queued, msg)
	o.size += len(msg)
	if o.draining {
		return
	}
	o.draining = true
	o.drained.Add(1)
	go func() {
		defer o.drained.Done()
		for {
			o.mu.Lock()
			if len(o.queued) == 0 || o.ctx.Err() != nil {
				o.queued, o.size, o.draining = nil, 0, false
				o.mu.Unlock()
				return
			}
			msg := o.queued[0]
			o.queued[0] = nil
			o.queued = o.queued[1:]
			o.mu.Unlock()
			o.send(msg)
			o.mu.Lock()
			o.size -= len(msg)
			o.mu.Unlock()
		}
	}()
}

// unread is how many bytes of queued notifications are not written yet: a subscription
// whose client leaves too many is ended.
func (o *connOutbox) unread() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.size
}

// close waits for the queued notifications to be written (or for the conversation's
// context to end); nothing is queued after it.
func (o *connOutbox) close() {
	o.mu.Lock()
	o.closed = true
	o.mu.Unlock()
	o.drained.Wait()
}

// transportName is what a Message says of c's transport (Message.Transport): what c says,
// if it has a method TransportName (the WebSocket transport's "websocket"), else nothing.
func transportName(c Connection) string {
	if n, ok := c.(interface{ TransportName() string }); ok {
		return n.TransportName()
	}
	return ""
}
