package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// pipeClient speaks raw JSON-RPC lines to a server over in-memory pipes: the same client
// for both servers, so that only the servers differ.
type pipeClient struct {
	w    io.Writer
	r    *bufio.Reader
	line []byte
	id   int
}

// connect starts serve on a pair of pipes and initializes a session of 2025-06-18.
func connect(b *testing.B, serve func(ctx context.Context, r io.ReadCloser, w io.WriteCloser)) *pipeClient {
	return connectAt(b, serve, "2025-06-18")
}

// connectAt starts serve on a pair of pipes and initializes a session of version.
func connectAt(b *testing.B, serve func(ctx context.Context, r io.ReadCloser, w io.WriteCloser), version string) *pipeClient {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		serve(ctx, inR, outW)
	}()
	b.Cleanup(func() {
		cancel()
		inW.Close()
		outR.Close()
		<-done
	})
	c := &pipeClient{w: inW, r: bufio.NewReaderSize(outR, 1<<16)}
	init := c.roundTrip(b, "initialize", `{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}`)
	if !bytes.Contains(init, []byte(`"result"`)) {
		b.Fatalf("initialize: %s", init)
	}
	if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		b.Fatal(err)
	}
	return c
}

// roundTrip sends one request and returns its response line.
func (c *pipeClient) roundTrip(b *testing.B, method, params string) []byte {
	c.id++
	c.line = append(c.line[:0], `{"jsonrpc":"2.0","id":`...)
	c.line = strconv.AppendInt(c.line, int64(c.id), 10)
	c.line = append(c.line, `,"method":"`...)
	c.line = append(c.line, method...)
	c.line = append(c.line, `","params":`...)
	c.line = append(c.line, params...)
	c.line = append(c.line, "}\n"...)
	if _, err := c.w.Write(c.line); err != nil {
		b.Fatal(err)
	}
	for {
		resp, err := c.r.ReadSlice('\n')
		if err != nil {
			b.Fatal(err)
		}
		if bytes.Contains(resp, []byte(`"id":`+strconv.Itoa(c.id)+`,`)) {
			return resp
		}
	}
}

