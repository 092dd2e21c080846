package e2e

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/otelcoltest"
	"github.com/mcpgen/mcpgen/internal/promtest"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// Telemetry with the real components: an OpenTelemetry Collector receives OTLP over HTTP
// from three processes, each configured by the standard OTEL_* variables alone:
// examples/host (named by OTEL_SERVICE_NAME, sending OTLP/JSON), the stdio server it runs
// (examples/weather, which keeps its own name and sends JSON too) and an HTTP server
// (examples/everything, protobuf). Calls the host makes for an agent's turn (its
// traceparent header) are one trace across the host and both servers: each server's
// SERVER span the child of the host's CLIENT span, named and attributed by the
// conventions. A call whose arguments break the schema fails with error.type on both
// sides, as does a call of a failing tool.
func TestTelemetryAcrossProcesses(t *testing.T) {
	t.Parallel()
	col := otelcoltest.Start(t)
	env := append(os.Environ(), col.Env()...)

	everythingCmd, everythingURL, everythingErr := launchEnv(t, env, everythingBin)
	defer stopProcess(t, everythingCmd, everythingErr)

	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(`{"mcpServers": {
  "weather": {"command": "`+weatherBin+`"},
  "everything": {"type": "http", "url": "`+everythingURL+`"}
}}`), 0o644)
	hostCmd := exec.Command(hostBin, "-http", "127.0.0.1:0", "-trust")
	hostCmd.Dir, hostCmd.Env = dir, append(env, "XDG_CONFIG_HOME="+dir, "OTEL_SERVICE_NAME=agent-host", "OTEL_EXPORTER_OTLP_PROTOCOL=http/json")
	stdout, _ := hostCmd.StdoutPipe()
	var hostErr lockedBuffer
	hostCmd.Stderr = &hostErr
	if err := hostCmd.Start(); err != nil {
		t.Fatal(err)
	}
	base := ""
	lines := bufio.NewScanner(stdout)
	for base == "" && lines.Scan() {
		if rest, ok := strings.CutPrefix(lines.Text(), "status on "); ok {
			base = strings.TrimSuffix(strings.Fields(rest)[0], "/api/mcp/status")
		}
	}
	go io.Copy(io.Discard, stdout)
	if base == "" {
		hostCmd.Process.Kill()
		hostCmd.Wait()
		t.Fatalf("the host said no address; stderr:\n%s", hostErr.String())
	}

	// An agent's turn: two calls, one to each server, in its trace.
	const turn, turnSpan = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	const bad = "0af7651916cd43dd8448eb211c80319c"
	call := func(tool, args, trace string) {
		t.Helper()
		req, _ := http.NewRequest("POST", base+"/api/call/"+tool, strings.NewReader(args))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("traceparent", "00-"+trace+"-"+turnSpan+"-01")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("POST /api/call/%s: %s %s", tool, resp.Status, body)
		}
	}
	call("mcp_weather_get_weather", `{"city":"Lisbon"}`, turn)
	call("mcp_everything_test_simple_text", `{}`, turn)
	call("mcp_weather_get_weather", `{"city":""}`, bad) // minLength 1: an error result

	const failing = "5b8aa5a2d2c872e8321cf37308d69df2"
	call("mcp_everything_test_error_handling", `{}`, failing)
	stopProcess(t, hostCmd, &hostErr) // SIGTERM: the host flushes its spans, and stops weather, which flushes its own

	service := func(s otelcoltest.Span) string { v, _ := s.Resource["service.name"].(string); return v }
	find := func(spans []otelcoltest.Span, svc, kind, name, trace string) (otelcoltest.Span, bool) {
		for _, s := range spans {
			if service(s) == svc && s.Kind == kind && s.Name == name && (trace == "" || s.TraceID == trace) {
				return s, true
			}
		}
		return otelcoltest.Span{}, false
	}
	want := []struct{ svc, kind, name, trace string }{
		{"agent-host", "client", "tools/call get_weather", turn},
		{"weather", "server", "tools/call get_weather", turn},
		{"agent-host", "client", "tools/call test_simple_text", turn},
		{"mcpgen-everything", "server", "tools/call test_simple_text", turn},
		{"agent-host", "client", "tools/call get_weather", bad},
		{"weather", "server", "tools/call get_weather", bad},
		{"agent-host", "client", "tools/call test_error_handling", failing},
		{"mcpgen-everything", "server", "tools/call test_error_handling", failing},
	}
	spans := col.WaitForSpans(t, 20*time.Second, func(spans []otelcoltest.Span) bool {
		for _, w := range want {
			if _, ok := find(spans, w.svc, w.kind, w.name, w.trace); !ok {
				return false
			}
		}
		return true
	})
	get := func(svc, kind, name, trace string) otelcoltest.Span {
		s, _ := find(spans, svc, kind, name, trace)
		return s
	}

	// One trace across the host and both servers, each call the child of the turn.
	hostWeather, weather := get("agent-host", "client", "tools/call get_weather", turn), get("weather", "server", "tools/call get_weather", turn)
	hostText, text := get("agent-host", "client", "tools/call test_simple_text", turn), get("mcpgen-everything", "server", "tools/call test_simple_text", turn)
	if hostWeather.ParentSpanID != turnSpan || hostText.ParentSpanID != turnSpan || weather.ParentSpanID != hostWeather.SpanID || text.ParentSpanID != hostText.SpanID {
		t.Errorf("parents: host→weather %s (want %s), weather %s (want %s), host→everything %s, everything %s (want %s)",
			hostWeather.ParentSpanID, turnSpan, weather.ParentSpanID, hostWeather.SpanID, hostText.ParentSpanID, text.ParentSpanID, hostText.SpanID)
	}
	required := func(s otelcoltest.Span, tool, transport string) {
		t.Helper()
		a := s.Attributes
		if a["mcp.method.name"] != "tools/call" || a["gen_ai.tool.name"] != tool || a["gen_ai.operation.name"] != "execute_tool" ||
			a["jsonrpc.request.id"] == nil || a["mcp.protocol.version"] == nil || a["network.transport"] != transport {
			t.Errorf("%s's %s span %q: attributes %v", service(s), s.Kind, s.Name, a)
		}
		if s.Scope != "github.com/mcpgen/mcpgen/runtime/otelmcp" {
			t.Errorf("scope %q", s.Scope)
		}
	}
	required(hostWeather, "get_weather", "pipe")
	required(weather, "get_weather", "pipe")
	required(hostText, "test_simple_text", "tcp")
	required(text, "test_simple_text", "tcp")
	if hostText.Attributes["server.address"] != "127.0.0.1" || hostText.Attributes["server.port"] == nil || text.Attributes["client.address"] != "127.0.0.1" {
		t.Errorf("addresses: host %v, everything %v", hostText.Attributes, text.Attributes)
	}
	if weather.Attributes["jsonrpc.request.id"] != hostWeather.Attributes["jsonrpc.request.id"] {
		t.Errorf("request ids: host %v, weather %v", hostWeather.Attributes["jsonrpc.request.id"], weather.Attributes["jsonrpc.request.id"])
	}
	for _, s := range []otelcoltest.Span{hostWeather, weather, hostText, text} {
		if s.Status.Code == "error" || s.Attributes["error.type"] != nil {
			t.Errorf("%s's %s failed: %v %v", service(s), s.Name, s.Status, s.Attributes["error.type"])
		}
	}

	// Error spans say why: the server knows the arguments broke the schema; the client, that
	// the tool's result is an error.
	badHost, badWeather := get("agent-host", "client", "tools/call get_weather", bad), get("weather", "server", "tools/call get_weather", bad)
	if badWeather.Attributes["error.type"] != "invalid_arguments" || badWeather.Status.Code != "error" ||
		badHost.Attributes["error.type"] != "tool_error" || badHost.Status.Code != "error" || badWeather.ParentSpanID != badHost.SpanID {
		t.Errorf("the failed call: host %v %v, weather %v %v", badHost.Attributes["error.type"], badHost.Status, badWeather.Attributes["error.type"], badWeather.Status)
	}
	hostFailing, served := get("agent-host", "client", "tools/call test_error_handling", failing), get("mcpgen-everything", "server", "tools/call test_error_handling", failing)
	if served.ParentSpanID != hostFailing.SpanID || hostFailing.Attributes["error.type"] != "tool_error" || served.Attributes["error.type"] != "tool_error" {
		t.Errorf("a failing tool: host %s %v, served %s (parent %s) %v", hostFailing.SpanID, hostFailing.Attributes, served.SpanID, served.ParentSpanID, served.Attributes)
	}

	// The host's OTEL_SERVICE_NAME names the host alone: weather, which it started, has its own.
	if s, ok := find(spans, "agent-host", "server", "tools/call get_weather", ""); ok {
		t.Errorf("the server's span of a call carries the host's service name: %+v", s)
	}

	// The servers' durations, by tool, with the conventions' buckets; the host's too. The
	// host and weather send theirs as OTLP/JSON, everything as protobuf.
	servedTools := func(metrics []otelcoltest.Metric) map[string]bool {
		tools := map[string]bool{}
		for _, m := range metrics {
			if m.Name != "mcp.server.operation.duration" || m.Type != "histogram" || m.Unit != "s" {
				continue
			}
			for _, p := range m.Points {
				tool, ok := p.Attributes["gen_ai.tool.name"].(string)
				if ok && p.Count > 0 && len(p.Bounds) == 14 && p.Bounds[0] == 0.01 && p.Bounds[13] == 300 {
					tools[fmt.Sprint(m.Resource["service.name"], "/", tool)] = true
				}
			}
		}
		return tools
	}
	wantTools := []string{"weather/get_weather", "mcpgen-everything/test_simple_text", "mcpgen-everything/test_error_handling"}
	col.WaitForMetrics(t, 10*time.Second, func(ms []otelcoltest.Metric) bool {
		tools := servedTools(ms)
		client := false
		for _, m := range ms {
			client = client || m.Name == "mcp.client.operation.duration" && m.Resource["service.name"] == "agent-host"
		}
		for _, w := range wantTools {
			if !tools[w] {
				return false
			}
		}
		return client
	})
}

