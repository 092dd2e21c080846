package mcp

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp/internal/lines"
)

// ServeStdio serves one session over the process's standard input and output, as an MCP
// client that launched the server as a subprocess expects. See Serve for when it returns.
// Nothing but protocol messages is written to stdout; logs go to stderr.
func (s *Server) ServeStdio(ctx context.Context) error {
	in, release := openStdin()
	defer release()
	out, releaseOut := openStdout()
	defer releaseOut()
	// A client that closes its end of stdout makes the next write fail with EPIPE, which
	// ends Serve with an error, rather than kill the process with SIGPIPE mid-request.
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	defer signal.Stop(pipe)
	err := s.Serve(ctx, in, out)
	// The process's one conversation is over: so are its tasks, which nobody can reach now.
	stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.opts.ShutdownTimeout)
	defer cancel()
	s.Shutdown(stop)
	return err
}

// Serve serves one session over a byte stream of newline-delimited JSON-RPC messages: it
// reads requests and notifications from r and writes responses to w, one message per line.
// Requests are served concurrently; each response is written whole, never interleaved.
//
// Serve returns nil when r reaches EOF, after every request in progress has been answered.
// When ctx is cancelled it cancels the requests in progress, waits for them and returns the
// context's error; a blocked read is interrupted if r supports read deadlines or is an
// io.Closer. A client that does not read what is still to be written gets
// ServerOptions.ShutdownTimeout to start again; then a blocked write is abandoned, if w
// supports write deadlines or is an io.Closer whose Close ends it. If writing to w fails,
// Serve stops the same way and returns that error. Notifications still queued for a client
// when r reaches EOF are written within ShutdownTimeout, or abandoned. r and w are the
// caller's, left open. Serve is ServeConn on a Connection of lines over r and w.
func (s *Server) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	return s.serveConn(ctx, newStdioConn(r, w, s.opts.MaxMessageSize, false), ownStdio)
}

// stdioConn is the server's Connection over a pair of byte streams of newline-delimited
// messages (Serve, ServeStdio). It reads lines with lines.Reader and writes them with the
// combining lines.Writer, which ServeConn uses as it is (serverOutbox): the answers of
// requests served inline are buffered and go out before the next read of r waits for
// input (lines.FlushFirst), many in one write.
type stdioConn struct {
	r   io.Reader
	w   io.Writer
	lr  *lines.Reader
	lw  *lines.Writer
	own bool // Close closes w (the other side reads io.EOF); Serve's streams are its caller's

	mu        sync.Mutex
	watching  context.Context // the context of the reads, whose end interrupts them
	stopWatch func() bool
	reading   bool
	closed    bool
}

func newStdioConn(r io.Reader, w io.Writer, max int, own bool) *stdioConn {
	lw := lines.NewWriter(w)
	return &stdioConn{r: r, w: w, lr: lines.NewReader(lines.FlushFirst{R: r, Out: lw}, max, idPrefix), lw: lw, own: own}
}

func (c *stdioConn) TransportName() string { return TransportStdio }

// WriteLater, NoteLater and Flush make it a LaterWriter: the answers of requests served
// inline gather until the reader would wait for input (lines.FlushFirst).
func (c *stdioConn) WriteLater(msg []byte) error { return c.lw.Buffer(msg) }
func (c *stdioConn) NoteLater(msg []byte) bool   { return c.lw.NoteLater(msg) }
func (c *stdioConn) Flush() error                { return c.lw.Flush() }

// Unread is how many bytes wait behind the write in progress (Backlogger).
func (c *stdioConn) Unread() int { return c.lw.Unread() }

// Read reads the next line. When ctx ends, the read in progress is interrupted, if r
// takes read deadlines or closes (lines.InterruptRead).
func (c *stdioConn) Read(ctx context.Context) ([]byte, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, errConnClosed
	}
	if ctx != c.watching && ctx.Done() != nil {
		if c.stopWatch != nil && !c.stopWatch() {
			// The last context ended and interrupted reading: one read with another
			// (which the contract does not ask of a caller) reads again.
			if d, ok := c.r.(interface{ SetReadDeadline(time.Time) error }); ok {
				d.SetReadDeadline(time.Time{})
			}
		}
		c.watching = ctx
		c.stopWatch = context.AfterFunc(ctx, func() { lines.InterruptRead(c.r) })
	}
	c.reading = true
	c.mu.Unlock()
	msg, err := c.lr.ReadMessage()
	c.mu.Lock()
	c.reading = false
	c.mu.Unlock()
	switch {
	case err == nil, err == io.EOF && len(msg) > 0: // a last line without a newline
		return msg, nil
	case err == lines.ErrTooLong:
		return msg, fmt.Errorf("mcp: a line longer than %d bytes was skipped: %w", c.lr.Max(), ErrMessageTooLarge)
	case err != io.EOF && ctx.Err() != nil:
		return nil, context.Cause(ctx)
	}
	return nil, err
}

// Write writes one message, combined with the others waiting (lines.Writer.Send). A
// Write whose ctx has ended writes nothing.
func (c *stdioConn) Write(ctx context.Context, msg []byte) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("mcp: writing to stdio: %w", context.Cause(ctx))
	}
	return c.lw.Send(msg)
}

// Close makes the write in progress, and every later one, fail (lines.Writer.Stop) and
// interrupts a read in progress; then, if the connection owns w, closes it. Streams of
// Serve's caller are left open, and untouched when nothing is in progress.
func (c *stdioConn) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	if c.stopWatch != nil {
		c.stopWatch()
	}
	reading := c.reading
	c.mu.Unlock()
	writing := c.lw.Stop(errConnClosed)
	if reading {
		lines.InterruptRead(c.r)
	}
	if wc, ok := c.w.(io.Closer); ok && c.own {
		return wc.Close()
	}
	if writing {
		lines.InterruptWrite(c.w)
	}
	return nil
}
