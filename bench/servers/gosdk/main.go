// Command gosdk is examples/weather's get_weather tool served with the official Go SDK,
// github.com/modelcontextprotocol/go-sdk, for the whole-process load benchmark. Its command
// line is examples/weather's: no arguments serve MCP over stdin and stdout; --http host:port
// serves Streamable HTTP at http://host:port/mcp and prints that URL to stderr.
//
// The tool is registered the SDK's usual way, with mcp.AddTool and a typed handler: the
// SDK unmarshals and validates the arguments, applies the schema's defaults, and answers
// with the report as structured content and its JSON as text content. The schemas come
// from the Go types through github.com/google/jsonschema-go, as the SDK derives them; the
// input schema then gets the constraints examples/weather declares (lengths, enum,
// default), which that library's struct tags cannot express.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpgen/mcpgen/bench/servers/internal/serve"
	"github.com/mcpgen/mcpgen/bench/servers/weather"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	httpAddr := flag.String("http", "", "serve Streamable HTTP at http://`host:port`/mcp instead of stdio (port 0 picks a free one)")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "gosdk: unexpected argument %q\n", flag.Arg(0))
		flag.Usage()
		os.Exit(2)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	srv, err := newServer()
	if err != nil {
		log.Fatal(err)
	}
	if *httpAddr == "" {
		// Run returns at EOF on stdin, or when ctx ends.
		err = srv.Run(ctx, &mcp.StdioTransport{})
	} else {
		// Stateful sessions, the handler's default options (answers as event streams).
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
		err = serve.HTTP(ctx, *httpAddr, h, nil)
	}
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, mcp.ErrConnectionClosed) {
		log.Fatal(err)
	}
}

func newServer() (*mcp.Server, error) {
	in, err := jsonschema.For[weather.WeatherInput](nil)
	if err != nil {
		return nil, err
	}
	in.Description = weather.InputDescription
	city, units := in.Properties["city"], in.Properties["units"]
	if city == nil || units == nil {
		return nil, errors.New("input schema lacks city or units")
	}
	city.MinLength, city.MaxLength = ptr(1), ptr(100)
	units.Enum = []any{"metric", "imperial"}
	units.Default = json.RawMessage(`"metric"`)

	srv := mcp.NewServer(&mcp.Implementation{Name: "weather", Title: "Weather", Version: "1.0.0"},
		&mcp.ServerOptions{Instructions: weather.Instructions})
	tool := &mcp.Tool{
		Name:        weather.ToolName,
		Title:       weather.ToolTitle,
		Description: weather.ToolDescription,
		InputSchema: in, // the output schema is left to the SDK to derive from WeatherReport
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}
	mcp.AddTool(srv, tool, func(ctx context.Context, _ *mcp.CallToolRequest, in weather.WeatherInput) (*mcp.CallToolResult, weather.WeatherReport, error) {
		report, err := weather.Get(ctx, in)
		return nil, report, err
	})
	return srv, nil
}

func ptr[T any](v T) *T { return &v }
