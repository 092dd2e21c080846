//go:build !linux

package watch

import (
	"context"
	"sync"
)

// start polls the tree: inotify is Linux's.
func start(ctx context.Context, root string, opts Options, events chan<- struct{}) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); poll(ctx, root, opts, events) }()
	return func() { cancel(); wg.Wait() }
}
