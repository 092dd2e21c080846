//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package main

import (
	"context"
	"os"
)

// waitReadable returns at once, but for a context that already ended: on this platform a
// question waits for its answer even when the server no longer does.
func waitReadable(ctx context.Context, f *os.File) error { return ctx.Err() }
