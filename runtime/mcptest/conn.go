package mcptest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// TestConnection checks that a transport's connections keep the contract of
// mcp.Connection, as a transport outside package mcp should: pipe returns the two ends of
// a fresh connection (a client's and a server's, or two of a kind), each test closes them.
// It checks messages whole and in order under concurrent writers (run the test with -race),
// io.EOF after the other side's Close, Close ending a blocked Read and a blocked Write,
// Write failing after Close, a cancelled Write leaving the connection usable, and the slices
// Read returns staying the caller's.
func TestConnection(t *testing.T, pipe func(t *testing.T) (a, b mcp.Connection)) {
	t.Run("WholeAndInOrder", func(t *testing.T) { testOrder(t, pipe) })
	t.Run("EOFAfterClose", func(t *testing.T) { testEOF(t, pipe) })
	t.Run("CloseEndsRead", func(t *testing.T) { testCloseRead(t, pipe) })
	t.Run("CloseEndsWrite", func(t *testing.T) { testCloseWrite(t, pipe) })
	t.Run("WriteAfterClose", func(t *testing.T) { testWriteAfterClose(t, pipe) })
	t.Run("CancelledWrite", func(t *testing.T) { testCancelledWrite(t, pipe) })
	t.Run("ReadSlicesAreTheCallers", func(t *testing.T) { testOwnership(t, pipe) })
}

// connPair makes a pair that is closed when the test ends.
func connPair(t *testing.T, pipe func(t *testing.T) (a, b mcp.Connection)) (a, b mcp.Connection) {
	a, b = pipe(t)
	t.Cleanup(func() {
		// Both at once: a transport whose Close waits for the other side's closing
		// handshake (WebSocket) hears it from the other's Close.
		var wg sync.WaitGroup
		wg.Go(func() { a.Close() })
		b.Close()
		wg.Wait()
	})
	return a, b
}

// reading reads c in the background, as the other side of a conversation always does (a
// transport may need it to close: WebSocket's closing handshake), until c fails; when the
// test ends, it closes c and waits for the reading to end.
func reading(t *testing.T, c mcp.Connection) {
	done := make(chan struct{})
	t.Cleanup(func() {
		c.Close()
		<-done
	})
	go func() {
		defer close(done)
		for {
			if _, err := c.Read(context.Background()); err != nil {
				return
			}
		}
	}()
}