// newMCPGen and newSDK build the two servers under test, each with the search tool; the
// benchmarks serve them over pipes and over HTTP.
func newMCPGen() *mcp.Server {
	srv := mcp.NewServer(mcp.Implementation{Name: "bench", Version: "1"}, &mcp.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	RegisterMCP(srv)
	return srv
}

func newSDK() *sdk.Server {
	srv := sdk.NewServer(&sdk.Implementation{Name: "bench", Version: "1"}, &sdk.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	// The same schemas mcpgen generated: the SDK reads jsonschema tags in another dialect.
	tool := &sdk.Tool{Name: "search", Description: "Search finds documents.",
		InputSchema: json.RawMessage(mcpgenSearchInput), OutputSchema: json.RawMessage(mcpgenSearchOutput)}
	sdk.AddTool(srv, tool,
		func(ctx context.Context, req *sdk.CallToolRequest, in SearchInput) (*sdk.CallToolResult, SearchResult, error) {
			if in.Limit == 0 {
				in.Limit = 10 // the SDK reads defaults from the schema but does not apply them
			}
			out, err := Search(ctx, in)
			return nil, out, err
		})
	return srv
}

func mcpgenServer(ctx context.Context, r io.ReadCloser, w io.WriteCloser) {
	newMCPGen().Serve(ctx, r, w)
	w.Close()
}

func sdkServer(ctx context.Context, r io.ReadCloser, w io.WriteCloser) {
	newSDK().Run(ctx, &sdk.IOTransport{Reader: r, Writer: w})
}

var servers = []struct {
	name  string
	serve func(context.Context, io.ReadCloser, io.WriteCloser)
}{
	{"mcpgen", mcpgenServer},
	{"go-sdk", sdkServer},
}

const (
	validCall   = `{"name":"search","arguments":{"query":"model context protocol","limit":5,"tags":["go","mcp"],"sort":"relevance"}}`
	invalidCall = `{"name":"search","arguments":{"query":"","limit":500,"sort":"random"}}`
)

// BenchmarkToolCall is one tools/call round trip with valid arguments: decode, validate,
// call, encode a structured result.
func BenchmarkToolCall(b *testing.B) {
	roundTrips(b, "tools/call", validCall, `"structuredContent"`, `"isError":true`)
}

// BenchmarkToolCallInvalid is a round trip whose arguments break the schema three ways.
func BenchmarkToolCallInvalid(b *testing.B) {
	roundTrips(b, "tools/call", invalidCall, `"isError":true`, `"structuredContent"`)
}

// BenchmarkToolsList is a tools/list round trip.
func BenchmarkToolsList(b *testing.B) {
	roundTrips(b, "tools/list", `{}`, `"inputSchema"`, `"error"`)
}

// BenchmarkStatelessToolCall is BenchmarkToolCall in revision 2026-07-28, stateless: the
// request carries its version and capabilities in _meta, the result its resultType and the
// server's identity. Both servers answer it; go-sdk v1.8.0's result leaves out resultType,
// which the revision's schema requires, so the check is on what both write.
func BenchmarkStatelessToolCall(b *testing.B) {
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
	params := strings.Replace(validCall, `{"name"`, `{`+meta+`,"name"`, 1)
	roundTrips(b, "tools/call", params, `"structuredContent"`, `"isError":true`)
}

// roundTrips measures one request against each server over pipes (see measure).
func roundTrips(b *testing.B, method, params, want, notWant string) {
	for _, s := range servers {
		b.Run(s.name, func(b *testing.B) {
			measure(b, connect(b, s.serve), method, params, want, notWant)
		})
	}
}

// roundTripper is a client of either transport, connected to one server.
type roundTripper interface {
	roundTrip(b *testing.B, method, params string) []byte
}

// measure times b.N round trips of one request, after checking that its response contains
// want and not notWant.
func measure(b *testing.B, c roundTripper, method, params, want, notWant string) {
	check(b, c.roundTrip(b, method, params), want, notWant)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		c.roundTrip(b, method, params)
	}
}

func check(b *testing.B, resp []byte, want, notWant string) {
	b.Helper()
	if !bytes.Contains(resp, []byte(want)) || bytes.Contains(resp, []byte(notWant)) {
		b.Fatalf("unexpected response: %s", resp)
	}
	if !json.Valid(resp) {
		b.Fatalf("invalid JSON: %s", resp)
	}
}

// httpClient speaks to a Streamable HTTP endpoint with one session, over loopback TCP.
type httpClient struct {
	url, session string
	hc           *http.Client
	id           int
	body         bytes.Buffer
}

func connectHTTP(b *testing.B, handler http.Handler) *httpClient {
	ts := httptest.NewServer(handler)
	b.Cleanup(ts.Close)
	c := &httpClient{url: ts.URL, hc: ts.Client()}
	c.post(b, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	c.post(b, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c
}

func (c *httpClient) post(b *testing.B, msg string) []byte {
	return c.postWith(b, msg, nil)
}

// postWith posts msg with the headers the client always sends and those of header.
func (c *httpClient) postWith(b *testing.B, msg string, header http.Header) []byte {
	req, err := http.NewRequest(http.MethodPost, c.url, strings.NewReader(msg))
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		c.session = id
	}
	c.body.Reset()
	if _, err := c.body.ReadFrom(resp.Body); err != nil {
		b.Fatal(err)
	}
	if resp.StatusCode/100 != 2 {
		b.Fatalf("status %d: %s", resp.StatusCode, c.body.Bytes())
	}
	return c.body.Bytes()
}

func (c *httpClient) roundTrip(b *testing.B, method, params string) []byte {
	c.id++
	return c.post(b, `{"jsonrpc":"2.0","id":`+strconv.Itoa(c.id)+`,"method":"`+method+`","params":`+params+`}`)
}

func mcpgenHTTP() http.Handler {
	return newMCPGen().HTTPHandler(nil)
}

func sdkHTTP() http.Handler {
	srv := newSDK()
	// Plain JSON answers, as mcpgen gives to a request that sends nothing before its response.
	return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, &sdk.StreamableHTTPOptions{JSONResponse: true})
}

// BenchmarkHTTPToolCall is one tools/call round trip over Streamable HTTP on loopback TCP.
func BenchmarkHTTPToolCall(b *testing.B) {
	for _, s := range []struct {
		name    string
		handler func() http.Handler
	}{{"mcpgen", mcpgenHTTP}, {"go-sdk", sdkHTTP}} {
		b.Run(s.name, func(b *testing.B) {
			measure(b, connectHTTP(b, s.handler()), "tools/call", validCall, `"structuredContent"`, `"isError":true`)
		})
	}
}
