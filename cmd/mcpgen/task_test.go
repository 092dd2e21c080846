package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// firstWrite is a writer that notes when it was first written to.
type firstWrite struct {
	mu  sync.Mutex
	buf bytes.Buffer
	at  time.Time
}

func (w *firstWrite) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.at.IsZero() {
		w.at = time.Now()
	}
	return w.buf.Write(p)
}

// mcpgen call of a tool the server runs as a task (revision 2026-07-28, the default): the
// task's status messages are drawn as they are, without a bar (a task's status has no
// numbers), each as it changes, and the result is printed as soon as the task ends, not a
// poll interval later: the client hears of the task's changes through subscriptions/listen
// (issue 25, item 10; before, the bar stuck at 0 and the end came with the next poll).
func TestCallFollowsATask(t *testing.T) {
	configHome(t)
	srv := mcp.NewServer(mcp.Implementation{Name: "tasks", Version: "1.0.0"}, &mcp.ServerOptions{
		Tasks: mcp.TaskOptions{PollInterval: 2 * time.Second}, // what polling alone would wait
	})
	var mu sync.Mutex
	var finished time.Time
	srv.AddTool(mcp.Tool{Name: "compute", Description: "Computes for a while.", InputSchema: `{"type":"object"}`, Task: mcp.TaskRequired,
		Handler: func(ctx context.Context, c *mcp.ToolCall) {
			for i := range 3 {
				mcp.Progress(ctx, float64(i), 3, fmt.Sprintf("Step %d of 3.", i+1))
				time.Sleep(300 * time.Millisecond)
			}
			mu.Lock()
			finished = time.Now()
			mu.Unlock()
			c.ReturnText("computed")
		}})
	h := srv.HTTPHandler(nil)
	ts := httptest.NewServer(h)
	defer func() {
		h.Close()
		ts.Close()
	}()

	stdout := &firstWrite{}
	var stderr bytes.Buffer
	code := run(context.Background(), []string{"mcpgen", "call", "--url", ts.URL, "--progress", "always", "compute"}, stdout, &stderr)
	if code != 0 || stdout.buf.String() != "computed\n" {
		t.Fatalf("exit %d\n%s%s", code, stdout.buf.String(), stderr.String())
	}
	mu.Lock()
	late := stdout.at.Sub(finished)
	mu.Unlock()
	t.Logf("the result was printed %s after the task ended", late)
	if late > 150*time.Millisecond {
		t.Errorf("the result was printed %s after the task ended; want it within 150 ms, not at the next poll", late)
	}
	drawn := stderr.String()
	for _, step := range []string{"Step 2 of 3.", "Step 3 of 3."} {
		if !strings.Contains(drawn, "\r\033[K"+step) {
			t.Errorf("the status message %q was not drawn alone on its line: %q", step, drawn)
		}
	}
	if regexp.MustCompile(`\[[ =>]*\]|<=>|%`).MatchString(drawn) {
		t.Errorf("a bar was drawn for a task's status messages, which have no numbers: %q", drawn)
	}
}
