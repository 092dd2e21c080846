package bench

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/client"
	mcpgotransport "github.com/mark3labs/mcp-go/client/transport"
	mcpgomcp "github.com/mark3labs/mcp-go/mcp"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The clients, compared: one tools/call round trip through each client library, against
// the same server (mcpgen's, with the search tool), over in-memory pipes (stdio's framing)
// and over Streamable HTTP on loopback TCP. mcpgen's client speaks the stateless revision
// the server offers unless pinned to 2025-11-25, the revision the other two speak.

var searchArgs = map[string]any{"query": "model context protocol", "limit": 5, "tags": []string{"go", "mcp"}, "sort": "relevance"}

// clientCall is a client connected to the server, ready to call the search tool.
type clientCall func(ctx context.Context) error

// pipes serves mcpgen's server on a pair of pipes until the benchmark ends, and returns the
// client's ends.
func pipes(b *testing.B) (io.ReadCloser, io.WriteCloser) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		mcpgenServer(ctx, inR, outW)
	}()
	b.Cleanup(func() {
		cancel()
		inW.Close()
		outR.Close()
		<-done
	})
	return outR, inW
}

func mcpgenClient(b *testing.B, t mcp.Transport, version string) clientCall {
	c, err := mcp.Connect(context.Background(), t, &mcp.ClientOptions{ProtocolVersion: version, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return func(ctx context.Context) error {
		res, err := c.CallTool(ctx, "search", searchArgs)
		if err == nil && (res.IsError || res.StructuredContent == nil) {
			b.Fatalf("mcpgen client: %+v", res)
		}
		return err
	}
}

func sdkClient(b *testing.B, t sdk.Transport) clientCall {
	client := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil)
	s, err := client.Connect(context.Background(), t, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return func(ctx context.Context) error {
		res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: "search", Arguments: searchArgs})
		if err == nil && (res.IsError || res.StructuredContent == nil) {
			b.Fatalf("go-sdk client: %+v", res)
		}
		return err
	}
}

func mcpgoClient(b *testing.B, c *mcpgo.Client) clientCall {
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		b.Fatal(err)
	}
	init := mcpgomcp.InitializeRequest{}
	init.Params.ProtocolVersion = "2025-11-25"
	init.Params.ClientInfo = mcpgomcp.Implementation{Name: "bench", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return func(ctx context.Context) error {
		req := mcpgomcp.CallToolRequest{}
		req.Params.Name = "search"
		req.Params.Arguments = searchArgs
		res, err := c.CallTool(ctx, req)
		if err == nil && (res.IsError || res.StructuredContent == nil) {
			b.Fatalf("mcp-go client: %+v", res)
		}
		return err
	}
}

// The floor: the same tools/call as the search tool's clients make, written and read as
// raw bytes (no client library), so that the table shows what the server and the transport
// cost on their own. "raw" speaks the stateless revision, as mcpgen's client does by default.

// statelessSearch is the tools/call request of the stateless revision, as a client sends it.
var statelessSearch = `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}},` + validCall[1:]

func rawPipes(b *testing.B, stateless bool) clientCall {
	c := connectAt(b, mcpgenServer, "2025-11-25")
	params, want := validCall, `"structuredContent"`
	if stateless {
		params, want = statelessSearch, `"resultType":"complete"`
	}
	check(b, c.roundTrip(b, "tools/call", params), want, `"isError":true`)
	return func(context.Context) error {
		c.roundTrip(b, "tools/call", params)
		return nil
	}
}

func rawHTTP(b *testing.B, stateless bool) clientCall {
	if !stateless {
		c := connectHTTP(b, mcpgenHTTP())
		check(b, c.roundTrip(b, "tools/call", validCall), `"structuredContent"`, `"isError":true`)
		return func(context.Context) error {
			c.roundTrip(b, "tools/call", validCall)
			return nil
		}
	}
	ts := httptest.NewServer(mcpgenHTTP())
	b.Cleanup(ts.Close)
	c := &httpClient{url: ts.URL, hc: ts.Client()}
	header := http.Header{"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"tools/call"}, "Mcp-Name": {"search"}}
	call := func() []byte {
		c.id++
		return c.postWith(b, `{"jsonrpc":"2.0","id":`+strconv.Itoa(c.id)+`,"method":"tools/call","params":`+statelessSearch+`}`, header)
	}
	check(b, call(), `"resultType":"complete"`, `"isError":true`)
	return func(context.Context) error {
		call()
		return nil
	}
}

// BenchmarkClientToolCall measures one tools/call round trip, client to server and back.
func BenchmarkClientToolCall(b *testing.B) {
	stdio := map[string]func(b *testing.B) clientCall{
		"raw":            func(b *testing.B) clientCall { return rawPipes(b, true) },
		"raw-2025-11-25": func(b *testing.B) clientCall { return rawPipes(b, false) },
		"mcpgen": func(b *testing.B) clientCall {
			r, w := pipes(b)
			return mcpgenClient(b, &mcp.IOTransport{Reader: r, Writer: w}, "")
		},
		"mcpgen-2025-11-25": func(b *testing.B) clientCall {
			r, w := pipes(b)
			return mcpgenClient(b, &mcp.IOTransport{Reader: r, Writer: w}, "2025-11-25")
		},
		"go-sdk": func(b *testing.B) clientCall {
			r, w := pipes(b)
			return sdkClient(b, &sdk.IOTransport{Reader: r, Writer: w})
		},
		"mcp-go": func(b *testing.B) clientCall {
			r, w := pipes(b)
			return mcpgoClient(b, mcpgo.NewClient(mcpgotransport.NewIO(r, w, io.NopCloser(&emptyReader{}))))
		},
	}
	httpURL := func(b *testing.B) string {
		ts := httptest.NewServer(mcpgenHTTP())
		b.Cleanup(ts.Close)
		return ts.URL
	}
	http := map[string]func(b *testing.B) clientCall{
		"raw":            func(b *testing.B) clientCall { return rawHTTP(b, true) },
		"raw-2025-11-25": func(b *testing.B) clientCall { return rawHTTP(b, false) },
		"mcpgen": func(b *testing.B) clientCall {
			return mcpgenClient(b, &mcp.StreamableHTTPTransport{URL: httpURL(b)}, "")
		},
		"mcpgen-2025-11-25": func(b *testing.B) clientCall {
			return mcpgenClient(b, &mcp.StreamableHTTPTransport{URL: httpURL(b)}, "2025-11-25")
		},
		"go-sdk": func(b *testing.B) clientCall {
			return sdkClient(b, &sdk.StreamableClientTransport{Endpoint: httpURL(b)})
		},
		"mcp-go": func(b *testing.B) clientCall {
			c, err := mcpgo.NewStreamableHttpClient(httpURL(b))
			if err != nil {
				b.Fatal(err)
			}
			return mcpgoClient(b, c)
		},
	}
	for _, transport := range []struct {
		name    string
		clients map[string]func(b *testing.B) clientCall
	}{{"stdio", stdio}, {"http", http}} {
		for _, name := range []string{"raw", "raw-2025-11-25", "mcpgen", "mcpgen-2025-11-25", "go-sdk", "mcp-go"} {
			b.Run(transport.name+"/"+name, func(b *testing.B) {
				call := transport.clients[name](b)
				ctx := context.Background()
				if err := call(ctx); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					if err := call(ctx); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// emptyReader is the stderr of a server mcp-go's IO transport does not have: it blocks
// until the benchmark ends, as an idle stderr would.
type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, io.EOF }
