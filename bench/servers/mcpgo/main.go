// Command mcpgo is examples/weather's get_weather tool served with
// github.com/mark3labs/mcp-go, for the whole-process load benchmark. Its command line is
// examples/weather's: no arguments serve MCP over stdin and stdout; --http host:port serves
// Streamable HTTP at http://host:port/mcp and prints that URL to stderr.
//
// The input schema is declared with mcp.WithString and its property options, the output
// schema is derived from WeatherReport (mcp.WithOutputSchema), and the handler is the
// library's typed helper, mcp.NewStructuredToolHandler, which binds the arguments to
// WeatherInput and answers with the report as structured content and its JSON as text.
// The server validates arguments against the input schema (WithInputSchemaValidation, an
// option mcp-go leaves off by default), as mcpgen and go-sdk always do. mcp-go does not
// apply schema defaults; weather.Get reads empty units as "metric".
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpgen/mcpgen/bench/servers/internal/serve"
	"github.com/mcpgen/mcpgen/bench/servers/weather"
)

func main() {
	httpAddr := flag.String("http", "", "serve Streamable HTTP at http://`host:port`/mcp instead of stdio (port 0 picks a free one)")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "mcpgo: unexpected argument %q\n", flag.Arg(0))
		flag.Usage()
		os.Exit(2)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	srv := newServer()
	var err error
	if *httpAddr == "" {
		// Not server.ServeStdio, which installs signal handling of its own; Listen
		// returns at EOF on stdin, or when ctx ends.
		err = server.NewStdioServer(srv).Listen(ctx, os.Stdin, os.Stdout)
	} else {
		h := server.NewStreamableHTTPServer(srv, server.WithStateful(true))
		err = serve.HTTP(ctx, *httpAddr, h, func(ctx context.Context) {
			h.Shutdown(ctx) // ends the sessions; the http.Server is serve's, not h's
		})
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		log.Fatal(err)
	}
}

func newServer() *server.MCPServer {
	srv := server.NewMCPServer("weather", "1.0.0",
		server.WithTitle("Weather"),
		server.WithInstructions(weather.Instructions),
		server.WithToolCapabilities(true),
		server.WithLogging(),
		server.WithInputSchemaValidation(),
	)
	tool := mcp.NewTool(weather.ToolName,
		mcp.WithToolTitle(weather.ToolTitle),
		mcp.WithDescription(weather.ToolDescription),
		mcp.WithString("city",
			mcp.Required(),
			mcp.Description(`The name of the city, for example "Lisbon".`),
			mcp.MinLength(1),
			mcp.MaxLength(100),
		),
		mcp.WithString("units",
			mcp.Description("Units of the report: metric (°C, km/h) or imperial (°F, mph)."),
			mcp.Enum("metric", "imperial"),
			mcp.DefaultString("metric"),
		),
		mcp.WithSchemaAdditionalProperties(false),
		mcp.WithOutputSchema[weather.WeatherReport](),
		// NewTool's default annotations call every tool destructive and open-world.
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithOpenWorldHintAnnotation(false),
	)
	srv.AddTool(tool, mcp.NewStructuredToolHandler(func(ctx context.Context, _ mcp.CallToolRequest, in weather.WeatherInput) (weather.WeatherReport, error) {
		return weather.Get(ctx, in)
	}))
	return srv
}
