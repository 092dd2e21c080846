// Package ws carries MCP over WebSocket: one JSON-RPC message per text message, the
// subprotocol "mcp" (as the TypeScript SDK's WebSocket transport), both eras unchanged (the
// server tells a session's messages from stateless requests by what they say, as over
// stdio). Transport is the client's side, Handler the server's, an http.Handler.
//
// It is also the example of a transport outside package mcp: a Transport whose Connect
// returns an mcp.Connection, a handler that calls Server.ServeConn with one, and a test
// that runs mcptest.TestConnection on them.
package ws

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// Subprotocol is the WebSocket subprotocol both sides ask for.
const Subprotocol = "mcp"

// TransportName is what middleware's Message.Transport says of a conversation over
// WebSocket, on both sides.
const TransportName = "websocket"

// The defaults of the bounds.
const (
	DefaultMaxMessageSize = 64 << 20
	DefaultWriteTimeout   = 30 * time.Second
	closeTimeout          = 5 * time.Second
)

// conn is an mcp.Connection over a WebSocket connection.
type conn struct {
	ws           *websocket.Conn
	max          int
	writeTimeout time.Duration
	// turn holds a token while a message is written: writers wait for it under their own
	// context, then write under the connection's (a write whose context ends midway would
	// close the whole connection).
	turn      chan struct{}
	closed    chan struct{}
	closeOnce sync.Once
	closeErr  error
}

// newConn is a connection over ws. max bounds a message from the other side (the client's
// connections); a server's have none of their own (max < 0): its door bounds what it reads,
// and skips a message too large without closing the connection.
func newConn(ws *websocket.Conn, max int, writeTimeout time.Duration) *conn {
	if max == 0 {
		max = DefaultMaxMessageSize
	}
	if writeTimeout <= 0 {
		writeTimeout = DefaultWriteTimeout
	}
	ws.SetReadLimit(int64(max))
	return &conn{ws: ws, max: max, writeTimeout: writeTimeout, turn: make(chan struct{}, 1), closed: make(chan struct{})}
}

// Read returns the next text message. The other side's normal closure is io.EOF; a binary
// message closes the connection (1003), and one over the limit too (1009, as the library
// does): either is an error that wraps mcp.ErrTransport.
func (c *conn) Read(ctx context.Context) ([]byte, error) {
	typ, msg, err := c.ws.Read(ctx)
	if err != nil {
		return nil, c.readError(ctx, err)
	}
	if err := c.text(typ); err != nil {
		return nil, err
	}
	return msg, nil
}

// NextMessage returns a reader of the next text message (mcp.MessageStreamer): the server
// counts its bytes against its budget as they arrive, rather than after the whole of it.
func (c *conn) NextMessage(ctx context.Context) (io.Reader, error) {
	typ, r, err := c.ws.Reader(ctx)
	if err != nil {
		return nil, c.readError(ctx, err)
	}
	if err := c.text(typ); err != nil {
		return nil, err
	}
	return readerOf{c, ctx, r}, nil
}

// readerOf reads one message, its errors as Read's.
type readerOf struct {
	c   *conn
	ctx context.Context
	r   io.Reader
}

func (r readerOf) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && err != io.EOF {
		err = r.c.readError(r.ctx, err)
	}
	return n, err
}

// text fails a message that is not text: the connection is closed (1003).
func (c *conn) text(typ websocket.MessageType) error {
	if typ == websocket.MessageText {
		return nil
	}
	c.ws.Close(websocket.StatusUnsupportedData, "MCP messages are text")
	return failure(errors.New("the other side sent a binary message; MCP messages are text"))
}

// readError is what a read that failed with err returns: io.EOF for the other side's normal
// closure, ctx's error once it ended, else an error that wraps mcp.ErrTransport.
func (c *conn) readError(ctx context.Context, err error) error {
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case websocket.CloseStatus(err) == websocket.StatusNormalClosure, websocket.CloseStatus(err) == websocket.StatusGoingAway:
		return io.EOF
	case errors.Is(err, websocket.ErrMessageTooBig):
		return failure(fmt.Errorf("a message larger than %d bytes (the connection is closed): %w", c.max, err))
	}
	select {
	case <-c.closed:
		return failure(errClosed)
	default:
	}
	return failure(err)
}

// Write writes msg as one text message. It waits for its turn as long as ctx lets it, then
// writes for WriteTimeout at most: a peer that does not read for that long loses the
// connection.
func (c *conn) Write(ctx context.Context, msg []byte) error {
	select {
	case c.turn <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("mcp: writing to the WebSocket: %w", ctx.Err())
	case <-c.closed:
		return failure(errClosed)
	}
	defer func() { <-c.turn }()
	select {
	case <-c.closed:
		return failure(errClosed)
	default:
	}
	wctx, cancel := context.WithTimeout(context.Background(), c.writeTimeout)
	defer cancel()
	if err := c.ws.Write(wctx, websocket.MessageText, msg); err != nil {
		if wctx.Err() != nil {
			return failure(fmt.Errorf("the other side did not read a message for %s: %w", c.writeTimeout, err))
		}
		return failure(err)
	}
	return nil
}

// Close ends the connection with a normal closure, and at once when a write is in progress
// (the closing handshake would wait behind it). Either way it waits 5 seconds at most.
func (c *conn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		select {
		case c.turn <- struct{}{}:
			done := make(chan error, 1)
			go func() { done <- c.ws.Close(websocket.StatusNormalClosure, "") }()
			select {
			case c.closeErr = <-done:
			case <-time.After(closeTimeout):
				c.closeErr = c.ws.CloseNow()
				<-done
			}
		default:
			c.closeErr = c.ws.CloseNow()
		}
	})
	return c.closeErr
}

// TransportName names the transport to the server's middleware (mcp.Message.Transport).
func (c *conn) TransportName() string { return TransportName }

var errClosed = errors.New("the connection is closed")

// failure marks err as the transport's (errors.Is(err, mcp.ErrTransport)), without
// changing what it says.
func failure(err error) error { return &transportError{err} }

type transportError struct{ err error }

func (e *transportError) Error() string        { return "mcp: WebSocket: " + e.err.Error() }
func (e *transportError) Unwrap() error        { return e.err }
func (e *transportError) Is(target error) bool { return target == mcp.ErrTransport }
