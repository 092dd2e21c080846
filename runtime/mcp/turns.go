package mcp

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Serving a stream's requests where they are read.
//
// Handing every request of a stdio session to a goroutine of its own costs more than a
// small tool call itself: the hand-over, the wake-ups of the scheduler, and one write per
// answer. So the goroutine that reads a stream serves each request itself, in the order
// read, and its answers gather in the connection (writeLater) until it runs out of input and would wait for
// more; then they go out with one write.
//
// A slow request must not hold up the others, so the reading goroutine does not keep the
// stream while it serves one for long: a watcher that looks every watchTick passes its turn
// at reading to a new goroutine when it finds the same request still being served, and the
// request goes on as one served on its own. A request that is about to wait for the other
// side (a request of its own to the client, whose answer only a reader can read) passes
// the turn at once. So a slow request holds up the next message for at most two ticks.
//
// A turn is one goroutine's time as the reader. Its state goes from reading to serving and
// back with each request served inline, and ends in passed, set by the watcher or by a
// request that waits; a compare-and-swap decides the race between the request ending and
// the turn being passed, and a request that lost it waits (passing) until it is counted as
// one served on its own before it is ended as one. A timer per request would be simpler, but arming it costs more
// than the rest of a small call's overhead together.

// watchTick is how often the watcher looks at the request the reading goroutine serves.
const watchTick = 500 * time.Microsecond

// watchIdleTicks is how many ticks without a request served inline the watcher waits
// before it sleeps until the next one.
const watchIdleTicks = 20

const (
	turnReading int32 = iota // the holder reads, or does something else between requests
	turnServing              // the holder serves a request inline
	turnPassing              // being passed: the request is being counted as one on its own
	turnPassed               // another goroutine reads now
)

// passing, when a test sets it, runs while a turn is being passed, before the request it
// was serving is counted as one served on its own.
var passing func()

// turn is one goroutine's turn at reading a stream.
type turn struct {
	state atomic.Int32
	rd    *reading
}

// reading is the read loop of a stream session, whichever goroutine runs it.
type reading struct {
	p       *peer
	loop    func(*turn) // reads and handles messages until the stream ends or the turn passes
	current atomic.Pointer[turn]

	served   atomic.Uint64 // requests served inline so far
	watching atomic.Bool   // the watcher is awake
	wake     chan struct{} // wakes a sleeping watcher
	stop     chan struct{} // ends the watcher
	watcher  sync.WaitGroup
	started  sync.Once
}

func newReading(p *peer) *reading {
	return &reading{p: p, wake: make(chan struct{}, 1), stop: make(chan struct{})}
}

// newTurn starts a turn at reading.
func (rd *reading) newTurn() *turn {
	t := &turn{rd: rd}
	rd.current.Store(t)
	return t
}

// serve runs a request inline under the turn and reports whether the turn is still the
// caller's afterwards. If it is not, the request was counted as one served on its own
// (peer.running) when the turn passed, and the caller ends that.
func (t *turn) serve(run func()) (kept bool) {
	rd := t.rd
	t.state.Store(turnServing)
	rd.served.Add(1) // before looking at watching: see watch
	if !rd.watching.Load() {
		rd.startWatching()
	}
	run()
	if t.state.CompareAndSwap(turnServing, turnReading) {
		return true
	}
	// The turn is being passed: the caller ends the request as one served on its own,
	// which it may do only once pass has counted it (a few instructions away).
	for t.state.Load() != turnPassed {
		runtime.Gosched()
	}
	return false
}

// pass ends the turn of a goroutine serving a request and returns the next turn, whose
// loop the caller runs; nil when the request had ended, or the turn had passed, already.
func (t *turn) pass() *turn {
	if !t.state.CompareAndSwap(turnServing, turnPassing) {
		return nil
	}
	if passing != nil {
		passing()
	}
	t.rd.p.running.Add(1) // the request goes on as one served on its own
	next := t.rd.newTurn()
	t.state.Store(turnPassed)
	return next
}

// yield passes the current turn at once if its holder is serving a request, with a new
// goroutine to read: a request about to wait for the other side calls it, since only a
// reader can read the answer it waits for.
func (rd *reading) yield() {
	if t := rd.current.Load(); t != nil {
		if next := t.pass(); next != nil {
			go rd.loop(next)
		}
	}
}

func (rd *reading) startWatching() {
	rd.watching.Store(true)
	rd.started.Do(func() {
		rd.watcher.Add(1)
		go rd.watch()
	})
	select {
	case rd.wake <- struct{}{}:
	default:
	}
}

// watch passes the turn of a reader that has served the same request for a whole tick.
func (rd *reading) watch() {
	defer rd.watcher.Done()
	tick := time.NewTimer(watchTick)
	defer tick.Stop()
	for {
		select {
		case <-rd.wake:
		case <-rd.stop:
			return
		}
		last, idle := rd.served.Load(), 0
		for {
			tick.Reset(watchTick)
			select {
			case <-tick.C:
			case <-rd.stop:
				return
			}
			t, n := rd.current.Load(), rd.served.Load()
			switch {
			case n != last:
				idle = 0
			case t.state.Load() == turnServing:
				if next := t.pass(); next != nil {
					go rd.loop(next)
				}
			default:
				idle++
			}
			last = n
			if idle < watchIdleTicks {
				continue
			}
			// Sleep until a request is served inline. A reader that saw watching still
			// set has counted its request first, so one of the two sees the other.
			rd.watching.Store(false)
			if rd.served.Load() == last {
				break
			}
			rd.watching.Store(true)
			idle = 0
		}
	}
}

// close ends the watcher.
func (rd *reading) close() {
	close(rd.stop)
	rd.watcher.Wait()
}
