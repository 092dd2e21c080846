package mcp

import (
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
	return s.serveStream(ctx, cancel, newLineReader(in, s.opts.MaxMessageSize), out, TransportStdio)
}
