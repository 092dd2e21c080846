// Command client is a small MCP client for the terminal, written on mcpgen's client: it
// starts a server, says what the server offers, calls a tool and reads a resource, and asks
// the user at the terminal when the server asks for something (elicitation).
//
//	go run ./examples/client [-call tool] [-args '{"k":"v"}'] [-read uri] command [args...]
//	go run ./examples/client -call get_weather -args '{"city":"Lisbon"}' ./bin/weather
//	go run ./examples/client -url http://127.0.0.1:8080/mcp -read weather://cities
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

func main() {
	url := flag.String("url", "", "connect to a Streamable HTTP (or HTTP+SSE) server at `URL` instead of starting a command")
	call := flag.String("call", "", "call the `tool`")
	args := flag.String("args", "{}", "the tool's arguments, a JSON `object`")
	read := flag.String("read", "", "read the resource at `URI`")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: client [flags] command [args...]   or   client -url URL [flags]")
		flag.PrintDefaults()
	}
	flag.Parse()
	var transport mcp.Transport
	switch {
	case *url != "" && flag.NArg() == 0:
		transport = &mcp.StreamableHTTPTransport{URL: *url}
	case *url == "" && flag.NArg() > 0:
		transport = &mcp.CommandTransport{Command: flag.Arg(0), Args: flag.Args()[1:]}
	default:
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, transport, *call, *args, *read); err != nil {
		fmt.Fprintln(os.Stderr, "client:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, transport mcp.Transport, tool, args, uri string) error {
	in := bufio.NewReader(os.Stdin)
	c, err := mcp.Connect(ctx, transport, &mcp.ClientOptions{
		Info: mcp.Implementation{Name: "example-client", Version: "1.0.0"},
		// The server may ask the user for something in the middle of a call.
		Elicitation: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return ask(in, req)
		},
	})
	if err != nil {
		return err
	}
	defer c.Close()

	s := c.Server()
	fmt.Printf("connected to %s %s (revision %s)\n", s.Name, s.Version, s.ProtocolVersion)
	for t, err := range c.Tools(ctx) { // every page, as it comes
		if err != nil {
			return err
		}
		fmt.Printf("tool %s: %s\n", t.Name, firstLine(t.Description))
	}

	if tool != "" {
		var arguments map[string]any
		if err := json.Unmarshal([]byte(args), &arguments); err != nil {
			return fmt.Errorf("-args: %w", err)
		}
		res, err := c.CallTool(ctx, tool, arguments)
		if err != nil {
			return err // the call failed: a protocol error (unknown tool, bad arguments) or the connection
		}
		if err := res.Err(); err != nil {
			return err // the tool ran and reported an error
		}
		for _, block := range res.Content {
			if text, ok := block.(mcp.Text); ok {
				fmt.Println(text.Text)
			} else {
				fmt.Printf("(%T)\n", block)
			}
		}
	}

	if uri != "" {
		contents, err := c.ReadResource(ctx, uri)
		if err != nil {
			return err
		}
		for _, rc := range contents {
			if rc.Blob != nil {
				fmt.Printf("%s: %d bytes of %s\n", rc.URI, len(rc.Blob), rc.MIMEType)
			} else {
				fmt.Printf("%s:\n%s\n", rc.URI, rc.Text)
			}
		}
	}
	return nil
}

// ask shows the user the server's question and reads an answer for each field of its form,
// one line each; an empty line leaves the field out (its default, if it has one, is sent).
// A form the user does not finish (end of input) is declined.
func ask(in *bufio.Reader, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	if req.Mode == "url" {
		fmt.Printf("the server asks you to open %s: %s\n", req.URL, req.Message)
		return &mcp.ElicitResult{Action: mcp.Decline}, nil
	}
	var form struct {
		Properties map[string]struct {
			Type        string `json:"type"`
			Description string `json:"description"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(req.RequestedSchema, &form); err != nil {
		return nil, err
	}
	fmt.Println("the server asks:", req.Message)
	content := map[string]any{}
	// The required fields first, in the order the form lists them, then the others.
	names := slices.Clone(form.Required)
	for _, name := range slices.Sorted(maps.Keys(form.Properties)) {
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	for _, name := range names {
		p := form.Properties[name]
		fmt.Printf("  %s (%s): ", name, p.Description)
		line, err := in.ReadString('\n')
		if err != nil && line == "" {
			return &mcp.ElicitResult{Action: mcp.Decline}, nil
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		var v any = line
		if p.Type != "string" {
			// Numbers and booleans are typed as JSON; anything else stays text.
			if json.Unmarshal([]byte(line), &v) != nil {
				v = line
			}
		}
		content[name] = v
	}
	return &mcp.ElicitResult{Action: mcp.Accept, Content: content}, nil
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}
