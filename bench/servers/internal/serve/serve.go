// Package serve is the part of the benchmark servers' command line that has nothing to do
// with MCP: listening, announcing the URL, and stopping at a signal, the same for every
// server so that only the MCP handling differs.
package serve

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// ShutdownTimeout is how long running requests get to finish once a server is told to stop.
const ShutdownTimeout = 2 * time.Second

// HTTP listens on addr, prints "serving MCP at http://HOST:PORT/mcp" to stderr, and serves
// h at /mcp until ctx ends. Then it calls beforeClose (if not nil), for the handler to end
// its sessions and their streams, gives running requests up to ShutdownTimeout to finish,
// and closes the connections still open.
func HTTP(ctx context.Context, addr string, h http.Handler, beforeClose func(context.Context)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	hs := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	fmt.Fprintf(os.Stderr, "serving MCP at %s\n", mcp.LocalURL(ln.Addr(), "/mcp"))

	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ShutdownTimeout)
	defer cancel()
	if beforeClose != nil {
		beforeClose(sctx)
	}
	if err := hs.Shutdown(sctx); err != nil {
		hs.Close() // event streams that are still open (GET /mcp) do not end by themselves
	}
	<-served
	return nil
}
