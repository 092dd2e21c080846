package mcp

import (
	"container/list"
	"net"
	"net/http"
	"sync"
)

// connLimit bounds the connections an http.Server of ServeHTTPListener holds open (its
// ConnState hook): each takes a file descriptor, and a server out of them accepts no one.
// Past the bound, a new connection sheds the one idle for longest (a keep-alive connection
// between requests, or one that has sent nothing yet); when every connection is in the
// middle of a request, the new one is closed instead. A connection in the middle of a
// request is bounded in time by the header, body and write timeouts.
type connLimit struct {
	max int

	mu    sync.Mutex
	conns map[net.Conn]*connEntry
	live  int       // open and not being shed
	idle  list.List // of net.Conn, idle for longest first
}

type connEntry struct {
	idle *list.Element // in idle, while idle
	shed bool          // closed by the limit, its end not yet reported
}

func newConnLimit(max int) *connLimit {
	return &connLimit{max: max, conns: map[net.Conn]*connEntry{}}
}

// track is the http.Server's ConnState hook.
func (l *connLimit) track(c net.Conn, state http.ConnState) {
	var shed net.Conn
	l.mu.Lock()
	e := l.conns[c]
	switch state {
	case http.StateNew:
		e = &connEntry{}
		l.conns[c] = e
		l.live++
		e.idle = l.idle.PushBack(c)
		if l.live > l.max {
			// The front is this connection itself when no other is idle.
			shed = l.idle.Remove(l.idle.Front()).(net.Conn)
			l.conns[shed].idle = nil
			l.conns[shed].shed = true
			l.live--
		}
	case http.StateActive:
		if e != nil && e.idle != nil {
			l.idle.Remove(e.idle)
			e.idle = nil
		}
	case http.StateIdle:
		if e != nil && !e.shed {
			if e.idle != nil {
				l.idle.Remove(e.idle)
			}
			e.idle = l.idle.PushBack(c)
		}
	case http.StateHijacked, http.StateClosed:
		if e != nil {
			if e.idle != nil {
				l.idle.Remove(e.idle)
			}
			if !e.shed {
				l.live--
			}
			delete(l.conns, c)
		}
	}
	l.mu.Unlock()
	if shed != nil {
		shed.Close() // its goroutine sees the error and reports it closed
	}
}

// fallbackMaxConns bounds connections where the open-file limit cannot be read.
const fallbackMaxConns = 10000
