//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package mcp

import (
	"io"
	"os"
)

// openStdin returns standard input as it is: on this platform a blocked read on it cannot
// be interrupted, so ServeStdio returns after cancellation only once the read ends.
func openStdin() (io.Reader, func()) { return os.Stdin, func() {} }

// openStdout returns standard output as it is: on this platform a blocked write to it cannot
// be abandoned, so ServeStdio returns after cancellation only once the write ends.
func openStdout() (io.Writer, func()) { return os.Stdout, func() {} }
