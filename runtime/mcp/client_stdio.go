package mcp

import (
	"bufio"
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
