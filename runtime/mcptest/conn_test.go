package mcptest

import (
	"os"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// IOTransport's connections (newline-delimited JSON-RPC, as CommandTransport's) keep the
// contract, over two pipes crossed.
func TestIOTransportConnection(t *testing.T) {
	TestConnection(t, func(t *testing.T) (mcp.Connection, mcp.Connection) {
		r1, w1, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		r2, w2, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		a, err := (&mcp.IOTransport{Reader: r1, Writer: w2}).Connect(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		b, err := (&mcp.IOTransport{Reader: r2, Writer: w1}).Connect(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return a, b
	})
}
