//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package mcp

import (
	"io"
	"os"
)

// openStdin returns standard input as it is: on this platform a blocked read on it cannot
// be interrupted, so ServeStdio returns after cancellation only once the read ends.
func openStdin() (io.Reader, func()) { return os.Stdin, func() {} }
