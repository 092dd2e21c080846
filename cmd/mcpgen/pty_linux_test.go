package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/ptytest"
)

// mcpgenAt starts mcpgen (the test binary, as childProcess) in dir with stdin and stderr
// on the terminal's slave (stdin on stdin, when given) and stdout in a buffer; wait waits
// for it to exit.
func mcpgenAt(t *testing.T, p *ptytest.PTY, stdin *os.File, dir string, args ...string) (wait func() (int, string)) {
	t.Helper()
	list, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0])
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "MCPGEN_TEST_CLI="+string(list))
	var stdout bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = p.Slave, &stdout, p.Slave
	if stdin != nil {
		cmd.Stdin = stdin
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waited := false
	t.Cleanup(func() { // a test that failed half way leaves no process behind
		if !waited {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	// Once it exited: the terminal's slave closed here too, all it wrote is read.
	return func() (int, string) {
		err := cmd.Wait()
		waited = true
		p.Closed()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), stdout.String()
		} else if err != nil {
			t.Fatal(err)
		}
		return 0, stdout.String()
	}
}

// At a terminal, mcpgen shows what a project's file would run and asks: no starts nothing,
// yes starts it and is remembered until the file changes.
func TestApprovalAtTheTerminal(t *testing.T) {
	home := configHome(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "started")
	path := writeConfig(t, dir, map[string]any{"local": markerServer(marker)})

	p := ptytest.Open(t)
	wait := mcpgenAt(t, p, nil, dir, "tools")
	p.WaitFor(t, "Start it? [y/N] ")
	for _, want := range []string{
		path + " asks to start 1 MCP server:\r\n",
		"  local (stdio)\r\n    runs    " + os.Args[0] + "\r\n",
		"    env     MCPGEN_TEST_MARKER=" + marker + "\r\n    env     MCPGEN_TEST_SERVER=marker\r\n",
		"approve it only if you trust where the project came from.\r\nA yes is remembered until the file changes.\r\n",
	} {
		if !strings.Contains(p.Output(), want) {
			t.Errorf("the review lacks %q:\n%s", want, p.Output())
		}
	}
	p.Master.WriteString("n\n")
	code, out := wait()
	if code != 2 || out != "" || !strings.Contains(p.Output(), "mcpgen tools: .mcp.json was not approved; nothing was started") || started(marker) {
		t.Fatalf("declined: exit %d, started %v\n%s%s", code, started(marker), out, p.Output())
	}

	p = ptytest.Open(t)
	wait = mcpgenAt(t, p, nil, dir, "tools")
	p.WaitFor(t, "Start it? [y/N] ")
	p.Master.WriteString("y\n")
	code, out = wait()
	if code != 0 || out != "SERVER  TOOL   DESCRIPTION\nlocal   hello  Says hello.\n" || !started(marker) {
		t.Fatalf("approved: exit %d, started %v\n%s%s", code, started(marker), out, p.Output())
	}
	var approvals map[string]struct{ SHA256 string }
	b, _ := os.ReadFile(filepath.Join(home, "mcpgen", "approvals.json"))
	if err := json.Unmarshal(b, &approvals); err != nil || len(approvals[path].SHA256) != 64 {
		t.Fatalf("approvals.json: %v\n%s", err, b)
	}

	// Remembered: no terminal needed now; a changed file is asked about again.
	if code, out, errOut := mcpgen(t, "tools", "--config", path); code != 0 || out != "SERVER  TOOL   DESCRIPTION\nlocal   hello  Says hello.\n" {
		t.Errorf("after approval: exit %d\n%s%s", code, out, errOut)
	}
	data, _ := os.ReadFile(path)
	os.WriteFile(path, append(data, '\n'), 0o644)
	code, _, errOut := mcpgen(t, "tools", "--config", path)
	if code != 2 || !strings.HasPrefix(errOut, "mcpgen tools: "+path+" changed since you approved it; nothing was started.\n") {
		t.Errorf("changed file: exit %d\n%s", code, errOut)
	}
	p = ptytest.Open(t)
	wait = mcpgenAt(t, p, nil, dir, "servers")
	p.WaitFor(t, "Start it? [y/N] ")
	if !strings.Contains(p.Output(), path+" changed since you approved it; it now asks to start 1 MCP server. What changed:") ||
		!strings.Contains(p.Output(), "its servers are as you approved them (local): only the rest of the file changed") {
		t.Errorf("the review does not say the file changed:\n%s", p.Output())
	}
	p.Master.WriteString("\n") // no answer is no
	if code, _ := wait(); code != 2 {
		t.Errorf("no answer: exit %d\n%s", code, p.Output())
	}
}

// With stdin at /dev/null there is nobody to ask, even with a terminal for stderr: no
// prompt, and the error says how to approve.
func TestNoPromptWithoutATerminal(t *testing.T) {
	configHome(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "started")
	writeConfig(t, dir, map[string]any{"local": markerServer(marker)})
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	p := ptytest.Open(t)
	code, _ := mcpgenAt(t, p, null, dir, "tools")()
	if code != 2 || strings.Contains(p.Output(), "[y/N]") || !strings.Contains(p.Output(), "add --trust to start its servers this once") || started(marker) {
		t.Errorf("exit %d, started %v:\n%s", code, started(marker), p.Output())
	}
}

// At a real terminal, mcpgen call shows a server's sampling request and sends the reply
// typed there; declining ends the call without a result.
func TestSamplingAtARealTerminal(t *testing.T) {
	configHome(t)
	dir := t.TempDir()
	path := writeConfig(t, dir, map[string]any{"sampler": testServer("sampler")})

	p := ptytest.Open(t)
	wait := mcpgenAt(t, p, nil, dir, "call", "sampler", "ask", "question=What is the capital of France?", "--trust", "--config", path)
	p.WaitFor(t, "(a \".\" at once declines):\r\n> ")
	for _, want := range []string{
		"Server sampler asks for a message from a model (sampling), in at most 50 tokens:\r\n",
		"  system: Answer in one sentence.\r\n",
		"  user: What is the capital of France?\r\n",
	} {
		if !strings.Contains(p.Output(), want) {
			t.Errorf("the terminal lacks %q:\n%s", want, p.Output())
		}
	}
	p.Master.WriteString("Paris.\n.\n")
	p.WaitFor(t, "Send it? [y = send, e = write it again, n = decline] ")
	p.Master.WriteString("y\n")
	code, out := wait()
	if code != 0 || out != "human says: Paris.\n" {
		t.Fatalf("exit %d, stdout %q\n%s", code, out, p.Output())
	}

	p = ptytest.Open(t)
	wait = mcpgenAt(t, p, nil, dir, "call", "sampler", "ask", "question=Why?", "--trust", "--config", path)
	p.WaitFor(t, "(a \".\" at once declines):\r\n> ")
	p.Master.WriteString(".\n")
	code, out = wait()
	if code != 1 || out != "" || !strings.Contains(p.Output(), "Declined.\r\nmcpgen call: sampler/ask ended without a result: its request for a model's message was declined\r\n") {
		t.Errorf("declined: exit %d, stdout %q\n%s", code, out, p.Output())
	}
}

// At a terminal mcpgen declares sampling (with tools) and elicitation (with URLs), which it
// asks there; --sampling and --elicitation say otherwise. The root is the current directory.
func TestCapabilitiesAtATerminal(t *testing.T) {
	configHome(t)
	dir := t.TempDir()
	path := writeConfig(t, dir, map[string]any{"caps": testServer("caps")})
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "sampling sampling.tools elicitation elicitation.url roots " + fileRoot(dir).URI + "\n"},
		{[]string{"--sampling", "off", "--elicitation", "decline"}, "elicitation elicitation.url roots " + fileRoot(dir).URI + "\n"},
	} {
		p := ptytest.Open(t)
		code, out := mcpgenAt(t, p, nil, dir, append([]string{"call", "caps", "caps", "--trust", "--config", path}, c.args...)...)()
		if code != 0 || out != c.want {
			t.Errorf("mcpgen call %s: exit %d %q, want %q\n%s", strings.Join(c.args, " "), code, out, c.want, p.Output())
		}
	}
}
