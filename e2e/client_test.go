package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// A transport carries a client's messages to a server process and brings back everything the
// server sends, on whatever stream it sends it.
type transport interface {
	send(msg []byte) error
	incoming() <-chan []byte
	close()
}

// namedTransport starts a server binary behind one transport.
type namedTransport struct {
	name  string
	start func(t *testing.T) transport
}

// transportsOf starts bin over stdio and over Streamable HTTP, for tests that must pass on both.
func transportsOf(bin string, args ...string) []namedTransport {
	return []namedTransport{
		{"stdio", func(t *testing.T) transport { return startStdio(t, bin, args...) }},
		{"http", func(t *testing.T) transport { return startHTTP(t, bin, args...) }},
	}
}

// checkSchema reports a message the server sent that breaks the schema of its revision;
// method is that of the request it answers, if known.
func checkSchema(t *testing.T, version string, msg []byte, method string) {
	t.Helper()
	if err := referee.Check(version, msg, method); err != nil {
		t.Errorf("server sent a message that breaks the %s schema: %v\n%s", version, err, msg)
	}
}

// stdioTransport runs the server as a subprocess and speaks over its stdin and stdout.
type stdioTransport struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan []byte
	exited chan error
	stderr *lockedBuffer
}

func startStdio(t *testing.T, bin string, args ...string) *stdioTransport {
	t.Helper()
	tr := &stdioTransport{cmd: exec.Command(bin, args...), lines: make(chan []byte, 64), exited: make(chan error, 1), stderr: &lockedBuffer{}}
	tr.cmd.Stderr = tr.stderr
	var err error
	if tr.stdin, err = tr.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := tr.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		r := bufio.NewReaderSize(stdout, 1<<20)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				tr.lines <- line
			}
			if err != nil {
				close(tr.lines)
				tr.exited <- tr.cmd.Wait()
				return
			}
		}
	}()
	t.Cleanup(func() {
		tr.close()
		select {
		case err := <-tr.exited:
			if err != nil {
				t.Errorf("server exited with %v; stderr:\n%s", err, tr.stderr)
			}
		case <-time.After(10 * time.Second):
			tr.cmd.Process.Kill()
			t.Error("server did not exit after stdin closed")
		}
	})
	return tr
}

func (tr *stdioTransport) send(msg []byte) error {
	_, err := tr.stdin.Write(append(msg, '\n'))
	return err
}

func (tr *stdioTransport) incoming() <-chan []byte { return tr.lines }
func (tr *stdioTransport) close()                  { tr.stdin.Close() }

// httpTransport runs the server with -http on a free port and speaks Streamable HTTP: each
// message is a POST, answered with JSON or an SSE stream; the GET stream brings the rest.
type httpTransport struct {
	t       *testing.T
	url     string
	cmd     *exec.Cmd
	stderr  *lockedBuffer
	hc      http.Client
	mu      sync.Mutex
	session string
	version string
	in      chan []byte
	streams sync.WaitGroup
	done    chan struct{}
	// interrupted is set by a test that interrupted the server itself: a second interrupt
	// could reach it after its handler is gone, while it exits.
	interrupted bool
}

// interrupt asks the server to stop, once.
func (tr *httpTransport) interrupt() error {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.interrupted {
		return nil
	}
	tr.interrupted = true
	return tr.cmd.Process.Signal(os.Interrupt)
}

// launch starts bin with -http on a free loopback port, and returns the process and the URL
// it says, on its first line of stderr, that it serves at; the rest of its stderr goes to
// the returned buffer.
func launch(t *testing.T, bin string, args ...string) (*exec.Cmd, string, *lockedBuffer) {
	t.Helper()
	return launchEnv(t, nil, bin, args...) // a nil Env is the process's environment
}

func startHTTP(t *testing.T, bin string, args ...string) *httpTransport {
	t.Helper()
	cmd, url, stderr := launch(t, bin, args...)
	tr := &httpTransport{t: t, cmd: cmd, url: url, stderr: stderr, in: make(chan []byte, 64), done: make(chan struct{})}
	t.Cleanup(func() {
		tr.close()
		tr.interrupt()
		exited := make(chan error, 1)
		go func() { exited <- tr.cmd.Wait() }()
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("server exited with %v on interrupt; stderr:\n%s", err, tr.stderr)
			}
		case <-time.After(15 * time.Second):
			tr.cmd.Process.Kill()
			t.Error("server did not stop on interrupt")
		}
	})
	return tr
}

