package mcp

import (
	"syscall"
	"testing"
)

// MaxConns defaults to the open-file limit less a margin of an eighth of it, at least 64.
func TestDefaultMaxConns(t *testing.T) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		t.Fatal(err)
	}
	defer syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl)
	for limit, want := range map[uint64]int{100000: 87500, 1024: 896, 256: 192, 100: 36, 40: 16} {
		if limit > rl.Max {
			continue
		}
		lowered := rl
		lowered.Cur = limit
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lowered); err != nil {
			t.Fatal(err)
		}
		if got := defaultMaxConns(); got != want {
			t.Errorf("with %d open files at most: %d connections, want %d", limit, got, want)
		}
	}
}
