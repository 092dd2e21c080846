package otelmcp

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// metricsText is what /metrics serves now.
func metricsText(t *testing.T, tel *Telemetry) string {
	t.Helper()
	srv := httptest.NewServer(tel.MetricsHandler())
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return string(body)
}

// The histograms are labelled only with names the server has (issue 35, item 2): a tool,
// prompt or method a client makes up is labelled _OTHER, one series whatever the names,
// and an error code outside those JSON-RPC and MCP reserve likewise. Before, each made-up
// name became a gen_ai_tool_name label: 200 calls with 6.4 MB of names grew /metrics from
// 6.9 KB to 107 MiB, and past 2,000 series the real tools' calls went to
// otel_metric_overflow. Here a client calls 2,500 tools, prompts and notification methods
// that do not exist, with names of 1 KB, and 2,500 more: /metrics grows by the few _OTHER
// series once, not with the names, and the real tool's calls keep their series.
func TestMetricsLabelOnlyWhatTheServerHas(t *testing.T) {
	keepGlobals(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	tel, err := Setup(context.Background(), SetupOptions{ServiceName: "weather", Prometheus: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tel.Shutdown(context.Background())
	opts := &mcp.ServerOptions{}
	tel.Server(opts)
	srv := mcp.NewServer(mcp.Implementation{Name: "weather", Version: "1"}, opts)
	srv.AddTool(mcp.Tool{Name: "get_weather", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *mcp.ToolCall) { c.ReturnText("sunny") }})
	srv.AddPrompt(mcp.Prompt{Name: "greet", Get: func(context.Context, *mcp.Input) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: mcp.RoleUser, Content: mcp.Text{Text: "hi"}}}}, nil
	}})

	// A client of its own making, over stdio: it sends what no mcpgen client would.
	toServer, clientW := io.Pipe()
	clientR, fromServer := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, toServer, fromServer) }()
	defer func() { cancel(); clientW.Close(); <-served }()
	replies := bufio.NewScanner(clientR)
	replies.Buffer(nil, 1<<20)
	id := 0
	send := func(method, params string, request bool) {
		t.Helper()
		msg := `{"jsonrpc":"2.0","method":"` + method + `","params":` + params
		if request {
			id++
			msg += fmt.Sprintf(`,"id":%d`, id)
		}
		if _, err := io.WriteString(clientW, msg+"}\n"); err != nil {
			t.Fatal(err)
		}
		if request && !replies.Scan() {
			t.Fatalf("no answer to %s: %v", method, replies.Err())
		}
	}
	send("initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`, true)
	send("notifications/initialized", `{}`, false)
	for range 10 {
		send("tools/call", `{"name":"get_weather","arguments":{}}`, true)
		send("prompts/get", `{"name":"greet"}`, true)
	}
	before := metricsText(t, tel)

	pad := strings.Repeat("x", 1000)
	makeUp := func(from, to int) {
		for i := from; i < to; i++ {
			made := fmt.Sprintf("%s%d", pad, i)
			switch i % 3 {
			case 0:
				send("tools/call", `{"name":"`+made+`","arguments":{}}`, true)
			case 1:
				send("prompts/get", `{"name":"`+made+`"}`, true)
			default:
				send("notifications/"+made, `{}`, false)
			}
		}
		send("tools/call", `{"name":"get_weather","arguments":{}}`, true)
		send("ping", `{}`, true) // the notifications before it are handled
	}
	makeUp(0, 2500)
	mid := metricsText(t, tel)
	makeUp(2500, 5000)
	after := metricsText(t, tel)
	t.Logf("/metrics: %d bytes before the made-up names, %d after 2,500, %d after 5,000", len(before), len(mid), len(after))

	// The made-up names add their few series (_OTHER, with the errors they got) once.
	if len(mid) > len(before)+64<<10 || len(after) > len(mid)+1<<10 {
		t.Errorf("/metrics grew from %d to %d bytes with 2,500 made-up names, to %d with 5,000", len(before), len(mid), len(after))
	}
	for _, want := range []string{
		`gen_ai_tool_name="get_weather"`, `gen_ai_prompt_name="greet"`,
		`gen_ai_tool_name="_OTHER"`, `gen_ai_prompt_name="_OTHER"`, `mcp_method_name="_OTHER"`,
	} {
		if !strings.Contains(after, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	for _, unwanted := range []string{pad, "otel_metric_overflow"} {
		if strings.Contains(after, unwanted) {
			t.Errorf("/metrics has %.40s", unwanted)
		}
	}
}

// An error code the other side answered with outside the range JSON-RPC and MCP reserve is
// labelled _OTHER on the histogram (a server answering with ever new codes makes no new
// series); the span, one event, keeps the code.
func TestErrorCodesOutsideTheReservedRange(t *testing.T) {
	r := newRecorder(t)
	for _, code := range []int{-32602, -32000, -32768, 1, 777, -31999, -32769} {
		m := &mcp.Message{Method: "tools/call", ID: "1", Outgoing: true, Params: []byte(`{"name":"w"}`)}
		r.handle(context.Background(), m, func(context.Context, *mcp.Message) ([]byte, error) {
			return nil, jsonrpc.NewError(code, "no")
		})
	}
	got := map[string]int{}
	for _, p := range r.histogram(t, "mcp.client.operation.duration").DataPoints {
		got[fmt.Sprint(attrs(p.Attributes.ToSlice())["error.type"])] += int(p.Count)
	}
	want := map[string]int{"-32602": 1, "-32000": 1, "-32768": 1, "_OTHER": 4}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("error.type of the series: %v, want %v", got, want)
	}
	if s := r.spans.Ended()[4]; attrs(s.Attributes())["error.type"] != "777" {
		t.Errorf("the span's error.type: %v", attrs(s.Attributes())["error.type"])
	}
}
