package ws

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/mcptest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		goleak.IgnoreTopFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
	)
}

// wsURL is the ws:// URL of a test server.
func wsURL(s *httptest.Server) string { return "ws" + strings.TrimPrefix(s.URL, "http") }

// Both ends of a WebSocket connection, the client's (Transport) and the server's, keep
// mcp.Connection's contract.
func TestConnectionContract(t *testing.T) {
	mcptest.TestConnection(t, func(t *testing.T) (mcp.Connection, mcp.Connection) {
		accepted := make(chan mcp.Connection, 1)
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			c, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{Subprotocol}})
			if err != nil {
				t.Error(err)
				return
			}
			accepted <- newConn(c, 0, 0)
		}))
		t.Cleanup(s.Close)
		client, err := (&Transport{URL: wsURL(s)}).Connect(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return client, <-accepted
	})
}

// greet is a tool that reports progress and answers with its argument.
var greet = mcp.Tool{Name: "greet", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *mcp.ToolCall) {
	mcp.Progress(ctx, 1, 2, "half way")
	var in struct{ Name string }
	if err := json.Unmarshal(c.RawArguments(), &in); err != nil {
		c.ReturnError(err)
		return
	}
	c.ReturnText("hello " + in.Name)
}}

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

// serve serves srv over WebSocket until the test ends.
func serve(t *testing.T, srv *mcp.Server, opts *Options) (*httptest.Server, *Handler) {
	h := NewHandler(srv, opts)
	s := httptest.NewServer(h)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := h.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		s.Close()
	})
	return s, h
}

// mcpgen's client and server speak over WebSocket in both eras: a call with progress, and
// in a session, a notification about no request (a tool added).
func TestClientAndServer(t *testing.T) {
	for _, version := range []string{mcp.StatefulProtocolVersion, mcp.StatelessProtocolVersion} {
		t.Run(version, func(t *testing.T) {
			srv := mcp.NewServer(mcp.Implementation{Name: "ws-test", Version: "1"}, &mcp.ServerOptions{Logger: quiet()})
			srv.AddTool(greet)
			s, _ := serve(t, srv, nil)
			changed := make(chan struct{}, 1)
			c, err := mcp.Connect(t.Context(), &Transport{URL: wsURL(s)}, &mcp.ClientOptions{ProtocolVersion: version, Logger: quiet(),
				ToolsChanged: func() {
					select {
					case changed <- struct{}{}:
					default:
					}
				}})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if got := c.Server().ProtocolVersion; got != version {
				t.Fatalf("the client speaks %s; want %s", got, version)
			}
			var progress []string
			ctx := mcp.WithProgress(t.Context(), func(p mcp.ProgressNotice) { progress = append(progress, p.Message) })
			res, err := c.CallTool(ctx, "greet", map[string]any{"name": "Ada"})
			if err != nil || len(res.Content) != 1 || res.Content[0].(mcp.Text).Text != "hello Ada" {
				t.Fatalf("call: %+v, %v", res, err)
			}
			if len(progress) != 1 || progress[0] != "half way" {
				t.Errorf("progress: %q", progress)
			}
			if version == mcp.StatefulProtocolVersion {
				srv.AddTool(mcp.Tool{Name: "later", InputSchema: `{"type":"object"}`, Handler: greet.Handler})
				select {
				case <-changed:
				case <-time.After(10 * time.Second):
					t.Fatal("no notifications/tools/list_changed")
				}
			}
		})
	}
}

// A message over the server's MaxMessageSize is refused, as over every transport: the call
// that sent it fails with -32600, and the conversation goes on; one under it is served.
func TestMessageSizeBounded(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "ws-test", Version: "1"}, &mcp.ServerOptions{Logger: quiet(), MaxMessageSize: 64 << 10})
	srv.AddTool(greet)
	s, _ := serve(t, srv, nil)
	c, err := mcp.Connect(t.Context(), &Transport{URL: wsURL(s)}, &mcp.ClientOptions{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.CallTool(t.Context(), "greet", map[string]any{"name": strings.Repeat("a", 32<<10)}); err != nil {
		t.Fatalf("a call under the limit: %v", err)
	}
	_, err = c.CallTool(t.Context(), "greet", map[string]any{"name": strings.Repeat("a", 128<<10)})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidRequest || !strings.Contains(rpcErr.Message, "larger than 65536 bytes") {
		t.Fatalf("a call over the limit failed with %v; want -32600, larger than 65536 bytes", err)
	}
	if _, err := c.CallTool(t.Context(), "greet", map[string]any{"name": "Ada"}); err != nil {
		t.Fatalf("a call after the one refused: %v", err)
	}
}

// Shutdown ends the conversations in progress and refuses new ones.
func TestShutdown(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "ws-test", Version: "1"}, &mcp.ServerOptions{Logger: quiet()})
	h := NewHandler(srv, nil)
	s := httptest.NewServer(h)
	defer s.Close()
	c, err := mcp.Connect(t.Context(), &Transport{URL: wsURL(s)}, &mcp.ClientOptions{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	select {
	case <-c.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the client's connection outlived Shutdown")
	}
	if _, err := mcp.Connect(t.Context(), &Transport{URL: wsURL(s)}, &mcp.ClientOptions{Logger: quiet()}); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("a connection after Shutdown: %v; want a 503", err)
	}
}