func (tr *httpTransport) header(req *http.Request) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.session != "" {
		req.Header.Set("Mcp-Session-Id", tr.session)
	}
	if tr.version != "" {
		req.Header.Set("Mcp-Protocol-Version", tr.version)
	}
}

func (tr *httpTransport) send(msg []byte) error {
	req, err := http.NewRequest(http.MethodPost, tr.url, bytes.NewReader(msg))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	tr.header(req)
	resp, err := tr.hc.Do(req)
	if err != nil {
		return err
	}
	var m struct {
		Method string `json:"method"`
	}
	json.Unmarshal(msg, &m)
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" && m.Method == "initialize" {
		tr.mu.Lock()
		tr.session = id
		tr.mu.Unlock()
	}
	switch {
	case resp.StatusCode == http.StatusAccepted:
		resp.Body.Close()
		if m.Method == "notifications/initialized" {
			tr.openStandalone()
		}
		return nil
	case resp.StatusCode != http.StatusOK:
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return fmt.Errorf("POST %s: status %d: %s", m.Method, resp.StatusCode, body)
	case resp.Header.Get("Content-Type") == "application/json":
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err == nil {
			tr.deliver(body)
		}
		return err
	}
	tr.pump(resp)
	return nil
}

// openStandalone opens the GET stream, for messages that belong to no request.
func (tr *httpTransport) openStandalone() {
	req, _ := http.NewRequest(http.MethodGet, tr.url, nil)
	req.Header.Set("Accept", "text/event-stream")
	tr.header(req)
	resp, err := tr.hc.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		tr.t.Errorf("GET stream: %v %v", err, resp)
		return
	}
	tr.pump(resp)
}

// pump reads an SSE stream's events on its own goroutine.
func (tr *httpTransport) pump(resp *http.Response) {
	tr.streams.Add(1)
	go func() {
		defer tr.streams.Done()
		defer resp.Body.Close()
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			select {
			case <-tr.done:
				resp.Body.Close()
			case <-stop:
			}
		}()
		events := make(chan []byte)
		go readSSE(resp.Body, events)
		for ev := range events {
			// The priming event of a resumable stream carries an id and no message.
			if len(ev) > 0 {
				tr.deliver(ev)
			}
		}
	}()
}

func (tr *httpTransport) deliver(msg []byte) {
	select {
	case tr.in <- msg:
	case <-tr.done:
	}
}

func (tr *httpTransport) incoming() <-chan []byte { return tr.in }

func (tr *httpTransport) close() {
	select {
	case <-tr.done:
		return
	default:
	}
	tr.mu.Lock()
	session := tr.session
	tr.mu.Unlock()
	if session != "" {
		req, _ := http.NewRequest(http.MethodDelete, tr.url, nil)
		tr.header(req)
		if resp, err := tr.hc.Do(req); err == nil {
			resp.Body.Close()
		}
	}
	close(tr.done)
	tr.streams.Wait()
}

// mcpClient is an MCP client over a transport. It answers the server's requests with the
// handlers it is given, records notifications, and checks every message the server sends
// against the schema of the negotiated protocol revision.
type mcpClient struct {
	t        *testing.T
	tr       transport
	version  string
	handlers map[string]func(params map[string]any) (any, error)

	mu            sync.Mutex
	nextID        int
	pending       map[string]pendingRequest
	notifications []map[string]any
	notified      chan struct{} // poked on each notification
	stop          chan struct{}
	stopped       chan struct{}
}

type pendingRequest struct {
	method string
	resp   chan map[string]any
}

func newClient(t *testing.T, tr transport, version string, handlers map[string]func(map[string]any) (any, error)) *mcpClient {
	c := &mcpClient{t: t, tr: tr, version: version, handlers: handlers, pending: map[string]pendingRequest{},
		notified: make(chan struct{}, 1), stop: make(chan struct{}), stopped: make(chan struct{})}
	go c.dispatch()
	t.Cleanup(func() {
		close(c.stop)
		<-c.stopped
	})
	return c
}

