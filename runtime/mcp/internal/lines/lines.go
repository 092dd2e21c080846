// Package lines frames newline-delimited JSON-RPC, stdio's framing (and any pair of byte
// streams'): one message per line, no embedded newlines. Both sides of MCP read lines with a
// Reader; a server writes with a Writer, which combines the answers of many requests into
// one write.
package lines

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"sync"
	"time"
)

// FlushFirst writes the answers buffered in out before each read of r: the reader has
// handled everything it read by then. A write that fails is the error of the read: the
// connection has failed.
type FlushFirst struct {
	R   io.Reader
	Out *Writer
}

func (f FlushFirst) Read(p []byte) (int, error) {
	if err := f.Out.Flush(); err != nil {
		return 0, err
	}
	return f.R.Read(p)
}

// Reader reads newline-delimited messages: the server's requests (Serve) and the
// client's answers (CommandTransport, IOTransport) alike.
type Reader struct {
	br     *bufio.Reader
	max    int
	prefix int
}

// ErrTooLong is ReadMessage's error for a line longer than the Reader's max.
var ErrTooLong = errors.New("a line longer than the limit")

// NewReader reads lines of at most max bytes from r; of a longer one, ReadMessage returns
// the first prefix bytes.
func NewReader(r io.Reader, max, prefix int) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 64<<10), max: max, prefix: prefix}
}

// Max is the longest line the Reader reads.
func (lr *Reader) Max() int { return lr.max }

