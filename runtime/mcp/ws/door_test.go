package ws

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// A WebSocket conversation passes the server's one door, as every transport's does: the
// guard of the MCP endpoint when it is mounted in Routes, the caller's scopes per message,
// the budget of bytes in flight and the bound on conversations, idle ones shed.

// adminTool needs the admin scope.
var adminTool = mcp.Tool{Name: "drop_tables", InputSchema: `{"type":"object"}`, Scopes: []string{"admin"},
	Handler: func(ctx context.Context, c *mcp.ToolCall) { c.ReturnText("dropped") }}

// tokens are the callers of the protected servers below.
var tokens = map[string]*mcp.AuthInfo{
	"root": {Issuer: "https://auth.example.com", Subject: "root", ClientID: "app", Scopes: []string{"admin"}},
	"ada":  {Issuer: "https://auth.example.com", Subject: "ada", ClientID: "app"},
}

func verifier() mcp.TokenVerifier {
	return mcp.TokenVerifierFunc(func(ctx context.Context, token string) (*mcp.AuthInfo, error) {
		if a := tokens[token]; a != nil {
			return a, nil
		}
		return nil, errors.New("unknown token")
	})
}

// serveListener serves srv with ServeHTTPListener and these options until the test ends,
// and returns its base URL.
func serveListener(t *testing.T, srv *mcp.Server, opts *mcp.HTTPOptions) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.ServeHTTPListener(ctx, ln, opts) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeHTTPListener: %v", err)
		}
	})
	return "http://" + ln.Addr().String()
}

// A WebSocket handler in the Routes of a protected server is guarded as /mcp is: without a
// token its handshake gets 401 (it ran a tool that needs the admin scope before), and a
// caller whose token lacks a tool's scope is refused the call, as over /mcp.
func TestRouteOfAProtectedServerIsGuarded(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "ws-test", Version: "1"}, &mcp.ServerOptions{Logger: quiet()})
	srv.AddTool(adminTool)
	h := NewHandler(srv, nil)
	t.Cleanup(func() { h.Shutdown(context.Background()) })
	mux := http.NewServeMux()
	mux.Handle("/ws", h)
	base := serveListener(t, srv, &mcp.HTTPOptions{Routes: mux, Auth: &mcp.AuthOptions{Verifier: verifier()}})
	url := "ws" + strings.TrimPrefix(base, "http") + "/ws"

	_, resp, err := websocket.Dial(t.Context(), url, &websocket.DialOptions{Subprotocols: []string{Subprotocol}})
	if err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "Bearer") {
		t.Fatalf("a handshake without a token: %v %v; want 401 with a Bearer challenge", status(resp), err)
	}
	const call = `"name":"drop_tables","arguments":{}`
	if a := dial(t, url, "ada").call(t, "tools/call", call); !strings.Contains(string(a), `"code":-32600`) || !strings.Contains(string(a), "insufficient_scope") {
		t.Errorf("a call without the tool's scope: %s; want -32600 insufficient_scope", a)
	}
	if r, _ := json.Marshal(result(t, dial(t, url, "root").call(t, "tools/call", call))); !strings.Contains(string(r), "dropped") {
		t.Errorf("a call with the scope: %v", r)
	}
}

// A WebSocket handler mounted where no guard reaches it (a mux of its own, or
// PublicRoutes), on a server that is protected, serves nobody: its conversations carry no
// caller, and the server refuses them rather than serve them as anyone's.
func TestUnguardedTransportOfAProtectedServerServesNobody(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "ws-test", Version: "1"}, &mcp.ServerOptions{Logger: quiet()})
	srv.AddTool(adminTool)
	h := NewHandler(srv, nil)
	t.Cleanup(func() { h.Shutdown(context.Background()) })
	public := http.NewServeMux()
	public.Handle("/ws", h)
	base := serveListener(t, srv, &mcp.HTTPOptions{PublicRoutes: public, Auth: &mcp.AuthOptions{Verifier: verifier()}})
	c, err := mcp.Connect(t.Context(), &Transport{URL: "ws" + strings.TrimPrefix(base, "http") + "/ws"}, &mcp.ClientOptions{Logger: quiet()})
	if err == nil {
		defer c.Close()
		_, err = c.CallTool(t.Context(), "drop_tables", nil)
	}
	if err == nil {
		t.Fatal("a conversation without a caller on a protected server was served")
	}
	// ServeConn says why, to a program that calls it itself.
	if err := srv.ServeConn(t.Context(), nopConn{}); !errors.Is(err, mcp.ErrUnauthenticated) {
		t.Errorf("ServeConn without a caller: %v; want ErrUnauthenticated", err)
	}
}

// nopConn is a Connection with nothing to say.
type nopConn struct{}

func (nopConn) Read(ctx context.Context) ([]byte, error) { <-ctx.Done(); return nil, ctx.Err() }
func (nopConn) Write(context.Context, []byte) error      { return nil }
func (nopConn) Close() error                             { return nil }

