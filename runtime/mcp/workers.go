package mcp

import (
	"sync"
	"time"
)

// workers run a peer's requests on goroutines that serve one request after another. A
// goroutine that has served a request waits a moment for the next one, its stack already
// grown to what serving takes, instead of every request paying for a new goroutine and for
// growing its stack again (a third of the CPU of a small tool call went there). A request
// never waits for a worker: with none idle, it gets a new one, so a slow request still
// delays no other. Idle workers end after idleWorker, or when the peer stops.
type workers struct {
	jobs     chan *inflight // unbuffered: a job is handed over only to an idle worker
	quit     chan struct{}
	stopOnce sync.Once
}

// idleWorker is how long a worker waits for the next request before it ends.
const idleWorker = 2 * time.Second

func newWorkers() *workers {
	return &workers{jobs: make(chan *inflight), quit: make(chan struct{})}
}

// run serves r on an idle worker, or on a new one.
func (w *workers) run(r *inflight) {
	select {
	case w.jobs <- r:
	default:
		go w.work(r)
	}
}

func (w *workers) work(r *inflight) {
	idle := time.NewTimer(idleWorker)
	defer idle.Stop()
	for {
		r.runAsync()
		idle.Reset(idleWorker)
		select {
		case r = <-w.jobs:
		case <-idle.C:
			return
		case <-w.quit:
			return
		}
	}
}

// stop ends the idle workers, and the busy ones once they have finished.
func (w *workers) stop() {
	w.stopOnce.Do(func() { close(w.quit) })
}