// ReadMessage reads one line into a new slice (requests outlive the read buffer), without
// the white space around it. A line longer than max is consumed and reported as
// ErrTooLong, with its start (the Reader's prefix bytes at most), which names its id.
func (lr *Reader) ReadMessage() ([]byte, error) {
	var line []byte
	tooLarge := false
	for {
		chunk, err := lr.br.ReadSlice('\n')
		if !tooLarge && len(line)+len(chunk) > lr.max {
			tooLarge = true
			line = append(line, chunk...)
			line = append([]byte(nil), line[:min(len(line), lr.prefix)]...)
		}
		if !tooLarge {
			line = append(line, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		switch {
		case tooLarge && err == nil:
			return line, ErrTooLong
		case tooLarge:
			return nil, err // the end, in the middle of a line too long: nothing to answer
		}
		return bytes.TrimSpace(line), err
	}
}

// Writer writes whole messages, one per line, never interleaved. Writes are combined:
// a sender that finds a write in progress leaves its message for the goroutine writing,
// which writes everything that gathered meanwhile with one write before it stops. Under
// load, many answers go out in one system call; a lone answer goes out at once, on its
// sender's goroutine.
//
// Messages wait while more than maxUnwritten bytes are queued behind a write that has not
// finished: a client that does not read slows its requests down (backpressure), and a
// server never holds more than that for it. (Notifications that belong to no request, from
// AddTool or NotifyResourceUpdated, wait in the conversation's notifier, whose goroutine
// writes them.)
type Writer struct {
	w io.Writer

	mu        sync.Mutex
	room      sync.Cond // broadcast when a write ends
	unwritten []byte    // messages waiting for the write in progress to end, each with its newline
	spare     []byte    // the buffer of the last write, for reuse
	writing   bool      // a goroutine is writing, and writes unwritten before it stops
	err       error     // the write that failed; nothing is written after it
}

// maxUnwritten is how many bytes of messages about requests may wait behind a write in
// progress before their senders wait too.
const maxUnwritten = 1 << 20

// maxSpare is the largest write buffer kept for reuse.
const maxSpare = 256 << 10

// NewWriter writes lines to w.
func NewWriter(w io.Writer) *Writer {
	lw := &Writer{w: w}
	lw.room.L = &lw.mu
	return lw
}

// Send writes msg as a line, now or, if a write is in progress, with the next.
func (lw *Writer) Send(msg []byte) error {
	lw.mu.Lock()
	if err := lw.add(msg); err != nil {
		lw.mu.Unlock()
		return err
	}
	if lw.writing {
		lw.mu.Unlock()
		return nil // the goroutine writing writes it
	}
	lw.writing = true
	err := lw.writeAll()
	lw.mu.Unlock()
	return err
}

// Buffer adds an answer to the next write, without writing unless too much waits. Like
// Send, it waits while a write in progress has maxUnwritten bytes behind it: a client that
// does not read stops the reader that serves it.
func (lw *Writer) Buffer(msg []byte) error {
	lw.mu.Lock()
	if err := lw.add(msg); err != nil {
		lw.mu.Unlock()
		return err
	}
	if lw.writing || len(lw.unwritten) < maxUnwritten {
		lw.mu.Unlock()
		return nil
	}
	lw.writing = true
	err := lw.writeAll()
	lw.mu.Unlock()
	return err
}

// add appends msg as a line to what the next write writes, once a write in progress has
// fewer than maxUnwritten bytes behind it (backpressure), or returns the writer's error.
// lw.mu is held.
func (lw *Writer) add(msg []byte) error {
	for lw.writing && lw.err == nil && len(lw.unwritten) >= maxUnwritten {
		lw.room.Wait()
	}
	if lw.err != nil {
		return lw.err
	}
	lw.unwritten = append(append(lw.unwritten, msg...), '\n')
	return nil
}

// NoteLater adds a notification that belongs to no request to the next write, unless
// maxUnwritten bytes wait already (then the notifier keeps it, within its bounds); it never
// waits. The notifier's drainer flushes.
func (lw *Writer) NoteLater(msg []byte) bool {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.err != nil || len(lw.unwritten) >= maxUnwritten {
		return false
	}
	lw.unwritten = append(append(lw.unwritten, msg...), '\n')
	return true
}

// Flush writes what is buffered, unless a write in progress will.
func (lw *Writer) Flush() error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.writing || len(lw.unwritten) == 0 {
		return lw.err
	}
	lw.writing = true
	return lw.writeAll()
}

// writeAll writes what is unwritten, again and again until nothing is, and returns the
// error of the first write that failed. It is called with mu held and writing set by the
// caller, and returns with mu held and writing clear.
func (lw *Writer) writeAll() error {
	for len(lw.unwritten) > 0 && lw.err == nil {
		buf := lw.unwritten
		lw.unwritten = lw.spare[:0]
		lw.spare = nil
		lw.mu.Unlock()
		_, err := lw.w.Write(buf)
		lw.mu.Lock()
		if cap(buf) <= maxSpare {
			lw.spare = buf
		}
		if err != nil {
			lw.err = err
			lw.unwritten = nil
		}
		lw.room.Broadcast()
	}
	lw.writing = false
	return lw.err
}

// Stop makes every later message fail to be sent, with err, and reports whether a write is
// in progress (which its caller then abandons: InterruptWrite).
func (lw *Writer) Stop(err error) bool {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.err == nil {
		lw.err = err
		lw.unwritten = nil
		lw.room.Broadcast()
	}
	return lw.writing
}

// Unread is how many bytes wait behind the write in progress: what a client that does not
// read leaves behind (a subscription is ended past a bound).
func (lw *Writer) Unread() int {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return len(lw.unwritten)
}

// InterruptWrite makes a blocked Write to w, and every later one, fail, if w offers a way:
// a write deadline (a pipe or socket the poller watches), else Close.
func InterruptWrite(w io.Writer) {
	if d, ok := w.(interface{ SetWriteDeadline(time.Time) error }); ok && d.SetWriteDeadline(time.Now()) == nil {
		return
	}
	if c, ok := w.(io.Closer); ok {
		c.Close()
	}
}

// InterruptRead makes a blocked Read on r return, if r offers a way.
func InterruptRead(r io.Reader) {
	if d, ok := r.(interface{ SetReadDeadline(time.Time) error }); ok && d.SetReadDeadline(time.Now()) == nil {
		return
	}
	if c, ok := r.(io.Closer); ok {
		c.Close()
	}
}

// WriteWithin writes p to w, and gives up when ctx ends if w takes write deadlines (an
// *os.File of a pipe, a net.Conn); other writers write as long as they block.
func WriteWithin(ctx context.Context, w io.Writer, p []byte) (int, error) {
	d, ok := w.(interface{ SetWriteDeadline(time.Time) error })
	if !ok || d.SetWriteDeadline(time.Time{}) != nil { // the last write's deadline may have passed
		return w.Write(p)
	}
	if ctx.Done() == nil {
		return w.Write(p)
	}
	// The deadline moves to the past when ctx ends, unless the write is over by then: a
	// late move would cut short the next write.
	var mu sync.Mutex
	over := false
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if !over {
			d.SetWriteDeadline(time.Unix(1, 0))
		}
	})
	n, err := w.Write(p)
	stop()
	mu.Lock()
	over = true
	mu.Unlock()
	return n, err
}
