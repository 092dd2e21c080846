//go:build unix

package userfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, size int) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.Repeat("x", size)), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if data, err := ReadFile(write("max", MaxSize)); err != nil || len(data) != MaxSize {
		t.Errorf("a file of MaxSize: %d bytes, %v", len(data), err)
	}
	if _, err := ReadFile(write("over", MaxSize+1)); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "over: larger than 4 MiB") {
		t.Errorf("a file over MaxSize: %v", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{dir: "a directory", "/dev/zero": "a device", "/dev/null": "a device", fifo: "a named pipe"} {
		start := time.Now()
		_, err := ReadFile(path)
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "it is "+want) {
			t.Errorf("%s: %v, want it refused as %s", path, err, want)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("%s: refused after %v", path, d)
		}
	}
	if _, err := ReadFile(filepath.Join(dir, "none")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a file that is not there: %v", err)
	}
}
