package mcp

import (
	"bytes"
	"fmt"
	"net"
	"net/url"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// What a server sends that is not JSON-RPC: a log line written to stdout instead of stderr,
// garbage, a message the parser cannot read. A client answers none of it (a server that
// writes garbage and never reads would fill its stdin with the client's -32700 answers, and
// both would hang), logs the first few, then only how many more there were, and gives up on
// a server that sends nothing else.

const (
	// maxUnreadable is how many unreadable lines or messages in a row, with nothing
	// readable between them, make the client give up on the server.
	maxUnreadable = 1000
	// unreadableLogged is how many are logged one by one; after them a summary at most
	// every unreadableEvery, and one when the connection ends.
	unreadableLogged = 5
	unreadableEvery  = 10 * time.Second
)

// unreadable counts a connection's unreadable lines or messages.
type unreadable struct {
	mu       sync.Mutex
	inRow    int // since the last readable message
	total    int
	unlogged int       // counted since the last log line
	logged   time.Time // when the last log line was written
	gaveUp   bool
}

// readable notes a message that was JSON-RPC.
func (u *unreadable) readable() {
	u.mu.Lock()
	u.inRow = 0
	u.mu.Unlock()
}

// ignore logs and counts a message that is not JSON-RPC, and gives up on the server after
// maxUnreadable in a row.
func (c *Client) ignore(msg []byte) {
	u := &c.unreadable
	u.mu.Lock()
	if u.gaveUp {
		u.mu.Unlock()
		return
	}
	u.inRow++
	u.total++
	inRow, now := u.inRow, time.Now()
	logOne := u.total <= unreadableLogged
	summary := 0
	switch {
	case logOne:
		u.logged = now
	case now.Sub(u.logged) >= unreadableEvery:
		summary, u.unlogged, u.logged = u.unlogged+1, 0, now
	default:
		u.unlogged++
	}
	u.gaveUp = inRow >= maxUnreadable
	u.mu.Unlock()

	unit := "messages"
	if c.lines {
		unit = "lines"
	}
	switch {
	case logOne && c.lines && !bytes.HasPrefix(msg, []byte("{")):
		c.logger.Warn("mcp: the server wrote a line that is not JSON-RPC, ignored (servers must log to stderr, not stdout)",
			"server", c.label, "line", string(clip(msg, 200)))
	case logOne && c.lines:
		c.logger.Warn("mcp: the server wrote a line that is not JSON-RPC, ignored", "server", c.label, "line", string(clip(msg, 200)))
	case logOne:
		c.logger.Warn("mcp: the server sent a message that is not JSON-RPC, ignored", "server", c.label, "message", string(clip(msg, 200)))
	case summary > 0:
		c.logger.Warn(fmt.Sprintf("mcp: %d more %s that are not JSON-RPC ignored", summary, unit), "server", c.label)
	}
	if inRow >= maxUnreadable {
		c.broken(connError(c.label, transportFailure(fmt.Errorf("the server wrote %d %s that are not JSON-RPC, and nothing else; the last: %q", inRow, unit, clip(msg, 80)))))
	}
}

// summarizeUnreadable logs how many unreadable lines or messages were not logged yet, when
// the connection ends.
func (c *Client) summarizeUnreadable() {
	u := &c.unreadable
	u.mu.Lock()
	n := u.unlogged
	u.unlogged = 0
	u.mu.Unlock()
	if n > 0 {
		unit := "messages"
		if c.lines {
			unit = "lines"
		}
		c.logger.Warn(fmt.Sprintf("mcp: %d more %s that are not JSON-RPC ignored", n, unit), "server", c.label)
	}
}

// unanswerable reports whether a message that failed to parse is one the client ignores:
// anything but a request whose id and method could be read, whose sender waits for an
// answer.
func unanswerable(m *jsonrpc.Message) bool { return m.ID == nil || m.Method == "" }

// describeConn says what the client says of its connection (conn, from t): the server's name
// in its logs and errors (the connection's String: a command's name, a URL), and for
// middleware the transport's name (the connection's TransportName, or the Transport's) and
// the server's address, the host and port of a URL.
func (c *Client) describeConn(t Transport) {
	c.label = "server"
	if s, ok := c.conn.(fmt.Stringer); ok {
		c.label = s.String()
	}
	c.transport = transportName(c.conn)
	if n, ok := t.(interface{ TransportName() string }); ok && c.transport == "" {
		c.transport = n.TransportName()
	}
	c.lines = c.transport == TransportStdio
	if u, err := url.Parse(c.label); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
		c.peerAddr = u.Host
		if port := "80"; u.Port() == "" {
			if u.Scheme == "https" {
				port = "443"
			}
			c.peerAddr = net.JoinHostPort(u.Hostname(), port)
		}
	}
}
