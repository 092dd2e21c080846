package mcp

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// This side's requests to the other: sent with what they are about (writerFor), waited for,
// and matched with their responses.

// writerFor is what a message about the request ctx belongs to is written to: the
// request's writer, or the conversation's.
func (p *peer) writerFor(ctx context.Context) messageWriter {
	if r := RequestFrom(ctx); r != nil && r.w != nil {
		return r.w
	}
	return p.w
}

// ErrSessionClosed is returned by requests to the other side once the session has ended.
var ErrSessionClosed = errors.New("mcp: the session has ended")

// call sends a request to the other side and waits for its response, or for ctx to end
// (then it tells the other side the request is cancelled). It is written with ctx to what
// ctx's request writes to (writerFor). It returns the raw result; an error response is a
// *jsonrpc.Error.
func (p *peer) call(ctx context.Context, method string, params []byte) ([]byte, error) {
	return p.request(ctx, p.newID(), method, params, nil, nil, writerSender{p.writerFor(ctx)})
}

// A sender writes one request of this side's, and the notifications/cancelled that gives
// it up: a client's request (outgoing) or a server's (writerSender).
type sender interface {
	send(ctx context.Context, msg []byte) error
	cancel(ctx context.Context, note []byte) error
}

// writerSender sends a server's request with the writer of what it is about.
type writerSender struct{ w messageWriter }

func (s writerSender) send(ctx context.Context, msg []byte) error { return s.w.Write(ctx, msg) }
func (s writerSender) cancel(ctx context.Context, note []byte) error {
	return s.w.Write(context.WithoutCancel(ctx), note)
}

// request sends this side's request id (one on the wire: a retry is another) with s and
// waits for its response, inside the side's middleware if it has any, as roundTrip does;
// the notifications/cancelled of a request given up goes through the middleware too. It
// is the one way both sides send a request.
func (p *peer) request(ctx context.Context, id []byte, method string, params, token []byte, progress func([]byte), s sender) ([]byte, error) {
	if p.mw == nil {
		return p.roundTrip(ctx, id, method, params, token, progress, s)
	}
	msg := p.message(method, params, true)
	msg.ID = string(id)
	return runMiddleware(ctx, p.mw, msg, func(ctx context.Context, msg *Message) ([]byte, error) {
		return p.roundTrip(ctx, id, method, msg.Params, token, progress, throughMiddleware{p, s})
	}, p.logger)
}

// throughMiddleware sends a request's cancellation through its side's middleware.
type throughMiddleware struct {
	p *peer
	sender
}

func (t throughMiddleware) cancel(ctx context.Context, note []byte) error {
	return t.p.cancelNote(ctx, note, func(note []byte) error { return t.sender.cancel(ctx, note) })
}

// cancelNote sends the notifications/cancelled of a request through the side's middleware.
func (p *peer) cancelNote(ctx context.Context, note []byte, write func([]byte) error) error {
	m, err := parser.Parse(note)
	if err != nil {
		return write(note)
	}
	return p.sendThroughMiddleware(context.WithoutCancel(ctx), m.Method, m.Params, write)
}

// newID returns the id of this side's next request, as raw JSON.
func (p *peer) newID() []byte { return strconv.AppendInt(nil, p.nextID.Add(1), 10) }

// roundTrip sends request id with send and waits for its response, or for ctx to end: then,
// if cancelled is set, it gives it the notifications/cancelled that tells the other side.
// It returns the raw result; an error response is a *jsonrpc.Error. progress, if set,
// receives the params of the notifications/progress that name token (raw JSON), which
// params carry.
func (p *peer) roundTrip(ctx context.Context, id []byte, method string, params []byte, token []byte, progress func([]byte),
	s sender) ([]byte, error) {
	c := &call{done: make(chan callResult, 1), method: method, progress: progress, token: string(token)}
	p.mu.Lock()
	if p.closed != nil {
		err := p.closed
		p.mu.Unlock()
		return nil, err
	}
	p.pending[string(id)] = c
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.pending, string(id))
		p.mu.Unlock()
	}()
	// Sized once: appending the params to a growing buffer took a copy per doubling.
	msg := jsonrpc.AppendRequest(make([]byte, 0, len(params)+len(method)+len(id)+48), id, method, params)
	if err := s.send(ctx, msg); err != nil {
		if ctx.Err() != nil {
			// Given up while it was sent: it may have reached the other side all the same
			// (an HTTP+SSE POST whose 202 had not come, whose request the server serves
			// beyond the POST), which is told, as of any request it was sent.
			s.cancel(ctx, jsonrpc.AppendNotification(nil, notificationCancelled, cancelledParams(id, context.Cause(ctx).Error())))
		}
		return nil, fmt.Errorf("mcp: sending %s: %w", method, err)
	}
	if p.reading != nil {
		// The answer comes on the stream: if this request holds the turn at reading, it
		// passes it now, or nobody would read the answer.
		p.reading.yield()
	}
	select {
	case r := <-c.done:
		switch {
		case r.err != nil:
			return nil, r.err
		case r.m.Error != nil:
			return nil, r.m.Error
		}
		return r.m.Result, nil
	case <-ctx.Done():
		s.cancel(ctx, jsonrpc.AppendNotification(nil, notificationCancelled, cancelledParams(id, context.Cause(ctx).Error())))
		return nil, ctx.Err()
	}
}

// fail ends the call with this id, if it waits, with err: no response will come for it.
func (p *peer) fail(id []byte, err error) {
	p.mu.Lock()
	c := p.pending[string(id)]
	delete(p.pending, string(id))
	p.mu.Unlock()
	if c != nil {
		c.done <- callResult{err: err}
	}
}

// unreadable ends the call with this id, if one waits, with the error why makes of its
// method: its response came and could not be read. It reports whether a call waited.
func (p *peer) unreadable(id []byte, why func(method string) error) bool {
	p.mu.Lock()
	c := p.pending[string(id)]
	delete(p.pending, string(id))
	p.mu.Unlock()
	if c == nil {
		return false
	}
	c.done <- callResult{err: why(c.method)}
	return true
}

// deliver hands a response to the call it answers.
func (p *peer) deliver(m *jsonrpc.Message) {
	p.mu.Lock()
	c := p.pending[string(m.ID)]
	delete(p.pending, string(m.ID))
	p.mu.Unlock()
	if c == nil {
		p.logger.Debug("mcp: a response to no request of ours", "id", string(m.ID))
		return
	}
	if p.ownsMessages {
		c.done <- callResult{m: m}
		return
	}
	// The message aliases the transport's buffer: keep copies.
	copied := *m
	copied.Result = append([]byte(nil), m.Result...)
	if m.Error != nil {
		e := *m.Error
		e.Data = append([]byte(nil), m.Error.Data...)
		copied.Error = &e
	}
	c.done <- callResult{m: &copied}
}
