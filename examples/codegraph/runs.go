package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/examples/codegraph/graph"
	"github.com/mcpgen/mcpgen/examples/codegraph/index"
	"github.com/mcpgen/mcpgen/examples/codegraph/watch"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// indexRun is an index run, from when it is asked for until it ends.
type indexRun struct {
	dir  string
	done chan struct{} // closed when it ends

	mu           sync.Mutex
	packages, of int
	message      string
}

func (r *indexRun) report(done, total int, msg string) {
	r.mu.Lock()
	r.packages, r.of, r.message = done, total, msg
	r.mu.Unlock()
}

// IndexState is an index run going on, or waiting for its turn.
type IndexState struct {
	Dir string `json:"dir"`
	// Packages indexed so far, of how many (0 of 0 while it lists and type-checks).
	Packages int    `json:"packages"`
	Of       int    `json:"of"`
	Message  string `json:"message,omitempty"`
}

func (r *indexRun) state() IndexState {
	r.mu.Lock()
	defer r.mu.Unlock()
	return IndexState{Dir: r.dir, Packages: r.packages, Of: r.of, Message: r.message}
}

// enqueue records a run on dir, at once: queries wait for it from now on, even before its
// turn comes.
func (g *Graph) enqueue(dir string) *indexRun {
	r := &indexRun{dir: dir, done: make(chan struct{}), message: "waiting for its turn"}
	g.mu.Lock()
	g.runs = append(g.runs, r)
	g.mu.Unlock()
	return r
}

// runIndex runs an enqueued run once the one before has ended.
func (g *Graph) runIndex(ctx context.Context, r *indexRun, progress index.Progress) (*index.Result, error) {
	defer func() {
		g.mu.Lock()
		g.runs = slices.DeleteFunc(g.runs, func(x *indexRun) bool { return x == r })
		g.mu.Unlock()
		close(r.done)
	}()
	select {
	case g.indexing <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-g.indexing }()
	res, err := index.Run(ctx, g.store, r.dir, func(done, total int, msg string) {
		r.report(done, total, msg)
		if progress != nil {
			progress(done, total, msg)
		}
	})
	if err == nil {
		g.follow(res.Root)
	}
	return res, err
}

// reindex runs an index run on dir once the one before has ended.
func (g *Graph) reindex(ctx context.Context, dir string, progress index.Progress) (*index.Result, error) {
	return g.runIndex(ctx, g.enqueue(dir), progress)
}

// indexing is the state of the runs going on or waiting.
func (g *Graph) indexingState() []IndexState {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []IndexState
	for _, r := range g.runs {
		out = append(out, r.state())
	}
	return out
}

// waitForIndex waits until no index run goes on or waits, so that a query answers from a
// whole graph rather than from one half written (a client that calls as the server starts,
// as `mcpgen call` does, asks before the directories given at start are indexed). It tells
// the client how the run goes every second, and gives up when the request ends or after
// IndexWait.
func (g *Graph) waitForIndex(ctx context.Context) error {
	wctx, cancel := context.WithTimeout(ctx, g.IndexWait)
	defer cancel()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		g.mu.Lock()
		var r *indexRun
		if len(g.runs) > 0 {
			r = g.runs[0]
		}
		g.mu.Unlock()
		if r == nil {
			return nil
		}
		select {
		case <-r.done:
		case <-tick.C:
			st := r.state()
			mcp.Progress(ctx, float64(st.Packages), float64(st.Of), fmt.Sprintf("waiting for the index of %s: %s", st.Dir, st.Message))
		case <-wctx.Done():
			st := r.state()
			return fmt.Errorf("%s is still being indexed (%d of %d packages: %s), and the request ended first; its answers come once that ends, which list_projects shows",
				st.Dir, st.Packages, st.Of, st.Message)
		}
	}
}

// whileIndexing adds to a name not found that an index run is going on, whose symbols the
// graph may not have yet.
func (g *Graph) whileIndexing(err error) error {
	var nf *graph.ErrNotFound
	runs := g.indexingState()
	if len(runs) == 0 || !errors.As(err, &nf) {
		return err
	}
	return fmt.Errorf("%w; %s is being indexed now: its symbols are found once that ends, which list_projects shows",
		err, runs[0].Dir)
}

// Following edits made outside codegraph: every project the server indexed is watched, and
// indexed again (only what changed) once its files are still.

// startFollowing lets follow watch trees until ctx ends; stop waits for the watchers.
func (g *Graph) startFollowing(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	g.mu.Lock()
	g.followCtx = ctx
	g.mu.Unlock()
	return func() {
		cancel()
		g.followers.Wait()
	}
}

// follow watches root, once, if following was started.
func (g *Graph) follow(root string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.followCtx == nil || g.followCtx.Err() != nil || g.followed[root] {
		return
	}
	if g.followed == nil {
		g.followed = map[string]bool{}
	}
	g.followed[root] = true
	ctx := g.followCtx
	g.followers.Add(1)
	go func() {
		defer g.followers.Done()
		watch.Watch(ctx, root, watch.Options{Relevant: relevantFile, Logf: log.Printf}, func() {
			res, err := g.reindex(ctx, root, nil)
			switch {
			case err != nil && ctx.Err() == nil:
				log.Printf("codegraph: indexing %s after a change: %v", root, err)
			case err == nil && len(res.Indexed)+len(res.Removed) > 0:
				log.Printf("codegraph: %s changed: %d packages indexed, %d removed, in %v", root, len(res.Indexed), len(res.Removed), res.Total.Round(time.Millisecond))
			}
		})
	}()
}

// relevantFile says whether a change of a file may change the graph: a source file of an
// indexed language, or what says which packages and modules there are.
func relevantFile(path string) bool {
	switch filepath.Base(path) {
	case "go.mod", "go.sum", "go.work", "go.work.sum":
		return true
	}
	for _, ext := range sourceExtensions {
		if strings.HasSuffix(path, ext) {
			return true
		}
	}
	return false
}
