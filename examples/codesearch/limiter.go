package main

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"
)

// limiter bounds the searches that run at once: up to cap(slots) run, up to maxWaiting
// more wait in line, each for at most wait, and the rest are refused at once with a reason,
// so that a flood of searches costs a bounded amount of memory and a search that comes
// after it is answered (or told why not) rather than queued behind hundreds.
type limiter struct {
	slots      chan struct{}
	waiting    atomic.Int64
	maxWaiting int64
	wait       time.Duration
}

func newLimiter(running, waiting int, wait time.Duration) *limiter {
	return &limiter{slots: make(chan struct{}, max(1, running)), maxWaiting: int64(max(0, waiting)), wait: wait}
}

// enter waits for a slot; the caller calls the function it returns when done. It refuses
// when the line is full or the wait too long, and returns ctx's error when ctx ends first.
func (l *limiter) enter(ctx context.Context, what string) (func(), error) {
	select {
	case l.slots <- struct{}{}:
		return l.leave, nil
	default:
	}
	if n := l.waiting.Add(1); n > l.maxWaiting {
		l.waiting.Add(-1)
		return nil, fmt.Errorf("the server is busy: %d searches are running and %d waiting, as many as it takes (--max-searches, --search-queue); try the %s again in a moment", cap(l.slots), l.maxWaiting, what)
	}
	defer l.waiting.Add(-1)
	timer := time.NewTimer(l.wait)
	defer timer.Stop()
	select {
	case l.slots <- struct{}{}:
		return l.leave, nil
	case <-timer.C:
		return nil, fmt.Errorf("the server is busy: the %s waited %v for one of the %d searches running to end (--max-searches); try again in a moment", what, l.wait, cap(l.slots))
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (l *limiter) leave() { <-l.slots }