// Prometheus (Debian's) scrapes examples/everything's /metrics (-metrics) while clients call
// it, and its query API gives the calls by tool, each counted once, and their latency.
func TestPrometheusScrapesEverything(t *testing.T) {
	t.Parallel()
	cmd, url, stderr := launchEnv(t, os.Environ(), everythingBin, "-metrics")
	defer stopProcess(t, cmd, stderr)
	prom := promtest.Start(t, strings.TrimSuffix(url, "/mcp")+"/metrics")

	ctx := context.Background()
	calls := map[string]int{"test_simple_text": 120, "test_error_handling": 40}
	var wg sync.WaitGroup
	for range 4 { // four clients at once, two revisions
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, version := range []string{"", "2025-11-25"} {
				c, err := mcp.Connect(ctx, &mcp.StreamableHTTPTransport{URL: url}, &mcp.ClientOptions{ProtocolVersion: version})
				if err != nil {
					t.Error(err)
					return
				}
				for tool, n := range calls {
					for range n / 8 {
						c.CallTool(ctx, tool, nil)
					}
				}
				c.Close()
			}
		}()
	}
	wg.Wait()

	byTool := prom.WaitForQuery(t, 30*time.Second,
		`sum by (gen_ai_tool_name, error_type) (mcp_server_operation_duration_seconds_count{mcp_method_name="tools/call"})`,
		func(s []promtest.Sample) bool {
			total := 0.0
			for _, x := range s {
				total += x.Value
			}
			return total >= 160
		})
	got := map[string]float64{}
	for _, s := range byTool {
		got[s.Labels["gen_ai_tool_name"]+" "+s.Labels["error_type"]] = s.Value
	}
	if got["test_simple_text "] != 120 || got["test_error_handling tool_error"] != 40 || len(got) != 2 {
		t.Errorf("calls by tool and error: %v, want test_simple_text 120 and test_error_handling (tool_error) 40", got)
	}
	p99, err := prom.Query(ctx, `histogram_quantile(0.99, sum by (le) (mcp_server_operation_duration_seconds_bucket{gen_ai_tool_name="test_simple_text"}))`)
	if err != nil || len(p99) != 1 || p99[0].Value <= 0 || p99[0].Value > 10 {
		t.Errorf("the p99 latency of test_simple_text: %+v %v", p99, err)
	}
	sessions, err := prom.Query(ctx, `sum(mcp_server_session_duration_seconds_count)`)
	if err != nil || len(sessions) != 1 || sessions[0].Value != 4 {
		t.Errorf("sessions ended (the four of 2025-11-25): %+v %v", sessions, err)
	}
}

