package mcp_test

import (
	"os"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/mcptest"
)

// The Connection Serve (stdio) serves keeps the contract, over two pipes crossed.
func TestStdioServerConnection(t *testing.T) {
	mcptest.TestConnection(t, func(t *testing.T) (mcp.Connection, mcp.Connection) {
		r1, w1, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		r2, w2, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r1.Close(); r2.Close() })
		return mcp.NewStdioConnForTest(r1, w2), mcp.NewStdioConnForTest(r2, w1)
	})
}

// So does the server's end of an in-memory connection (ServeMemory).
func TestMemoryServerConnection(t *testing.T) {
	mcptest.TestConnection(t, func(t *testing.T) (mcp.Connection, mcp.Connection) {
		return mcp.NewMemoryConnPairForTest()
	})
}
