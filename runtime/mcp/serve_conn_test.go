package mcp

import (
	"context"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// connPipe returns the two ends of a newline-delimited Connection over two pipes.
func connPipe(t *testing.T) (client Transport, server Connection) {
	t.Helper()
	r1, w1, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r2, w2, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	server, err = (&IOTransport{Reader: r1, Writer: w2, Name: "client"}).Connect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return &IOTransport{Reader: r2, Writer: w1, Name: "server"}, server
}

// ServeConn serves a Connection in both eras: a client's calls are answered, a tool added
// meanwhile is announced, and the client's Close ends the serving without an error.
func TestServeConn(t *testing.T) {
	for _, version := range []string{StatefulProtocolVersion, StatelessProtocolVersion} {
		t.Run(version, func(t *testing.T) {
			srv := quietServer(nil)
			srv.AddTool(echoTool("echo"))
			transport, conn := connPipe(t)
			served := make(chan error, 1)
			go func() { served <- srv.ServeConn(context.Background(), conn) }()
			changed := make(chan struct{}, 1)
			c, err := Connect(t.Context(), transport, &ClientOptions{ProtocolVersion: version, Logger: quietLogger(),
				ToolsChanged: func() {
					select {
					case changed <- struct{}{}:
					default:
					}
				}})
			if err != nil {
				t.Fatal(err)
			}
			res, err := c.CallTool(t.Context(), "echo", map[string]any{"text": "hi"})
			if err != nil || len(res.Content) != 1 || res.Content[0].(Text).Text != "hi" {
				t.Fatalf("call: %+v, %v", res, err)
			}
			if version == StatefulProtocolVersion {
				srv.AddTool(echoTool("echo2"))
				select {
				case <-changed:
				case <-time.After(10 * time.Second):
					t.Fatal("no notifications/tools/list_changed")
				}
			}
			c.Close()
			select {
			case err := <-served:
				// A stateless client's Close cancels its subscriptions/listen and closes
				// both pipes at once: what the server writes about it may find the pipe
				// closed before the server reads the end.
				if err != nil && !(version == StatelessProtocolVersion && errors.Is(err, syscall.EPIPE)) {
					t.Fatalf("ServeConn returned %v after the client closed", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("ServeConn went on after the client closed")
			}
		})
	}
}

// ServeConn returns when its context ends, with its cause, and closes the connection.
func TestServeConnStopsWithItsContext(t *testing.T) {
	srv := quietServer(nil)
	transport, conn := connPipe(t)
	ctx, cancel := context.WithCancelCause(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.ServeConn(ctx, conn) }()
	c, err := Connect(t.Context(), transport, &ClientOptions{Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	stop := errors.New("stopped by the test")
	cancel(stop)
	select {
	case err := <-served:
		if err != stop {
			t.Fatalf("ServeConn returned %v; want the context's cause", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ServeConn went on after its context ended")
	}
	select {
	case <-c.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the client did not hear that the connection closed")
	}
}

// A protected conversation serves a request only if the caller's token has its scopes, and
// ends when the token expires.
func TestServeConnChecksScopesAndExpiry(t *testing.T) {
	srv := quietServer(nil)
	open, guarded := echoTool("open"), echoTool("guarded")
	guarded.Scopes = []string{"notes:write"}
	srv.AddTool(open)
	srv.AddTool(guarded)
	transport, conn := connPipe(t)
	caller := &AuthInfo{Subject: "ada", Scopes: []string{"notes:read"}, Expiry: time.Now().Add(3 * time.Second)}
	served := make(chan error, 1)
	go func() { served <- srv.ServeConn(WithAuthInfo(context.Background(), caller), conn) }()
	c, err := Connect(t.Context(), transport, &ClientOptions{ProtocolVersion: StatefulProtocolVersion, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if res, err := c.CallTool(t.Context(), "open", map[string]any{"text": "hi"}); err != nil || res.IsError {
		t.Fatalf("a tool that needs no scope: %+v, %v", res, err)
	}
	_, err = c.CallTool(t.Context(), "guarded", map[string]any{"text": "hi"})
	if err == nil || !strings.Contains(err.Error(), "insufficient_scope: tools/call needs the scopes notes:write") {
		t.Fatalf("a tool whose scope the token lacks: %v", err)
	}
	select {
	case err := <-served:
		if !errors.Is(err, ErrTokenExpired) {
			t.Fatalf("ServeConn returned %v when the token expired; want ErrTokenExpired", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the conversation outlived its token")
	}
}
