package host

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/scripted"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// The test binary is also the servers the tests start: HOST_TEST_SERVER says which.
func TestMain(m *testing.M) {
	scripted.Main()
	switch os.Getenv("HOST_TEST_SERVER") {
	case "":
		os.Exit(m.Run())
	case "basic":
		if err := testServer().ServeStdio(context.Background()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	case "once": // serves the first time, and exits at every start after
		if _, err := os.Stat(os.Getenv("HOST_TEST_MARKER")); err == nil {
			fmt.Fprintln(os.Stderr, "cannot start again")
			os.Exit(3)
		}
		os.WriteFile(os.Getenv("HOST_TEST_MARKER"), nil, 0o600)
		if err := testServer().ServeStdio(context.Background()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	case "exit":
		fmt.Fprintln(os.Stderr, "starting")
		fmt.Fprintln(os.Stderr, "boom: cannot open the database")
		os.Exit(3)
	case "env": // env says what its process has of OTEL_SERVICE_NAME
		s := mcp.NewServer(mcp.Implementation{Name: "env", Version: "1"}, nil)
		s.AddTool(mcp.Tool{Name: "env", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *mcp.ToolCall) {
			v, ok := os.LookupEnv("OTEL_SERVICE_NAME")
			c.ReturnText(fmt.Sprintf("%q %v", v, ok))
		}})
		s.ServeStdio(context.Background())
	case "hang": // reads, never answers
		io.Copy(io.Discard, os.Stdin)
	}
	os.Exit(0)
}

// testCommand is a stdio server of the test binary's.
func testCommand(mode string) ServerConfig {
	return ServerConfig{Transport: Stdio, Command: os.Args[0], Env: []string{"HOST_TEST_SERVER=" + mode}}
}

// scriptedCommand is a stdio server of the test binary's that does what s says.
func scriptedCommand(s scripted.Script) ServerConfig {
	return ServerConfig{Name: s.Name, Transport: Stdio, Command: os.Args[0], Env: []string{s.Env()}}
}

type object map[string]any

func (o *object) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, (*map[string]any)(o)) }

func arguments(c *mcp.ToolCall) object {
	var o object
	c.Arguments().Unmarshal(&o)
	return o
}

// testServer has tools whose names collide once made safe (report.daily, report_daily),
// one that waits, one that kills its own process, one that adds a tool, a prompt and a
// resource.
func testServer() *mcp.Server {
	s := mcp.NewServer(mcp.Implementation{Name: "host-test", Version: "1.0.0"}, nil)
	text := func(name, desc string, reply func(object) string) {
		s.AddTool(mcp.Tool{Name: name, Description: desc, InputSchema: `{"type":"object"}`,
			Handler: func(ctx context.Context, c *mcp.ToolCall) { c.ReturnText(reply(arguments(c))) }})
	}
	text("echo", "Says the text back.\nSecond line.", func(o object) string { return fmt.Sprint(o["text"]) })
	text("report.daily", "The daily report.", func(object) string { return "dotted" })
	text("report_daily", "The daily report, again.", func(object) string { return "underscored" })
	text("pid", "The server's process id.", func(object) string { return strconv.Itoa(os.Getpid()) })
	s.AddTool(mcp.Tool{Name: "fail", Description: "Fails.", InputSchema: `{"type":"object"}`,
		Handler: func(ctx context.Context, c *mcp.ToolCall) { c.ReturnError(fmt.Errorf("it failed")) }})
	s.AddTool(mcp.Tool{Name: "slow", Description: "Waits until cancelled.", InputSchema: `{"type":"object"}`,
		Handler: func(ctx context.Context, c *mcp.ToolCall) {
			<-ctx.Done()
			c.ReturnText("cancelled")
		}})
	s.AddTool(mcp.Tool{Name: "crash", Description: "Exits the process mid-call.", InputSchema: `{"type":"object"}`,
		Handler: func(ctx context.Context, c *mcp.ToolCall) {
			fmt.Fprintln(os.Stderr, "crashing now")
			time.Sleep(20 * time.Millisecond)
			os.Exit(2)
		}})
	s.AddTool(mcp.Tool{Name: "grow", Description: "Adds a tool.", InputSchema: `{"type":"object"}`,
		Handler: func(ctx context.Context, c *mcp.ToolCall) {
			s.AddTool(mcp.Tool{Name: "grown", Description: "Added at run time.", InputSchema: `{"type":"object"}`,
				Handler: func(ctx context.Context, c *mcp.ToolCall) { c.ReturnText("grown") }})
			c.ReturnText("added")
		}})
	s.AddPrompt(mcp.Prompt{Name: "greet", Description: "Greets.", Arguments: []mcp.PromptArgument{{Name: "name", Required: true}},
		Get: func(ctx context.Context, args *mcp.Input) (*mcp.GetPromptResult, error) {
			var o object
			args.Unmarshal(&o)
			if err := args.Err(); err != nil {
				return nil, err
			}
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: mcp.RoleUser, Content: mcp.Text{Text: "hello " + fmt.Sprint(o["name"])}}}}, nil
		}})
	s.AddResource(mcp.Resource{URI: "test://hello", Name: "hello", MIMEType: "text/plain",
		Read: func(ctx context.Context, uri string) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: "hello"}}, nil
		}})
	s.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "test://greeting/{name}", Name: "greeting",
		Read: func(ctx context.Context, uri string, vars map[string]string) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{URI: uri, Text: "hello " + vars["name"]}}, nil
		}})
	return s
}
