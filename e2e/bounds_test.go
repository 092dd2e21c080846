package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
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

// serveEcho is a stdio server of one tool, echo, that stops on SIGTERM as a generated main
// does, with a ShutdownTimeout of one second.
func serveEcho() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s := mcp.NewServer(mcp.Implementation{Name: "echo", Version: "1.0.0"}, &mcp.ServerOptions{ShutdownTimeout: time.Second})
	s.AddTool(mcp.Tool{Name: "echo", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *mcp.ToolCall) {
		c.ReturnText(string(c.RawArguments()))
	}})
	if err := s.ServeStdio(ctx); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// A stdio server whose client sends requests and never reads the answers exits within its
// ShutdownTimeout of SIGTERM, not when the client closes the pipe.
func TestStdioServerExitsOnSIGTERMWhileNotRead(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "E2E_SERVER=echo")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe() // never read
	if err != nil {
		t.Fatal(err)
	}
	defer stdout.Close()
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		cmd.Process.Kill()
		<-exited
	}()
	// Answers of 64 kB each, far more than the pipe holds; the server stops reading once
	// they back up, so they are sent meanwhile.
	go func() {
		io.WriteString(stdin, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
		arg := strings.Repeat("z", 64<<10)
		for i := range 100 {
			if _, err := fmt.Fprintf(stdin, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"%s"}}}`+"\n", i+1, arg); err != nil {
				return
			}
		}
	}()
	time.Sleep(time.Second) // the server writes until its stdout is full
	termed := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		exited <- err // for the deferred wait
		if d := time.Since(termed); d < 900*time.Millisecond {
			t.Errorf("the server exited %v after SIGTERM, before its ShutdownTimeout: were its writes blocked?", d)
		}
		if err != nil {
			t.Errorf("the server exited with %v; stderr:\n%s", err, stderr.String())
		}
		if !strings.Contains(stderr.String(), "the client has not read its answers for 1s since the server began to stop; they are abandoned") {
			t.Errorf("the server did not say why it stopped writing:\n%s", stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("the server still runs 10s after SIGTERM (ShutdownTimeout 1s), its client not reading; stderr:\n%s", stderr.String())
	}
}
