package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
)

// The connection seam, exported: a Transport opens a Connection, which carries the
// JSON-RPC messages of one conversation both ways. The client runs on it for every
// transport; transports outside this package (runtime/mcp/ws) implement it.
//
// On the server, every message enters through the one door (door.go), whatever carried it,
// by one way into the peer, peer.handle: Server.ServeConn reads a Connection (stdio's
// stdioConn, memoryServerConn, the Connections of other packages) and hands each message
// to its conversation's peer, and HTTP hands it each POSTed message with the POST's stream
// as the request's writer (a RequestStream). A request passes session.admit (the caller's
// scopes, the ticket) and peer.record (the conversation's concurrency, its bytes in the
// budget), and nothing else admits one. Every transport writes through one write half, a
// messageWriter: a Connection's Write(ctx, msg), or an HTTP stream's; RequestFrom(ctx) is
// the request a message is about. What a Connection may offer beyond that is a few
// exported interfaces, below (MessageStreamer, LaterWriter, Backlogger, RequestStream).
// Messages about no request in particular (list changes, resource updates) go through the
// conversation's notifier (notifier.go), which never makes their sender wait.
//
// On the client, one goroutine reads the Connection (Client.readLoop), and the client
// writes its messages with Write, or its requests with a RequestConn's WriteRequest (below).

// A Transport opens connections to a server: CommandTransport (a command it starts, over
// stdio), IOTransport, StreamableHTTPTransport, SSETransport (the HTTP+SSE transport of
// 2024-11-05), MemoryTransport (a Server in the same process), or one of another package's
// (runtime/mcp/ws). Connect takes it.
type Transport interface {
	// Connect opens one connection. ctx bounds the opening only: the connection lasts
	// until it is closed or fails.
	Connect(ctx context.Context) (Connection, error)
}

// A Connection carries the JSON-RPC messages of one conversation both ways. A message is
// one JSON-RPC 2.0 object, encoded: no newline, no batch array, no framing of the
// transport's.
//
// Read returns the next message. Reads never overlap (the reading goroutine may change,
// never two at once). The slice returned is the caller's: the connection does not touch it
// again. ctx is the conversation's, the same for every Read of one connection; when it
// ends, Read returns, and the connection may be unusable after. Read returns io.EOF once
// the other side has said all it will, and another error when the connection failed; then
// it is not called again. One exception: an error that wraps ErrMessageTooLarge reports a
// message skipped for its size, and reading may go on; Read may return the message's start
// with it, from which the server reads its id to refuse it to its caller.
//
// Write writes one message whole: concurrent Writes never interleave, and one goroutine's
// messages arrive in order. It may block while the other side does not read
// (backpressure). If ctx ends before the message is handed over, Write returns an error
// that wraps ctx's and the connection stays usable; once handed over, the message is
// written whole or the connection fails. Write does not keep msg after it returns.
//
// Close ends the connection: blocked Reads and Writes return, later ones fail. It may be
// called more than once, and concurrently with Read and Write; it does not wait for a
// blocked Write. What was written before Close began is delivered where the transport can.
type Connection interface {
	Read(ctx context.Context) ([]byte, error)
	Write(ctx context.Context, msg []byte) error
	Close() error
}

// ErrMessageTooLarge is wrapped by the error a Connection's Read returns for a message it
// skipped for its size: the connection goes on.
var ErrMessageTooLarge = errors.New("mcp: message too large")

// What a Connection that a server serves (ServeConn) may offer beyond Read, Write and Close,
// found by type assertion as net/http finds an http.Flusher:
//
//   - MessageStreamer: each message handed over as it arrives, so that the server counts it
//     in its budget as it comes (runtime/mcp/ws's connections);
//   - LaterWriter: messages gathered into one write (stdio's);
//   - Backlogger: how much its client has yet to read;
//   - a method TransportName() string: the transport's name, for middleware
//     (Message.Transport).
//
// None is needed: a Connection without them is served with every guard and budget of the
// server's door (door.go), as any other.

