//go:build linux

// Package ptytest gives a test a pseudo-terminal, whose other end a child process has as
// its terminal: for what a program does only when a person is at a terminal (ask, draw).
package ptytest

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// PTY is a pseudo-terminal. Slave is the child's end; the test writes what the person
// types to Master, and reads what the child wrote with Output.
type PTY struct {
	Master, Slave *os.File
	mu            sync.Mutex
	out           bytes.Buffer // what the child wrote to the terminal
	done          chan struct{}
}

// Open opens a pseudo-terminal, or skips the test where there is none. It is closed when
// the test ends.
func Open(t *testing.T) *PTY {
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
	p := &PTY{Master: m, Slave: s, done: make(chan struct{})}
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

// Output is what the child wrote to the terminal so far.
func (p *PTY) Output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// WaitFor waits until the terminal shows s, failing the test after 30 seconds.
func (p *PTY) WaitFor(t *testing.T, s string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(p.Output(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("the terminal never showed %q:\n%s", s, p.Output())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Closed closes the child's end here and waits until everything the child wrote is read:
// call it once the child exited.
func (p *PTY) Closed() {
	p.Slave.Close()
	<-p.done
}