// The messages of every WebSocket conversation share the server's one budget of bytes in
// flight: while a request holds its bytes, messages of other conversations that would pass
// the budget are refused with "server busy" (-32000) as they are read, not held, and their
// connections go on. Before, each connection could hold a whole message of up to 64 MiB.
func TestWebSocketMessagesShareTheBudget(t *testing.T) {
	release := make(chan struct{})
	holding := make(chan struct{}, 8)
	srv := mcp.NewServer(mcp.Implementation{Name: "ws-test", Version: "1"}, &mcp.ServerOptions{Logger: quiet(), MaxBytesInFlight: 1 << 20})
	srv.AddTool(mcp.Tool{Name: "hold", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *mcp.ToolCall) {
		holding <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
		}
		c.ReturnText("held")
	}})
	s, _ := serve(t, srv, nil)
	big := map[string]any{"pad": strings.Repeat("a", 700<<10)}
	first, last := connect(t, s), connect(t, s)
	others := make([]*mcp.Client, 5)
	for i := range others {
		others[i] = connect(t, s)
	}
	held := make(chan error, 1)
	go func() {
		_, err := first.CallTool(t.Context(), "hold", big)
		held <- err
	}()
	<-holding // the first call's 700 KiB are in flight until it is answered
	var wg sync.WaitGroup
	errs := make([]error, len(others))
	for i, c := range others {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = c.CallTool(t.Context(), "hold", big)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != -32000 || !strings.Contains(rpcErr.Message, "server busy") {
			t.Errorf("call %d over the budget: %v; want -32000 server busy", i, err)
		}
	}
	close(release)
	if err := <-held; err != nil {
		t.Errorf("the call in flight: %v", err)
	}
	// The budget is whole again, once the server has counted the first call answered (a
	// moment after it wrote the answer): a call as large is served.
	go func() { <-holding }()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		_, err := last.CallTool(t.Context(), "hold", big)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a call once the budget is free: %v", err)
		}
	}
}

// connect is a client of the test server, closed when the test ends.
func connect(t *testing.T, s *httptest.Server) *mcp.Client {
	t.Helper()
	c, err := mcp.Connect(t.Context(), &Transport{URL: wsURL(s)}, &mcp.ClientOptions{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// Silent WebSocket connections hold no place forever: past MaxConversations a new one sheds
// the one idle longest (before, the handshake got 503 for as long as they were held), and a
// conversation idle for IdleTimeout ends.
func TestIdleWebSocketConversationsAreShed(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "ws-test", Version: "1"}, &mcp.ServerOptions{Logger: quiet(), MaxConversations: 3})
	srv.AddTool(greet)
	s, _ := serve(t, srv, nil)
	silent := make([]*websocket.Conn, 3)
	for i := range silent {
		c, _, err := websocket.Dial(t.Context(), wsURL(s), &websocket.DialOptions{Subprotocols: []string{Subprotocol}})
		if err != nil {
			t.Fatal(err)
		}
		defer c.CloseNow()
		// One ping answered: the server serves the conversation (it counts among
		// MaxConversations) before the next comes; then it says nothing more.
		if err := c.Write(t.Context(), websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)); err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.Read(t.Context()); err != nil {
			t.Fatal(err)
		}
		silent[i] = c
	}
	// A conversation is idle from when its last request has been answered, which the
	// server counts a moment after the answer is written: that moment passes before the
	// clients come, so that the silent ones are idle for longest.
	time.Sleep(100 * time.Millisecond)
	// Each client that comes sheds a silent one, idle for longest: all are served.
	for range 3 {
		if _, err := connect(t, s).CallTool(t.Context(), "greet", map[string]any{"name": "Ada"}); err != nil {
			t.Fatalf("a client past MaxConversations of silent connections: %v", err)
		}
	}
	for i, c := range silent {
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		_, _, err := c.Read(ctx)
		timedOut := ctx.Err() != nil
		cancel()
		if err == nil || timedOut {
			t.Errorf("silent connection %d: %v; want it closed by the server", i, err)
		}
	}

	// IdleTimeout: a silent connection is closed once it has been idle that long.
	srv = mcp.NewServer(mcp.Implementation{Name: "ws-test", Version: "1"}, &mcp.ServerOptions{Logger: quiet(), IdleTimeout: 200 * time.Millisecond})
	s, _ = serve(t, srv, nil)
	c, _, err := websocket.Dial(t.Context(), wsURL(s), &websocket.DialOptions{Subprotocols: []string{Subprotocol}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	start := time.Now()
	if _, _, err := c.Read(ctx); err == nil || ctx.Err() != nil {
		t.Errorf("an idle connection: %v; want it closed after IdleTimeout", err)
	} else if d := time.Since(start); d < 150*time.Millisecond {
		t.Errorf("closed after %v, before IdleTimeout", d)
	}
}

func status(resp *http.Response) any {
	if resp == nil {
		return "no response"
	}
	return resp.StatusCode
}
