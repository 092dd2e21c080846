package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// TestLimiter: searches beyond those running wait in a line of bounded length, for a
// bounded time, and the rest are refused at once with the reason (before: every search ran
// at once; 200 of them on Go's source answered at p50 52 s in 1.2 GB, and another search
// waited 8 s).
func TestLimiter(t *testing.T) {
	l := newLimiter(1, 1, 200*time.Millisecond)
	ctx := context.Background()
	leave1, err := l.enter(ctx, "search")
	if err != nil {
		t.Fatal(err)
	}
	entered := make(chan error, 1)
	go func() {
		leave2, err := l.enter(ctx, "search")
		if err == nil {
			leave2()
		}
		entered <- err
	}()
	for l.waiting.Load() != 1 {
		time.Sleep(time.Millisecond)
	}
	begin := time.Now()
	if _, err := l.enter(ctx, "search"); err == nil || !strings.Contains(err.Error(), "busy: 1 searches are running and 1 waiting") || time.Since(begin) > 50*time.Millisecond {
		t.Errorf("a third search past the line: %v after %v", err, time.Since(begin))
	}
	leave1()
	if err := <-entered; err != nil {
		t.Errorf("the search in line: %v", err)
	}

	// One that waits too long is refused; one whose request ends stops waiting.
	leave1, _ = l.enter(ctx, "search")
	defer leave1()
	if _, err := l.enter(ctx, "search"); err == nil || !strings.Contains(err.Error(), "waited 200ms") {
		t.Errorf("a search that waited too long: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	time.AfterFunc(20*time.Millisecond, cancel)
	if _, err := l.enter(cctx, "search"); !errors.Is(err, context.Canceled) {
		t.Errorf("a search whose request ended: %v", err)
	}
}

// TestPartialSearch: search_code past --search-timeout answers with the matches it found,
// says that it stopped and where, and gives the cursor that goes on.
func TestPartialSearch(t *testing.T) {
	root := t.TempDir()
	var b strings.Builder
	for i := 0; b.Len() < 4<<20; i++ {
		b.WriteString("line of text 0123456789 abcdefghij 0123456789 abcdefghij 0123456789 abcdefghij\n")
	}
	must(t, os.WriteFile(filepath.Join(root, "big.txt"), []byte(b.String()), 0o644))
	c, _ := connect(t, "stdio", root, "--search-timeout", "20ms")
	var r SearchCodeResult
	must(t, call(t, c, "search_code", map[string]any{"query": `[^x]{300}[0-9]{5}`, "regex": true}, &r))
	if !strings.HasPrefix(r.Partial, "the search stopped after 20ms, the time one search may take, having read 1 of the 1 files") || !r.Truncated || r.NextCursor == "" {
		t.Errorf("a search past its time: %+v", r)
	}
	res, err := c.CallTool(context.Background(), "search_code", map[string]any{"query": `[^x]{300}[0-9]{5}`, "regex": true})
	if err != nil || !strings.Contains(res.Content[0].(mcp.Text).Text, "\nPartial: the search stopped after 20ms") {
		t.Errorf("its text: %v %+v", err, res)
	}
}
