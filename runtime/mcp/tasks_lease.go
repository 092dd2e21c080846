package mcp

import (
	"context"
	"errors"
	"time"
)

// hold renews the lease of a task this process runs until its body ends (ctx), and cancels
// the body when it finds the task over: cancelled through another replica. Finding answers
// the body has not taken, it wakes the body's questions: an answer whose news the change
// feed lost (or a store without one) waits a lease renewal at most.
func (tr *taskRunner) hold(ctx context.Context, rt *runningTask) {
	tick := time.NewTicker(leaseRenew)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		over, answered := false, false
		_, err := tr.store.Update(ctx, rt.id, func(t *TaskRecord) error {
			over, answered = t.Status.Terminal(), len(t.Answers) > 0
			if !over {
				t.LeaseUntil = time.Now().UTC().Add(leaseFor)
			}
			return nil
		})
		if over || errors.Is(err, ErrTaskNotFound) {
			rt.cancel()
			return
		}
		if answered {
			rt.wake()
		}
	}
}

// forget lets go of a task whose body has ended.
func (tr *taskRunner) forget(rt *runningTask) {
	rt.cancel()
	tr.mu.Lock()
	delete(tr.running, rt.id)
	if tr.drained != nil && len(tr.running) == 0 {
		close(tr.drained) // shutdown waits no longer
		tr.drained = nil
	}
	tr.mu.Unlock()
	tr.release(rt.caller)
}

// watchRegistering, when a test sets it, runs as the watch of a store's changes begins,
// before its watcher is registered.
var watchRegistering func()

// watchOthers starts, once, following the changes other processes make to tasks, for the
// subscriptions of this one and the questions of the tasks it runs, if the store can tell
// of them (TaskChanges).

func (tr *taskRunner) watchOthers() {
	w, ok := tr.store.(TaskChanges)
	if !ok {
		return
	}
	tr.watching.Do(func() {
		if watchRegistering != nil {
			watchRegistering()
		}
		ctx, cancel := context.WithCancel(context.Background())
		tr.mu.Lock()
		stopped := tr.stopped
		tr.unwatch = cancel
		if !stopped {
			tr.wg.Add(1)
		}
		tr.mu.Unlock()
		if stopped {
			cancel()
			return
		}
		changed := func(id string) {
			tr.wake(id)
			if tr.s.listensTo(id) {
				if rec, err := tr.store.Get(ctx, id); err == nil {
					tr.s.notifyTask(rec)
				}
			}
		}
		// The memory store's watcher is in place before watchOthers returns: a change made
		// right after a subscription (or a question) that started the watch is heard. A
		// store of other processes (Redis) hears what comes once its feed is up.
		if mem, ok := tr.store.(*memoryTaskStore); ok {
			sw := mem.watch()
			go func() {
				defer tr.wg.Done()
				mem.feed(ctx, sw, changed)
			}()
			return
		}
		go func() {
			defer tr.wg.Done()
			for ctx.Err() == nil {
				err := w.WatchTasks(ctx, changed)
				if ctx.Err() != nil {
					return
				}
				tr.s.logger.Warn("mcp: watching the task store for other processes' changes", "error", err)
				select { // a store that is down is tried again, not hammered
				case <-time.After(time.Second):
				case <-ctx.Done():
				}
			}
		}()
	})
}

// Shutdown ends what the server runs beyond its conversations: the tasks it runs, the
// watch of the task store. With a store other processes share (TaskOptions.Store, Redis),
// where a client goes on polling through another replica, running tasks first get
// ServerOptions.ShutdownTimeout (or until shortly before ctx's deadline, if that comes
// sooner) to end by themselves; those still running then are failed ("The server stopped
// before the task ended.") and their bodies cancelled. With the server's own store, which
// nobody can read once the process stops, they are failed at once. Shutdown waits for the
// bodies to end, or for ctx, whose error it then returns. Tasks are the server's, not a
// conversation's, so the end of ServeConn or Serve leaves them running:
// HTTPHandler.Shutdown, ws.Handler.Shutdown and ServeStdio call Shutdown; a program that
// serves through ServeConn or Serve calls it once it has stopped serving. A task asked for
// after Shutdown began fails at once.
func (s *Server) Shutdown(ctx context.Context) error {
	s.tasks.shutdown(ctx)
	return ctx.Err()
}

// shutdown lets the tasks this process runs finish, when their store outlives it, for
// the grace Shutdown says; then fails those still running, since nobody will finish them,
// cancels their bodies, and waits for them to end, or for ctx.
func (tr *taskRunner) shutdown(ctx context.Context) {
	tr.mu.Lock()
	tr.stopped = true
	if tr.shared && len(tr.running) > 0 {
		tr.drained = make(chan struct{})
		drained := tr.drained
		tr.mu.Unlock()
		end := time.Now().Add(tr.s.opts.ShutdownTimeout)
		if deadline, ok := ctx.Deadline(); ok {
			// Some of what is left is kept to fail the tasks that do not end in time.
			if keep := deadline.Add(-min(time.Second, time.Until(deadline)/4)); keep.Before(end) {
				end = keep
			}
		}
		grace := time.NewTimer(time.Until(end))
		select {
		case <-drained:
		case <-grace.C:
		case <-ctx.Done():
		}
		grace.Stop()
		tr.mu.Lock()
	}
	if tr.unwatch != nil {
		tr.unwatch()
	}
	running := make([]*runningTask, 0, len(tr.running))
	for _, rt := range tr.running {
		running = append(running, rt)
	}
	tr.mu.Unlock()
	for _, rt := range running {
		tr.update(ctx, rt.id, func(t *TaskRecord) error {
			if !t.Status.Terminal() {
				t.fail("The server stopped before the task ended.", "internal error: the server stopped before the task ended")
			}
			return nil
		})
		rt.cancel()
	}
	done := make(chan struct{})
	go func() { tr.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
}
