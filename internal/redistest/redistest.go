// Package redistest starts a redis-server of a test's own, for the tests of the Redis task
// store and of replicas that share it. scripts/test.sh installs redis-server (Debian's
// package); a test without it fails, saying so.
package redistest

import (
	"bytes"
	"net"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Start starts redis-server on a Unix socket in a directory of the test's, with nothing
// saved to disk, and returns the socket's path. The server stops when the test ends.
func Start(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatalf("redis-server is not installed (apt-get install redis-server; ./scripts/test.sh installs it): %v", err)
	}
	dir := t.TempDir()
	sock := filepath.Join(dir, "redis.sock")
	cmd := exec.Command(bin, "--port", "0", "--unixsocket", sock, "--save", "", "--appendonly", "no", "--dir", dir)
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("unix", sock); err == nil {
			c.Close()
			return sock
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server did not listen within 10s:\n%s", out)
		}
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
