package mcp

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp/internal/lines"
)

// lineConn is a client's Connection over a pair of byte streams (a command's stdout and
// stdin, IOTransport's reader and writer).
type lineConn struct {
	name string
	r    io.Reader
	lr   *lines.Reader
	w    io.WriteCloser
	// wlock holds a token while a message is written, one at a time: a lock that a writer
	// stops waiting for when its context ends or the connection closes.
	wlock     chan struct{}
	closed    chan struct{} // closed by closeWriter
	closeOnce sync.Once
	// Read's context interrupts the read it is waiting in when it ends (watch).
	watching  context.Context
	stopWatch func() bool
	gaveUp    atomic.Bool // ctx ended a read: what is left of r is not messages for anyone

	mu   sync.Mutex
	fail error // a write cut a message short: the conversation is over, and Read says why
}

// TransportName: the client's side of stdio (Message.Transport).
func (c *lineConn) TransportName() string { return TransportStdio }

// String names the server in the client's logs and errors.
func (c *lineConn) String() string { return c.name }

func newLineConn(name string, r io.Reader, w io.WriteCloser) lineConn {
	return lineConn{name: name, r: r, lr: lines.NewReader(r, 64<<20, idPrefix), w: w, wlock: make(chan struct{}, 1), closed: make(chan struct{})}
}

// readMessage reads the next line. A line over the limit (64 MiB) is skipped, with an error
// that wraps ErrMessageTooLarge. When ctx ends, the read in progress is interrupted (if r
// takes read deadlines or closes), and Read returns ctx's error.
func (c *lineConn) readMessage(ctx context.Context) ([]byte, error) {
	if ctx != c.watching && ctx.Done() != nil {
		if c.stopWatch != nil && !c.stopWatch() {
			// The last context ended and interrupted reading: a caller that reads on
			// with another (which the contract does not ask of it) reads again.
			if d, ok := c.r.(interface{ SetReadDeadline(time.Time) error }); ok {
				d.SetReadDeadline(time.Time{})
			}
			c.gaveUp.Store(false)
		}
		c.watching = ctx
		c.stopWatch = context.AfterFunc(ctx, func() {
			c.gaveUp.Store(true)
			lines.InterruptRead(c.r)
		})
	}
	msg, err := c.lr.ReadMessage()
	switch {
	case err == nil, err == io.EOF && len(msg) > 0: // a last line without a newline
		return msg, nil
	case err == lines.ErrTooLong:
		return nil, fmt.Errorf("mcp: %s: a line longer than 64 MiB was skipped: %w", c.name, ErrMessageTooLarge)
	case c.gaveUp.Load() && ctx.Err() != nil:
		return nil, ctx.Err()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fail != nil {
		return nil, c.fail
	}
	return nil, err
}

// broke ends the conversation after a write cut a message short: the server cannot read
// what follows, so the reading stops too, and Read returns err.
func (c *lineConn) broke(err error) {
	c.mu.Lock()
	if c.fail == nil {
		c.fail = err
	}
	c.mu.Unlock()
	c.closeWriter()
	lines.InterruptRead(c.r)
}

// send writes one message, giving up when ctx ends: a server that does not read holds a
// write no longer than its caller waits (where the writer takes deadlines, as pipes and
// sockets do). A message given up on midway leaves a line the server cannot read, and
// every message after it unread: the connection is broken then.
func (c *lineConn) Write(ctx context.Context, msg []byte) error {
	select {
	case c.wlock <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("mcp: %s: writing to the server: %w", c.name, context.Cause(ctx))
	case <-c.closed:
		return connError(c.name, transportFailure(errConnClosed))
	}
	defer func() { <-c.wlock }()
	n, err := lines.WriteWithin(ctx, c.w, append(msg, '\n'))
	switch {
	case err == nil:
		return nil
	case n > 0 && n <= len(msg):
		err = connError(c.name, transportFailure(fmt.Errorf("a message to the server was cut short (%w): the server did not read it", err)))
		c.broke(err)
		return err
	case ctx.Err() != nil:
		return fmt.Errorf("mcp: %s: writing to the server: %w", c.name, context.Cause(ctx))
	}
	return connError(c.name, transportFailure(fmt.Errorf("writing to the server: %w", err)))
}

// closeWriter closes the stream to the server, at once: a write in progress fails (on a pipe
// or a socket) rather than hold the closing caller, and writes waiting for their turn give
// up.
func (c *lineConn) closeWriter() error {
	var err error
	c.closeOnce.Do(func() {
		close(c.closed)
		err = c.w.Close()
	})
	return err
}
