package e2e

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// mcpgen's client when its server goes away mid-call: every waiting call returns a clear
// error within a second, and Close leaves no goroutine of the client's behind. These tests
// run alone (not in parallel), so that the goroutines they count are their own.

// clientGoroutines returns the stacks of the goroutines running code of mcpgen's runtime,
// which a test of the client starts: none may outlive the client.
func clientGoroutines() []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var found []string
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		if bytes.Contains(g, []byte("mcpgen/runtime/mcp.")) && !bytes.Contains(g, []byte("e2e.clientGoroutines")) {
			found = append(found, string(g))
		}
	}
	return found
}

// noClientGoroutines fails the test if goroutines of the runtime are still running a
// moment after the client closed.
func noClientGoroutines(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		left := clientGoroutines()
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines of the runtime left after Close:\n%s", len(left), strings.Join(left, "\n\n"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// callsFailFast starts calls of test_slow that would take a minute, runs kill, and checks
// that each call returns an error within a second, saying why.
func callsFailFast(t *testing.T, c *mcp.Client, kill func(), why string) {
	t.Helper()
	const calls = 3
	errs := make(chan error, calls)
	var started sync.WaitGroup
	started.Add(calls)
	for range calls {
		go func() {
			once := sync.Once{}
			ctx := mcp.WithProgress(context.Background(), func(mcp.ProgressNotice) { once.Do(started.Done) })
			_, err := c.CallTool(ctx, "test_slow", map[string]any{"milliseconds": 60000})
			errs <- err
		}()
	}
	started.Wait() // every call is running: it has reported progress
	kill()
	deadline := time.After(time.Second)
	for range calls {
		select {
		case err := <-errs:
			if err == nil || !strings.Contains(err.Error(), why) {
				t.Errorf("a call whose server went away returned %v, want an error saying %q", err, why)
			}
		case <-deadline:
			t.Fatal("a call whose server went away was still waiting after a second")
		}
	}
}

func TestClientWhenAStdioServerDies(t *testing.T) {
	for _, version := range []string{"", "2025-11-25"} {
		t.Run("version "+version, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "pid")
			c, err := mcp.Connect(context.Background(), &mcp.CommandTransport{
				Command: "sh", Args: []string{"-c", `echo $$ > "$0"; exec "$1"`, pidFile, everythingBin},
				Name: "everything",
			}, &mcp.ClientOptions{ProtocolVersion: version, Logger: quietLogger()})
			if err != nil {
				t.Fatal(err)
			}
			pidText, _ := os.ReadFile(pidFile)
			pid, _ := strconv.Atoi(strings.TrimSpace(string(pidText)))
			callsFailFast(t, c, func() { syscall.Kill(pid, syscall.SIGKILL) }, "signal: killed")
			if _, err := c.ListTools(context.Background()); err == nil || !strings.Contains(err.Error(), "signal: killed") {
				t.Errorf("a request after the server died: %v", err)
			}
			select {
			case <-c.Done():
				if err := c.Err(); !errors.Is(err, mcp.ErrTransport) || !strings.Contains(err.Error(), "signal: killed") {
					t.Errorf("Err after the server died: %v", err)
				}
			case <-time.After(time.Second):
				t.Error("Done not closed after the server died")
			}
			if err := c.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			noClientGoroutines(t)
		})
	}
}

func TestClientWhenAnHTTPServerStops(t *testing.T) {
	for _, version := range []string{"", "2025-11-25"} {
		t.Run("version "+version, func(t *testing.T) {
			cmd := exec.Command(everythingBin, "-http", "127.0.0.1:0")
			var stderr lockedBuffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() {
				cmd.Process.Kill()
				cmd.Wait()
			}()
			var url string
			for i := 0; i < 100 && url == ""; i++ {
				time.Sleep(50 * time.Millisecond)
				if _, after, ok := strings.Cut(stderr.String(), "serving MCP at "); ok {
					url = strings.TrimSpace(after)
				}
			}
			if url == "" {
				t.Fatalf("the server did not start: %s", stderr.String())
			}
			c, err := mcp.Connect(context.Background(), &mcp.StreamableHTTPTransport{URL: url}, &mcp.ClientOptions{ProtocolVersion: version, Logger: quietLogger()})
			if err != nil {
				t.Fatal(err)
			}
			callsFailFast(t, c, func() { cmd.Process.Kill() }, "stream")
			c.Close()
			noClientGoroutines(t)
		})
	}
}

// The client's errors name the server and say what happened: a command that does not exist,
// a process that exits at once with something on stderr, a URL nothing listens at.
func TestClientConnectErrors(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := mcp.Connect(ctx, &mcp.CommandTransport{Command: "/no/such/server"}, nil)
	if err == nil || !strings.Contains(err.Error(), "/no/such/server") {
		t.Errorf("a missing command: %v", err)
	}
	_, err = mcp.Connect(ctx, &mcp.CommandTransport{Command: "sh", Args: []string{"-c", "echo cannot open the database >&2; exit 3"}, Name: "db"}, &mcp.ClientOptions{Logger: quietLogger()})
	if err == nil || !strings.Contains(err.Error(), "db") || !strings.Contains(err.Error(), "exited with status 3") || !strings.Contains(err.Error(), "cannot open the database") {
		t.Errorf("a server that exits at once: %v", err)
	}
	_, err = mcp.Connect(ctx, &mcp.StreamableHTTPTransport{URL: "http://127.0.0.1:1/mcp"}, nil)
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Errorf("nothing listening: %v", err)
	}
	noClientGoroutines(t)
}

// A server that writes something other than JSON-RPC to stdout is reported, with the line;
// the messages around it still count.
func TestClientReportsNonJSONOnStdout(t *testing.T) {
	var logs lockedBuffer
	script := `echo "starting up..."; exec "$0"`
	c, err := mcp.Connect(context.Background(), &mcp.CommandTransport{Command: "sh", Args: []string{"-c", script, everythingBin}, Name: "noisy"},
		&mcp.ClientOptions{Logger: textLogger(&logs)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ListTools(context.Background()); err != nil {
		t.Fatal(err)
	}
	if out := logs.String(); !strings.Contains(out, "starting up...") || !strings.Contains(out, "a line that is not JSON-RPC, ignored (servers must log to stderr") || !strings.Contains(out, "noisy") {
		t.Errorf("the log says:\n%s", out)
	}
}

func textLogger(w io.Writer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }
