package host

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/mcp/ws"
)

// A server of a type beyond stdio, http and sse is reached through Options.Transports: a
// WebSocket server, with the headers of its configuration on the handshake.
func TestReachesAServerThroughOptionsTransports(t *testing.T) {
	h := ws.NewHandler(testServer(), nil)
	got := make(chan string, 1)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case got <- r.Header.Get("X-Api-Key"):
		default:
		}
		h.ServeHTTP(w, r)
	}))
	defer s.Close()
	defer h.Shutdown(context.Background())
	transports := map[string]TransportFunc{WS: func(cfg ServerConfig, hc *http.Client) (mcp.Transport, error) {
		return &ws.Transport{URL: cfg.URL, Header: cfg.Header(), HTTPClient: hc}, nil
	}}
	host, _ := start(t, Options{Transports: transports},
		ServerConfig{Name: "socket", Transport: WS, URL: "ws" + strings.TrimPrefix(s.URL, "http"), Headers: map[string]string{"X-Api-Key": "k1"}})
	ready(t, host)
	if got := text(t)(host.CallTool(context.Background(), "mcp_socket_echo", map[string]any{"text": "over ws"})); got != "over ws" {
		t.Fatalf("echo %q", got)
	}
	if key := <-got; key != "k1" {
		t.Errorf("the handshake's X-Api-Key: %q", key)
	}
}

// A server of a type the program cannot reach fails, saying what the program lacks.
func TestAServerOfATypeWithoutATransportFails(t *testing.T) {
	host, _ := start(t, Options{RestartMin: time.Hour, GiveUpAfter: 1}, ServerConfig{Name: "socket", Transport: WS, URL: "ws://127.0.0.1:1/mcp"})
	eventually(t, "the server failed", func() bool { return status(t, host, "socket").Err != nil })
	want := `the server is of type ws, which this program cannot reach: it sets no host.Options.Transports["ws"]`
	if err := status(t, host, "socket").Err; !strings.Contains(err.Error(), want) {
		t.Errorf("the server's error: %v; want it to say %q", err, want)
	}
}
