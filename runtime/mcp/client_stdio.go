package mcp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// CommandTransport runs a server as a child process and speaks MCP over its standard input
// and output, one JSON-RPC message per line, as MCP clients run local servers. What the
// process writes to stderr is its log: it goes, line by line, to Stderr.
type CommandTransport struct {
	Command string
	Args    []string
	// Env holds KEY=value entries added to the client's own environment (and overriding
	// it), as .mcp.json's env does.
	Env []string
	// Dir is the process's working directory; "" for the client's.
	Dir string
	// Name names the server in logs and errors; the default is the command's base name.
	Name string
	// Stderr receives each line the process writes to stderr. The default logs it at level
	// Info to the client's logger, tagged with the server's name.
	Stderr func(line string)
	// Started, if set, is told the process's id once it runs (for a status page, say).
	Started func(pid int)
	// ShutdownGrace bounds each step of Close: after stdin is closed, the process has this
	// long to exit; then it gets SIGTERM, and as long again; then SIGKILL. The default is
	// two seconds.
	ShutdownGrace time.Duration
}

// stderrTail is how many of the last stderr lines an error about a process that died
// quotes.
const stderrTail = 20

type commandConn struct {
	lineConn
	t      *CommandTransport
	cmd    *exec.Cmd
	exited chan struct{} // closed once the process has been waited for
	err    error         // why the process exited, once exited is closed

	tmu  sync.Mutex
	tail []string // the last lines of stderr
}

// lineConn speaks newline-delimited JSON-RPC over a pair of byte streams.
type lineConn struct {
	name string
	sink clientSink
	w    io.WriteCloser
	// wlock holds a token while a message is written, one at a time: a lock that a writer
	// stops waiting for when its context ends or the connection closes.
	wlock     chan struct{}
	closed    chan struct{} // closed by closeWriter
	closeOnce sync.Once
	read      sync.WaitGroup
}

func newLineConn(name string, sink clientSink, w io.WriteCloser) lineConn {
	return lineConn{name: name, sink: sink, w: w, wlock: make(chan struct{}, 1), closed: make(chan struct{})}
}

