//go:build unix

package oauth

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/userfile"
)

// The token store reads tokens.json as a regular file of at most 4 MiB: a FIFO in its place
// is an error at once, not a wait for a writer, and a larger file an error that says so.
func TestFileStoreReadsOnlyBoundedRegularFiles(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.json")
	os.WriteFile(big, []byte(`{"x": "`+strings.Repeat("x", userfile.MaxSize)+`"}`), 0o600)
	if _, err := (&FileStore{Path: big}).Token(context.Background(), "https://mcp.example.com"); !errors.Is(err, userfile.ErrTooLarge) {
		t.Errorf("tokens over 4 MiB: %v", err)
	}
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := (&FileStore{Path: fifo}).Token(context.Background(), "https://mcp.example.com")
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, userfile.ErrNotRegular) {
			t.Errorf("tokens in a FIFO: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Error("reading tokens from a FIFO waits for a writer")
		for { // a writer ends the read, so that nothing is left waiting
			if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				w.Close()
			}
			select {
			case <-done:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
}
