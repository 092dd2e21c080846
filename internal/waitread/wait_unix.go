//go:build linux || darwin || freebsd || netbsd || openbsd

package waitread

import (
	"context"
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// Readable waits until f has input (or its other end closed), or ctx ends, and returns
// ctx's error then. It polls, every 100 ms, rather than reading in a goroutine of its own,
// which would outlive the question, blocked on a terminal nobody types at. A file that
// cannot be polled returns at once: the read decides.
func Readable(ctx context.Context, f *os.File) error {
	fds := []unix.PollFd{{Fd: int32(f.Fd()), Events: unix.POLLIN}}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := unix.Poll(fds, 100)
		if err != nil && !errors.Is(err, unix.EINTR) {
			return nil // not pollable: the read decides
		}
		if n > 0 {
			return nil
		}
	}
}
