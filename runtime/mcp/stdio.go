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
	// A client that closes its end of stdout makes the next write fail with EPIPE, which
	// ends Serve with an error, rather than kill the process with SIGPIPE mid-request.
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	defer signal.Stop(pipe)
	return s.Serve(ctx, in, os.Stdout)
}

// Serve serves one session over a byte stream of newline-delimited JSON-RPC messages: it
// reads requests and notifications from r and writes responses to w, one message per line.
// Requests are served concurrently; each response is written whole, never interleaved.
//
// Serve returns nil when r reaches EOF, after every request in progress has been answered.
// When ctx is cancelled it cancels the requests in progress, waits for them and returns the
// context's error; a blocked read is interrupted if r supports read deadlines or is an
// io.Closer. If writing to w fails, Serve stops the same way and returns that error.
func (s *Server) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	out := newLineWriter(w, cancel)
	defer out.close() // everything answered is written before Serve returns
	stop := context.AfterFunc(ctx, func() { interruptRead(r) })
	defer stop()
	return s.serveStream(ctx, cancel, &lineReader{br: bufio.NewReaderSize(r, 64<<10), max: s.opts.MaxMessageSize}, out)
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

// lineWriter writes whole messages, one per line, one at a time. Messages about requests are
// written by the goroutine that sends them (a slow client slows the request down: that is
// backpressure). Notifications that belong to no request, from AddTool or
// NotifyResourceUpdated, are written by a goroutine of the writer's, so that no registration
// or update waits for a client to read.
type lineWriter struct {
	mu     sync.Mutex
	w      io.Writer
	err    error
	failed func(error)

	qmu      sync.Mutex
	queued   [][]byte
	draining bool
	closed   bool
	drained  sync.WaitGroup
}

func newLineWriter(w io.Writer, failed func(error)) *lineWriter {
	return &lineWriter{w: w, failed: failed}
}

func (lw *lineWriter) send(msg []byte) error {
	msg = append(msg, '\n') // the writer owns msg
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.err != nil {
		return lw.err
	}
	if _, err := lw.w.Write(msg); err != nil {
		lw.err = err
		lw.failed(err)
		return err
	}
	return nil
}

func (lw *lineWriter) reply(msg []byte) error { return lw.send(msg) }

// queue queues a notification that belongs to no request and returns at once: a goroutine
// of the writer's writes it.
func (lw *lineWriter) queue(msg []byte) {
	lw.qmu.Lock()
	defer lw.qmu.Unlock()
	if lw.closed {
		return
	}
	lw.queued = append(lw.queued, msg)
	if !lw.draining {
		lw.draining = true
		lw.drained.Add(1)
		go lw.drain()
	}
}

func (lw *lineWriter) drain() {
	defer lw.drained.Done()
	for {
		lw.qmu.Lock()
		batch := lw.queued
		lw.queued = nil
		if len(batch) == 0 {
			lw.draining = false
			lw.qmu.Unlock()
			return
		}
		lw.qmu.Unlock()
		for _, msg := range batch {
			lw.send(msg)
		}
	}
}

// close writes the queued notifications; nothing is queued after it.
func (lw *lineWriter) close() {
	lw.qmu.Lock()
	lw.closed = true
	lw.qmu.Unlock()
	lw.drained.Wait()
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
