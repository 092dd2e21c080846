package mcp

import (
	"context"
	"errors"
	"io"
	"time"
)

// MemoryTransport connects a client to a Server in the same process (Server.ServeMemory):
// the messages of one session, without a process or a socket. Tests use it, as do programs
// that embed a server.
type MemoryTransport struct {
	Server *Server
}

type memoryClientConn struct {
	mc     *MemoryConn
	cancel context.CancelFunc
	read   chan struct{} // closed when the read loop ends
}

func (t *MemoryTransport) connect(ctx context.Context, sink clientSink) (clientConn, error) {
	if t.Server == nil {
		return nil, errors.New("mcp: MemoryTransport has no Server")
	}
	sctx, cancel := context.WithCancel(context.Background())
	m := &memoryClientConn{mc: t.Server.ServeMemory(sctx), cancel: cancel, read: make(chan struct{})}
	go func() {
		defer close(m.read)
		for {
			msg, err := m.mc.Receive(sctx)
			if err != nil {
				if err == io.EOF || err == context.Canceled {
					err = errors.New("the in-memory server stopped")
				}
				sink.broken(connError("in-memory server", transportFailure(err)))
				return
			}
			sink.deliver(msg)
		}
	}()
	return m, nil
}

func (m *memoryClientConn) send(ctx context.Context, msg []byte, rq *outgoing) error {
	return m.mc.Send(msg)
}

func (m *memoryClientConn) negotiated(string, bool) {}
func (m *memoryClientConn) headers() bool           { return false }

// close tells the server the client is done, lets it answer what it was asked (for a
// moment), and stops it.
func (m *memoryClientConn) close() error {
	m.mc.Close()
	select {
	case <-m.mc.Done():
	case <-time.After(2 * time.Second):
	}
	m.cancel()
	<-m.read
	return nil
}
