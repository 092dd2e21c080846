//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package waitread

import (
	"context"
	"os"
)

// Readable returns at once, but for a context that already ended: on this platform a
// question waits for its answer even when its context no longer does.
func Readable(ctx context.Context, f *os.File) error { return ctx.Err() }
