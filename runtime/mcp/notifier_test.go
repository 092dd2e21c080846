package mcp

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// unreadUpdates is what the tests below send a client that does not read: updates of a
// resource whose URI is 10 kB, 200 MB of notifications in all.
const (
	unreadUpdates = 20000
	longURISize   = 10 << 10
)

// longURIServer serves one resource with a 10 kB URI, which the client subscribes to.
func longURIServer(t *testing.T) (*Server, string) {
	srv := quietServer(&ServerOptions{ShutdownTimeout: 200 * time.Millisecond})
	uri := "test://" + strings.Repeat("x", longURISize)
	srv.AddResource(Resource{URI: uri, Name: "r", Read: func(context.Context, string) ([]ResourceContents, error) { return nil, nil }})
	return srv, uri
}

// notifyUnread tells the server's sessions of unreadUpdates updates and returns how long it
// took and how much the heap grew.
func notifyUnread(t *testing.T, srv *Server, uri string) (time.Duration, int64) {
	t.Helper()
	before := heapInUse()
	began := time.Now()
	for range unreadUpdates {
		srv.NotifyResourceUpdated(uri)
	}
	took := time.Since(began)
	grown := int64(heapInUse()) - int64(before)
	t.Logf("%d updates of %d kB to a client that does not read: %v, the heap grew by %d MB", unreadUpdates, longURISize>>10, took, grown>>20)
	return took, grown
}

// A client that does not read costs a bounded amount of memory, however many notifications
// about no request its server has for it, and never holds up their sender (a stdio
// server's line writer queued every one of them: 200 MB here).
func TestUnreadNotificationsBounded(t *testing.T) {
	check := func(t *testing.T, took time.Duration, grown, bound int64) {
		// A sender held up by the client would wait for it for good (ShutdownTimeout, at
		// the least, per message): a minute is far above the 1-2 s the 20,000 updates take
		// unhindered, and above the 10-19 s they took under the race detector at a load of
		// 20 on 2 cores, where a 10 s bound failed.
		if took > time.Minute {
			t.Errorf("NotifyResourceUpdated took %v for a client that does not read", took)
		}
		if grown > bound {
			t.Errorf("the heap grew by %d MB, more than %d MB", grown>>20, bound>>20)
		}
	}
	t.Run("stdio", func(t *testing.T) {
		srv, uri := longURIServer(t)
		h := start(t, srv)
		h.initialize("2025-11-25")
		if m := h.roundTrip(`{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"` + uri + `"}}`); m["error"] != nil {
			t.Fatalf("resources/subscribe: %v", m)
		}
		took, grown := notifyUnread(t, srv, uri) // and the client reads nothing more
		// What the notifier keeps (maxNoteBytes), what waits in the line writer for the
		// next write (lines' maxUnwritten), the write in progress, and the allocator's size
		// classes: less than 3*maxNoteBytes, where the line writer took 200 MB.
		check(t, took, grown, 3*maxNoteBytes)
	})
	t.Run("memory", func(t *testing.T) {
		srv, uri := longURIServer(t)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		conn := srv.ServeMemory(ctx)
		defer func() { cancel(); <-conn.Done() }()
		for i, msg := range []string{
			`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			`{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"` + uri + `"}}`,
		} {
			if err := conn.Send([]byte(msg)); err != nil {
				t.Fatal(err)
			}
			if i != 1 {
				if _, err := conn.Receive(ctx); err != nil {
					t.Fatal(err)
				}
			}
		}
		took, grown := notifyUnread(t, srv, uri)
		// The in-memory queue holds what its client has not read, up to memoryQueueBytes
		// (and the allocator's size classes a quarter more).
		check(t, took, grown, memoryQueueBytes*5/4)
	})
	t.Run("http", func(t *testing.T) {
		srv, uri := longURIServer(t)
		_, c := serveHTTPTest(t, srv, nil)
		c.initialize(`{}`)
		if m := jsonBody(t, c.post(`{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"`+uri+`"}}`, "Accept", "application/json")); m["error"] != nil {
			t.Fatalf("resources/subscribe: %v", m)
		}
		// The standalone stream, opened and never read.
		get := c.do("GET", "Accept", "text/event-stream")
		if get.StatusCode != 200 {
			t.Fatalf("GET: status %d", get.StatusCode)
		}
		took, grown := notifyUnread(t, srv, uri)
		// The stream's log (maxStreamBytes), and what the connection holds.
		check(t, took, grown, maxStreamBytes+maxNoteBytes)
	})
}

// blockedWriter takes one message, then blocks until released; it keeps what it takes.
type blockedWriter struct {
	release chan struct{}
	got     chan []byte
}

func (w *blockedWriter) Write(ctx context.Context, msg []byte) error {
	w.got <- append([]byte(nil), msg...)
	select {
	case <-w.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// A notifier whose client does not read coalesces the identical list changes it holds,
// and past its bound drops the oldest resource update, not a change.
func TestNotifierCoalescesAndBounds(t *testing.T) {
	w := &blockedWriter{release: make(chan struct{}), got: make(chan []byte, 2*maxNotes)}
	n := newNotifier(context.Background(), w, quietServer(nil).logger, false)
	changed := []byte(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
	n.add(changed, noteChange)
	<-w.got // being written, and blocked
	for range 1000 {
		n.add(changed, noteChange)
	}
	update := func(i int) []byte {
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://%d"}}`, i)
	}
	for i := range maxNotes + 10 {
		n.add(update(i), noteUpdate)
	}
	n.mu.Lock()
	queued := len(n.queued) - n.head
	n.mu.Unlock()
	if queued != maxNotes {
		t.Errorf("%d messages queued, want the bound, %d", queued, maxNotes)
	}
	close(w.release)
	n.close()
	close(w.got)
	var msgs []string
	for m := range w.got {
		msgs = append(msgs, string(m))
	}
	// The change once more, then the newest updates: the 11 oldest were dropped.
	if len(msgs) != maxNotes || msgs[0] != string(changed) || msgs[1] != string(update(11)) || msgs[len(msgs)-1] != string(update(maxNotes+9)) {
		t.Errorf("%d messages written after the first: %.80q ... %.80q", len(msgs), msgs[:min(2, len(msgs))], msgs[len(msgs)-1])
	}
}
