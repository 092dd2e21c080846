package main

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

func init() {
	// flood: its tool sends log messages and progress notifications without pause and never
	// answers, until the call is cancelled.
	testServers["flood"] = func(s *mcp.Server) {
		s.AddTool(mcp.Tool{Name: "flood", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *mcp.ToolCall) {
			for i := 0; ctx.Err() == nil; i++ {
				mcp.Log(ctx, mcp.LevelInfo, "", fmt.Sprintf("message %d", i))
				mcp.Progress(ctx, float64(i), 0, "")
			}
			c.ReturnError(ctx.Err())
		}})
	}
}

// A server that floods its client with log messages and progress notifications gets a
// bounded share of the terminal (issue 35, item 4): at most a burst of 200 of its lines
// and then 100 a second, the others dropped and counted once a second ("N more log
// messages from flood were not shown"), and the bar redrawn at most every 50 ms (and below each line). Before,
// mcpgen printed every message: about 100,000 lines a second here, a million in 10 s.
func TestFloodingServerIsSummarized(t *testing.T) {
	configHome(t)
	dir := t.TempDir()
	path := writeConfig(t, dir, map[string]any{"flood": testServer("flood")})
	var stdout, stderr bytes.Buffer
	start := time.Now()
	code := run(context.Background(), []string{"mcpgen", "call", "flood", "flood", "--timeout", "2s", "--progress", "always", "--trust", "--config", path}, &stdout, &stderr)
	took := time.Since(start)
	out := stderr.String()
	logs := strings.Count(out, "[flood] info: message ")
	draws := len(regexp.MustCompile(`\r\x1b\[K\[[=> <]`).FindAllStringIndex(out, -1))
	dropped := 0
	for _, m := range regexp.MustCompile(`mcpgen: (\d+) more log messages from flood were not shown`).FindAllStringSubmatch(out, -1) {
		var n int
		fmt.Sscan(m[1], &n)
		dropped += n
	}
	t.Logf("%v: %d log lines shown, %d dropped and counted, the bar drawn %d times, %d bytes on stderr", took.Round(time.Millisecond), logs, dropped, draws, len(out))
	if code == 0 {
		t.Errorf("exit 0 for a call that timed out")
	}
	if max := lineBurst + int(took.Seconds()+1)*linesPerSecond; logs > max || logs < lineBurst/2 {
		t.Errorf("%d log lines shown in %v, want between %d and %d", logs, took, lineBurst/2, max)
	}
	if dropped == 0 {
		t.Errorf("no line says how many log messages were not shown:\n%s", clip(out, 2000))
	}
	// Besides its redraws below each line written, the bar is drawn at most every 50 ms.
	if max := logs + strings.Count(out, "\nmcpgen: ") + int(took/barInterval) + 4; draws > max {
		t.Errorf("the bar was drawn %d times in %v, more than %d", draws, took, max)
	}
}

func init() {
	// stubborn: its tool ignores its cancellation and works on for half a minute, as npm's
	// server-everything's long operation does, keeping its process up after stdin closes.
	testServers["stubborn"] = func(s *mcp.Server) {
		s.AddTool(mcp.Tool{Name: "work", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *mcp.ToolCall) {
			time.Sleep(30 * time.Second)
			c.ReturnText("late")
		}})
	}
}

// mcpgen call --timeout exits promptly once it gave up, even on a server that works on
// after the cancellation (issue 35, item 6): the server is not given the shutdown grace
// (a second, then a second after SIGTERM) it gets when a command ends as it should. Before,
// --timeout 1s sent the cancellation at 1 s and exited at 2 s here (3 s with a server that
// handles SIGTERM and waits for its tool).
func TestCallTimeoutExitsPromptly(t *testing.T) {
	configHome(t)
	dir := t.TempDir()
	path := writeConfig(t, dir, map[string]any{"stubborn": testServer("stubborn")})
	var stdout, stderr bytes.Buffer
	start := time.Now()
	code := run(context.Background(), []string{"mcpgen", "call", "stubborn", "work", "--timeout", "1s", "--trust", "--config", path}, &stdout, &stderr)
	took := time.Since(start)
	t.Logf("exit %d after %v: %s", code, took.Round(time.Millisecond), strings.TrimSpace(stderr.String()))
	if code != exitError || !strings.Contains(stderr.String(), "context deadline exceeded") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
	if took > 1900*time.Millisecond {
		t.Errorf("mcpgen call --timeout 1s exited after %v", took)
	}
}
