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

// A stdio server does not inherit the host's OTEL_SERVICE_NAME, which names the host (its
// spans carried the host's name): it gets it empty, which OpenTelemetry's SDKs take as
// unset, unless its configuration sets it.
func TestChildEnvironment(t *testing.T) {
	t.Setenv("OTEL_SERVICE_NAME", "the-host")
	plain, named := testCommand("env"), testCommand("env")
	plain.Name, named.Name = "plain", "named"
	named.Env = append(named.Env, "OTEL_SERVICE_NAME=its-own")
	h, _ := start(t, Options{}, plain, named)
	ready(t, h)
	for server, want := range map[string]string{"plain": `"" true`, "named": `"its-own" true`} {
		if got := text(t)(h.CallTool(context.Background(), "mcp_"+server+"_env", nil)); got != want {
			t.Errorf("%s: OTEL_SERVICE_NAME %s, want %s", server, got, want)
		}
	}
	if env := childEnv([]string{"A=1"}, func(string) string { return "" }); len(env) != 1 {
		t.Errorf("without a service name of the host's: %v", env)
	}
}