func (t *CommandTransport) connect(ctx context.Context, sink clientSink) (clientConn, error) {
	if t.Command == "" {
		return nil, errors.New("mcp: CommandTransport has no Command")
	}
	name := t.Name
	if name == "" {
		name = filepath.Base(t.Command)
	}
	// The process outlives Connect's context: Close ends it.
	cmd := exec.Command(t.Command, t.Args...)
	cmd.Dir = t.Dir
	ownGroup(cmd)
	if len(t.Env) > 0 {
		cmd.Env = append(os.Environ(), t.Env...)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, connError(name, err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, connError(name, err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, connError(name, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, connError(name, transportFailure(fmt.Errorf("cannot start %s: %w", t.Command, err)))
	}
	if t.Started != nil {
		t.Started(cmd.Process.Pid)
	}
	c := &commandConn{lineConn: newLineConn(name, sink, stdin), t: t, cmd: cmd, exited: make(chan struct{})}
	c.read.Add(2)
	go c.readLines(stdout)
	go c.readStderr(stderr)
	go func() {
		c.read.Wait() // Wait closes the pipes: read them to the end first
		c.err = cmd.Wait()
		// The client hears that the connection is gone before a write can find the
		// process exited (send): a call that fails for that finds Err set, and a host
		// knows the connection was lost.
		sink.broken(c.exitError())
		close(c.exited)
	}()
	return c, nil
}

// readLines hands each line the server writes to the client, which ignores (and counts)
// those that are not JSON-RPC messages.
func (c *lineConn) readLines(r io.Reader) {
	defer c.read.Done()
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := readLine(br, 64<<20)
		if len(line) > 0 {
			c.sink.deliver(line)
		}
		if err == errTooLarge {
			c.logger("mcp: the server wrote a message larger than 64 MiB; it was skipped")
			continue
		}
		if err != nil {
			return
		}
	}
}

func (c *lineConn) logger(msg string, args ...any) {
	if cl, ok := c.sink.(*Client); ok {
		cl.logger.Warn(msg, append([]any{"server", c.name}, args...)...)
	}
}

// readLine reads one line into a new slice, without the white space around it. A line
// longer than max is consumed and reported as errTooLarge.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	tooLarge := false
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLarge && len(line)+len(chunk) > max {
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

func (c *commandConn) readStderr(r io.Reader) {
	defer c.read.Done()
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		c.tmu.Lock()
		c.tail = append(c.tail, line)
		if len(c.tail) > stderrTail {
			c.tail = c.tail[len(c.tail)-stderrTail:]
		}
		c.tmu.Unlock()
		if c.t.Stderr != nil {
			c.t.Stderr(line)
		} else if cl, ok := c.sink.(*Client); ok {
			cl.logger.Info(line, "server", c.name, "stream", "stderr")
		}
	}
	io.Copy(io.Discard, r) // a line too long ends the scanner; the pipe is still read
}

// exitError says how the process ended, with the last lines it wrote to stderr.
func (c *commandConn) exitError() error {
	status := "exited"
	var ee *exec.ExitError
	switch {
	case errors.As(c.err, &ee) && ee.Exited():
		status = fmt.Sprintf("exited with status %d", ee.ExitCode())
	case errors.As(c.err, &ee):
		status = "was stopped (" + ee.String() + ")"
	case c.err != nil:
		status = "failed: " + c.err.Error()
	}
	c.tmu.Lock()
	tail := strings.Join(c.tail, "\n")
	c.tmu.Unlock()
	msg := fmt.Sprintf("the server process %s (%s)", status, c.t.Command)
	if tail != "" {
		msg += "; the last lines of its stderr:\n" + tail
	}
	return connError(c.name, transportFailure(errors.New(msg)))
}

func (c *commandConn) send(ctx context.Context, msg []byte, rq *outgoing) error {
	select {
	case <-c.exited:
		return c.exitError()
	default:
	}
	err := c.lineConn.send(ctx, msg, rq)
	if err != nil {
		// A write fails when the process has gone: say why it went (its exit status and
		// stderr), which it will have said by the time its pipes are read to the end.
		t := time.NewTimer(time.Second)
		defer t.Stop()
		select {
		case <-c.exited:
			return c.exitError()
		case <-t.C:
		case <-ctx.Done():
		}
	}
	return err
}

// send writes one message, giving up when ctx ends: a server that does not read holds a
// write no longer than its caller waits (where the writer takes deadlines, as pipes and
// sockets do). A message given up on midway leaves a line the server cannot read, and
// every message after it unread: the connection is broken then.
func (c *lineConn) send(ctx context.Context, msg []byte, rq *outgoing) error {
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
		c.closeWriter()
		c.sink.broken(err)
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

func (c *lineConn) negotiated(string, bool) {}
func (c *lineConn) headers() bool           { return false }

// close ends the process as the lifecycle page says: close its stdin and wait; then
// SIGTERM and wait; then SIGKILL. It returns once the process has been waited for.
func (c *commandConn) close() error {
	grace := c.t.ShutdownGrace
	if grace <= 0 {
		grace = 2 * time.Second
	}
	c.closeWriter()
	wait := func() bool {
		select {
		case <-c.exited:
			return true
		case <-time.After(grace):
			return false
		}
	}
	if !wait() {
		signalGroup(c.cmd, syscall.SIGTERM)
		if !wait() {
			signalGroup(c.cmd, syscall.SIGKILL)
			<-c.exited
		}
	}
	return nil
}

func clip(b []byte, n int) []byte {
	if len(b) > n {
		return append(b[:n:n], "..."...)
	}
	return b
}

// IOTransport speaks MCP over byte streams a program already has (a socket, a pair of
// pipes): newline-delimited JSON-RPC read from Reader and written to Writer. Close closes
// both.
type IOTransport struct {
	Reader io.ReadCloser
	Writer io.WriteCloser
	// Name names the server in logs and errors; the default is "server".
	Name string
}

type ioConn struct {
	lineConn
	r io.ReadCloser
}

func (t *IOTransport) connect(ctx context.Context, sink clientSink) (clientConn, error) {
	if t.Reader == nil || t.Writer == nil {
		return nil, errors.New("mcp: IOTransport needs a Reader and a Writer")
	}
	name := t.Name
	if name == "" {
		name = "server"
	}
	c := &ioConn{lineConn: newLineConn(name, sink, t.Writer), r: t.Reader}
	c.read.Add(1)
	go func() {
		c.readLines(t.Reader)
		sink.broken(connError(name, transportFailure(errors.New("the server closed the connection"))))
	}()
	return c, nil
}

func (c *ioConn) close() error {
	err := c.closeWriter()
	c.r.Close()
	c.read.Wait()
	return err
}