func (c *mcpClient) dispatch() {
	defer close(c.stopped)
	for {
		var msg []byte
		var ok bool
		select {
		case msg, ok = <-c.tr.incoming():
			if !ok {
				return
			}
		case <-c.stop:
			return
		}
		var m map[string]any
		if err := json.Unmarshal(msg, &m); err != nil {
			c.t.Errorf("server sent invalid JSON: %v: %s", err, msg)
			continue
		}
		id, hasID := m["id"]
		key, _ := json.Marshal(id)
		method, isCall := m["method"].(string)
		c.mu.Lock()
		p, isResponse := c.pending[string(key)]
		if hasID && !isCall {
			delete(c.pending, string(key))
		}
		c.mu.Unlock()
		checkSchema(c.t, c.version, msg, p.method)
		switch {
		case isCall && hasID:
			go c.answer(id, method, m["params"])
		case isCall:
			c.mu.Lock()
			c.notifications = append(c.notifications, m)
			c.mu.Unlock()
			select {
			case c.notified <- struct{}{}:
			default:
			}
		case isResponse:
			p.resp <- m
		default:
			c.t.Errorf("response to no request: %s", msg)
		}
	}
}

// answer runs the handler for a request from the server and sends its response.
func (c *mcpClient) answer(id any, method string, params any) {
	p, _ := params.(map[string]any)
	resp := map[string]any{"jsonrpc": "2.0", "id": id}
	if h := c.handlers[method]; h == nil {
		resp["error"] = map[string]any{"code": -32601, "message": "method not found: " + method}
	} else if res, err := h(p); err != nil {
		resp["error"] = map[string]any{"code": -32603, "message": err.Error()}
	} else {
		resp["result"] = res
	}
	b, _ := json.Marshal(resp)
	if err := c.tr.send(b); err != nil {
		c.t.Errorf("answering %s: %v", method, err)
	}
}

// register numbers a request and makes room for its response, before it is sent.
func (c *mcpClient) register(method string) (int, chan map[string]any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextID++
	ch := make(chan map[string]any, 1)
	c.pending[fmt.Sprint(c.nextID)] = pendingRequest{method, ch}
	return c.nextID, ch
}

// call sends a request and waits for its response: the result, or the error object.
func (c *mcpClient) call(method string, params any) (result, rpcErr map[string]any) {
	c.t.Helper()
	id, ch := c.register(method)
	msg := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	b, _ := json.Marshal(msg)
	if err := c.tr.send(b); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	select {
	case m := <-ch:
		if e, ok := m["error"].(map[string]any); ok {
			return nil, e
		}
		return m["result"].(map[string]any), nil
	case <-time.After(20 * time.Second):
		c.t.Fatalf("%s: no response within 20s", method)
		return nil, nil
	}
}

// must is call for requests that must succeed.
func (c *mcpClient) must(method string, params any) map[string]any {
	c.t.Helper()
	res, rpcErr := c.call(method, params)
	if rpcErr != nil {
		c.t.Fatalf("%s: error %v", method, rpcErr)
	}
	return res
}

func (c *mcpClient) notify(method string, params any) {
	c.t.Helper()
	msg := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		msg["params"] = params
	}
	b, _ := json.Marshal(msg)
	if err := c.tr.send(b); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

func (c *mcpClient) initialize(capabilities map[string]any) map[string]any {
	c.t.Helper()
	res := c.must("initialize", map[string]any{
		"protocolVersion": c.version,
		"capabilities":    capabilities,
		"clientInfo":      map[string]any{"name": "e2e", "version": "1"},
	})
	if h, ok := c.tr.(*httpTransport); ok {
		h.mu.Lock()
		h.version = c.version
		h.mu.Unlock()
	}
	c.notify("notifications/initialized", nil)
	return res
}

// takeNotifications returns the notifications received so far with the method, and forgets them.
func (c *mcpClient) takeNotifications(method string) []map[string]any {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out, rest []map[string]any
	for _, n := range c.notifications {
		if n["method"] == method {
			out = append(out, n)
		} else {
			rest = append(rest, n)
		}
	}
	c.notifications = rest
	return out
}

// waitNotification waits for a notification with the method.
func (c *mcpClient) waitNotification(method string) map[string]any {
	c.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		if ns := c.takeNotifications(method); len(ns) > 0 {
			return ns[0]
		}
		select {
		case <-c.notified:
		case <-deadline:
			c.t.Fatalf("no %s notification within 10s", method)
		}
	}
}
