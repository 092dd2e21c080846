package mcp

import "time"

// workers run requests on goroutines that serve one request after another. A
// goroutine that has served a request waits a moment for the next one, its stack already
// grown to what serving takes, instead of every request paying for a new goroutine and for
// growing its stack again (a third of the CPU of a small tool call went there). A request
// never waits for a worker: with none idle, it gets a new one, so a slow request still
// delays no other. Idle workers end after idleWorker, or when what they serve stops (a
// stream session, an HTTP handler).
type workers struct {
	jobs chan job // unbuffered: a job is handed over only to an idle worker
	quit <-chan struct{}
}

// job is what a worker runs: a request of a stream session (inflight) or of an HTTP
// session (requestJob).
type job interface{ work() }

// idleWorker is how long a worker waits for the next request before it ends.
const idleWorker = 2 * time.Second

// newWorkers returns workers that end once quit is closed, when idle.
func newWorkers(quit <-chan struct{}) *workers {
	return &workers{jobs: make(chan job), quit: quit}
}

// run runs j on an idle worker, or on a new one.
func (w *workers) run(j job) {
	select {
	case w.jobs <- j:
	default:
		go w.work(j)
	}
}

// work runs j, then the jobs handed to it, until it has been idle for idleWorker. The
// idle timer is not reset per job (that costs a wake-up of the timer machinery each time):
// when it fires, a worker that worked since waits out the rest.
func (w *workers) work(j job) {
	idle := time.NewTimer(idleWorker)
	defer idle.Stop()
	for {
		j.work()
		last := time.Now()
	wait:
		select {
		case j = <-w.jobs:
		case <-idle.C:
			if left := idleWorker - time.Since(last); left > 0 {
				idle.Reset(left)
				goto wait
			}
			return
		case <-w.quit:
			return
		}
	}
}