func note(writer, n int) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"notifications/test","params":{"writer":%d,"n":%d}}`, writer, n)
}

// readWithin reads one message from c, failing the test if none comes within Timeout
// (then it closes c, which ends the Read). Every Read of a connection takes the same
// context, the test's, as the contract asks.
func readWithin(t *testing.T, c mcp.Connection) []byte {
	t.Helper()
	timer := time.AfterFunc(Timeout, func() { c.Close() })
	msg, err := c.Read(t.Context())
	if !timer.Stop() {
		t.Fatalf("no message within %s", Timeout)
	}
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return msg
}

func testOrder(t *testing.T, pipe func(t *testing.T) (a, b mcp.Connection)) {
	a, b := connPair(t, pipe)
	const writers, each = 8, 200
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			for n := range each {
				if err := a.Write(context.Background(), note(w, n)); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	next := make([]int, writers)
	for range writers * each {
		msg := readWithin(t, b)
		var m struct {
			Params struct{ Writer, N int }
		}
		if err := json.Unmarshal(msg, &m); err != nil {
			t.Fatalf("a message is not whole: %v: %.200q", err, msg)
		}
		w, n := m.Params.Writer, m.Params.N
		if w < 0 || w >= writers || n != next[w] || !bytes.Equal(msg, note(w, n)) {
			t.Fatalf("read %s; want writer %d's message %d", msg, w, next[max(0, min(w, writers-1))])
		}
		next[w]++
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("Write: %v", err)
	}
}

func testEOF(t *testing.T, pipe func(t *testing.T) (a, b mcp.Connection)) {
	a, b := connPair(t, pipe)
	if err := a.Write(context.Background(), note(0, 0)); err != nil {
		t.Fatal(err)
	}
	if msg := readWithin(t, b); !bytes.Equal(msg, note(0, 0)) {
		t.Fatalf("read %s", msg)
	}
	read := make(chan error, 1)
	go func() {
		msg, err := b.Read(t.Context())
		if err == nil {
			err = fmt.Errorf("a message: %s", msg)
		}
		read <- err
	}()
	a.Close()
	select {
	case err := <-read:
		if !errors.Is(err, io.EOF) {
			t.Fatalf("Read after the other side closed: %v; want io.EOF", err)
		}
	case <-time.After(Timeout):
		b.Close()
		t.Fatal("Read went on after the other side closed")
	}
}

func testCloseRead(t *testing.T, pipe func(t *testing.T) (a, b mcp.Connection)) {
	a, b := connPair(t, pipe)
	reading(t, a)
	read := make(chan error, 1)
	go func() {
		_, err := b.Read(t.Context())
		read <- err
	}()
	time.Sleep(50 * time.Millisecond) // Read blocks
	b.Close()
	select {
	case err := <-read:
		if err == nil {
			t.Fatal("Read returned a message after Close")
		}
	case <-time.After(Timeout):
		t.Fatal("Close did not end a blocked Read")
	}
}

func testCloseWrite(t *testing.T, pipe func(t *testing.T) (a, b mcp.Connection)) {
	a, _ := connPair(t, pipe)
	big := fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"notifications/test","params":{"pad":"%s"}}`, bytes.Repeat([]byte("x"), 64<<10))
	wrote := make(chan error, 1)
	go func() {
		// The other side does not read: a transport with backpressure blocks here.
		for range 256 {
			if err := a.Write(context.Background(), big); err != nil {
				wrote <- err
				return
			}
		}
		wrote <- nil
	}()
	time.Sleep(100 * time.Millisecond)
	a.Close()
	select {
	case <-wrote:
	case <-time.After(Timeout):
		t.Fatal("Close did not end a blocked Write")
	}
}

func testWriteAfterClose(t *testing.T, pipe func(t *testing.T) (a, b mcp.Connection)) {
	a, b := connPair(t, pipe)
	reading(t, b)
	a.Close()
	if err := a.Write(context.Background(), note(0, 0)); err == nil {
		t.Fatal("Write after Close succeeded")
	}
	if err := a.Close(); err != nil && !errors.Is(err, io.EOF) {
		// A second Close may report what the first did; it must not panic or block.
		t.Logf("a second Close: %v", err)
	}
}

func testCancelledWrite(t *testing.T, pipe func(t *testing.T) (a, b mcp.Connection)) {
	a, b := connPair(t, pipe)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := a.Write(ctx, note(0, 0))
	if err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("a Write whose context ended failed with %v, which does not wrap context.Canceled", err)
	}
	if err := a.Write(context.Background(), note(0, 1)); err != nil {
		t.Fatalf("a Write after a cancelled one: %v", err)
	}
	msg := readWithin(t, b)
	if err == nil { // handed over before its context was seen to end: it comes whole, first
		if !bytes.Equal(msg, note(0, 0)) {
			t.Fatalf("read %s; want the first message", msg)
		}
		msg = readWithin(t, b)
	}
	if !bytes.Equal(msg, note(0, 1)) {
		t.Fatalf("read %s; want the message written after the cancelled one", msg)
	}
}

func testOwnership(t *testing.T, pipe func(t *testing.T) (a, b mcp.Connection)) {
	a, b := connPair(t, pipe)
	for n := range 3 {
		if err := a.Write(context.Background(), note(0, n)); err != nil {
			t.Fatal(err)
		}
	}
	first := readWithin(t, b)
	kept := bytes.Clone(first)
	readWithin(t, b)
	readWithin(t, b)
	if !bytes.Equal(first, kept) {
		t.Fatalf("a slice Read returned changed with later reads: %s, was %s", first, kept)
	}
}
