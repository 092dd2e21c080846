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
			opts := Options{Relevant: func(p string) bool { return strings.HasSuffix(p, ".go") }, Quiet: 100 * time.Millisecond, PollEvery: 200 * time.Millisecond}
			done := make(chan struct{})
			go func() {
				defer close(done)
				run := Watch
				if polling {
					run = pollingWatch
				}
				run(ctx, root, opts, func() {
					mu.Lock()
					calls++
					mu.Unlock()
					told <- struct{}{}
				})
			}()
			defer func() { cancel(); <-done }()
			time.Sleep(500 * time.Millisecond) // the watches are set
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
			time.Sleep(300 * time.Millisecond)
			for len(told) > 0 { // the new directory may be told apart from its file
				<-told
			}
			os.WriteFile(filepath.Join(root, "b", "c", "y.go"), []byte("package c\n\n"), 0o644)
			expect("an edit in the new directory", true)
			os.MkdirAll(filepath.Join(root, ".git"), 0o755)
			time.Sleep(300 * time.Millisecond)
			for len(told) > 0 {
				<-told
			}
			os.WriteFile(filepath.Join(root, ".git", "z.go"), []byte("x"), 0o644)
			expect("a file in a hidden directory", false)
		})
	}
}

// pollingWatch is Watch with the polling watcher.
func pollingWatch(ctx context.Context, root string, opts Options, changed func()) {
	forcePoll = true
	defer func() { forcePoll = false }()
	Watch(ctx, root, opts, changed)
}
