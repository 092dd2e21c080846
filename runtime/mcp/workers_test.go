package mcp

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// Requests run on reused goroutines, yet none waits for another: after many quick requests
// (idle workers ready), two that block run at once; and once the session ends, no worker is
// left, well before a worker would end for being idle.
func TestWorkersRunEveryRequestAtOnceAndStopWithTheSession(t *testing.T) {
	before := runtime.NumGoroutine()
	srv := quietServer(nil)
	var started sync.WaitGroup
	started.Add(2)
	release := make(chan struct{})
	srv.AddTool(Tool{Name: "block", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *ToolCall) {
		started.Done()
		<-release
		c.ReturnText("done")
	}})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(context.Background(), inR, outW); outW.Close() }()
	lines := make(chan string, 100)
	go func() {
		buf := make([]byte, 0, 1<<16)
		var line []byte
		for {
			n, err := outR.Read(buf[:cap(buf)])
			for _, b := range buf[:n] {
				if b == '\n' {
					lines <- string(line)
					line = nil
				} else {
					line = append(line, b)
				}
			}
			if err != nil {
				close(lines)
				return
			}
		}
	}()
	io.WriteString(inW, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`+"\n")
	<-lines
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", i)
		<-lines
	}
	io.WriteString(inW, `{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"block"}}`+"\n")
	io.WriteString(inW, `{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"block"}}`+"\n")
	waited := make(chan struct{})
	go func() { started.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(5 * time.Second):
		t.Fatal("the second blocking request did not start while the first ran")
	}
	close(release)
	for range 2 {
		if line := <-lines; !strings.Contains(line, `"done"`) {
			t.Fatalf("answer: %s", line)
		}
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for range lines {
	}
	deadline := time.Now().Add(idleWorker / 4)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines left after the session ended, want %d:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(5 * time.Millisecond)
	}
}
