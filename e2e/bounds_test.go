package e2e

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
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
