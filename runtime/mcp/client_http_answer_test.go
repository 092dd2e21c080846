package mcp

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// The answer to a POST comes back on the caller's goroutine: a call over Streamable HTTP
// answered with JSON returns while the goroutine that reads the connection is busy (here,
// in a progress function of another call's that has not returned). Through Read, the
// answer waited behind it: every call took a hop through that goroutine.
func TestHTTPAnswerPassesABusyReader(t *testing.T) {
	for _, version := range []string{"", "2025-11-25"} {
		t.Run("version="+version, func(t *testing.T) {
			srv := quietServer(nil)
			srv.AddTool(echoTool("echo"))
			proceed := make(chan struct{})
			srv.AddTool(Tool{Name: "slow", Description: "Reports progress, then waits.", InputSchema: `{"type":"object"}`,
				Handler: func(ctx context.Context, c *ToolCall) {
					Progress(ctx, 1, 2, "half")
					select {
					case <-proceed:
					case <-ctx.Done():
					}
					c.ReturnText("done")
				}})
			c, err := Connect(context.Background(), &StreamableHTTPTransport{URL: serveForClient(t, srv) + "/mcp"}, &ClientOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()

			busy, release := make(chan struct{}), make(chan struct{})
			slow := make(chan error, 1)
			go func() {
				ctx := WithProgress(context.Background(), func(ProgressNotice) {
					close(busy)
					<-release // the reading goroutine is held here
				})
				_, err := c.CallTool(ctx, "slow", nil)
				slow <- err
			}()
			<-busy
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			res, err := c.CallTool(ctx, "echo", map[string]any{"text": "hi"})
			cancel()
			close(release)
			close(proceed)
			if err != nil || res.IsError || res.Content[0].(Text).Text != "hi" {
				t.Errorf("echo while the reader is busy: %+v %v", res, err)
			}
			if err := <-slow; err != nil {
				t.Errorf("slow: %v", err)
			}
		})
	}
}

// readBody reads an answer of unknown length into one slice of its size: io.ReadAll took
// twice the size and more, in several slices, for every answer.
func TestReadBodyAllocatesOnce(t *testing.T) {
	body := strings.Repeat(`{"jsonrpc":"2.0","id":1,"result":{}}`, 500) // 18 KB
	readBody(strings.NewReader(body), 1<<20)                            // a buffer to read into
	var got []byte
	if n := testing.AllocsPerRun(100, func() {
		got, _ = readBody(strings.NewReader(body), 1<<20)
	}); n > 8 {
		// 3: the body, and the two readers. Under -race sync.Pool drops a buffer now and
		// then, and a new one grows as it reads: 5 or 6 on average. io.ReadAll took 15.
		t.Errorf("readBody allocates %v times per body, want 3", n)
	}
	if !bytes.Equal(got, []byte(body)) {
		t.Errorf("readBody read %d bytes, want the %d of the body", len(got), len(body))
	}
	if _, err := readBody(strings.NewReader(body), len(body)-1); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("a body over the limit: %v", err)
	}
}
