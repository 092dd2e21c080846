package mcp

import (
	"context"
	"errors"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// ServeConn serves one conversation on c, of either era (a session begins with initialize;
// stateless requests are served each on its own), as Serve does over a byte stream: for
// transports of other packages (runtime/mcp/ws) and any Connection. It returns nil once c's
// Read returns io.EOF, after answering what is in progress; when ctx ends, it cancels what
// runs, waits for it, and returns ctx's cause; when c fails (Read, or a Write, returns an
// error), it stops the same way and returns that error. It closes c before it returns.
//
// Every message passes the server's one admission (its size, the budget of bytes in
// flight, the caller's scopes, the conversation's concurrency), and the conversation counts
// among ServerOptions.MaxConversations: past it, the one idle longest is shed (and ServeConn
// returns for it), and a conversation idle for IdleTimeout ends. A transport that can hand
// a message over as it arrives (MessageStreamer) has its bytes counted as they come.
//
// A protected conversation is one whose ctx carries the caller (WithAuthInfo; a handler
// behind GuardHTTP, or in HTTPOptions.Routes, finds it in its request's context): each
// request is served only if the caller's token has the scopes it needs (Tool.Scopes and
// the like), else answered with -32600 insufficient_scope, and the conversation ends when
// the token expires (ErrTokenExpired). On a protected server (an HTTPHandler of it has
// HTTPOptions.Auth), a conversation without a caller is refused: ServeConn returns
// ErrUnauthenticated at once.
//
// Answers and requests to the client are written as they come, with c's Write, under the
// conversation's context; notifications about no request in particular (list changes,
// resource updates) are queued, and written by a goroutine of the server's, so that AddTool
// and NotifyResourceUpdated never wait for a client that does not read (notifier.go: the
// queue is bounded; past it the oldest resource updates go).
func (s *Server) ServeConn(ctx context.Context, c Connection) error {
	if s.protected.Load() && AuthInfoFrom(ctx) == nil {
		s.logger.Warn(ErrUnauthenticated.Error())
		c.Close()
		return ErrUnauthenticated
	}
	return s.serveConn(ctx, c, opened)
}

// What kind of conversation a Connection carries, for serveConn.
type connKind uint8

const (
	opened   connKind = iota // a transport's: it counts among the door's (MaxConversations, IdleTimeout)
	ownStdio                 // the process's own stdio, which nobody else reaches: not counted
	inMemory                 // in memory (ServeMemory): not counted; its writes never wait
)

// serveConn is ServeConn, for a conversation of this kind.
func (s *Server) serveConn(ctx context.Context, c Connection, kind connKind) error {
	auth := AuthInfoFrom(ctx)
	if auth != nil && !auth.Expiry.IsZero() {
		var stop context.CancelFunc
		ctx, stop = context.WithDeadlineCause(ctx, auth.Expiry, ErrTokenExpired)
		defer stop()
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var seat *seat
	if kind == opened {
		if seat = s.conversations.enter(cancel); seat == nil {
			c.Close()
			return errors.New("mcp: " + errTooManyConversations(s.opts.MaxConversations))
		}
		defer seat.leave()
	}
	w := &servedConn{c: c, ctx: ctx, failed: cancel}
	w.later, _ = c.(LaterWriter)
	notes := newNotifier(ctx, w, s.logger, kind == inMemory)
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
	r := &connReader{ctx: ctx, c: c, max: s.opts.MaxMessageSize, budget: &s.budget}
	r.stream, _ = c.(MessageStreamer)
	err := s.serveStream(ctx, cancel, r, w, notes, transportName(c), seat)
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

// serveStream serves one session over a Connection: it hands what r reads to a session whose
// messages go to w, until EOF (then it waits for the requests in progress and returns nil)
// or ctx ends (it cancels them, waits, and returns ctx's cause). cancel ends ctx: a
// transport that fails to write calls it with its error, and serveStream does with a read
// error.
func (s *Server) serveStream(ctx context.Context, cancel context.CancelCauseFunc, r *connReader, w *servedConn, notes *notifier, transport string, seat *seat) error {
	ss := newSession(s, w, notes)
	ss.peer.ctx = context.WithoutCancel(ctx)
	if w.later != nil {
		ss.peer.later = w
	}
	ss.transport = transport
	ss.concurrent = true
	ss.maxConcurrent = max(s.opts.MaxConcurrentRequests, 0)
	ss.seat = seat
	s.track(ss)
	defer ss.close()

	// The loop runs on this goroutine until a request served inline passes the turn at
	// reading to another (turns.go); whichever goroutine reads the end says why it ended.
	ended := make(chan error, 1)
	rd := newReading(ss.peer)
	defer rd.close()
	rd.loop = func(t *turn) {
		for {
			msg, held, err := r.read()
			switch err {
			case errTooLarge:
				ss.write(jsonrpc.AppendError(nil, prefixID(msg), jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
					"invalid request: message larger than "+strconv.Itoa(r.max)+" bytes")))
				continue
			case errOverBudget:
				ss.write(jsonrpc.AppendError(nil, prefixID(msg), errBudget))
				continue
			}
			if len(msg) > 0 && ctx.Err() == nil {
				seat.touch()
				ss.receive(ctx, msg, held)
				if t.state.Load() == turnPassed {
					return // the next reader reads err again
				}
			} else {
				s.budget.give(held)
			}
			if err != nil {
				// A last message without a newline was served with the end: its answer
				// goes out now, as no read will flush it.
				if ss.later != nil {
					ss.later.Flush()
				}
				// Said here, not by serveStream's goroutine: that may be serving a request
				// that waits for the client, which hanging up releases.
				switch {
				case err == io.EOF && ctx.Err() == nil:
					ss.hangUp() // the client has said all it will
					err = nil
				case ctx.Err() == nil:
					ss.failed(transportFailure(err))
					cancel(err)
				}
				ended <- err
				return
			}
		}
	}
	ss.reading = rd
	rd.loop(rd.newTurn())
	err := <-ended
	ss.wait() // answer what the client asked, or let what was cancelled end
	if err == nil {
		return nil
	}
	return context.Cause(ctx)
}

// A MessageStreamer is a Connection that can hand a message over as it arrives rather than
// whole: ServeConn then reads it within the server's budget of bytes in flight
// (ServerOptions.MaxBytesInFlight) and MaxMessageSize, counting its bytes as they come, and
// stops reading one it has no room for, whose sender is told the server is busy (the
// connection goes on). Without it, a message is counted once Read has returned it whole: a
// transport that many clients reach at once (runtime/mcp/ws's) offers it, so that they
// cannot make the server hold more than its budget.
type MessageStreamer interface {
	// NextMessage returns a reader of the next message. The server reads it to its end, or
	// until it gives up on the message, before it calls NextMessage or Read again; its
	// errors, and NextMessage's, are as Read's.
	NextMessage(ctx context.Context) (io.Reader, error)
}

// errOverBudget reports a message the server had no room for in its budget; errTooLarge
// one over MaxMessageSize. Either was skipped, and the conversation goes on.
var (
	errOverBudget = errors.New("mcp: no room in the budget of bytes in flight")
	errTooLarge   = ErrMessageTooLarge
)

// connReader reads a Connection's messages for serveStream, through the door's first
// checks: the size of each message and its bytes in the server's budget.
type connReader struct {
	ctx    context.Context
	c      Connection
	stream MessageStreamer // c, if it offers messages as they arrive
	max    int
	budget *budget
}

// read reads the next message, with the bytes of it the budget holds (given back once it
// is answered). A message skipped for its size, or for want of room, is errTooLarge or
// errOverBudget, with as much of its start as was read (for its id).
func (r *connReader) read() (msg []byte, held int64, err error) {
	if r.stream != nil {
		return r.readStream()
	}
	msg, err = r.c.Read(r.ctx)
	switch {
	case err != nil && errors.Is(err, ErrMessageTooLarge):
		return msg[:min(len(msg), idPrefix)], 0, errTooLarge
	case len(msg) > r.max:
		return msg[:min(len(msg), idPrefix)], 0, errTooLarge
	case len(msg) > 0 && !r.budget.take(int64(cap(msg)), 0):
		return msg[:min(len(msg), idPrefix)], 0, errOverBudget
	}
	return msg, int64(cap(msg)), err
}

// streamChunk is how much more of a message the budget is asked for at a time.
const streamChunk = 32 << 10

// readStream reads a message of a MessageStreamer, counting its buffer in the budget as it
// grows.
func (r *connReader) readStream() ([]byte, int64, error) {
	rd, err := r.stream.NextMessage(r.ctx)
	if err != nil {
		return nil, 0, err
	}
	var buf []byte
	var held int64
	for {
		if len(buf) == cap(buf) {
			if len(buf) > r.max {
				return r.skip(rd, buf, held, errTooLarge)
			}
			grow := min(max(cap(buf), streamChunk), r.max+1-len(buf))
			if !r.budget.take(int64(grow), held) {
				return r.skip(rd, buf, held, errOverBudget)
			}
			held += int64(grow)
			next := make([]byte, len(buf), len(buf)+grow)
			copy(next, buf)
			buf = next
		}
		n, err := rd.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		switch {
		case err == io.EOF:
			if len(buf) > r.max {
				return r.skip(rd, buf, held, errTooLarge)
			}
			return buf, held, nil
		case err != nil:
			r.budget.give(held)
			return nil, 0, err
		}
	}
}

// skip reads what is left of a message the server will not take, without keeping it, and
// reports why (errTooLarge, errOverBudget) with the message's start, read now if it was not
// yet (for its id).
func (r *connReader) skip(rd io.Reader, buf []byte, held int64, why error) ([]byte, int64, error) {
	start := make([]byte, idPrefix)
	n := copy(start, buf)
	if n < idPrefix {
		k, err := io.ReadFull(rd, start[n:])
		if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
			r.budget.give(held)
			return nil, 0, err
		}
		n += k
	}
	r.budget.give(held)
	if _, err := io.Copy(io.Discard, rd); err != nil {
		return nil, 0, err
	}
	return start[:n], 0, why
}

// idPrefix is how much of a refused message's start is read for its id.
const idPrefix = 512

// prefixID is the id of the message whose start is msg, if the start has it (clients write
// it before the params), so that the refusal of a message too large, or over the budget,
// reaches the call that sent it; nil otherwise.
func prefixID(msg []byte) []byte {
	if len(msg) == 0 {
		return nil
	}
	d := jsonwire.NewDecoder(msg)
	if d.Peek() != jsonwire.Object {
		return nil
	}
	var id []byte
	for key := range d.Members {
		if string(key) != "id" {
			d.Skip()
			continue
		}
		if t := d.Peek(); t == jsonwire.String || t == jsonwire.Number {
			id = append([]byte(nil), d.Raw()...)
		}
		break
	}
	return id
}

// servedConn is the write half of a conversation ServeConn serves: c's Write, and, where c
// has them (stdio), its ways to hold messages back for its next write (LaterWriter). A
// write that fails ends the conversation: failed is told, unless it failed because ctx (the
// conversation's, or the writer's) ended.
type servedConn struct {
	c      Connection
	ctx    context.Context
	failed func(error)
	later  LaterWriter // c's, or nil
}

func (w *servedConn) Write(ctx context.Context, msg []byte) error {
	return w.check(ctx, w.c.Write(ctx, msg))
}

func (w *servedConn) WriteLater(msg []byte) error {
	if w.later == nil {
		return w.Write(context.WithoutCancel(w.ctx), msg)
	}
	return w.check(w.ctx, w.later.WriteLater(msg))
}

func (w *servedConn) NoteLater(msg []byte) bool { return w.later != nil && w.later.NoteLater(msg) }

func (w *servedConn) Flush() error {
	if w.later == nil {
		return nil
	}
	return w.check(w.ctx, w.later.Flush())
}

// Unread is what c holds that its client has not read, where c says (Backlogger).
func (w *servedConn) Unread() int {
	if b, ok := w.c.(Backlogger); ok {
		return b.Unread()
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
