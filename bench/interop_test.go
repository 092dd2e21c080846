package bench

import (
	"bufio"
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/client"
	mcpgomcp "github.com/mark3labs/mcp-go/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Interoperability: the other Go SDKs' clients against examples/everything, over each
// transport they have: stdio, Streamable HTTP, and the HTTP+SSE transport of revision
// 2024-11-05 at /sse (which a client that speaks only that needs). Each lists the tools,
// calls one, reads a resource and gets a prompt; go-sdk's also answers a sampling request the
// server makes during a call, over each transport.

var (
	everythingOnce sync.Once
	everythingBin  string
	everythingErr  error
)

func TestMain(m *testing.M) {
	// mcp-go's IO transport logs to slog.Default when a benchmark closes its pipes, in the
	// middle of the benchmark's result line.
	slog.SetDefault(slog.New(slog.DiscardHandler))
	code := m.Run()
	if everythingBin != "" {
		os.RemoveAll(filepath.Dir(everythingBin))
	}
	os.Exit(code)
}

// everything builds examples/everything once per test binary.
func everything(t *testing.T) string {
	t.Helper()
	everythingOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mcpgen-interop-")
		if err != nil {
			everythingErr = err
			return
		}
		everythingBin = filepath.Join(dir, "everything")
		cmd := exec.Command("go", "build", "-o", everythingBin, "./examples/everything")
		cmd.Dir = ".."
		if out, err := cmd.CombinedOutput(); err != nil {
			everythingErr = &buildError{out: string(out), err: err}
		}
	})
	if everythingErr != nil {
		t.Fatal(everythingErr)
	}
	return everythingBin
}

// serveEverything starts examples/everything on a free loopback port until the test ends,
// and returns its base URL (the Streamable HTTP endpoint is /mcp, the SSE one /sse).
func serveEverything(t *testing.T) string {
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, everything(t), "-http", "127.0.0.1:0")
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		cmd.Wait()
	})
	found := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(stderr)
		for s.Scan() {
			if url, ok := strings.CutPrefix(s.Text(), "serving MCP at "); ok {
				found <- strings.TrimSuffix(url, "/mcp")
			}
		}
	}()
	select {
	case url := <-found:
		return url
	case <-time.After(20 * time.Second):
		t.Fatal("examples/everything did not say where it serves")
		return ""
	}
}

func TestGoSDKClientAgainstEverything(t *testing.T) {
	transports := map[string]func(t *testing.T) sdk.Transport{
		"stdio": func(t *testing.T) sdk.Transport {
			return &sdk.CommandTransport{Command: exec.Command(everything(t))}
		},
		"streamable-http": func(t *testing.T) sdk.Transport {
			return &sdk.StreamableClientTransport{Endpoint: serveEverything(t) + "/mcp"}
		},
		"sse": func(t *testing.T) sdk.Transport {
			return &sdk.SSEClientTransport{Endpoint: serveEverything(t) + "/sse"}
		},
	}
	for _, name := range []string{"stdio", "streamable-http", "sse"} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			sampled := false
			client := sdk.NewClient(&sdk.Implementation{Name: "interop", Version: "1"}, &sdk.ClientOptions{
				CreateMessageHandler: func(ctx context.Context, req *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
					sampled = true
					return &sdk.CreateMessageResult{Role: "assistant", Model: "interop", Content: &sdk.TextContent{Text: "4"}}, nil
				},
			})
			s, err := client.Connect(ctx, transports[name](t), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()

			var names []string
			for tool, err := range s.Tools(ctx, nil) {
				if err != nil {
					t.Fatal(err)
				}
				names = append(names, tool.Name)
			}
			if len(names) < 10 || !slices.Contains(names, "test_simple_text") {
				t.Errorf("tools: %v", names)
			}
			res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: "test_simple_text"})
			if err != nil || res.IsError || len(res.Content) != 1 {
				t.Fatalf("test_simple_text: %v %+v", err, res)
			}
			if text, _ := res.Content[0].(*sdk.TextContent); text == nil || text.Text != "This is a simple text response for testing." {
				t.Errorf("test_simple_text: %#v", res.Content[0])
			}
			res, err = s.CallTool(ctx, &sdk.CallToolParams{Name: "test_sampling", Arguments: map[string]any{"prompt": "What is 2+2?"}})
			if err != nil || res.IsError || !sampled {
				t.Errorf("test_sampling: %v %+v (sampled: %v)", err, res, sampled)
			}
			read, err := s.ReadResource(ctx, &sdk.ReadResourceParams{URI: "test://static-text"})
			if err != nil || len(read.Contents) != 1 || read.Contents[0].Text == "" {
				t.Errorf("resources/read: %v %+v", err, read)
			}
			prompt, err := s.GetPrompt(ctx, &sdk.GetPromptParams{Name: "test_simple_prompt"})
			if err != nil || len(prompt.Messages) == 0 {
				t.Errorf("prompts/get: %v %+v", err, prompt)
			}
		})
	}
}

func TestMCPGoClientAgainstEverything(t *testing.T) {
	clients := map[string]func(t *testing.T) (*mcpgo.Client, error){
		"stdio": func(t *testing.T) (*mcpgo.Client, error) {
			return mcpgo.NewStdioMCPClient(everything(t), nil)
		},
		"streamable-http": func(t *testing.T) (*mcpgo.Client, error) {
			return mcpgo.NewStreamableHttpClient(serveEverything(t) + "/mcp")
		},
		"sse": func(t *testing.T) (*mcpgo.Client, error) {
			return mcpgo.NewSSEMCPClient(serveEverything(t) + "/sse")
		},
	}
	for _, name := range []string{"stdio", "streamable-http", "sse"} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			c, err := clients[name](t)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if err := c.Start(ctx); err != nil {
				t.Fatal(err)
			}
			init := mcpgomcp.InitializeRequest{}
			init.Params.ProtocolVersion = mcpgomcp.LATEST_PROTOCOL_VERSION
			init.Params.ClientInfo = mcpgomcp.Implementation{Name: "interop", Version: "1"}
			if _, err := c.Initialize(ctx, init); err != nil {
				t.Fatal(err)
			}
			tools, err := c.ListTools(ctx, mcpgomcp.ListToolsRequest{})
			if err != nil || len(tools.Tools) < 10 {
				t.Fatalf("tools/list: %v %+v", err, tools)
			}
			call := mcpgomcp.CallToolRequest{}
			call.Params.Name = "test_simple_text"
			res, err := c.CallTool(ctx, call)
			if err != nil || res.IsError || len(res.Content) != 1 {
				t.Fatalf("test_simple_text: %v %+v", err, res)
			}
			if text, ok := res.Content[0].(mcpgomcp.TextContent); !ok || text.Text != "This is a simple text response for testing." {
				t.Errorf("test_simple_text: %#v", res.Content[0])
			}
			read := mcpgomcp.ReadResourceRequest{}
			read.Params.URI = "test://static-text"
			if r, err := c.ReadResource(ctx, read); err != nil || len(r.Contents) != 1 {
				t.Errorf("resources/read: %v %+v", err, r)
			}
			get := mcpgomcp.GetPromptRequest{}
			get.Params.Name = "test_simple_prompt"
			if p, err := c.GetPrompt(ctx, get); err != nil || len(p.Messages) == 0 {
				t.Errorf("prompts/get: %v %+v", err, p)
			}
		})
	}
}

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string {
	return "go build ./examples/everything: " + e.err.Error() + "\n" + e.out
}
