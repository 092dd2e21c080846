package matrix_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/mcp/internal/matrix"
)

// Allocations per tools/call, for each transport, held to budgets: unlike CPU time they do
// not depend on the machine's load, so a change that adds work to the hot path shows here
// as a number, in every run of the tests. (For CPU time, scripts/bench.sh paired.)
//
// Two figures per transport: "server", a raw client's round trip (the request written as
// bytes, the answer read as bytes: what the server allocates, and over HTTP and WebSocket
// what net/http's or the WebSocket library's client does at the raw end); and "both",
// mcpgen's client calling the same server in the same process, so that "both" less
// "server" is about what mcpgen's client adds.

// allocBudget is what a tools/call of get_weather allocates today over one transport,
// measured as TestAllocsPerCall does.
type allocBudget struct {
	transport matrix.Transport
	label     string
	server    float64 // a raw client's round trip
	both      float64 // mcpgen's client and server
}

// allocBudgets are today's figures. A test fails when a figure moves past its margin
// (allocMargin) either way: up, something on the path allocates more; down, the gain is
// to be locked in by lowering the figure. Change them deliberately, in the commit that
// changes the path, and say why.
var allocBudgets = []allocBudget{
	{matrix.Transport{Name: matrix.Memory, Version: mcp.StatefulProtocolVersion}, "memory", 13, 37},
	{matrix.Transport{Name: matrix.Stdio, Version: mcp.StatefulProtocolVersion}, "stdio", 10, 35},
	{matrix.Transport{Name: matrix.HTTP, Version: mcp.StatefulProtocolVersion}, "Streamable HTTP, a session", 111, 150},
	{matrix.Transport{Name: matrix.HTTP, Version: mcp.StatelessProtocolVersion}, "Streamable HTTP, stateless", 118, 159},
	{matrix.Transport{Name: matrix.SSE, Version: mcp.StatefulProtocolVersion}, "HTTP+SSE", 92, 126},
	{matrix.Transport{Name: matrix.WebSocket, Version: mcp.StatefulProtocolVersion}, "WebSocket", 30, 74},
}

// allocMargin is how far a figure may move before the test fails: 5%, at least 2.
func allocMargin(want float64) float64 { return max(2, math.Ceil(want*0.05)) }

// weatherServer is the server the budgets measure: one tool, answered with a line of text.
func weatherServer(t *testing.T) *mcp.Server {
	srv := newServer(nil)
	srv.AddTool(mcp.Tool{Name: "get_weather", InputSchema: `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`,
		Handler: func(ctx context.Context, c *mcp.ToolCall) { c.ReturnText("sunny, 21°C") }})
	return srv
}

// allocsPerCall is the least, over a few runs, of the allocations per call: another
// goroutine of the test binary (the GC's, a timer's) may allocate during one.
func allocsPerCall(call func()) float64 {
	for range 20 {
		call() // warm: buffers sized, pools filled, connections open
	}
	least := math.Inf(1)
	for range 3 {
		least = min(least, testing.AllocsPerRun(100, call))
	}
	return least
}

func TestAllocsPerCall(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation budgets are measured without the race detector, which changes what a call allocates: ./scripts/test.sh runs this test without -race")
	}
	cfg := &matrix.Config{Server: weatherServer}
	for _, b := range allocBudgets {
		t.Run(b.transport.String(), func(t *testing.T) {
			raw := matrix.Serve(t, b.transport, cfg)
			var call rawCall
			switch b.transport.Name {
			case matrix.Memory:
				call = rawMemory(t, raw.Server)
			case matrix.Stdio:
				call = rawStdio(t, raw.Server)
			case matrix.HTTP:
				call = rawHTTP(t, raw.URL, b.transport.Stateless())
			case matrix.SSE:
				call = rawSSE(t, raw.URL)
			case matrix.WebSocket:
				call = rawWebSocket(t, raw.URL)
			}
			if a := call(t); !json.Valid(trimEvent(a)) || !bytes.Contains(a, []byte("sunny")) {
				t.Fatalf("the raw client's call: %s", a)
			}
			server := allocsPerCall(func() { call(t) })

			c := matrix.Serve(t, b.transport, cfg)
			cl := c.Connect(t, "", nil)
			args := json.RawMessage(`{"city":"Lisbon"}`)
			clientCall := func() {
				if res, err := cl.CallTool(context.Background(), "get_weather", args); err != nil || res.IsError {
					t.Fatalf("get_weather: %+v, %v", res, err)
				}
			}
			both := allocsPerCall(clientCall)
			t.Logf("%s: %.0f allocations per call on the server's side (raw client), %.0f with mcpgen's client (%.0f the client's)", b.label, server, both, both-server)
			check(t, b.label, "on the server's side (a raw client's round trip)", server, b.server)
			check(t, b.label, "by mcpgen's client and server", both, b.both)
		})
	}
}

// check fails the test when got is off want by more than the margin, saying what to do.
func check(t *testing.T, label, what string, got, want float64) {
	t.Helper()
	m := allocMargin(want)
	switch {
	case got > want+m:
		t.Errorf("%s: a tools/call allocates %.0f times %s, over its budget of %.0f (%.0f recorded + %.0f): something on the path now allocates more. "+
			"If that is deliberate, raise the figure in allocBudgets (runtime/mcp/internal/matrix/allocs_test.go) in the same commit and say why; "+
			"go test -run TestAllocsPerCall -v ./runtime/mcp/internal/matrix prints every figure",
			label, got, what, want+m, want, m)
	case got < want-m:
		t.Errorf("%s: a tools/call allocates %.0f times %s, %.0f fewer than the %.0f of allocBudgets: lock the gain in by lowering the figure there "+
			"(runtime/mcp/internal/matrix/allocs_test.go), in the commit that made it",
			label, got, what, want-got, want)
	}
}

// trimEvent is the JSON of an answer: an SSE event's data, or the answer itself.
func trimEvent(a []byte) []byte {
	for line := range bytes.SplitSeq(a, []byte("\n")) {
		if data, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			return data
		}
	}
	return a
}
