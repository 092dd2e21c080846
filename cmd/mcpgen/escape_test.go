package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/ptytest"
	"github.com/mcpgen/mcpgen/internal/scripted"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// hostileText is what a server could write to take a terminal over: clear the screen
// (CSI), set the clipboard (OSC 52), a link whose target is not its text (OSC 8), CSI in
// one C1 character, a carriage return that writes over the line, a bidi override.
const hostileText = "A\x1b[2J\x1b]52;c;cHduZWQ=\a\u009b31m\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\\rX\u202eZ"

// escapedText is hostileText as mcpgen shows it.
const escapedText = `A\x1b[2J\x1b]52;c;cHduZWQ=\a\u009b31m\x1b]8;;https://evil.example\x1b\link\x1b]8;;\x1b\\rX\u202eZ`

func init() {
	// hostile: a server whose every text is hostileText: its tool's description, its log
	// messages, its progress messages, its stderr and its results.
	testServers["hostile"] = func(s *mcp.Server) {
		s.AddTool(mcp.Tool{Name: "work", Description: "Works. " + hostileText, InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *mcp.ToolCall) {
			fmt.Fprintln(os.Stderr, "stderr "+hostileText)
			mcp.Progress(ctx, 1, 2, "progress "+hostileText)
			mcp.Log(ctx, mcp.LevelWarning, "", "log "+hostileText+"\nsecond line")
			time.Sleep(20 * time.Millisecond)
			c.ReturnText("result " + hostileText)
		}})
	}
}

// reachesTerminal names the first character of out that a terminal would take as a
// command, besides the progress bar's own "\r\x1b[K"; "" when there is none.
func reachesTerminal(out string) string {
	out = strings.ReplaceAll(out, "\r\x1b[K", "")
	out = strings.ReplaceAll(out, "\r\n", "\n") // a terminal's own line ends
	for _, r := range out {
		if r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r < 0xa0 || r == 0x202e {
			return fmt.Sprintf("%q", r)
		}
	}
	return ""
}

// Nothing a server says reaches the terminal as a command (issue 35, item 3): a tool's
// description in mcpgen tools, its log messages and stderr (-v) on stderr, the progress bar,
// an error it answers with; each is shown with its control characters escaped, a log
// message of several lines with its later lines indented. Before, all of them went to the
// terminal raw: \x1b[2J cleared the screen, OSC 52 set the clipboard.
func TestServerTextIsShownAsText(t *testing.T) {
	configHome(t)
	dir := t.TempDir()
	path := writeConfig(t, dir, map[string]any{"hostile": testServer("hostile")})

	code, out, errOut := mcpgen(t, "tools", "--trust", "--config", path)
	if c := reachesTerminal(out + errOut); code != 0 || c != "" || !strings.Contains(out, "Works. "+escapedText) {
		t.Errorf("tools: exit %d, %s reaches the terminal:\n%s%s", code, c, out, errOut)
	}

	var stdout, stderr bytes.Buffer
	code = run(context.Background(), []string{"mcpgen", "call", "hostile", "work", "--progress", "always", "-v", "--trust", "--config", path}, &stdout, &stderr)
	if c := reachesTerminal(stderr.String()); code != 0 || c != "" {
		t.Errorf("call: exit %d, %s reaches the terminal:\n%q", code, c, stderr.String())
	}
	for _, want := range []string{
		"[hostile] warning: log " + escapedText + "\n    second line\n",
		"progress " + escapedText,
		"stderr: stderr " + escapedText,
	} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("call: stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	// Into a pipe or a file, a result goes as the server gave it: it is data.
	if stdout.String() != "result "+hostileText+"\n" {
		t.Errorf("call: stdout %q, want the result as it is", stdout.String())
	}

	// An error a server answers a list with, in the notes of mcpgen servers.
	path = writeConfig(t, dir, map[string]any{"failing": scriptedServer(scripted.Script{Name: "failing", Tools: []string{"one"}, Resources: []string{"db://t"},
		Fail: map[string]string{"resources/list": "error " + hostileText}})})
	code, out, errOut = mcpgen(t, "servers", "--trust", "--config", path)
	if c := reachesTerminal(out + errOut); code != 0 || c != "" || !strings.Contains(out, "error "+escapedText) {
		t.Errorf("servers: exit %d, %s reaches the terminal:\n%s%s", code, c, out, errOut)
	}
}

// At a terminal, stdout too shows a result as text.
func TestResultAtATerminalIsShownAsText(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("pseudo-terminals are opened the Linux way here")
	}
	configHome(t)
	dir := t.TempDir()
	path := writeConfig(t, dir, map[string]any{"hostile": testServer("hostile")})
	p := ptytest.Open(t)
	list, _ := json.Marshal([]string{"call", "hostile", "work", "--trust", "--config", path})
	cmd := exec.Command(os.Args[0])
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "MCPGEN_TEST_CLI="+string(list))
	cmd.Stdin, cmd.Stdout, cmd.Stderr = p.Slave, p.Slave, p.Slave
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, p.Output())
	}
	p.Closed()
	if c := reachesTerminal(p.Output()); c != "" || !strings.Contains(p.Output(), "result "+escapedText+"\r\n") {
		t.Errorf("%s reaches the terminal:\n%q", c, p.Output())
	}
}
