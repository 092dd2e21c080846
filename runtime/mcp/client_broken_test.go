package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// What a broken server answers never leaves a call waiting: an answer the client cannot read
// fails the call it was meant for, on every transport, and a POST whose answer cannot hold
// the response fails its request at once.

// brokenResult is the answer a server wrote when a tool returned StructuredContent:
// []byte{}: its id can be read, the rest cannot.
const brokenResult = `{"jsonrpc":"2.0","id":%s,"result":{"content":[],"structuredContent":}}`

// callWithin calls the tool "t" with no deadline, as a program that trusts its server does,
// and fails the test if the call is still waiting after 10 seconds.
func callWithin(t *testing.T, c *Client) error {
	t.Helper()
	called := make(chan error, 1)
	go func() {
		_, err := c.CallTool(context.Background(), "t", nil)
		called <- err
	}()
	select {
	case err := <-called:
		return err
	case <-time.After(10 * time.Second):
		c.Close() // ends the call, for the test to end
		<-called
		t.Fatal("a call without a deadline still waits for a broken server after 10s")
		return nil
	}
}

// answerNext answers the next request the client writes with answer, a format for its id,
// on a goroutine of its own.
func answerNext(t *testing.T, s *rawServer, answer string) (answered chan struct{}) {
	answered = make(chan struct{})
	go func() {
		defer close(answered)
		line := s.readLine()
		var m struct{ ID json.RawMessage }
		if err := json.Unmarshal([]byte(line), &m); err != nil || m.ID == nil {
			t.Errorf("not a request: %s", line)
			return
		}
		s.write(fmt.Sprintf(answer, m.ID))
	}()
	return answered
}

// Over stdio: an answer whose id the client can read and the rest not (or that is JSON but
// not a valid response) fails the call it answers, at once; the connection goes on.
func TestClientFailsACallWhoseAnswerCannotBeRead(t *testing.T) {
	tr, s := pipeTransport(t)
	var log logRecorder
	c := connectRaw(t, tr, s, &log)
	defer c.Close()
	for _, answer := range []string{brokenResult, `{"jsonrpc":"2.0","id":%s,"error":{"code":"x","message":"m"}}`} {
		answered := answerNext(t, s, answer)
		err := callWithin(t, c)
		<-answered
		if err == nil || !strings.HasPrefix(err.Error(), "mcp: the server's answer to tools/call could not be read: ") {
			t.Errorf("answer %s: the call ended with %v", answer, err)
		}
	}
	answered := answerNext(t, s, `{"jsonrpc":"2.0","id":%s,"result":{}}`)
	if err := c.Ping(context.Background()); err != nil || c.Err() != nil {
		t.Errorf("after two unreadable answers: ping %v, Err %v", err, c.Err())
	}
	<-answered
	if !strings.Contains(log.String(), "could not be read") {
		t.Errorf("nothing logged:\n%s", log.String())
	}
}

