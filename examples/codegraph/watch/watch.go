// Package watch tells when files of a directory tree change, so that the graph follows
// edits made outside codegraph's tools (an editor, git checkout, a build). On Linux it uses
// inotify, on a watch per directory; elsewhere, or past the system's limit on watches, it
// walks the tree every few seconds and compares sizes and times.
package watch

import (
	"context"
	"io/fs"
	"path/filepath"
	"strings"
	"time"
)

// Options say what to watch and how changes are told.
type Options struct {
	// Relevant says whether a change of the file at path (relative to the root, with
	// slashes) matters; nil: every file.
	Relevant func(path string) bool
	// Quiet is how long the tree must be still before a change is told, so that a burst
	// (a checkout, a save of several files) is told once; Max bounds the wait in a burst
	// that goes on. The defaults are 300 ms and 3 s.
	Quiet, Max time.Duration
	// PollEvery is how often the tree is walked where inotify is unavailable; the default
	// is 2 s. A walk sees the tree only then, so there a change is told once a walk found
	// the tree as the walk before it did (still for PollEvery), and Quiet after that.
	PollEvery time.Duration
	// Logf reports what the watcher cannot do; nil: nothing.
	Logf func(format string, args ...any)
}

// Watch calls changed after relevant files under root change, until ctx ends: once per
// burst of changes, never while a call is running (changes meanwhile are told after it).
// It returns when ctx ends and no call is running.
func Watch(ctx context.Context, root string, opts Options, changed func()) {
	if opts.Relevant == nil {
		opts.Relevant = func(string) bool { return true }
	}
	if opts.Quiet == 0 {
		opts.Quiet = 300 * time.Millisecond
	}
	if opts.Max == 0 {
		opts.Max = 3 * time.Second
	}
	if opts.PollEvery == 0 {
		opts.PollEvery = 2 * time.Second
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	events := make(chan struct{}, 1)
	stop := start(ctx, root, opts, events)
	defer stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-events:
		}
		// Wait for the tree to be still, at most Max.
		deadline := time.NewTimer(opts.Max)
	still:
		for {
			quiet := time.NewTimer(opts.Quiet)
			select {
			case <-events:
				quiet.Stop()
				continue
			case <-quiet.C:
				break still
			case <-deadline.C:
				quiet.Stop()
				break still
			case <-ctx.Done():
				quiet.Stop()
				deadline.Stop()
				return
			}
		}
		deadline.Stop()
		changed()
	}
}

// For tests: forcePoll makes the watcher poll; watching, if set, is called once the watches
// are set, before any change is looked for, or after each walk of the tree.
var (
	forcePoll bool
	watching  func()
)

func watched() {
	if watching != nil {
		watching()
	}
}

// skipDir says whether a directory is left out: hidden ones (.git), and those of
// dependencies and builds.
func skipDir(name string) bool {
	return strings.HasPrefix(name, ".") || name == "node_modules" || name == "__pycache__" || name == "target"
}

// walk lists the directories of the tree (relative, with slashes; "." for the root) and the
// size and time of each relevant file.
func walk(root string, relevant func(string) bool) (dirs []string, files map[string]stamp) {
	files = map[string]stamp{}
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			dirs = append(dirs, rel)
			return nil
		}
		if relevant(rel) {
			if fi, err := d.Info(); err == nil {
				files[rel] = stamp{fi.Size(), fi.ModTime()}
			}
		}
		return nil
	})
	return dirs, files
}

type stamp struct {
	size int64
	mod  time.Time
}

// poll walks the tree every interval and tells of a difference once a walk finds the tree
// still (as the walk before it did), or Max after the first untold difference in a burst
// that goes on. Told at the first difference, a burst that two walks see (a checkout under
// way at a tick) would be told twice, whatever Watch's Quiet: between walks the tree looks
// still, whether it is or not.
func poll(ctx context.Context, root string, opts Options, events chan<- struct{}) {
	_, last := walk(root, opts.Relevant)
	watched()
	t := time.NewTicker(opts.PollEvery)
	defer t.Stop()
	var untold time.Time // when the first difference not yet told was seen; zero: none
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		_, now := walk(root, opts.Relevant)
		watched()
		changed := !sameStamps(last, now)
		last = now
		switch {
		case changed && untold.IsZero():
			untold = time.Now()
		case untold.IsZero():
		case !changed || time.Since(untold) >= opts.Max:
			signal(events)
			untold = time.Time{}
		}
	}
}

func sameStamps(a, b map[string]stamp) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w.size != v.size || !w.mod.Equal(v.mod) {
			return false
		}
	}
	return true
}

func signal(events chan<- struct{}) {
	select {
	case events <- struct{}{}:
	default:
	}
}
