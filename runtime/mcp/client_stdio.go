package mcp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
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
	read   sync.WaitGroup // stdout and stderr, each read to its end before the process is waited for
	stdout sync.Once      // read.Done for stdout
	exited chan struct{}  // closed once the process has been waited for
	err    error          // why the process exited, once exited is closed
	log    *slog.Logger   // the client's, for stderr's lines when Stderr is not set

	tmu  sync.Mutex
	tail []string // the last lines of stderr
}

// Connect starts the process. It lives until the connection is closed (Close ends it) or
// it exits: Connect's context bounds nothing after the start.
func (t *CommandTransport) Connect(ctx context.Context) (Connection, error) {
	if t.Command == "" {
		return nil, errors.New("mcp: CommandTransport has no Command")
	}
	name := t.Name
	if name == "" {
		name = filepath.Base(t.Command)
	}
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
	c := &commandConn{lineConn: newLineConn(name, stdout, stdin), t: t, cmd: cmd, exited: make(chan struct{}), log: loggerFrom(ctx)}
	c.read.Add(2)
	go c.readStderr(stderr)
	go func() {
		c.read.Wait() // Wait closes the pipes: read them to the end first
		c.err = cmd.Wait()
		close(c.exited)
	}()
	return c, nil
}

// Read returns the next line the process writes to stdout. Once stdout ends, it waits for
// the process to exit and says how it ended (its status and the last lines of its stderr).
func (c *commandConn) Read(ctx context.Context) ([]byte, error) {
	msg, err := c.readMessage(ctx)
	if err == nil || errors.Is(err, ErrMessageTooLarge) {
		return msg, err
	}
	if err != io.EOF {
		// Nobody reads stdout from now on (the reader gave up, or a write broke the
		// conversation): it is read to its end, so that the process is not held writing,
		// and can be waited for.
		c.stdout.Do(func() {
			go func() {
				defer c.read.Done()
				if d, ok := c.r.(interface{ SetReadDeadline(time.Time) error }); ok {
					d.SetReadDeadline(time.Time{})
				}
				io.Copy(io.Discard, c.r)
			}()
		})
		return nil, err
	}
	c.stdout.Do(c.read.Done)
	select {
	case <-c.exited:
		return nil, c.exitError()
	case <-ctx.Done():
		return nil, ctx.Err()
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
		} else {
			c.log.Info(line, "server", c.name, "stream", "stderr")
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

// Write writes one line to the process's stdin.
func (c *commandConn) Write(ctx context.Context, msg []byte) error {
	select {
	case <-c.exited:
		return c.exitError()
	default:
	}
	err := c.lineConn.Write(ctx, msg)
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

// Close ends the process as the lifecycle page says: close its stdin and wait; then
// SIGTERM and wait; then SIGKILL. It returns once the process has been waited for.
func (c *commandConn) Close() error {
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
	rc io.ReadCloser
}

// Connect returns the connection over the reader and writer; it reads and writes nothing
// yet.
func (t *IOTransport) Connect(ctx context.Context) (Connection, error) {
	if t.Reader == nil || t.Writer == nil {
		return nil, errors.New("mcp: IOTransport needs a Reader and a Writer")
	}
	name := t.Name
	if name == "" {
		name = "server"
	}
	return &ioConn{lineConn: newLineConn(name, t.Reader, t.Writer), rc: t.Reader}, nil
}

// Read returns the next line; io.EOF when the reader ends.
func (c *ioConn) Read(ctx context.Context) ([]byte, error) { return c.readMessage(ctx) }

// Close closes the writer and the reader.
func (c *ioConn) Close() error {
	err := c.closeWriter()
	c.rc.Close()
	return err
}
