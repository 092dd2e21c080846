package mcp

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// Newline-delimited JSON-RPC, the framing of stdio (and of any pair of byte streams): one
// message per line, no embedded newlines. Both sides read lines with lineReader; the server
// writes with lineWriter, which combines the answers of many requests into one write, and
// the client with lineConn, which writes one message at a time, each bounded by its
// caller's context.

// flushFirst writes the answers buffered in out before each read of r: the reader has
// handled everything it read by then. A write that fails is the error of the read: the
// connection has failed.
type flushFirst struct {
	r   io.Reader
	out *lineWriter
}

func (f flushFirst) Read(p []byte) (int, error) {
	if err := f.out.flush(); err != nil {
		return 0, err
	}
	return f.r.Read(p)
}

// lineReader reads newline-delimited messages: the server's requests (Serve) and the
// client's answers (CommandTransport, IOTransport) alike.
type lineReader struct {
	br  *bufio.Reader
	max int
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 64<<10), max: max}
}

// readMessage reads one line into a new slice (requests outlive the read buffer), without
// the white space around it. A line longer than max is consumed and reported as
// errTooLarge, with its start (idPrefix bytes at most), which names its id.
func (lr *lineReader) readMessage() ([]byte, error) {
	var line []byte
	tooLarge := false
	for {
		chunk, err := lr.br.ReadSlice('\n')
		if !tooLarge && len(line)+len(chunk) > lr.max {
			tooLarge = true
			line = append(line, chunk...)
			line = append([]byte(nil), line[:min(len(line), idPrefix)]...)
		}
		if !tooLarge {
			line = append(line, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		switch {
		case tooLarge && err == nil:
			return line, errTooLarge
		case tooLarge:
			return nil, err // the end, in the middle of a line too long: nothing to answer
		}
		return bytes.TrimSpace(line), err
	}
}

// lineWriter writes whole messages, one per line, never interleaved. Writes are combined:
// a sender that finds a write in progress leaves its message for the goroutine writing,
// which writes everything that gathered meanwhile with one write before it stops. Under
// load, many answers go out in one system call; a lone answer goes out at once, on its
// sender's goroutine.
//
// Messages wait while more than maxUnwritten bytes are queued behind a write that has not
// finished: a client that does not read slows its requests down (backpressure), and a
// server never holds more than that for it. (Notifications that belong to no request, from
// AddTool or NotifyResourceUpdated, wait in the conversation's notifier, whose goroutine
// writes them.)
type lineWriter struct {
	w io.Writer

	mu        sync.Mutex
	room      sync.Cond // broadcast when a write ends
	unwritten []byte    // messages waiting for the write in progress to end, each with its newline
	spare     []byte    // the buffer of the last write, for reuse
	writing   bool      // a goroutine is writing, and writes unwritten before it stops
	err       error     // the write that failed; nothing is written after it
}

// maxUnwritten is how many bytes of messages about requests may wait behind a write in
// progress before their senders wait too.
const maxUnwritten = 1 << 20

// maxSpare is the largest write buffer kept for reuse.
const maxSpare = 256 << 10

func newLineWriter(w io.Writer) *lineWriter {
	lw := &lineWriter{w: w}
	lw.room.L = &lw.mu
	return lw
}

func (lw *lineWriter) send(msg []byte) error {
	lw.mu.Lock()
	if err := lw.add(msg); err != nil {
		lw.mu.Unlock()
		return err
	}
	if lw.writing {
		lw.mu.Unlock()
		return nil // the goroutine writing writes it
	}
	lw.writing = true
	err := lw.writeAll()
	lw.mu.Unlock()
	return err
}

// buffer adds an answer to the next write, without writing unless too much waits. Like
// send, it waits while a write in progress has maxUnwritten bytes behind it: a client that
// does not read stops the reader that serves it.
func (lw *lineWriter) buffer(msg []byte) error {
	lw.mu.Lock()
	if err := lw.add(msg); err != nil {
		lw.mu.Unlock()
		return err
	}
	if lw.writing || len(lw.unwritten) < maxUnwritten {
		lw.mu.Unlock()
		return nil
	}
	lw.writing = true
	err := lw.writeAll()
	lw.mu.Unlock()
	return err
}

// add appends msg as a line to what the next write writes, once a write in progress has
// fewer than maxUnwritten bytes behind it (backpressure), or returns the writer's error.
// lw.mu is held.
func (lw *lineWriter) add(msg []byte) error {
	for lw.writing && lw.err == nil && len(lw.unwritten) >= maxUnwritten {
		lw.room.Wait()
	}
	if lw.err != nil {
		return lw.err
	}
	lw.unwritten = append(append(lw.unwritten, msg...), '\n')
	return nil
}

// noteLater adds a notification that belongs to no request to the next write, unless
// maxUnwritten bytes wait already (then the notifier keeps it, within its bounds); it never
// waits. The notifier's drainer flushes.
func (lw *lineWriter) noteLater(msg []byte) bool {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.err != nil || len(lw.unwritten) >= maxUnwritten {
		return false
	}
	lw.unwritten = append(append(lw.unwritten, msg...), '\n')
	return true
}

// flush writes what is buffered, unless a write in progress will.
func (lw *lineWriter) flush() error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.writing || len(lw.unwritten) == 0 {
		return lw.err
	}
	lw.writing = true
	return lw.writeAll()
}

// writeAll writes what is unwritten, again and again until nothing is, and returns the
// error of the first write that failed. It is called with mu held and writing set by the
// caller, and returns with mu held and writing clear.
func (lw *lineWriter) writeAll() error {
	for len(lw.unwritten) > 0 && lw.err == nil {
		buf := lw.unwritten
		lw.unwritten = lw.spare[:0]
		lw.spare = nil
		lw.mu.Unlock()
		_, err := lw.w.Write(buf)
		lw.mu.Lock()
		if cap(buf) <= maxSpare {
			lw.spare = buf
		}
		if err != nil {
			lw.err = err
			lw.unwritten = nil
		}
		lw.room.Broadcast()
	}
	lw.writing = false
	return lw.err
}

// stop makes every later message fail to be sent, and reports whether a write is in
// progress (which its caller then abandons: interruptWrite).
func (lw *lineWriter) stop() bool {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.err == nil {
		lw.err = errConnClosed
		lw.unwritten = nil
		lw.room.Broadcast()
	}
	return lw.writing
}

// unread is how many bytes wait behind the write in progress: what a client that does not
// read leaves behind (a subscription is ended past a bound).
func (lw *lineWriter) unread() int {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return len(lw.unwritten)
}

// interruptWrite makes a blocked Write to w, and every later one, fail, if w offers a way:
// a write deadline (a pipe or socket the poller watches), else Close.
func interruptWrite(w io.Writer) {
	if d, ok := w.(interface{ SetWriteDeadline(time.Time) error }); ok && d.SetWriteDeadline(time.Now()) == nil {
		return
	}
	if c, ok := w.(io.Closer); ok {
		c.Close()
	}
}

// interruptRead makes a blocked Read on r return, if r offers a way.
func interruptRead(r io.Reader) {
	if d, ok := r.(interface{ SetReadDeadline(time.Time) error }); ok && d.SetReadDeadline(time.Now()) == nil {
		return
	}
	if c, ok := r.(io.Closer); ok {
		c.Close()
	}
}

// lineConn is a client's Connection over a pair of byte streams (a command's stdout and
// stdin, IOTransport's reader and writer).
type lineConn struct {
	name string
	r    io.Reader
	lr   *lineReader
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
	return lineConn{name: name, r: r, lr: newLineReader(r, 64<<20), w: w, wlock: make(chan struct{}, 1), closed: make(chan struct{})}
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
			interruptRead(c.r)
		})
	}
	msg, err := c.lr.readMessage()
	switch {
	case err == nil, err == io.EOF && len(msg) > 0: // a last line without a newline
		return msg, nil
	case err == errTooLarge:
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
	interruptRead(c.r)
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
	n, err := writeWithin(ctx, c.w, append(msg, '\n'))
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

// writeWithin writes p to w, and gives up when ctx ends if w takes write deadlines (an
// *os.File of a pipe, a net.Conn); other writers write as long as they block.
func writeWithin(ctx context.Context, w io.Writer, p []byte) (int, error) {
	d, ok := w.(interface{ SetWriteDeadline(time.Time) error })
	if !ok || d.SetWriteDeadline(time.Time{}) != nil { // the last write's deadline may have passed
		return w.Write(p)
	}
	if ctx.Done() == nil {
		return w.Write(p)
	}
	// The deadline moves to the past when ctx ends, unless the write is over by then: a
	// late move would cut short the next write.
	var mu sync.Mutex
	over := false
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if !over {
			d.SetWriteDeadline(time.Unix(1, 0))
		}
	})
	n, err := w.Write(p)
	stop()
	mu.Lock()
	over = true
	mu.Unlock()
	return n, err
}
