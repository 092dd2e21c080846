package index

import (
	"sync"
	"sync/atomic"
	"time"
)

// watcher tells the index which files changed.
type watcher interface {
	// pending is signalled when there is something to drain.
	pending() <-chan struct{}
	// drain returns the paths (relative to the root) heard of since the last drain, without
	// waiting; rescan asks for a walk of the whole tree instead (the watcher lost track, or
	// it polls).
	drain() (paths []string, rescan bool)
	// rescanned is told the directories a walk of the tree found, to watch them.
	rescanned(dirs []string)
	close()
}

// poller is the watcher where the system offers none the index can use: a walk of the tree
// every interval.
type poller struct {
	due  atomic.Bool // the interval passed since the last drain
	sig  chan struct{}
	stop chan struct{}
	wg   sync.WaitGroup
}

func newPoller(every time.Duration) *poller {
	p := &poller{sig: make(chan struct{}, 1), stop: make(chan struct{})}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				p.due.Store(true)
				select {
				case p.sig <- struct{}{}:
				default:
				}
			case <-p.stop:
				return
			}
		}
	}()
	return p
}

func (p *poller) pending() <-chan struct{} { return p.sig }
func (p *poller) drain() ([]string, bool)  { return nil, p.due.Swap(false) }
func (p *poller) rescanned([]string)       {}
func (p *poller) close()                   { close(p.stop); p.wg.Wait() }
