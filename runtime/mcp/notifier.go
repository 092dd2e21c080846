package mcp

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
)

// messageWriter is the write half of a conversation: what a request's messages, a
// listener's notifications and the notifier write through. A Connection is one. ctx is the
// writer's: its end stops a write not yet handed over, and, on a server, RequestFrom(ctx) is
// the request the message is about (nil for none), which a transport may route by. The
// server hands each message over for good, a slice nothing else writes to: this package's
// writers (an HTTP stream) keep it; a Connection need not, as its contract says.
type messageWriter interface {
	Write(ctx context.Context, msg []byte) error
}

// A notifier writes the messages of a conversation about no request in particular: list
// changes (AddTool), resource updates (NotifyResourceUpdated), a subscription's
// notifications. Their senders never wait for a client that does not read: the messages
// are queued, and a goroutine that lives only while the queue is not empty writes them, in
// order, with the conversation's context. The queue is bounded (maxNotes, maxNoteBytes):
// a list change already queued is not queued twice, and past the bound the oldest resource
// update goes (or, with none queued, the oldest message).
type notifier struct {
	ctx    context.Context // the conversation's
	w      messageWriter
	logger *slog.Logger
	// What w can do, found once: add to its next write (stdio's line writer), or write
	// without waiting for the other side, so that the sender writes.
	later  LaterWriter
	direct bool

	mu       sync.Mutex
	queued   []note // from head on
	head     int
	size     int // bytes queued
	draining bool
	writing  bool // the drainer writes a message it took from the queue
	// unflushed: a message was handed to the writer's next write (LaterWriter), which the
	// drainer flushes.
	unflushed bool
	closed    bool // nothing more is queued
	drained   sync.WaitGroup
}

// note is a queued message, and what kind of news it is.
type note struct {
	msg  []byte
	kind noteKind
}

type noteKind uint8

const (
	noteOther  noteKind = iota
	noteChange          // a list changed: the same message queued twice says nothing more
	noteUpdate          // a resource was updated: the first to go when the queue is full
)

// The bounds of a notifier's queue: a client that does not read costs no more.
const (
	maxNotes     = 4096
	maxNoteBytes = 16 << 20
)

// noteKindOf says what kind of news a notification of this method is.
func noteKindOf(method string) noteKind {
	switch {
	case method == notificationResourceUpdated:
		return noteUpdate
	case strings.HasSuffix(method, "/list_changed"):
		return noteChange
	}
	return noteOther
}

// newNotifier returns the notifier of a conversation that writes to w; direct says that w's
// Write never waits for the other side (an HTTP stream's log, the in-memory queue), so that
// a sender writes on its own goroutine, without the cost of a goroutine (a change told to a
// thousand subscriptions over HTTP).
func newNotifier(ctx context.Context, w messageWriter, logger *slog.Logger, direct bool) *notifier {
	later, _ := w.(LaterWriter)
	return &notifier{ctx: ctx, w: w, logger: logger, later: later, direct: direct}
}

// add queues msg, which the notifier owns from then on, and returns at once.
func (n *notifier) add(msg []byte, kind noteKind) {
	n.mu.Lock()
	if n.closed || n.ctx.Err() != nil || kind == noteChange && n.has(msg) {
		n.mu.Unlock()
		return
	}
	if n.later != nil && n.head == len(n.queued) && !n.writing && n.later.NoteLater(msg) {
		// In the writer's buffer, it goes before anything written after it (the answer of
		// the call that made the change); the drainer sees that it is written.
		n.unflushed = true
		n.startDraining()
		return
	}
	if n.head > 0 && n.head >= len(n.queued)/2 {
		// The written half goes, so that a queue that never empties does not grow.
		k := copy(n.queued, n.queued[n.head:])
		clear(n.queued[k:])
		n.queued, n.head = n.queued[:k], 0
	}
	n.queued = append(n.queued, note{msg, kind})
	n.size += len(msg)
	for len(n.queued)-n.head > 1 && (len(n.queued)-n.head > maxNotes || n.size > maxNoteBytes) {
		n.dropOldest()
	}
	n.startDraining()
}

// startDraining starts the drainer unless it runs, and unlocks n.mu.
func (n *notifier) startDraining() {
	if n.draining {
		n.mu.Unlock()
		return
	}
	n.draining = true
	n.drained.Add(1)
	n.mu.Unlock()
	if n.direct {
		// Nothing to wait for: the sender writes, without the cost of a goroutine (a
		// change told to a thousand subscriptions over HTTP).
		n.drain()
		return
	}
	go n.drain()
}

// has reports whether msg is queued already, as a change. n.mu is held.
func (n *notifier) has(msg []byte) bool {
	for _, q := range n.queued[n.head:] {
		if q.kind == noteChange && bytes.Equal(q.msg, msg) {
			return true
		}
	}
	return false
}

// dropOldest drops the oldest resource update queued, or the oldest message if none is.
// n.mu is held.
func (n *notifier) dropOldest() {
	i := n.head
	for j := n.head; j < len(n.queued); j++ {
		if n.queued[j].kind == noteUpdate {
			i = j
			break
		}
	}
	dropped := n.queued[i]
	n.queued = append(n.queued[:i], n.queued[i+1:]...)
	n.size -= len(dropped.msg)
	level := slog.LevelDebug
	if dropped.kind != noteUpdate {
		level = slog.LevelWarn
	}
	n.logger.Log(n.ctx, level, "mcp: a notification was dropped: its client has not read the "+
		"notifications queued before it, more than the server keeps for it", "bytes", len(dropped.msg))
}

// drain writes what is queued until nothing is, or the conversation ends.
func (n *notifier) drain() {
	defer n.drained.Done()
	for {
		n.mu.Lock()
		if n.unflushed && n.ctx.Err() == nil {
			n.unflushed = false
			n.mu.Unlock()
			if err := n.later.Flush(); err != nil {
				n.logger.Debug("mcp: cannot send a notification", "error", err)
			}
			continue
		}
		if n.head == len(n.queued) || n.ctx.Err() != nil {
			clear(n.queued)
			// The array is kept for the next messages: a notifier that is told of a change
			// now and then allocates nothing.
			n.queued, n.head, n.size, n.draining = n.queued[:0], 0, 0, false
			n.mu.Unlock()
			return
		}
		q := n.queued[n.head]
		n.queued[n.head] = note{}
		n.head++
		n.size -= len(q.msg)
		n.writing = true
		n.mu.Unlock()
		if err := n.w.Write(n.ctx, q.msg); err != nil {
			n.logger.Debug("mcp: cannot send a notification", "error", err)
		}
		n.mu.Lock()
		n.writing = false
		n.mu.Unlock()
	}
}

// unread is how many bytes of messages the client has not read yet: those queued, and what
// the writer holds for it, if it says (a subscription whose client leaves too many is
// ended).
func (n *notifier) unread() int {
	n.mu.Lock()
	size := n.size
	n.mu.Unlock()
	if b, ok := n.w.(Backlogger); ok {
		size += b.Unread()
	}
	return size
}

// close waits until what is queued is written (or the conversation's context ends); nothing
// is queued after it.
func (n *notifier) close() {
	n.mu.Lock()
	n.closed = true
	n.mu.Unlock()
	n.drained.Wait()
}
