//go:build unix

package mcp

import "syscall"

// defaultMaxConns is the process's limit of open files, less a margin for everything else
// it opens (an eighth of it, at least 64): past that, accepting a connection would fail, and
// the server would accept none.
func defaultMaxConns() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur == 0 {
		return fallbackMaxConns
	}
	n := uint64(rl.Cur)
	if n > 1<<24 { // "unlimited"
		n = 1 << 24
	}
	return max(int(n)-max(64, int(n)/8), 16)
}
