package mcp

import (
	"context"
	"io"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// The server's Connections, for the contract test of package mcp_test (mcptest imports
// this package).

// NewStdioConnForTest is the Connection Serve serves, over r and w, closing w on Close as
// a transport that owns its streams does.
func NewStdioConnForTest(r io.Reader, w io.WriteCloser) Connection {
	return newStdioConn(r, w, 64<<20, true)
}

// NewMemoryConnPairForTest is two server ends of in-memory connections, crossed.
func NewMemoryConnPairForTest() (Connection, Connection) {
	q1, q2 := newMessageQueue(memoryQueueBytes), newMessageQueue(memoryQueueBytes)
	return &memoryServerConn{in: q1, out: q2}, &memoryServerConn{in: q2, out: q1}
}

// exchange passes a request through the door and serves it on the caller's goroutine, as
// an HTTP POST of a session's initialize is: its response, or its refusal.
func exchange(ss *session, ctx context.Context, m *jsonrpc.Message) []byte {
	answer := &initAnswer{get: ss.w.(*stream)}
	if _, refused, _, _ := ss.handle(ctx, m, answer, 0); refused != nil {
		return refused
	}
	return answer.resp
}
