//go:build unix

package host

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/userfile"
)

// A repository's .mcp.json may be anything git keeps: a symbolic link to /dev/zero, which
// read whole grows until memory runs out, or (made after a clone, by a script) a FIFO, whose
// open waits for a writer for ever. LoadConfig reads before anything is approved, so it
// refuses both, a directory, and a file over 4 MiB, at once and saying what the path is.
// The link to /dev/zero is read by a child process that stops itself past 512 MiB of heap,
// so that a failure does not take the machine's memory.
func TestLoadConfigReadsOnlyBoundedRegularFiles(t *testing.T) {
	if path := os.Getenv("HOST_TEST_LOAD"); path != "" {
		go stopPast(512 << 20)
		_, err := LoadConfig(path)
		if err == nil {
			os.Stdout.WriteString("read without an error\n")
			os.Exit(3)
		}
		os.Stdout.WriteString("refused: " + err.Error() + "\n")
		os.Exit(0)
	}
	dir := t.TempDir()
	zero := filepath.Join(dir, "zero.json")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestLoadConfigReadsOnlyBoundedRegularFiles$")
	cmd.Env = append(os.Environ(), "HOST_TEST_LOAD="+zero)
	out, err := runFor(t, cmd, 30*time.Second)
	if err != nil || !strings.Contains(out, "refused: read "+zero+": only regular files are read: it is a device") {
		t.Errorf("a .mcp.json linked to /dev/zero: %v\n%s", err, out)
	}

	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, []byte(`{"mcpServers": {}, "x": "`+strings.Repeat("x", userfile.MaxSize)+`"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadConfig(big); !errors.Is(err, userfile.ErrTooLarge) || !strings.Contains(err.Error(), "larger than 4 MiB") {
		t.Errorf("a .mcp.json over 4 MiB: %v", err)
	}
	if _, err := LoadConfig(dir); !errors.Is(err, userfile.ErrNotRegular) || !strings.Contains(err.Error(), "a directory") {
		t.Errorf("a directory: %v", err)
	}
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	err = returnsSoon(t, fifo, func() error { _, err := LoadConfig(fifo); return err })
	if !errors.Is(err, userfile.ErrNotRegular) || !strings.Contains(err.Error(), "a named pipe") {
		t.Errorf("a FIFO: %v", err)
	}
	// A good file still reads, through a link too.
	good := filepath.Join(dir, "good.json")
	os.WriteFile(good, []byte(`{"mcpServers": {"a": {"command": "a"}}}`), 0o644)
	link := filepath.Join(dir, ".mcp.json")
	os.Symlink(good, link)
	if cfg, err := LoadConfig(link); err != nil || len(cfg.Servers) != 1 {
		t.Errorf("a link to a good file: %v %v", cfg, err)
	}
}

// Approvals read approvals.json as LoadConfig reads a configuration: a FIFO or a file over
// 4 MiB in its place is an error, at once.
func TestApprovalsReadOnlyBoundedRegularFiles(t *testing.T) {
	dir := t.TempDir()
	cfg, err := ParseConfig(filepath.Join(dir, ".mcp.json"), []byte(`{"mcpServers": {"a": {"command": "a"}}}`), os.LookupEnv)
	if err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.json")
	os.WriteFile(big, []byte(`{"x": "`+strings.Repeat("x", userfile.MaxSize)+`"}`), 0o600)
	if _, _, _, err := (&Approvals{Path: big}).Lookup(cfg); !errors.Is(err, userfile.ErrTooLarge) {
		t.Errorf("approvals over 4 MiB: %v", err)
	}
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	err = returnsSoon(t, fifo, func() error { _, _, _, err := (&Approvals{Path: fifo}).Lookup(cfg); return err })
	if !errors.Is(err, userfile.ErrNotRegular) {
		t.Errorf("approvals in a FIFO: %v", err)
	}
}

// returnsSoon runs read, which reads the FIFO at path, and returns its error. A read that
// is still waiting after 5 s fails the test; a writer then opens the FIFO and closes it,
// so that the read ends and nothing is left waiting.
func returnsSoon(t *testing.T, fifo string, read func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- read() }()
	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
	}
	t.Errorf("reading the FIFO %s waits for a writer", fifo)
	for {
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		select {
		case err := <-done:
			return err
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// runFor runs cmd, killing it after d.
func runFor(t *testing.T, cmd *exec.Cmd, d time.Duration) (string, error) {
	t.Helper()
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(d, func() { cmd.Process.Kill() })
	defer timer.Stop()
	err := cmd.Wait()
	return out.String(), err
}

// stopPast ends the process when its heap passes limit bytes.
func stopPast(limit uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	for {
		metrics.Read(sample)
		if sample[0].Value.Uint64() > limit {
			os.Stdout.WriteString("the heap passed " + filepath.Base(os.Args[0]) + "'s limit: the file is read without a bound\n")
			os.Exit(4)
		}
		runtime.Gosched()
		time.Sleep(10 * time.Millisecond)
	}
}
