package matrix_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/coder/websocket"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/mcp/ws"
)

// Raw clients: a tools/call written as bytes and its answer read as bytes, with no client
// library, over each transport, so that what a call allocates is the server's (and the
// transport's own at the client's end: net/http's client, the WebSocket library's).

// rawCall is one tools/call round trip of a raw client; it returns the answer.
type rawCall func(tb testing.TB) []byte

const (
	rawInitialize  = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	rawInitialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	rawArguments   = `{"name":"get_weather","arguments":{"city":"Lisbon"}}`
	rawStateless   = `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}},"name":"get_weather","arguments":{"city":"Lisbon"}}`
)

// request appends a tools/call request with id and params to b.
func request(b []byte, id int, params string) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, int64(id), 10)
	b = append(b, `,"method":"tools/call","params":`...)
	b = append(b, params...)
	return append(b, '}')
}

// answers reports whether msg is the response to request id.
func answers(msg []byte, id int) bool {
	var key [24]byte
	k := strconv.AppendInt(append(key[:0], `"id":`...), int64(id), 10)
	i := bytes.Index(msg, k)
	return i >= 0 && i+len(k) < len(msg) && (msg[i+len(k)] == ',' || msg[i+len(k)] == '}')
}

// rawMemory talks to srv in memory (ServeMemory), in a session.
func rawMemory(tb testing.TB, srv *mcp.Server) rawCall {
	ctx, cancel := context.WithCancel(context.Background())
	mc := srv.ServeMemory(ctx)
	tb.Cleanup(func() { mc.Close(); <-mc.Done(); cancel() })
	roundTrip := func(msg []byte, id int) []byte {
		if err := mc.Send(msg); err != nil {
			tb.Fatal(err)
		}
		for {
			a, err := mc.Receive(ctx)
			if err != nil {
				tb.Fatal(err)
			}
			if answers(a, id) {
				return a
			}
		}
	}
	roundTrip([]byte(rawInitialize), 0)
	if err := mc.Send([]byte(rawInitialized)); err != nil {
		tb.Fatal(err)
	}
	id := 0
	var buf []byte
	return func(tb testing.TB) []byte {
		id++
		buf = request(buf[:0], id, rawArguments)
		return roundTrip(buf, id)
	}
}

// rawStdio talks to srv over a pair of pipes (Serve), newline-delimited, in a session.
func rawStdio(tb testing.TB, srv *mcp.Server) rawCall {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Serve(ctx, inR, outW)
		outW.Close()
	}()
	tb.Cleanup(func() { cancel(); inW.Close(); outR.Close(); <-done })
	r := bufio.NewReaderSize(outR, 64<<10)
	roundTrip := func(msg []byte, id int) []byte {
		if _, err := inW.Write(msg); err != nil {
			tb.Fatal(err)
		}
		for {
			a, err := r.ReadSlice('\n')
			if err != nil {
				tb.Fatal(err)
			}
			if answers(a, id) {
				return a
			}
		}
	}
	roundTrip([]byte(rawInitialize+"\n"), 0)
	if _, err := io.WriteString(inW, rawInitialized+"\n"); err != nil {
		tb.Fatal(err)
	}
	id := 0
	var buf []byte
	return func(tb testing.TB) []byte {
		id++
		buf = append(request(buf[:0], id, rawArguments), '\n')
		return roundTrip(buf, id)
	}
}

