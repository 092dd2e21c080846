//go:build linux || darwin || freebsd || netbsd || openbsd

package mcp

import (
	"io"
	"os"
	"syscall"
)

// openStdin returns standard input in a form whose reads can be interrupted, so that
// ServeStdio returns promptly when its context is cancelled. When stdin is a pipe or a
// socket (as when an MCP client launches the server) it is duplicated and the duplicate is
// put in non-blocking mode, which lets Go's poller apply read deadlines. Terminals and
// files are left alone. release undoes the change.
func openStdin() (io.Reader, func()) {
	var st syscall.Stat_t
	if err := syscall.Fstat(0, &st); err != nil {
		return os.Stdin, func() {}
	}
	if kind := st.Mode & syscall.S_IFMT; kind != syscall.S_IFIFO && kind != syscall.S_IFSOCK {
		return os.Stdin, func() {}
	}
	fd, err := syscall.Dup(0)
	if err != nil {
		return os.Stdin, func() {}
	}
	// The non-blocking flag belongs to the open file, which fd 0 shares: restore it after.
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return os.Stdin, func() {}
	}
	f := os.NewFile(uintptr(fd), "/dev/stdin")
	return f, func() {
		f.Close()
		syscall.SetNonblock(0, false)
	}
}
