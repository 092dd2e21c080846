package mcp

import (
	"context"
	"errors"
	"sync"
	"time"
)

// ServeConn serves one conversation on c, of either era (a session begins with initialize;
// stateless requests are served each on its own), as Serve does over a byte stream: for
// transports of other packages (runtime/mcp/ws) and any Connection. It returns nil once c's
// Read returns io.EOF, after answering what is in progress; when ctx ends, it cancels what
// runs, waits for it, and returns ctx's cause; when c fails (Read, or a Write, returns an
// error), it stops the same way and returns that error. It closes c before it returns.
//
// Answers and requests to the client are written as they come, with c's Write, under the
// conversation's context; notifications about no request in particular (list changes,
// resource updates) are written by a goroutine of the server's, so that AddTool and
// NotifyResourceUpdated never wait for a client that does not read.
func (s *Server) ServeConn(ctx context.Context, c Connection) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	out := &connOutbox{ctx: ctx, c: c, failed: cancel}
	err := s.serveStream(ctx, cancel, connReader{ctx, c}, out, transportName(c))
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
		c.Close()
		<-drained
	}
	c.Close()
	return err
}

// connReader reads a Connection for serveStream.
type connReader struct {
	ctx context.Context
	c   Connection
}

func (r connReader) readMessage() ([]byte, error) {
	msg, err := r.c.Read(r.ctx)
	if err != nil && errors.Is(err, ErrMessageTooLarge) {
		return nil, errTooLarge
	}
	return msg, err
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
