package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// pty is a pseudo-terminal whose other end a child process has as its terminal.
type pty struct {
	master, slave *os.File
	mu            sync.Mutex
	out           bytes.Buffer // what the child wrote to the terminal
	done          chan struct{}
}

func openPTY(t *testing.T) *pty {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	p := &pty{master: m, slave: s, done: make(chan struct{})}
	go func() { // until every end of the slave is closed: the child exited
		defer close(p.done)
		buf := make([]byte, 4096)
		for {
			n, err := m.Read(buf)
			p.mu.Lock()
			p.out.Write(buf[:n])
			p.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		s.Close()
		<-p.done
		m.Close()
	})
	return p
}

func (p *pty) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// waitFor waits until the terminal shows s.
func (p *pty) waitFor(t *testing.T, s string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(p.output(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("the terminal never showed %q:\n%s", s, p.output())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// mcpgenAt starts mcpgen (the test binary, as childProcess) in dir with stdin and stderr
// on the terminal's slave (stdin on stdin, when given) and stdout in a buffer; wait waits
// for it to exit.
func mcpgenAt(t *testing.T, p *pty, stdin *os.File, dir string, args ...string) (wait func() (int, string)) {
	t.Helper()
	list, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0])
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "MCPGEN_TEST_CLI="+string(list))
	var stdout bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = p.slave, &stdout, p.slave
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
		p.slave.Close()
		<-p.done
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

	p := openPTY(t)
	wait := mcpgenAt(t, p, nil, dir, "tools")
	p.waitFor(t, "Start it? [y/N] ")
	for _, want := range []string{
		path + " asks to start 1 MCP server:\r\n",
		"  local (stdio)\r\n    runs    " + os.Args[0] + "\r\n",
		"    env     MCPGEN_TEST_MARKER=" + marker + "\r\n    env     MCPGEN_TEST_SERVER=marker\r\n",
		"approve it only if you trust where the project came from.",
	} {
		if !strings.Contains(p.output(), want) {
			t.Errorf("the review lacks %q:\n%s", want, p.output())
		}
	}
	p.master.WriteString("n\n")
	code, out := wait()
	if code != 2 || out != "" || !strings.Contains(p.output(), "mcpgen tools: .mcp.json was not approved; nothing was started") || started(marker) {
		t.Fatalf("declined: exit %d, started %v\n%s%s", code, started(marker), out, p.output())
	}

	p = openPTY(t)
	wait = mcpgenAt(t, p, nil, dir, "tools")
	p.waitFor(t, "Start it? [y/N] ")
	p.master.WriteString("y\n")
	code, out = wait()
	if code != 0 || out != "mcp_local_hello  Says hello.\n" || !started(marker) {
		t.Fatalf("approved: exit %d, started %v\n%s%s", code, started(marker), out, p.output())
	}
	var approvals map[string]struct{ SHA256 string }
	b, _ := os.ReadFile(filepath.Join(home, "mcpgen", "approvals.json"))
	if err := json.Unmarshal(b, &approvals); err != nil || len(approvals[path].SHA256) != 64 {
		t.Fatalf("approvals.json: %v\n%s", err, b)
	}

	// Remembered: no terminal needed now; a changed file is asked about again.
	if code, out, errOut := mcpgen(t, "tools", "--config", path); code != 0 || out != "mcp_local_hello  Says hello.\n" {
		t.Errorf("after approval: exit %d\n%s%s", code, out, errOut)
	}
	data, _ := os.ReadFile(path)
	os.WriteFile(path, append(data, '\n'), 0o644)
	code, _, errOut := mcpgen(t, "tools", "--config", path)
	if code != 2 || !strings.HasPrefix(errOut, "mcpgen tools: "+path+" changed since you approved it; nothing was started.\n") {
		t.Errorf("changed file: exit %d\n%s", code, errOut)
	}
	p = openPTY(t)
	wait = mcpgenAt(t, p, nil, dir, "servers")
	p.waitFor(t, "Start it? [y/N] ")
	if !strings.Contains(p.output(), path+" changed since you approved it; it now asks to start 1 MCP server:") {
		t.Errorf("the review does not say the file changed:\n%s", p.output())
	}
	p.master.WriteString("\n") // no answer is no
	if code, _ := wait(); code != 2 {
		t.Errorf("no answer: exit %d\n%s", code, p.output())
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
	p := openPTY(t)
	code, _ := mcpgenAt(t, p, null, dir, "tools")()
	if code != 2 || strings.Contains(p.output(), "[y/N]") || !strings.Contains(p.output(), "add --trust to start its servers this once") || started(marker) {
		t.Errorf("exit %d, started %v:\n%s", code, started(marker), p.output())
	}
}

// At a real terminal, mcpgen call shows a server's sampling request and sends the reply
// typed there; declining ends the call without a result.
func TestSamplingAtARealTerminal(t *testing.T) {
	configHome(t)
	dir := t.TempDir()
	path := writeConfig(t, dir, map[string]any{"sampler": testServer("sampler")})

	p := openPTY(t)
	wait := mcpgenAt(t, p, nil, dir, "call", "sampler", "ask", "question=What is the capital of France?", "--trust", "--config", path)
	p.waitFor(t, "(a \".\" at once declines):\r\n> ")
	for _, want := range []string{
		"Server sampler asks for a message from a model (sampling), in at most 50 tokens:\r\n",
		"  system: Answer in one sentence.\r\n",
		"  user: What is the capital of France?\r\n",
	} {
		if !strings.Contains(p.output(), want) {
			t.Errorf("the terminal lacks %q:\n%s", want, p.output())
		}
	}
	p.master.WriteString("Paris.\n.\n")
	p.waitFor(t, "Send it? [y = send, e = write it again, n = decline] ")
	p.master.WriteString("y\n")
	code, out := wait()
	if code != 0 || out != "human says: Paris.\n" {
		t.Fatalf("exit %d, stdout %q\n%s", code, out, p.output())
	}

	p = openPTY(t)
	wait = mcpgenAt(t, p, nil, dir, "call", "sampler", "ask", "question=Why?", "--trust", "--config", path)
	p.waitFor(t, "(a \".\" at once declines):\r\n> ")
	p.master.WriteString(".\n")
	code, out = wait()
	if code != 1 || out != "" || !strings.Contains(p.output(), "Declined.\r\nmcpgen call: sampler/ask ended without a result: its request for a model's message was declined\r\n") {
		t.Errorf("declined: exit %d, stdout %q\n%s", code, out, p.output())
	}
}
