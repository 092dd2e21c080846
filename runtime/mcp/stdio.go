package mcp

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
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
	return s.Serve(ctx, in, out)
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
// Serve stops the same way and returns that error.
func (s *Server) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	out := newLineWriter(w, cancel)
	var mu sync.Mutex
	var abandon *time.Timer // started when ctx ends
	served := false
	stop := context.AfterFunc(ctx, func() {
		interruptRead(r)
		mu.Lock()
		defer mu.Unlock()
		if served {
			return
		}
		abandon = time.AfterFunc(s.opts.ShutdownTimeout, func() {
			mu.Lock()
			defer mu.Unlock()
			if !served && out.abandon() {
				s.logger.Warn("mcp: the client has not read its answers for " + s.opts.ShutdownTimeout.String() + " since the server began to stop; they are abandoned")
			}
		})
	})
	defer func() { // after out.close, which the abandonment may be what lets return
		stop()
		mu.Lock()
		served = true
		if abandon != nil {
			abandon.Stop()
		}
		mu.Unlock()
	}()
	defer out.close() // everything answered is written before Serve returns
	// Answers buffered by requests served inline go out before the reader waits for input.
	in := flushFirst{r, out}
	return s.serveStream(ctx, cancel, &lineReader{br: bufio.NewReaderSize(in, 64<<10), max: s.opts.MaxMessageSize}, out, TransportStdio)
}

// flushFirst writes the answers buffered in out before each read of r: the reader has
// handled everything it read by then.
type flushFirst struct {
	r   io.Reader
	out *lineWriter
}

func (f flushFirst) Read(p []byte) (int, error) {
	f.out.flush()
	return f.r.Read(p)
}

// lineReader reads newline-delimited messages.
type lineReader struct {
	br  *bufio.Reader
	max int
}

// readMessage reads one line into a new slice (requests outlive the read buffer), without
// the white space around it. A line longer than max is consumed and reported as
// errTooLarge.
func (lr *lineReader) readMessage() ([]byte, error) {
	var line []byte
	tooLarge := false
	for {
		chunk, err := lr.br.ReadSlice('\n')
		if !tooLarge && len(line)+len(chunk) > lr.max {
			tooLarge, line = true, nil
		}
		if !tooLarge {
			line = append(line, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if tooLarge && err == nil {
			return nil, errTooLarge
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
// Messages about requests (send, reply) wait while more than maxUnwritten bytes are queued
// behind a write that has not finished: a client that does not read slows its requests
// down (backpressure), and a server never holds more than that for it. Notifications that
// belong to no request, from AddTool or NotifyResourceUpdated, never wait (queue): a
// goroutine of the writer's writes them, so that no registration or update waits for a
// client to read.
type lineWriter struct {
	w      io.Writer
	failed func(error)

	mu        sync.Mutex
	room      sync.Cond // broadcast when a write ends
	unwritten []byte    // messages waiting for the write in progress to end, each with its newline
	spare     []byte    // the buffer of the last write, for reuse
	writing   bool      // a goroutine is writing, and writes unwritten before it stops
	err       error     // the write that failed; nothing is written after it
	closed    bool      // nothing more is queued
	drained   sync.WaitGroup
}

// maxUnwritten is how many bytes of messages about requests may wait behind a write in
// progress before their senders wait too.
const maxUnwritten = 1 << 20

// maxSpare is the largest write buffer kept for reuse.
const maxSpare = 256 << 10

func newLineWriter(w io.Writer, failed func(error)) *lineWriter {
	lw := &lineWriter{w: w, failed: failed}
	lw.room.L = &lw.mu
	return lw
}

func (lw *lineWriter) send(msg []byte) error {
	lw.mu.Lock()
	for lw.writing && lw.err == nil && len(lw.unwritten) >= maxUnwritten {
		lw.room.Wait()
	}
	if lw.err != nil {
		err := lw.err
		lw.mu.Unlock()
		return err
	}
	lw.unwritten = append(append(lw.unwritten, msg...), '\n')
	if lw.writing {
		lw.mu.Unlock()
		return nil // the goroutine writing writes it
	}
	lw.writing = true
	err := lw.writeAll()
	lw.mu.Unlock()
	return err
}

func (lw *lineWriter) reply(msg []byte) error { return lw.send(msg) }

// buffer adds an answer to the next write, without writing unless too much waits. Like
// send, it waits while a write in progress has maxUnwritten bytes behind it: a client that
// does not read stops the reader that serves it.
func (lw *lineWriter) buffer(msg []byte) error {
	lw.mu.Lock()
	for lw.writing && lw.err == nil && len(lw.unwritten) >= maxUnwritten {
		lw.room.Wait()
	}
	if lw.err != nil {
		err := lw.err
		lw.mu.Unlock()
		return err
	}
	lw.unwritten = append(append(lw.unwritten, msg...), '\n')
	if lw.writing || len(lw.unwritten) < maxUnwritten {
		lw.mu.Unlock()
		return nil
	}
	lw.writing = true
	err := lw.writeAll()
	lw.mu.Unlock()
	return err
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
			lw.failed(err)
		}
		lw.room.Broadcast()
	}
	lw.writing = false
	return lw.err
}

// queue queues a notification that belongs to no request and returns at once: the write in
// progress writes it, or a goroutine of the writer's.
func (lw *lineWriter) queue(msg []byte) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.closed || lw.err != nil {
		return
	}
	lw.unwritten = append(append(lw.unwritten, msg...), '\n')
	if !lw.writing {
		lw.writing = true
		lw.drained.Add(1)
		go func() {
			defer lw.drained.Done()
			lw.mu.Lock()
			lw.writeAll()
			lw.mu.Unlock()
		}()
	}
}

// abandon makes the write in progress, and every later one, fail (as far as the writer
// lets it: interruptWrite), and reports whether a write was in progress.
func (lw *lineWriter) abandon() bool {
	lw.mu.Lock()
	writing := lw.writing
	lw.mu.Unlock()
	interruptWrite(lw.w)
	return writing
}

// unread is how many bytes wait behind the write in progress: what a client that does not
// read leaves behind (a subscription is ended past a bound).
func (lw *lineWriter) unread() int {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return len(lw.unwritten)
}

// close waits for the queued notifications to be written; nothing is queued after it.
// Messages about requests are written by their senders, who have returned by then.
func (lw *lineWriter) close() {
	lw.mu.Lock()
	lw.closed = true
	lw.mu.Unlock()
	lw.drained.Wait()
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
