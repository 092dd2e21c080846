package mcp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// What a broken server can make a client do: the client answers none of what is not
// JSON-RPC, gives up on a server that sends nothing else, and no write to a server that
// does not read holds a caller past its context or Close.

// rawServer is the server end of an IOTransport over two pipes, written and read by the test
// line by line: it can do what no server package would (write garbage, never read).
type rawServer struct {
	t    *testing.T
	in   *bufio.Reader // what the client writes
	inR  *os.File
	out  *os.File // what the client reads
	seen bytes.Buffer
}

// pipeTransport connects an IOTransport to a raw server.
func pipeTransport(t *testing.T) (*IOTransport, *rawServer) {
	t.Helper()
	toServerR, toServerW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	fromServerR, fromServerW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		toServerR.Close()
		fromServerW.Close()
	})
	s := &rawServer{t: t, in: bufio.NewReader(toServerR), inR: toServerR, out: fromServerW}
	return &IOTransport{Reader: fromServerR, Writer: toServerW, Name: "scripted"}, s
}

// readLine reads the next line the client wrote, waiting 10 seconds at most.
func (s *rawServer) readLine() string {
	s.t.Helper()
	s.inR.SetReadDeadline(time.Now().Add(10 * time.Second))
	line, err := s.in.ReadString('\n')
	if err != nil {
		s.t.Errorf("reading what the client wrote: %v", err)
	}
	s.seen.WriteString(line)
	return line
}

// handshake answers the client's initialize (revision 2025-11-25) and reads its
// notifications/initialized.
func (s *rawServer) handshake() {
	s.t.Helper()
	if line := s.readLine(); !strings.Contains(line, `"id":1,"method":"initialize"`) {
		s.t.Fatalf("the client's first message: %s", line)
	}
	s.write(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"scripted","version":"1"}}}`)
	s.readLine()
}

func (s *rawServer) write(line string) {
	if _, err := io.WriteString(s.out, line+"\n"); err != nil {
		s.t.Errorf("writing to the client: %v", err)
	}
}

// logRecorder is a logger whose lines a test reads.
type logRecorder struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logRecorder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logRecorder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func connectRaw(t *testing.T, tr *IOTransport, s *rawServer, log io.Writer) *Client {
	t.Helper()
	return connectRawWith(t, tr, s, ClientOptions{Logger: slog.New(slog.NewTextHandler(log, nil))})
}

func connectRawWith(t *testing.T, tr *IOTransport, s *rawServer, opts ClientOptions) *Client {
	t.Helper()
	opts.ProtocolVersion = "2025-11-25"
	connected := make(chan *Client, 1)
	go func() {
		c, err := Connect(context.Background(), tr, &opts)
		if err != nil {
			t.Errorf("Connect: %v", err)
		}
		connected <- c
	}()
	s.handshake()
	c := <-connected
	if c == nil {
		t.FailNow()
	}
	return c
}

// Lines that are not JSON-RPC are ignored, never answered; the first few are logged, the
// rest summed up in one line when the connection ends.
func TestClientIgnoresWhatIsNotJSONRPC(t *testing.T) {
	tr, s := pipeTransport(t)
	var log logRecorder
	c := connectRaw(t, tr, s, &log)
	for i := range 12 {
		if i%2 == 0 {
			s.write(fmt.Sprintf(`{not json %d`, i))
		} else {
			s.write(fmt.Sprintf(`starting up, step %d`, i))
		}
	}
	s.write(`{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	if line := s.readLine(); line != `{"jsonrpc":"2.0","id":"p","result":{}}`+"\n" {
		t.Errorf("after 12 unreadable lines and a ping, the client wrote %q, want only the answer to the ping", line)
	}
	c.Close()
	rest, _ := io.ReadAll(s.in) // what the client wrote before closing its end
	if len(rest) > 0 {
		t.Errorf("the client wrote more: %q", rest)
	}
	got := log.String()
	if n := strings.Count(got, "a line that is not JSON-RPC, ignored"); n != 5 {
		t.Errorf("%d unreadable lines logged one by one, want 5:\n%s", n, got)
	}
	if !strings.Contains(got, `line="starting up, step 1"`) || !strings.Contains(got, "servers must log to stderr") {
		t.Errorf("a log line written to stdout is not shown with the hint:\n%s", got)
	}
	if !strings.Contains(got, `"mcp: 7 more lines that are not JSON-RPC ignored"`) {
		t.Errorf("no summary of the other 7:\n%s", got)
	}
	if c.Err() != ErrClientClosed {
		t.Errorf("a few unreadable lines broke the connection: %v", c.Err())
	}
}

// A server that writes nothing but garbage and never reads is given up on, with a reason
// that says so, and the client closes at once.
func TestClientGivesUpOnGarbage(t *testing.T) {
	tr, s := pipeTransport(t)
	var log logRecorder
	c := connectRaw(t, tr, s, &log)
	stop := make(chan struct{})
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := io.WriteString(s.out, "{garbage garbage garbage garbage garbage garbage garbage garbage\n"); err != nil {
				return
			}
		}
	}()
	defer func() { close(stop); s.out.Close(); <-wrote }()
	select {
	case <-c.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the client still waits for a server that wrote only garbage for 10s")
	}
	if err := c.Err(); err == nil || !strings.Contains(err.Error(), "the server wrote 1000 lines that are not JSON-RPC") || !errors.Is(err, ErrTransport) {
		t.Errorf("the connection ended with %v", err)
	}
	closed := make(chan struct{})
	go func() { c.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close blocks")
	}
	if n := strings.Count(log.String(), "\n"); n > 10 {
		t.Errorf("%d log lines for a server's garbage:\n%s", n, log.String())
	}
}