// launchEnv is launch with env as the process's environment (nil: this process's).
func launchEnv(t *testing.T, env []string, bin string, args ...string) (*exec.Cmd, string, *lockedBuffer) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"-http", "127.0.0.1:0"}, args...)...)
	cmd.Env = env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(stderr)
	line, err := r.ReadString('\n')
	_, url, found := strings.Cut(line, "serving MCP at ")
	if err != nil || !found {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("%s did not say where it listens: %q %v", filepath.Base(bin), line, err)
	}
	buf := &lockedBuffer{}
	go io.Copy(buf, r)
	return cmd, strings.TrimSpace(url), buf
}

// stopProcess stops a process as an operator does, with SIGTERM, and waits for it; it is
// killed if it lingers. Calling it again does nothing.
func stopProcess(t *testing.T, cmd *exec.Cmd, stderr *lockedBuffer) {
	t.Helper()
	if cmd.ProcessState != nil {
		return
	}
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil && !bytes.Contains([]byte(err.Error()), []byte("signal")) {
			t.Errorf("%s exited with %v:\n%s", filepath.Base(cmd.Path), err, stderr.String())
		}
	case <-time.After(15 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Errorf("%s did not stop on SIGTERM:\n%s", filepath.Base(cmd.Path), stderr.String())
	}
}
