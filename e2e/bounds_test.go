package e2e

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A stdio server whose client closed its stdout exits with an error of its own at its
// first answer, not killed by SIGPIPE.
func TestStdioServerWithStdoutClosed(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, weatherBin)
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = outW
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, _ := cmd.StdinPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	outW.Close()
	outR.Close() // nobody reads the server's answers
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
	err = cmd.Wait()
	stdin.Close()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("the server exited with %v, want an error status", err)
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		t.Errorf("the server was killed by %v; stderr: %s", ws.Signal(), stderr.String())
	}
	if !strings.Contains(stderr.String(), "broken pipe") {
		t.Errorf("the server did not say why it stopped: %q", stderr.String())
	}
}

// mcpgen servers against a stdio server that writes what is not JSON-RPC and never reads
// ends within its connect timeout with a one-line reason, writes a bounded number of
// warnings, and leaves no process behind: the client answers none of the garbage (its
// answers filled the server's stdin and hung both), counts it, and gives up on a server
// that writes nothing else.
func TestHostGarbageServer(t *testing.T) {
	t.Parallel()
	script, err := filepath.Abs("testdata/garbage-server.sh")
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range []struct{ mode, reason string }{
		{"flood", `the server wrote 1000 lines that are not JSON-RPC, and nothing else; the last: "{garbage, not JSON-RPC"`},
		{"text", `the server wrote 1000 lines that are not JSON-RPC, and nothing else; the last: "a line of text`},
		{"some", `no answer within 3s (the connect timeout)`},
	} {
		t.Run(c.mode, func(t *testing.T) {
			t.Parallel()
			marker := strconv.Itoa(os.Getpid()) + "2" + strconv.Itoa(i) // a sleep nobody else runs
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, mcpgenBin, "servers", "--connect-timeout", "3s", "--name", "garbage", "--stdio", "sh '"+script+"' "+c.mode+" "+marker)
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			begun := time.Now()
			err := cmd.Run()
			took := time.Since(begun)
			if ctx.Err() != nil {
				t.Fatalf("mcpgen servers still runs after 30s with a connect timeout of 3s")
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 {
				t.Errorf("exit: %v, want status 1", err)
			}
			// Connect timeout, then a second for the server to exit with its stdin closed,
			// then SIGTERM; a loaded machine gets a few more.
			if took > 8*time.Second {
				t.Errorf("mcpgen servers took %s with a connect timeout of 3s", took)
			}
			if want := "\nserver garbage failed: " + c.reason; !strings.Contains(stdout.String(), want) {
				t.Errorf("output does not say %s:\n%s", want, stdout.String())
			}
			if n := strings.Count(stderr.String(), "\n"); n > 8 {
				t.Errorf("%d lines on stderr without -v:\n%.3000s", n, stderr.String())
			}
			if out, err := exec.Command("pgrep", "-f", "sleep "+marker).Output(); err == nil {
				t.Errorf("the server outlived mcpgen: %s", out)
			}
		})
	}
}
