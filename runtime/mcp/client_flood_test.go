package mcp

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// floodingServer is a Streamable HTTP server that answers a tools/call with an SSE stream
// of log notifications without end, and never with the call's response.
func floodingServer(t *testing.T) *httptest.Server {
	note := "data: " + `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"` + strings.Repeat("x", 100) + `"}}` + "\n\n"
	burst := strings.Repeat(note, 100)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		body, _ := io.ReadAll(r.Body)
		json.Unmarshal(body, &m)
		w.Header().Set("Mcp-Session-Id", "flood")
		switch {
		case m.Method == "initialize":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"logging":{}},"serverInfo":{"name":"flood","version":"1"}}}`)
		case m.Method == "tools/call":
			w.Header().Set("Content-Type", "text/event-stream")
			for r.Context().Err() == nil {
				if _, err := io.WriteString(w, burst); err != nil {
					return
				}
				w.(http.Flusher).Flush()
			}
		case len(m.ID) > 0:
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"error":{"code":-32601,"message":"not here"}}`)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A server that streams notifications faster than the client handles them makes the
// client hold a bounded backlog (issue 35, item 4): the stream is read no faster than the
// client takes its messages. Before, the HTTP transports queued up to four times
// MaxMessageSize (256 MiB) of messages, their per-message overhead uncounted: with the
// client's log handler stalled for 1.5 s the heap grew by 180 MB (mcpgen call reached
// 833 MB against such a server).
func TestFloodingServerBacklogIsBounded(t *testing.T) {
	srv := floodingServer(t)
	var logged atomic.Int64
	stall := make(chan struct{})
	c, err := Connect(context.Background(), &StreamableHTTPTransport{URL: srv.URL}, &ClientOptions{
		ProtocolVersion: "2025-11-25", // the server speaks only the session revisions
		Log: func(LogMessage) {
			if logged.Add(1) == 1 {
				<-stall // the first message holds the client's reading up
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	before := heapInUse()
	ctx, cancel := context.WithCancel(context.Background())
	called := make(chan struct{})
	go func() {
		defer close(called)
		c.CallTool(ctx, "flood", nil)
	}()
	time.Sleep(1500 * time.Millisecond)
	grown := int64(heapInUse()) - int64(before)
	close(stall)
	time.Sleep(200 * time.Millisecond) // and the client reads on
	cancel()
	<-called
	t.Logf("while the client's handler stalled for 1.5 s, its heap grew by %d MB; %d messages handled after", grown>>20, logged.Load())
	if grown > 24<<20 {
		t.Errorf("the heap grew by %d MB while the client's handler stalled, more than 24 MB", grown>>20)
	}
	if logged.Load() < 2 {
		t.Errorf("the client handled %d log messages: it stopped reading", logged.Load())
	}
}
