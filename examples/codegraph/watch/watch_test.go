package watch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Relevant changes are told once per burst, in a new directory too; others are not.
func TestWatch(t *testing.T) {
	for _, polling := range []bool{false, true} {
		t.Run(map[bool]string{false: "inotify", true: "polling"}[polling], func(t *testing.T) {
			root := t.TempDir()
			os.MkdirAll(filepath.Join(root, "a"), 0o755)
			os.WriteFile(filepath.Join(root, "a", "x.go"), []byte("package a\n"), 0o644)
			ctx, cancel := context.WithCancel(context.Background())
			var mu sync.Mutex
			calls := 0
			told := make(chan struct{}, 10)
			// A burst is writes 20 ms apart: still for Quiet, or for PollEvery where the
			// tree is walked, is well apart from it even on a busy machine.
			opts := Options{Relevant: func(p string) bool { return strings.HasSuffix(p, ".go") }, Quiet: 300 * time.Millisecond, PollEvery: 300 * time.Millisecond}
			ready := make(chan struct{}, 1)
			watching = func() { signal(ready) }
			forcePoll = polling
			defer func() { watching, forcePoll = nil, false }()
			done := make(chan struct{})
			go func() {
				defer close(done)
				Watch(ctx, root, opts, func() {
					mu.Lock()
					calls++
					mu.Unlock()
					told <- struct{}{}
				})
			}()
			defer func() { cancel(); <-done }()
			<-ready // the watches are set, or the first walk done
			expect := func(what string, want bool) {
				t.Helper()
				select {
				case <-told:
					if !want {
						t.Errorf("%s: told", what)
					}
				case <-time.After(3 * time.Second):
					if want {
						t.Errorf("%s: not told within 3 s", what)
					}
				}
			}
			for i := range 5 { // a burst: told once
				os.WriteFile(filepath.Join(root, "a", "x.go"), []byte("package a\n"+strings.Repeat("\n", i+1)), 0o644)
				time.Sleep(20 * time.Millisecond)
			}
			expect("an edit", true)
			expect("the same burst", false)
			os.WriteFile(filepath.Join(root, "a", "notes.txt"), []byte("x"), 0o644)
			expect("a file that is not relevant", false)
			os.MkdirAll(filepath.Join(root, "b", "c"), 0o755)
			os.WriteFile(filepath.Join(root, "b", "c", "y.go"), []byte("package c\n"), 0o644)
			expect("a file in a new directory", true)
			still := func() { // what is still to tell is told: nothing for a second
				for {
					select {
					case <-told:
					case <-time.After(time.Second):
						return
					}
				}
			}
			still() // the new directory may be told apart from its file
			os.WriteFile(filepath.Join(root, "b", "c", "y.go"), []byte("package c\n\n"), 0o644)
			expect("an edit in the new directory", true)
			os.MkdirAll(filepath.Join(root, ".git"), 0o755)
			still()
			os.WriteFile(filepath.Join(root, ".git", "z.go"), []byte("x"), 0o644)
			expect("a file in a hidden directory", false)
		})
	}
}

// A burst of changes that two walks of the tree see is told once, when a walk finds the tree
// still; it was told twice (between the walks the tree looked still for Quiet, as inotify
// would have told, while it was only not walked).
func TestPollingBurstAcrossWalks(t *testing.T) {
	p := startPolling(t, 3*time.Second)
	notTold := func(what string) func() {
		return func() {
			select {
			case <-p.told:
				t.Errorf("told %s, with the burst going on", what)
			case <-time.After(200 * time.Millisecond): // longer than Quiet
			}
		}
	}
	p.afterWalk(p.write(1))                            // the first walk: what the tree is
	p.afterWalk(p.write(2))                            // a walk that saw the first write
	p.afterWalk(notTold("after the walk that saw it")) // one that saw the second
	p.afterWalk(notTold("after the second walk"))      // one that found the tree still
	p.walksGoOn()
	select {
	case <-p.told:
	case <-time.After(5 * time.Second):
		t.Fatal("the burst was not told")
	}
	select {
	case <-p.told:
		t.Error("the burst was told twice")
	case <-time.After(time.Second):
	}
}

// A burst that goes on is told Max after its first change, with no walk finding the tree
// still.
func TestPollingBurstThatGoesOn(t *testing.T) {
	const max = 300 * time.Millisecond
	p := startPolling(t, max)
	p.afterWalk(p.write(1))                               // the first walk
	p.afterWalk(p.write(2))                               // a walk that saw the first write
	p.afterWalk(func() { p.write(3)(); time.Sleep(max) }) // one that saw the second, Max later
	<-p.turn                                              // a walk that saw the third: the poller waits after it
	select {
	case <-p.told:
	case <-time.After(5 * time.Second):
		t.Fatal("a burst going on for Max was not told")
	}
	<-p.turn
	p.walksGoOn()
}

// polling is a polling watcher of a tree of one file, x.go, that waits after each walk
// until the test lets it go on: what the test writes meanwhile, the next walk sees.
type polling struct {
	ctx  context.Context
	file string
	turn chan struct{} // the watcher waits after a walk: take it, then give it back
	told chan struct{}
}

func startPolling(t *testing.T, max time.Duration) *polling {
	root := t.TempDir()
	p := &polling{file: filepath.Join(root, "x.go"), turn: make(chan struct{}), told: make(chan struct{}, 10)}
	os.WriteFile(p.file, []byte("package a\n"), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	p.ctx = ctx
	watching = func() {
		for range 2 {
			select {
			case p.turn <- struct{}{}:
			case <-ctx.Done():
				return
			}
		}
	}
	forcePoll = true
	done := make(chan struct{})
	go func() {
		defer close(done)
		Watch(ctx, root, Options{Quiet: 50 * time.Millisecond, Max: max, PollEvery: 100 * time.Millisecond}, func() { p.told <- struct{}{} })
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		watching, forcePoll = nil, false
	})
	return p
}

// afterWalk does what do does while the watcher waits after a walk.
func (p *polling) afterWalk(do func()) { <-p.turn; do(); <-p.turn }

func (p *polling) write(n int) func() {
	return func() { os.WriteFile(p.file, []byte("package a\n"+strings.Repeat("\n", n)), 0o644) }
}

// walksGoOn lets the watcher walk on, until the test ends.
func (p *polling) walksGoOn() {
	go func() {
		for {
			select {
			case <-p.turn:
			case <-p.ctx.Done():
				return
			}
		}
	}()
}
