package mcp

import (
	"context"
	"net/http"
	"testing"
)

// A stream resumed from its priming event, the only event id its client had, goes on after
// it: the resumed stream's events have new ids, never the one it resumed from (issue 35,
// item 6). Before, the server took a resumption from the priming event (sequence 0) for a
// new stream and primed it again with the same id, which the client had already seen.
func TestHTTPResumedStreamDoesNotRepeatItsEventID(t *testing.T) {
	srv := quietServer(nil)
	release := make(chan struct{})
	srv.AddTool(Tool{
		Name: "poll", Description: "Closes its connection at once, then answers.", InputSchema: `{"type":"object"}`,
		Handler: func(ctx context.Context, c *ToolCall) {
			CloseSSEStream(ctx)
			<-release
			Log(ctx, LevelInfo, "", "after")
			c.ReturnText("finished")
		},
	})
	_, c := serveHTTPTest(t, srv, nil)
	c.initialize(`{}`)
	sse := readSSE(t, c.post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"poll"}}`))
	var ids []string
	for {
		ev, ok := sse.next()
		if !ok {
			break
		}
		if ev.id != "" {
			ids = append(ids, ev.id)
		}
	}
	if len(ids) != 1 {
		t.Fatalf("event ids before the connection closed: %q, want the priming event's only", ids)
	}
	close(release)
	resumed := readSSE(t, c.do(http.MethodGet, "Accept", "text/event-stream", "Last-Event-Id", ids[0]))
	var got []string
	for {
		ev, ok := resumed.next()
		if !ok {
			break
		}
		if ev.id == ids[0] {
			t.Errorf("the resumed stream repeats the event id %s it resumed from (data %q)", ev.id, ev.data)
		}
		if ev.data != "" {
			got = append(got, ev.data)
		}
	}
	if len(got) != 2 {
		t.Errorf("resumed events %q, want the log message and the result", got)
	}
}