// scriptedHTTP is a Streamable HTTP server with sessions whose answer to tools/call the test
// writes; it answers initialize, takes notifications, and has no GET stream.
func scriptedHTTP(t *testing.T, call func(w http.ResponseWriter, r *http.Request, id string)) *Client {
	t.Helper()
	over := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var m struct {
			ID     json.RawMessage
			Method string
		}
		body, _ := io.ReadAll(r.Body)
		json.Unmarshal(body, &m)
		switch {
		case m.Method == methodInitialize:
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Mcp-Session-Id", "s1")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"scripted","version":"1"}}}`, m.ID)
		case m.Method == methodToolsCall:
			call(w, r, string(m.ID))
		case m.Method == notificationCancelled:
			// A server that never answers this POST.
			select {
			case <-r.Context().Done():
			case <-over:
			}
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	hc := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(func() {
		srv.Close()
		hc.CloseIdleConnections()
	})
	t.Cleanup(func() { close(over) }) // first: handlers that wait end
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := Connect(ctx, &StreamableHTTPTransport{URL: srv.URL, HTTPClient: hc}, &ClientOptions{ProtocolVersion: "2025-11-25", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// hold keeps a stream open until the client goes.
func hold(w http.ResponseWriter, r *http.Request) {
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}

// Over Streamable HTTP: a POST answered with something that cannot hold the request's
// response (a body that is not JSON-RPC, or not the response; an event that is not JSON-RPC,
// on a stream that stays open) fails the request at once, saying what the server sent; an
// answer whose id can be read and the rest not fails it as over stdio.
func TestHTTPClientFailsACallTheAnswerCannotHold(t *testing.T) {
	for _, tt := range []struct {
		name   string
		answer func(w http.ResponseWriter, r *http.Request, id string)
		want   string
	}{
		{"an HTML body", func(w http.ResponseWriter, r *http.Request, id string) {
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<html>\n<body>Bad gateway</body>\n</html>")
		}, `mcp: tools/call: the server answered POST with a body that is not JSON-RPC: "<html>\n<body>Bad gateway</body>\n</html>"`},
		{"a notification for a body", func(w http.ResponseWriter, r *http.Request, id string) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}`)
		}, "mcp: tools/call: the server answered POST with a body that is not the response to the request: "},
		{"an event that is not JSON-RPC", func(w http.ResponseWriter, r *http.Request, id string) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: {\"oops\n\n")
			hold(w, r)
		}, `mcp: tools/call: the server answered POST with an event that is not JSON-RPC: "{\"oops"`},
		{"a body that cannot be read", func(w http.ResponseWriter, r *http.Request, id string) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, brokenResult, id)
		}, "mcp: the server's answer to tools/call could not be read: parse error: "},
		{"an event that cannot be read", func(w http.ResponseWriter, r *http.Request, id string) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "id: 1\ndata: "+brokenResult+"\n\n", id)
			hold(w, r)
		}, "mcp: the server's answer to tools/call could not be read: parse error: "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := scriptedHTTP(t, tt.answer)
			if err := callWithin(t, c); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("the call ended with %v\nwant %s...", err, tt.want)
			}
		})
	}
}

// A call that gives up tells the server so, and the POST of that note waits no longer than
// a second: a server that never answers it does not keep the caller.
func TestHTTPCancellationNoteEndsForAServerThatNeverAnswers(t *testing.T) {
	c := scriptedHTTP(t, func(w http.ResponseWriter, r *http.Request, id string) {
		w.Header().Set("Content-Type", "text/event-stream")
		hold(w, r)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	called := make(chan error, 1)
	begun := time.Now()
	go func() {
		_, err := c.CallTool(ctx, "t", nil)
		called <- err
	}()
	select {
	case err := <-called:
		if err != context.DeadlineExceeded {
			t.Errorf("the call ended with %v", err)
		}
		if d := time.Since(begun); d > 5*time.Second {
			t.Errorf("a call with a 200ms timeout took %s", d)
		}
	case <-time.After(10 * time.Second):
		c.Close()
		<-called
		t.Fatal("a call with a 200ms timeout still waits after 10s, sending its cancellation to a server that never answers it")
	}
}

// Over HTTP+SSE: the answer to a POST says only whether the server took the message, and a
// server that never ends its body holds neither Connect nor a call (whose responses came on
// the stream long before).
func TestSSEClientDoesNotWaitForAPOSTAnswerThatNeverEnds(t *testing.T) {
	over := make(chan struct{})
	var mu sync.Mutex
	var stream chan string // the messages the GET stream is to carry
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			mu.Lock()
			stream = make(chan string, 16)
			out := stream
			mu.Unlock()
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "event: endpoint\ndata: /message\n\n")
			w.(http.Flusher).Flush()
			for {
				select {
				case msg := <-out:
					io.WriteString(w, "event: message\ndata: "+msg+"\n\n")
					w.(http.Flusher).Flush()
				case <-r.Context().Done():
					return
				case <-over:
					return
				}
			}
		}
		var m struct {
			ID     json.RawMessage
			Method string
		}
		body, _ := io.ReadAll(r.Body)
		json.Unmarshal(body, &m)
		mu.Lock()
		out := stream
		mu.Unlock()
		switch m.Method {
		case methodInitialize:
			out <- fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2024-11-05","capabilities":{"tools":{}},"serverInfo":{"name":"scripted","version":"1"}}}`, m.ID)
		case methodToolsCall:
			out <- fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"ok"}]}}`, m.ID)
		}
		// Accepted, with a body that never ends.
		w.WriteHeader(http.StatusAccepted)
		io.WriteString(w, "Accepted")
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-over:
		}
	}))
	hc := &http.Client{Transport: &http.Transport{}}
	end := sync.OnceFunc(func() { close(over) }) // the POSTs end
	defer func() {
		end()
		srv.Close()
		hc.CloseIdleConnections()
	}()
	type connected struct {
		c   *Client
		err error
	}
	ready := make(chan connected, 1)
	begun := time.Now()
	go func() {
		c, err := Connect(context.Background(), &SSETransport{URL: srv.URL, HTTPClient: hc}, &ClientOptions{ProtocolVersion: "2024-11-05", Logger: slog.New(slog.DiscardHandler)})
		ready <- connected{c, err}
	}()
	var c *Client
	select {
	case r := <-ready:
		if r.err != nil {
			t.Fatal(r.err)
		}
		c = r.c
	case <-time.After(10 * time.Second):
		end()
		if r := <-ready; r.c != nil {
			r.c.Close()
		}
		t.Fatal("Connect without a deadline still waits for the end of a POST's answer after 10s")
	}
	defer c.Close()
	res, err := c.CallTool(context.Background(), "t", nil)
	if err != nil || len(res.Content) != 1 {
		t.Fatalf("call: %v, %v", res, err)
	}
	// Three POSTs (initialize, notifications/initialized, tools/call), each read for a
	// second at most.
	if d := time.Since(begun); d > 8*time.Second {
		t.Errorf("Connect and a call took %s", d)
	}
}

// heldTransport's connections hold the error that ends their reading until released: the
// client hears that the connection is gone only then.
type heldTransport struct {
	Transport
	entered, release chan struct{}
	once             sync.Once
}

type heldConn struct {
	Connection
	t *heldTransport
}

func (t *heldTransport) Connect(ctx context.Context) (Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return heldConn{c, t}, nil
}

func (c heldConn) Read(ctx context.Context) ([]byte, error) {
	msg, err := c.Connection.Read(ctx)
	if err != nil && ctx.Err() == nil {
		c.t.once.Do(func() { close(c.t.entered); <-c.t.release })
	}
	return msg, err
}

// A write that finds the server's process gone returns only once the client has heard that
// the connection is gone: a call that fails for that finds Err set, so that a host knows the
// connection was lost rather than take it for the call's own failure.
func TestStdioSendFailsOnlyOnceTheClientHeard(t *testing.T) {
	script := `read line; printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}'; read line; exit 2`
	held := &heldTransport{Transport: &CommandTransport{Command: "sh", Args: []string{"-c", script}},
		entered: make(chan struct{}), release: make(chan struct{})}
	c, err := Connect(context.Background(), held, &ClientOptions{ProtocolVersion: "2025-11-25", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	<-held.entered // the process exited, and the client is being told
	sent := make(chan error, 1)
	go func() { sent <- c.Ping(context.Background()) }()
	select {
	case err := <-sent:
		close(held.release)
		t.Fatalf("a call failed (%v) before the client heard the process exited", err)
	case <-time.After(200 * time.Millisecond):
	}
	close(held.release)
	err = <-sent
	if err == nil || !strings.Contains(err.Error(), "the server process exited with status 2") {
		t.Errorf("the call failed with %v", err)
	}
	if c.Err() == nil {
		t.Error("the call failed before Err said why")
	}
}