// A LaterWriter gathers messages into fewer writes. The server hands it the answers of the
// requests it serves where they were read (turns.go), and the notifications it has while
// the writer waits, and the Connection writes them together: before its Read waits for
// input, when too much waits, or when flushed.
type LaterWriter interface {
	// WriteLater adds msg, an answer, to the next write; it writes at once only when too
	// much waits, and may wait for room while its client does not read (backpressure).
	WriteLater(msg []byte) error
	// NoteLater adds msg, a notification about no request, to the next write, unless too
	// much waits already (then it reports false, and the server keeps it); it never waits.
	NoteLater(msg []byte) bool
	// Flush writes what waits.
	Flush() error
}

// A RequestStream carries the messages about one request, and its response, on a stream of
// its own: the stream of the Streamable HTTP POST it came in. It is the writer a transport
// that pushes each request into the server (HTTPHandler) hands it with the request; the
// server writes the request's messages to it (Write), hands it the response (Respond), and
// says when the request is over, answered or not (Done, after Respond when there is one).
type RequestStream interface {
	Write(ctx context.Context, msg []byte) error
	Respond(msg []byte) error
	Done()
}

// A Backlogger says how many bytes of what it was given its client has not read yet: a
// subscription that would leave more than ServerOptions.MaxSubscriptionBacklog unread ends,
// rather than have notifications pile up for a client that does not read them.
type Backlogger interface {
	Unread() int
}

// What a client's Connection may offer beyond Read, Write and Close, found by type
// assertion once, when the client connects:
//
//   - RequestConn: each request carried on its own, with what describes it (Streamable
//     HTTP's connection);
//   - a method TransportName() string: the transport's name, for middleware
//     (Message.Transport; the Transport's own is asked if the Connection has none);
//   - a method String() string (fmt.Stringer): the server it reaches, for the client's
//     logs and errors (a command's name, a URL, whose host and port are Message.Peer).
//
// None is needed: a Connection of one stream each way (stdio's, runtime/mcp/ws's) offers
// none of RequestConn.

// A RequestConn is a client's Connection that carries each request on its own, with what
// describes it, as Streamable HTTP does: a POST each, answered with the response or with a
// stream of its own, the stateless revision's metadata mirrored into headers.
//
// The client writes its requests, and their cancellations, with WriteRequest, and its
// other messages (notifications, answers to the server's requests) with Write. A write
// that fails fails that message only: the connection goes on, as a refused POST is not a
// lost connection (a Connection of one stream is gone when a write fails, and the client
// waits to hear why from Read).
type RequestConn interface {
	Connection
	// WriteRequest writes msg, which rq describes: a request of the client's, or the
	// cancellation of one (rq.Method() is notifications/cancelled, rq.ID() nil). ctx lasts
	// as long as the request: when it ends before the response, the client has given up.
	// The response comes through Read, or on the caller's goroutine through rq.Answer;
	// a request that gets none is failed with rq.Fail.
	WriteRequest(ctx context.Context, msg []byte, rq *OutgoingRequest) error
	// Negotiated tells the connection the revision the client speaks, once Connect has
	// settled it, and again if a stateless server names another (ServerInfo's
	// ProtocolVersion and Stateless). Before it, the client speaks none.
	Negotiated(protocolVersion string, stateless bool)
	// SessionID is the session's id, once the server gave one; "" without (in the
	// stateless revision). Message.SessionID and SessionEnd.ID say it.
	SessionID() string
	// CarriesHeaders reports whether requests carry their metadata in headers (Streamable
	// HTTP does; the HTTP+SSE transport it may fall back to does not). Tools'
	// x-mcp-header annotations bind then: the client leaves out a tool whose annotations
	// break the rules, and a stateless call carries its Mcp-Param values (ParamHeaders).
	CarriesHeaders() bool
}

// MemoryConn is the client's end of an in-memory connection to a server (ServeMemory): the
// messages of one session, without encoding them as lines or bytes on a wire. Tests use it
// (package mcptest does), as do programs that embed a server.
type MemoryConn struct {
	maxMessage int
	toServer   *messageQueue
	fromServer *messageQueue
	done       chan struct{} // closed when the server has stopped serving
	err        error         // why it stopped, once done is closed
}