// A call to a server that does not read ends with its context, and Close does not wait for
// the write in progress.
func TestClientWriteEndsWithItsContext(t *testing.T) {
	tr, s := pipeTransport(t)
	c := connectRaw(t, tr, s, io.Discard)
	big := strings.Repeat("x", 4<<20) // far more than a pipe holds
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	called := make(chan error, 1)
	go func() {
		_, err := c.CallTool(ctx, "echo", map[string]any{"text": big})
		called <- err
	}()
	select {
	case err := <-called:
		if err == nil {
			t.Error("a call whose request was never read succeeded")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a call with a 300ms timeout still writes to a server that does not read, after 5s")
	}
	closed := make(chan struct{})
	go func() { c.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close blocks on a server that does not read")
	}
	// Half a message was written: the connection is broken, and says why.
	if err := c.Err(); err == nil || !strings.Contains(err.Error(), "cut short") && err != ErrClientClosed {
		t.Errorf("Err: %v", err)
	}
}

// A client serves at most maxServerRequests of the server's requests at once; past it a
// request is refused at once with "busy", and holds no goroutine.
func TestClientBoundsTheServersRequests(t *testing.T) {
	tr, s := pipeTransport(t)
	release := make(chan struct{})
	c := connectRawWith(t, tr, s, ClientOptions{Logger: quietLogger(),
		Elicitation: func(ctx context.Context, req *ElicitRequest) (*ElicitResult, error) {
			select {
			case <-release:
			case <-ctx.Done():
			}
			return &ElicitResult{Action: Decline}, nil
		}})
	defer c.Close()
	before := runtime.NumGoroutine()
	go func() {
		for i := range maxServerRequests + 50 {
			fmt.Fprintf(s.out, `{"jsonrpc":"2.0","id":%d,"method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object","properties":{}}}}`+"\n", i)
		}
	}()
	for range 50 {
		if line := s.readLine(); !strings.Contains(line, `"code":-32000`) {
			t.Fatalf("past %d requests of the server's at once, one got %s", maxServerRequests, line)
		}
	}
	if n := runtime.NumGoroutine(); n > before+maxServerRequests+10 {
		t.Errorf("%d goroutines with %d requests of the server's being served (%d before)", n, maxServerRequests, before)
	}
	close(release)
	for range maxServerRequests {
		if line := s.readLine(); !strings.Contains(line, `"action":"decline"`) {
			t.Fatalf("a request served: %s", line)
		}
	}
}
