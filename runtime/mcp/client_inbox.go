package mcp

import (
	"context"
	"sync"
)

// inbox is the reading half of a client Connection whose transport is handed what it reads
// rather than reading it (the HTTP transports: each POST's answer and each stream's events
// come on goroutines of their own): a queue that Read takes from in the order things were
// handed in. It holds at most about inboxBytes, each message counted with what holding it
// costs besides its bytes (inboxItemCost): past that, the goroutines that hand it messages
// wait (the server's streams are read no faster than the client reads them), until Read
// takes some or the connection closes. A message larger than the bound is taken when the
// queue is below it. A server that floods its client with notifications thus makes it hold
// a few MiB, not hundreds (the bound was four times MaxMessageSize, 256 MiB of message
// bytes, and about three times that in memory for small messages).
type inbox struct {
	mu     sync.Mutex
	room   sync.Cond // broadcast when Read takes a message or the inbox closes
	items  []inboxItem
	size   int
	limit  int
	err    error // why the connection broke: Read returns it after what is queued
	closed bool
	wake   chan struct{} // something was queued, or the inbox broke or closed
}

// An inboxItem is a message, or the news that a request gets no response.
type inboxItem struct {
	msg      []byte
	noAnswer *OutgoingRequest
	err      error
}

const (
	inboxBytes    = 4 << 20 // what an inbox holds before its senders wait
	inboxItemCost = 160     // what holding a message costs besides its bytes: its item, its allocation
)

func newInbox(limit int) *inbox {
	b := &inbox{limit: limit, wake: make(chan struct{}, 1)}
	b.room.L = &b.mu
	return b
}

// deliver queues a message from the server.
func (b *inbox) deliver(msg []byte) {
	b.mu.Lock()
	for b.size > b.limit && !b.closed {
		b.room.Wait()
	}
	b.put(inboxItem{msg: msg})
	b.size += len(msg) + inboxItemCost
	b.mu.Unlock()
}

// idle reports whether nothing is queued for Read.
func (b *inbox) idle() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.items) == 0
}

// noResponse queues the news that rq will get no response: when Read comes to it, the call
// fails with err, after whatever was handed in before it.
func (b *inbox) noResponse(rq *OutgoingRequest, err error) {
	b.mu.Lock()
	b.put(inboxItem{noAnswer: rq, err: err})
	b.mu.Unlock()
}

// put queues an item, with mu held; nothing is queued once the inbox is closed or broken.
func (b *inbox) put(it inboxItem) {
	if b.closed || b.err != nil {
		return
	}
	b.items = append(b.items, it)
	b.signal()
}

func (b *inbox) signal() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// broken says the connection is gone: Read returns err once it has taken what is queued.
// The first error stays.
func (b *inbox) broken(err error) {
	b.mu.Lock()
	if b.err == nil {
		b.err = err
	}
	b.signal()
	b.mu.Unlock()
}

// Read returns the next message, failing on the way the calls whose news it finds.
func (b *inbox) Read(ctx context.Context) ([]byte, error) {
	for {
		b.mu.Lock()
		if b.closed {
			b.mu.Unlock()
			return nil, errConnClosed
		}
		if len(b.items) > 0 {
			it := b.items[0]
			b.items[0] = inboxItem{}
			if len(b.items) == 1 {
				b.items = b.items[:0] // keeps the array: one message at a time allocates nothing
			} else {
				b.items = b.items[1:]
			}
			if it.noAnswer != nil {
				b.mu.Unlock()
				it.noAnswer.Fail(it.err)
				continue
			}
			if b.size > b.limit {
				b.room.Broadcast()
			}
			b.size -= len(it.msg) + inboxItemCost
			b.mu.Unlock()
			return it.msg, nil
		}
		err := b.err
		b.mu.Unlock()
		if err != nil {
			return nil, err
		}
		select {
		case <-b.wake:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// close ends the inbox: Read fails, what was queued is dropped, and the goroutines waiting
// to queue give up.
func (b *inbox) close() {
	b.mu.Lock()
	b.closed = true
	b.items, b.size = nil, 0
	b.room.Broadcast()
	b.signal()
	b.mu.Unlock()
}