// ServeMemory starts serving one session in memory and returns the client's end of it. The
// session runs until ctx ends or the client closes its end; then the server answers what
// was asked, and Done is closed. It is ServeConn on the server's end (memoryServerConn).
func (s *Server) ServeMemory(ctx context.Context) *MemoryConn {
	c := &MemoryConn{toServer: newMessageQueue(memoryQueueBytes), fromServer: newMessageQueue(memoryQueueBytes),
		maxMessage: s.opts.MaxMessageSize, done: make(chan struct{})}
	go func() {
		defer close(c.done)
		c.err = s.serveConn(ctx, &memoryServerConn{in: c.toServer, out: c.fromServer}, inMemory)
	}()
	return c
}

// memoryServerConn is the server's end of an in-memory connection, served by ServeConn.
type memoryServerConn struct {
	in, out *messageQueue
}

func (c *memoryServerConn) TransportName() string { return TransportMemory }

func (c *memoryServerConn) Read(ctx context.Context) ([]byte, error) { return c.in.get(ctx) }

// Write queues msg for the client; it never blocks (messageQueue).
func (c *memoryServerConn) Write(ctx context.Context, msg []byte) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("mcp: writing to the in-memory connection: %w", context.Cause(ctx))
	}
	return c.out.put(append([]byte(nil), msg...))
}

// Close ends the server's side: the client reads what was sent, then io.EOF, and its
// Send fails from then on.
func (c *memoryServerConn) Close() error {
	c.out.close()
	c.in.close()
	return nil
}

// Unread is how many bytes the client has yet to read (Backlogger).
func (c *memoryServerConn) Unread() int { return c.out.unread() }

// Send sends one message to the server. It fails for a message larger than the server
// takes (ServerOptions.MaxMessageSize), and once the connection is closed.
func (c *MemoryConn) Send(msg []byte) error {
	if len(msg) > c.maxMessage {
		return fmt.Errorf("mcp: a message of %d bytes is larger than the server takes (%d)", len(msg), c.maxMessage)
	}
	return c.toServer.put(append([]byte(nil), msg...))
}

// Receive returns the next message from the server, waiting for it as long as ctx lets it.
// It returns io.EOF once the server has stopped and everything it sent has been read.
func (c *MemoryConn) Receive(ctx context.Context) ([]byte, error) {
	return c.fromServer.get(ctx)
}

// Close tells the server the client has said all it will: the server answers the requests
// in progress, then stops.
func (c *MemoryConn) Close() { c.toServer.close() }

// Done is closed when the server has stopped serving the connection.
func (c *MemoryConn) Done() <-chan struct{} { return c.done }

// Err is why the server stopped: nil when the client closed the connection.
func (c *MemoryConn) Err() error {
	<-c.done
	return c.err
}

// unread is how many bytes the reader has yet to read.
func (q *messageQueue) unread() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.size
}

// memoryQueueBytes bounds what one direction of an in-memory connection holds unread.
const memoryQueueBytes = 256 << 20

// messageQueue carries messages one way. It never blocks the sender, so a reader that falls
// behind costs memory, bounded by limit: beyond it, put fails.
type messageQueue struct {
	mu     sync.Mutex
	msgs   [][]byte
	size   int
	limit  int // bytes
	closed bool
	wake   chan struct{}
}

func newMessageQueue(limit int) *messageQueue {
	return &messageQueue{limit: limit, wake: make(chan struct{}, 1)}
}

var (
	errConnClosed = errors.New("mcp: the connection is closed")
	errQueueFull  = errors.New("mcp: the other side of the in-memory connection does not read")
)

func (q *messageQueue) put(msg []byte) error {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return errConnClosed
	}
	if q.size+len(msg) > q.limit {
		q.mu.Unlock()
		return errQueueFull
	}
	q.msgs = append(q.msgs, msg)
	q.size += len(msg)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
	return nil
}

// get returns the next message, io.EOF once the queue is closed and empty, or ctx's error.
func (q *messageQueue) get(ctx context.Context) ([]byte, error) {
	for {
		q.mu.Lock()
		if len(q.msgs) > 0 {
			msg := q.msgs[0]
			q.msgs[0] = nil
			q.msgs = q.msgs[1:]
			q.size -= len(msg)
			q.mu.Unlock()
			return msg, nil
		}
		closed := q.closed
		q.mu.Unlock()
		if closed {
			return nil, io.EOF
		}
		select {
		case <-q.wake:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (q *messageQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}
