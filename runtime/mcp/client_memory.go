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
}

// Connect starts serving a session in memory; it lasts until the connection is closed.
func (t *MemoryTransport) Connect(ctx context.Context) (Connection, error) {
	if t.Server == nil {
		return nil, errors.New("mcp: MemoryTransport has no Server")
	}
	sctx, cancel := context.WithCancel(context.Background())
	return &memoryClientConn{mc: t.Server.ServeMemory(sctx), cancel: cancel}, nil
}

func (m *memoryClientConn) TransportName() string { return TransportMemory }
func (m *memoryClientConn) String() string        { return "in-memory server" }

func (m *memoryClientConn) Read(ctx context.Context) ([]byte, error) {
	msg, err := m.mc.Receive(ctx)
	if err != nil && ctx.Err() == nil {
		if err == io.EOF || err == context.Canceled {
			err = errors.New("the in-memory server stopped")
		}
		err = connError("in-memory server", transportFailure(err))
	}
	return msg, err
}

func (m *memoryClientConn) Write(ctx context.Context, msg []byte) error {
	return m.mc.Send(msg)
}

// Close tells the server the client is done, lets it answer what it was asked (for a
// moment), and stops it.
func (m *memoryClientConn) Close() error {
	m.mc.Close()
	select {
	case <-m.mc.Done():
	case <-time.After(2 * time.Second):
	}
	m.cancel()
	<-m.mc.Done()
	return nil
}
