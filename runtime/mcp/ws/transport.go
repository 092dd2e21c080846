package ws

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/coder/websocket"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// Transport reaches an MCP server over WebSocket: mcp.Connect(ctx, &ws.Transport{URL: u}, nil).
type Transport struct {
	// URL is the server's endpoint, ws:// or wss://.
	URL string
	// HTTPClient makes the handshake (its proxies, TLS configuration and RoundTripper: an
	// oauth.Transport signs it); the default is http.DefaultClient.
	HTTPClient *http.Client
	// Header is sent with the handshake (an API key, say).
	Header http.Header
	// MaxMessageSize bounds a message from the server; a larger one ends the connection.
	// The default is 64 MiB.
	MaxMessageSize int
	// WriteTimeout bounds the write of one message: a server that does not read for that
	// long loses the connection. The default is 30 seconds.
	WriteTimeout time.Duration
}

// TransportName names the transport to the client's middleware (mcp.Message.Transport).
func (t *Transport) TransportName() string { return TransportName }

// Connect makes the handshake, within ctx.
func (t *Transport) Connect(ctx context.Context) (mcp.Connection, error) {
	if t.URL == "" {
		return nil, errors.New("mcp: ws.Transport has no URL")
	}
	c, resp, err := websocket.Dial(ctx, t.URL, &websocket.DialOptions{
		HTTPClient:   t.HTTPClient,
		HTTPHeader:   t.Header,
		Subprotocols: []string{Subprotocol},
	})
	if err != nil {
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			// The server answered, but not with a WebSocket: what it said is the error.
			var body []byte
			if resp.Body != nil {
				body, _ = io.ReadAll(io.LimitReader(resp.Body, 300))
				resp.Body.Close()
			}
			return nil, failure(fmt.Errorf("GET %s (WebSocket handshake): HTTP %d %s: %s", t.URL, resp.StatusCode,
				http.StatusText(resp.StatusCode), bytes.TrimSpace(body)))
		}
		return nil, failure(fmt.Errorf("the WebSocket handshake with %s: %w", t.URL, err))
	}
	if c.Subprotocol() != Subprotocol {
		c.Close(websocket.StatusPolicyViolation, "the subprotocol must be "+Subprotocol)
		return nil, failure(fmt.Errorf("%s does not speak the %q subprotocol", t.URL, Subprotocol))
	}
	return newConn(c, t.MaxMessageSize, t.WriteTimeout), nil
}
