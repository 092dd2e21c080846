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
	if f, release := pollable(0, "/dev/stdin"); f != nil {
		return f, release
	}
	return os.Stdin, func() {}
}

// openStdout returns standard output in a form whose writes can be abandoned, so that
// ServeStdio stops within ShutdownTimeout when its client does not read: as openStdin does,
// a pipe or a socket is duplicated into non-blocking mode, which lets Go's poller apply
// write deadlines. While it serves, other writes to the same pipe (stderr, when it is
// the same pipe as stdout) fail rather than wait when the pipe is full.
func openStdout() (io.Writer, func()) {
	if f, release := pollable(1, "/dev/stdout"); f != nil {
		return f, release
	}
	return os.Stdout, func() {}
}

// pollable returns a duplicate of fd in non-blocking mode, if fd is a pipe or a socket, and
// the function that closes it and puts fd back in blocking mode.
func pollable(fd int, name string) (*os.File, func()) {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, nil
	}
	if kind := st.Mode & syscall.S_IFMT; kind != syscall.S_IFIFO && kind != syscall.S_IFSOCK {
		return nil, nil
	}
	dup, err := syscall.Dup(fd)
	if err != nil {
		return nil, nil
	}
	// The non-blocking flag belongs to the open file, which fd shares: restore it after.
	if err := syscall.SetNonblock(dup, true); err != nil {
		syscall.Close(dup)
		return nil, nil
	}
	f := os.NewFile(uintptr(dup), name)
	return f, func() {
		f.Close()
		syscall.SetNonblock(fd, false)
	}
}
