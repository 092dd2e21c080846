package main

import (
	"fmt"
	"io"
	"sync"
	"time"
	"unicode/utf8"
)

// serverLines prints what servers say on stderr (their log messages; with -v their stderr
// and the host's events) without ever holding up the client that reads them: a line is
// queued and printed by a goroutine of its own, so that a server that floods its client
// with notifications is read as fast as it writes, and what is queued stays small. A
// server's lines past linesPerSecond (after a burst of lineBurst), or past what may wait to
// be printed, are dropped and counted, and the person told how many, once a second and at
// the end: "mcpgen: 48213 more log messages from flood, not shown: ...". Before, a server
// that streamed log messages without end over HTTP made mcpgen call hold 833 MB of them
// and print a million lines in 10 s.
type serverLines struct {
	w       io.Writer  // the console
	printMu sync.Mutex // held while a batch is written, so that batches keep their order

	mu      sync.Mutex
	queue   []string
	bytes   int                  // of the lines queued
	servers map[string]*lineRate // by server, in the order they first said something
	order   []string
	wake    chan struct{}
	stop    chan struct{}
	done    chan struct{}
	closed  bool
}

const (
	linesPerSecond = 100     // a server's lines printed each second, past its burst
	lineBurst      = 200     // a server's lines printed at once before the rate holds
	maxQueuedLines = 256     // lines waiting to be printed, all servers together
	maxQueuedBytes = 1 << 20 // bytes of the lines waiting
	maxLineBytes   = 16 << 10
)

// lineRate is what a server may still print, and what of its was dropped.
type lineRate struct {
	tokens  float64
	last    time.Time
	dropped map[string]int // by what was dropped: "log messages", "lines of its stderr", "events"
	kinds   []string
}

func newServerLines(w io.Writer) *serverLines {
	p := &serverLines{w: w, servers: map[string]*lineRate{}, wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go p.run()
	return p
}

// add queues one line (it ends with a newline) a server said, of kind; or counts it
// dropped. It never waits.
func (p *serverLines) add(server, kind, line string) {
	if len(line) > maxLineBytes {
		cut := maxLineBytes
		for cut > 0 && !utf8.RuneStart(line[cut]) {
			cut--
		}
		line = fmt.Sprintf("%s… (%d bytes more)\n", line[:cut], len(line)-cut)
	}
	now := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	r := p.servers[server]
	if r == nil {
		r = &lineRate{tokens: lineBurst, last: now, dropped: map[string]int{}}
		p.servers[server] = r
		p.order = append(p.order, server)
	}
	r.tokens = min(lineBurst, r.tokens+now.Sub(r.last).Seconds()*linesPerSecond)
	r.last = now
	if p.closed || r.tokens < 1 || len(p.queue) >= maxQueuedLines || p.bytes+len(line) > maxQueuedBytes {
		if r.dropped[kind] == 0 {
			r.kinds = append(r.kinds, kind)
		}
		r.dropped[kind]++
		return
	}
	r.tokens--
	p.queue = append(p.queue, line)
	p.bytes += len(line)
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// run prints the queued lines as they come, and what was dropped once a second, until
// close; then what is left.
func (p *serverLines) run() {
	defer close(p.done)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-p.wake:
			p.print(false)
		case <-tick.C:
			p.print(true)
		case <-p.stop:
			p.print(true)
			return
		}
	}
}

// flush prints what is queued now, before the caller goes on: a command's last log
// messages before its bar's last state and its result.
func (p *serverLines) flush() { p.print(false) }

// print writes the queued lines and, with summaries, a line for each server and kind of
// what was dropped since the last.
func (p *serverLines) print(summaries bool) {
	p.printMu.Lock()
	defer p.printMu.Unlock()
	p.mu.Lock()
	lines := p.queue
	p.queue, p.bytes = nil, 0
	var said []string
	if summaries {
		for _, server := range p.order {
			r := p.servers[server]
			for _, kind := range r.kinds {
				said = append(said, fmt.Sprintf("mcpgen: %d more %s from %s were not shown: it sent them faster than they are shown (%d a second)\n", r.dropped[kind], kind, server, linesPerSecond))
			}
			clear(r.dropped)
			r.kinds = r.kinds[:0]
		}
	}
	p.mu.Unlock()
	for _, l := range lines {
		io.WriteString(p.w, l)
	}
	for _, l := range said {
		io.WriteString(p.w, l)
	}
}

// close prints what is queued and what was dropped, and returns once it is written.
func (p *serverLines) close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	p.mu.Unlock()
	close(p.stop)
	<-p.done
}
