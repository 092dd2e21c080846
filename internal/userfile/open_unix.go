//go:build unix

package userfile

import "syscall"

// openNonblock keeps an open of a FIFO from waiting for a writer.
const openNonblock = syscall.O_NONBLOCK
