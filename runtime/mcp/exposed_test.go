package mcp

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// syncBuffer is a bytes.Buffer a logger and a test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

const exposedWarning = "without HTTPOptions.Auth: any client that can reach this address can use the server"

// A server served without protection on an address other machines reach says so, once
// (issue 35, item 6): the Host and Origin checks keep web pages out (DNS rebinding), not
// the network, where a client anywhere may send "Host: localhost". ServeHTTPListener says
// it as it starts; a handler on a server of the program's own, at the first request that
// arrives on such an address; GuardHTTP (a WebSocket handler's) likewise. A loopback
// listener, or a protected server, hears nothing. Before, nothing was said.
func TestServingTheNetworkUnprotectedWarns(t *testing.T) {
	newServer := func() (*Server, *syncBuffer) {
		var logs syncBuffer
		return NewServer(Implementation{Name: "t", Version: "1"}, &ServerOptions{Logger: slog.New(slog.NewTextHandler(&logs, nil))}), &logs
	}
	listen := func(addr string, opts *HTTPOptions) string {
		t.Helper()
		srv, logs := newServer()
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Skipf("cannot listen on %s here: %v", addr, err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- srv.ServeHTTPListener(ctx, ln, opts) }()
		// A client of this machine, as a network client would: Host localhost.
		req, _ := http.NewRequest(http.MethodGet, "http://"+ln.Addr().String()+"/mcp", nil)
		req.Host = "localhost"
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			t.Fatal(err)
		}
		return logs.String()
	}
	if logs := listen("0.0.0.0:0", nil); strings.Count(logs, exposedWarning) != 1 {
		t.Errorf("ServeHTTPListener on 0.0.0.0, unprotected: the logs say\n%s", logs)
	}
	if logs := listen("127.0.0.1:0", nil); strings.Contains(logs, exposedWarning) {
		t.Errorf("ServeHTTPListener on 127.0.0.1: %s", logs)
	}
	protected := &HTTPOptions{Auth: &AuthOptions{Verifier: TokenVerifierFunc(func(context.Context, string) (*AuthInfo, error) {
		return nil, errors.New("no")
	}), AuthorizationServers: []string{"https://auth.example.com"}}}
	if logs := listen("0.0.0.0:0", protected); strings.Contains(logs, exposedWarning) {
		t.Errorf("ServeHTTPListener on 0.0.0.0, protected: %s", logs)
	}

	// A handler on a server of the program's own, and GuardHTTP: at the first request on an
	// address others reach, once.
	fromNetwork := func() *http.Request {
		r := httptest.NewRequest(http.MethodGet, "/mcp", nil)
		return r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, &net.TCPAddr{IP: net.IPv4(10, 1, 2, 3), Port: 8080}))
	}
	srv, logs := newServer()
	h := srv.HTTPHandler(nil)
	defer h.Close()
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/mcp", nil))
	if strings.Contains(logs.String(), exposedWarning) {
		t.Errorf("a request of no known address: %s", logs)
	}
	for range 2 {
		h.ServeHTTP(httptest.NewRecorder(), fromNetwork())
	}
	if n := strings.Count(logs.String(), exposedWarning); n != 1 || !strings.Contains(logs.String(), "10.1.2.3:8080") {
		t.Errorf("two requests on 10.1.2.3, unprotected: %d warnings\n%s", n, logs)
	}
	var defaultLogs syncBuffer
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.NewTextHandler(&defaultLogs, nil)))
	g := GuardHTTP(nil, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	g.ServeHTTP(httptest.NewRecorder(), fromNetwork())
	if !strings.Contains(defaultLogs.String(), exposedWarning) {
		t.Errorf("GuardHTTP, unprotected, a request on 10.1.2.3: %s", defaultLogs.String())
	}
}
