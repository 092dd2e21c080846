package mcp

import (
	"runtime"
	"testing"
	"time"
)

// A request whose turn passes while it ends is counted as one served on its own (running)
// before its server ends it: serve reports the turn lost only once the count is taken, so
// the Done that ends it never comes before the Add. Under load the request ended between
// the two, and running's counter went below zero ("sync: negative WaitGroup counter",
// which took the process down).
func TestPassedRequestCountedBeforeItEnds(t *testing.T) {
	p := &peer{}
	rd := newReading(p)
	rd.watching.Store(true) // no watcher: the test passes the turn itself
	tn := rd.newTurn()
	release := make(chan struct{})
	passing = func() {
		close(release)                    // the request ends now, while its turn is being passed
		time.Sleep(50 * time.Millisecond) // and its server looks at the turn meanwhile
	}
	defer func() { passing = nil }()
	kept := make(chan bool, 1)
	go func() {
		k := tn.serve(func() { <-release })
		if !k {
			p.running.Done() // as peer.serveInline ends a request whose turn passed
		}
		kept <- k
	}()
	for tn.state.Load() != turnServing {
		runtime.Gosched()
	}
	if next := tn.pass(); next == nil {
		t.Fatal("the turn of a request being served did not pass")
	}
	if <-kept {
		t.Fatal("the turn was kept though it passed")
	}
	p.running.Wait()
}