// The handshake passes the HTTP transport's Host and Origin checks: a name or a web page
// that is not the machine's own is refused unless allowed.
func TestHostAndOriginChecked(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "ws-test", Version: "1"}, &mcp.ServerOptions{Logger: quiet()})
	s, _ := serve(t, srv, &Options{AllowedOrigins: []string{"https://app.example"}})
	for _, tc := range []struct {
		host, origin string
		ok           bool
	}{
		{"", "", true},
		{"", "http://localhost:3000", true},
		{"", "https://app.example", true},
		{"", "https://evil.example", false},
		{"evil.example", "", false},
	} {
		header := http.Header{}
		if tc.origin != "" {
			header.Set("Origin", tc.origin)
		}
		opts := &websocket.DialOptions{HTTPHeader: header, Subprotocols: []string{Subprotocol}, Host: tc.host}
		c, resp, err := websocket.Dial(t.Context(), wsURL(s), opts)
		if tc.ok != (err == nil) {
			t.Errorf("host %q, origin %q: %v", tc.host, tc.origin, err)
		}
		if err == nil {
			c.Close(websocket.StatusNormalClosure, "")
		} else if resp != nil && resp.StatusCode != http.StatusForbidden {
			t.Errorf("host %q, origin %q: HTTP %d; want 403", tc.host, tc.origin, resp.StatusCode)
		}
		if resp != nil && resp.Body != nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
}

// Behind mcp.GuardHTTP, the handshake needs a token the verifier accepts (401 without), and
// each request the scopes it needs: a tool whose scope the token lacks is refused.
func TestProtectedBehindGuardHTTP(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "ws-test", Version: "1"}, &mcp.ServerOptions{Logger: quiet()})
	srv.AddTool(greet)
	admin := greet
	admin.Name, admin.Scopes = "admin", []string{"admin"}
	srv.AddTool(admin)
	verifier := mcp.TokenVerifierFunc(func(ctx context.Context, token string) (*mcp.AuthInfo, error) {
		if token != "good" {
			return nil, errors.New("unknown token")
		}
		return &mcp.AuthInfo{Subject: "ada", Scopes: []string{"greet"}}, nil
	})
	h := NewHandler(srv, nil)
	s := httptest.NewServer(mcp.GuardHTTP(&mcp.HTTPOptions{Auth: &mcp.AuthOptions{Verifier: verifier}}, h))
	defer s.Close()
	defer h.Shutdown(context.Background())

	if _, err := mcp.Connect(t.Context(), &Transport{URL: wsURL(s)}, &mcp.ClientOptions{Logger: quiet()}); err == nil || !strings.Contains(err.Error(), "HTTP 401") {
		t.Fatalf("a handshake without a token: %v; want 401", err)
	}
	c, err := mcp.Connect(t.Context(), &Transport{URL: wsURL(s), Header: http.Header{"Authorization": {"Bearer good"}}}, &mcp.ClientOptions{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.CallTool(t.Context(), "greet", map[string]any{"name": "Ada"}); err != nil {
		t.Fatalf("a tool that needs no scope: %v", err)
	}
	if _, err := c.CallTool(t.Context(), "admin", map[string]any{"name": "Ada"}); err == nil || !strings.Contains(err.Error(), "insufficient_scope") {
		t.Fatalf("a tool whose scope the token lacks: %v", err)
	}
}

// Both sides' middleware learn that a conversation is over WebSocket (Message.Transport).
func TestMiddlewareSeesTheTransport(t *testing.T) {
	seen := make(chan string, 16)
	record := func(next mcp.Handler) mcp.Handler {
		return func(ctx context.Context, m *mcp.Message) ([]byte, error) {
			if m.Method == "tools/call" {
				seen <- m.Transport
			}
			return next(ctx, m)
		}
	}
	srv := mcp.NewServer(mcp.Implementation{Name: "ws-test", Version: "1"}, &mcp.ServerOptions{Logger: quiet(), Middleware: []mcp.Middleware{record}})
	srv.AddTool(greet)
	s, _ := serve(t, srv, nil)
	c, err := mcp.Connect(t.Context(), &Transport{URL: wsURL(s)}, &mcp.ClientOptions{Logger: quiet(), Middleware: []mcp.Middleware{record}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.CallTool(t.Context(), "greet", map[string]any{"name": "Ada"}); err != nil {
		t.Fatal(err)
	}
	for range 2 { // the client's, then the server's
		if got := <-seen; got != TransportName {
			t.Errorf("Message.Transport %q; want %q", got, TransportName)
		}
	}
}
