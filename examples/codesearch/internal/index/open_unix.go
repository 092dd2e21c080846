//go:build unix

package index

import "syscall"

// openNonBlock opens a FIFO without waiting for a writer, so that openRegular can refuse it.
const openNonBlock = syscall.O_NONBLOCK
