package mcp

import (
	"cmp"
	"context"
	"io"
	"net/http"
	"testing"
	"time"
)

// touchServer has a resource, test://r, and a tool, touch, that tells its subscribers the
// resource changed.
func touchServer() *Server {
	srv := quietServer(nil)
	srv.AddResource(Resource{URI: "test://r", Name: "r", Read: func(ctx context.Context, uri string) ([]ResourceContents, error) { return nil, nil }})
	srv.AddTool(Tool{Name: "touch", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *ToolCall) {
		srv.NotifyResourceUpdated("test://r")
		c.ReturnText("touched")
	}})
	return srv
}

// A subscription and the call that changes what it listens to, written together over
// stdio, take effect in the order they were written: the subscription exists before the
// call runs, so the update reaches it (issue 25, item 15: it was lost 10 runs of 10, as the
// call was served inline while the subscription waited for a worker). The update is
// queued before the call's answer, so it is written before the answer to a request sent
// after that answer came.
func TestListenThenCallInOrderOverStdio(t *testing.T) {
	lost := 0
	for run := range 100 {
		h := start(t, touchServer())
		h.send(`{"jsonrpc":"2.0","id":"sub","method":"subscriptions/listen","params":{` + statelessMetaJSON + `,"notifications":{"resourceSubscriptions":["test://r"]}}}` + "\n" +
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + statelessMetaJSON + `,"name":"touch","arguments":{}}}`)
		var acked, updated bool
		for done := false; !done; {
			m := h.recv()
			switch {
			case m["method"] == notificationAcknowledged:
				acked = true
			case m["method"] == notificationResourceUpdated:
				if !acked {
					t.Fatalf("run %d: an update before the acknowledgement", run)
				}
				updated = true
			case m["id"] == float64(1):
				// Anything queued before this answer is written before the next one. (Sent
				// while this goroutine reads on: a pipe holds nothing.)
				go io.WriteString(h.in, `{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{`+statelessMetaJSON+`}}`+"\n")
			case m["id"] == float64(2):
				done = true
			default:
				t.Fatalf("run %d: unexpected %v", run, m)
			}
		}
		if !acked || !updated {
			lost++
		}
		h.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"sub"}}`)
	}
	if lost > 0 {
		t.Errorf("%d runs of 100 lost the update", lost)
	}
}

// In a session over stdio, resources/subscribe and the call after it take effect in the
// order written too: the subscription is served before the next message is read, not
// merely started there (before, 1 run in 900 lost the update on a loaded machine, when
// the reader passed its turn while the subscription was being registered).
func TestSubscribeThenCallInOrderInASession(t *testing.T) {
	lost := 0
	for range 300 {
		h := start(t, touchServer())
		h.initialize("2025-11-25")
		h.send(`{"jsonrpc":"2.0","id":"sub","method":"resources/subscribe","params":{"uri":"test://r"}}` + "\n" +
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"touch","arguments":{}}}`)
		updated := false
		for done := false; !done; {
			m := h.recv()
			switch {
			case m["method"] == notificationResourceUpdated:
				updated = true
			case m["id"] == float64(1):
				go io.WriteString(h.in, `{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n")
			case m["id"] == float64(2):
				done = true
			}
		}
		if !updated {
			lost++
		}
	}
	if lost > 0 {
		t.Errorf("%d runs of 300 lost the update", lost)
	}
}

// A client that subscribes to a resource and then calls a tool that changes it hears of the
// change, in the stateless revision (Subscribe waits for the acknowledgement of its
// subscriptions/listen; before, it returned at once and the call could reach the server
// first) and in a session, in memory, over stdio and over Streamable HTTP.
func TestClientSubscribeThenCall(t *testing.T) {
	srv := touchServer()
	url := serveForClient(t, srv)
	transports := map[string]func() Transport{
		"memory": func() Transport { return &MemoryTransport{Server: srv} },
		"stdio":  func() Transport { return servePipes(t, srv) },
		"http": func() Transport {
			return &StreamableHTTPTransport{URL: url + "/mcp", HTTPClient: &http.Client{Transport: &http.Transport{}}}
		},
	}
	for name, transport := range transports {
		for _, version := range []string{"", "2025-11-25"} {
			t.Run(name+"/"+cmp.Or(version, "stateless"), func(t *testing.T) {
				for run := range 50 {
					updated := make(chan string, 1)
					c, err := Connect(context.Background(), transport(), &ClientOptions{Logger: quietLogger(), ProtocolVersion: version,
						ResourceUpdated: func(uri string) {
							select {
							case updated <- uri:
							default:
							}
						}})
					if err != nil {
						t.Fatal(err)
					}
					ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
					if err := c.Subscribe(ctx, "test://r"); err != nil {
						t.Fatal(err)
					}
					if _, err := c.CallTool(ctx, "touch", nil); err != nil {
						t.Fatal(err)
					}
					select {
					case <-updated:
					case <-time.After(2 * time.Second):
						t.Fatalf("run %d: the update of a call made after Subscribe returned was not heard of", run)
					}
					cancel()
					c.Close()
				}
			})
		}
	}
}

// servePipes serves srv over a pair of pipes, as a server process's stdio, until the
// test ends.
func servePipes(t *testing.T, srv *Server) Transport {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Serve(context.Background(), inR, outW)
		outW.Close()
	}()
	t.Cleanup(func() {
		inW.Close()
		outR.Close()
		<-done
	})
	return &IOTransport{Reader: outR, Writer: inW}
}