// rawHTTP talks Streamable HTTP to url: in a session, or stateless (2026-07-28, the
// request's metadata in _meta and mirrored in headers).
func rawHTTP(tb testing.TB, url string, stateless bool) rawCall {
	tr := &http.Transport{}
	tb.Cleanup(tr.CloseIdleConnections)
	hc := &http.Client{Transport: tr}
	var session string
	var body bytes.Buffer
	post := func(msg []byte, header http.Header) []byte {
		req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(msg))
		if err != nil {
			tb.Fatal(err)
		}
		req.Header = header
		resp, err := hc.Do(req)
		if err != nil {
			tb.Fatal(err)
		}
		defer resp.Body.Close()
		if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
			session = id
		}
		body.Reset()
		if _, err := body.ReadFrom(resp.Body); err != nil {
			tb.Fatal(err)
		}
		if resp.StatusCode/100 != 2 {
			tb.Fatalf("HTTP %d: %s", resp.StatusCode, body.Bytes())
		}
		return body.Bytes()
	}
	header := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
	params := rawStateless
	if stateless {
		header["Mcp-Protocol-Version"] = []string{mcp.StatelessProtocolVersion}
		header["Mcp-Method"] = []string{"tools/call"}
		header["Mcp-Name"] = []string{"get_weather"}
	} else {
		params = rawArguments
		post([]byte(rawInitialize), header.Clone())
		header["Mcp-Session-Id"] = []string{session}
		header["Mcp-Protocol-Version"] = []string{"2025-11-25"}
		post([]byte(rawInitialized), header.Clone())
	}
	id := 0
	var buf []byte
	return func(tb testing.TB) []byte {
		id++
		buf = request(buf[:0], id, params)
		// net/http takes the header as it is for the request: each gets its own copy,
		// which a client library would make too.
		return post(buf, header.Clone())
	}
}

// rawSSE talks the HTTP+SSE transport to url (its stream's path): the stream's GET, then
// each message POSTed to the endpoint it names, each answer read from the stream.
func rawSSE(tb testing.TB, url string) rawCall {
	tr := &http.Transport{}
	tb.Cleanup(tr.CloseIdleConnections)
	hc := &http.Client{Transport: tr}
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cancel(); resp.Body.Close() })
	stream := bufio.NewReaderSize(resp.Body, 64<<10)
	// event reads the data of the next event.
	event := func() []byte {
		var data []byte
		for {
			line, err := stream.ReadSlice('\n')
			if err != nil {
				tb.Fatal(err)
			}
			if rest, ok := bytes.CutPrefix(line, []byte("data:")); ok {
				data = bytes.TrimSpace(rest)
			}
			if len(bytes.TrimSpace(line)) == 0 && data != nil {
				return data
			}
		}
	}
	endpoint := string(event())
	if strings.HasPrefix(endpoint, "/") {
		endpoint = url[:strings.Index(url[len("http://"):], "/")+len("http://")] + endpoint
	}
	header := http.Header{"Content-Type": {"application/json"}}
	post := func(msg []byte) {
		req, err := http.NewRequest(http.MethodPost, endpoint, bytes.NewReader(msg))
		if err != nil {
			tb.Fatal(err)
		}
		req.Header = header.Clone()
		resp, err := hc.Do(req)
		if err != nil {
			tb.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			tb.Fatalf("POST: HTTP %d", resp.StatusCode)
		}
	}
	roundTrip := func(msg []byte, id int) []byte {
		post(msg)
		for {
			if a := event(); answers(a, id) {
				return a
			}
		}
	}
	roundTrip([]byte(rawInitialize), 0)
	post([]byte(rawInitialized))
	id := 0
	var buf []byte
	return func(tb testing.TB) []byte {
		id++
		buf = request(buf[:0], id, rawArguments)
		return roundTrip(buf, id)
	}
}

// rawWebSocket talks to url over WebSocket, one text message a JSON-RPC message, in a
// session.
func rawWebSocket(tb testing.TB, url string) rawCall {
	ctx := context.Background()
	c, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{Subprotocols: []string{ws.Subprotocol}})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close(websocket.StatusNormalClosure, "") })
	var in bytes.Buffer
	roundTrip := func(msg []byte, id int) []byte {
		if err := c.Write(ctx, websocket.MessageText, msg); err != nil {
			tb.Fatal(err)
		}
		for {
			_, r, err := c.Reader(ctx)
			if err != nil {
				tb.Fatal(err)
			}
			in.Reset()
			if _, err := in.ReadFrom(r); err != nil {
				tb.Fatal(err)
			}
			if answers(in.Bytes(), id) {
				return in.Bytes()
			}
		}
	}
	roundTrip([]byte(rawInitialize), 0)
	if err := c.Write(ctx, websocket.MessageText, []byte(rawInitialized)); err != nil {
		tb.Fatal(err)
	}
	id := 0
	var buf []byte
	return func(tb testing.TB) []byte {
		id++
		buf = request(buf[:0], id, rawArguments)
		return roundTrip(buf, id)
	}
}
