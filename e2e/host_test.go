package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// The host as people use it: mcpgen servers, tools, call, read and prompt against a real
// .mcp.json of servers nobody here wrote (the reference servers, pinned in e2e/servers) and
// mcpgen's examples; and examples/host, restarting a server killed under it.

// serveCollide is a server whose two tools make the same safe name: report.daily and
// report_daily.
func serveCollide() {
	s := mcp.NewServer(mcp.Implementation{Name: "collide", Version: "1.0.0"}, nil)
	for name, answer := range map[string]string{"report.daily": "dotted", "report_daily": "underscored"} {
		s.AddTool(mcp.Tool{Name: name, Description: "The daily report (" + answer + ").", InputSchema: `{"type":"object"}`,
			Handler: func(ctx context.Context, c *mcp.ToolCall) { c.ReturnText(answer) }})
	}
	if err := s.ServeStdio(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// mcpgen runs the mcpgen binary in dir and returns stdout, stderr and the exit status.
func mcpgen(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, mcpgenBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "MCP_TEST_DIR="+dir) // for ${MCP_TEST_DIR} in .mcp.json
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("mcpgen %s: %v", strings.Join(args, " "), err)
		}
		code = ee.ExitCode()
	}
	return stdout.String(), stderr.String(), code
}

// trusted runs mcpgen with --trust: the test wrote the .mcp.json in dir, so its servers
// start without asking, and no approval is recorded in the user's directory.
func trusted(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	return mcpgen(t, dir, append(args, "--trust")...)
}

// realConfig writes a .mcp.json of every kind of server into a new directory.
func realConfig(t *testing.T) string {
	dir := t.TempDir()
	files := filepath.Join(dir, "files")
	os.Mkdir(files, 0o755)
	os.WriteFile(filepath.Join(files, "note.txt"), []byte("a note in a file\n"), 0o644)
	httpBase := startNodeServer(t, serverScript(t, "server-everything"), "streamableHttp")
	cfg := map[string]any{"mcpServers": map[string]any{
		"filesystem":      map[string]any{"command": "node", "args": []string{serverScript(t, "server-filesystem"), files}},
		"memory":          map[string]any{"command": "node", "args": []string{serverScript(t, "server-memory")}, "env": map[string]string{"MEMORY_FILE_PATH": "${MCP_TEST_DIR}/memory.jsonl"}},
		"everything":      map[string]any{"command": "node", "args": []string{serverScript(t, "server-everything"), "stdio"}},
		"everything-http": map[string]any{"type": "http", "url": httpBase + "/mcp"},
		"weather":         map[string]any{"command": weatherBin},
		"gothings":        map[string]any{"command": everythingBin},
		"collide":         map[string]any{"command": os.Args[0], "env": map[string]string{"E2E_SERVER": "collide"}},
	}}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestHostCommands(t *testing.T) {
	t.Parallel()
	dir := realConfig(t)
	servers := []string{"collide", "everything", "everything-http", "filesystem", "gothings", "memory", "weather"}

	t.Run("servers", func(t *testing.T) {
		out, errOut, code := trusted(t, dir, "servers")
		if code != 0 {
			t.Fatalf("exit %d\n%s%s", code, out, errOut)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 1+len(servers) || !regexp.MustCompile(`^NAME +TRANSPORT +STATE +REVISION +TOOLS +PROMPTS +RESOURCES +TEMPLATES +CONNECT$`).MatchString(lines[0]) {
			t.Fatalf("table:\n%s", out)
		}
		for i, name := range servers {
			transport, revision := "stdio", "2025-11-25"
			switch name {
			case "everything-http":
				transport = "http"
			case "weather", "gothings", "collide":
				revision = "2026-07-28"
			}
			re := regexp.MustCompile(`^` + name + ` +` + transport + ` +ready +` + revision + ` +[1-9][0-9]* +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+m?s$`)
			if !re.MatchString(lines[1+i]) {
				t.Errorf("row %q does not match %s", lines[1+i], re)
			}
		}
		out, _, code = trusted(t, dir, "servers", "--json", "weather", "filesystem")
		var got []struct {
			Name, State, ServerName, ProtocolVersion string
			Tools, PID                               int
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil || code != 0 {
			t.Fatalf("servers --json: exit %d, %v\n%s", code, err, out)
		}
		if len(got) != 2 || got[0].Name != "filesystem" || got[1].ServerName != "weather" || got[1].Tools != 1 || got[1].PID == 0 || got[1].State != "ready" {
			t.Errorf("servers --json: %+v", got)
		}
	})

	t.Run("tools", func(t *testing.T) {
		// Without a terminal mcpgen declares neither sampling nor elicitation, and
		// server-everything lists the tools that ask for them only to clients that do.
		out, errOut, code := trusted(t, dir, "tools", "everything")
		if code != 0 || strings.Contains(out, "trigger-sampling-request") || strings.Contains(out, "trigger-elicitation-request") || !regexp.MustCompile(`(?m)^everything +echo +Echoes`).MatchString(out) {
			t.Errorf("without a terminal: exit %d\n%s%s", code, out, errOut)
		}
		out, errOut, code = trusted(t, dir, "tools", "--sampling", "decline", "--elicitation", "decline")
		if code != 0 || !regexp.MustCompile(`^SERVER +TOOL +DESCRIPTION\n`).MatchString(out) {
			t.Fatalf("exit %d\n%s%s", code, out, errOut)
		}
		// The server's and the tool's own name: what mcpgen call takes.
		for _, want := range []string{
			`weather +get_weather +Returns the current weather and a three-day forecast for a city\.`, `filesystem +read_text_file `, `memory +create_entities `,
			`everything +echo `, `everything-http +get-sum `, `gothings +test_simple_text `,
			// Listed only to clients that declare sampling and elicitation.
			`everything +trigger-sampling-request `, `everything +trigger-elicitation-request `,
			`collide +report\.daily +The daily report \(dotted\)\.`, `collide +report_daily +The daily report \(underscored\)\.`,
		} {
			if !regexp.MustCompile(`(?m)^` + want).MatchString(out) {
				t.Errorf("tools lacks a line matching %s", want)
			}
		}
		// A host's names, in --json: report.daily and report_daily of collide both make
		// mcp_collide_report_daily; the first keeps it, the second gets a hash, and the note
		// says so. Every name is safe for model APIs.
		out, errOut, _ = trusted(t, dir, "tools", "--json", "--sampling", "decline", "--elicitation", "decline")
		var all []struct{ Name, Server, Tool string }
		if err := json.Unmarshal([]byte(out), &all); err != nil || len(all) < 20 {
			t.Fatalf("tools --json: %v\n%s", err, out)
		}
		names := map[string]string{}
		for _, d := range all {
			names[d.Server+"/"+d.Tool] = d.Name
			if len(d.Name) > 64 || !regexp.MustCompile(`^mcp_[A-Za-z0-9_-]+$`).MatchString(d.Name) {
				t.Errorf("tool name %q is not safe for model APIs", d.Name)
			}
		}
		renamed := names["collide/report_daily"]
		if names["collide/report.daily"] != "mcp_collide_report_daily" || !regexp.MustCompile(`^mcp_collide_report_daily_[0-9a-f]{6}$`).MatchString(renamed) {
			t.Fatalf("the colliding tools: %v", names)
		}
		if !strings.Contains(errOut, "note: collide/report.daily and collide/report_daily both make mcp_collide_report_daily; collide/report_daily is "+renamed) {
			t.Errorf("no note of the collision on stderr:\n%s", errOut)
		}

		out, _, code = trusted(t, dir, "tools", "--json", "weather")
		var defs []struct {
			Name, Server, Tool string
			InputSchema        map[string]any
			Anthropic, OpenAI  map[string]any
		}
		if err := json.Unmarshal([]byte(out), &defs); err != nil || code != 0 || len(defs) != 1 {
			t.Fatalf("tools --json: exit %d, %v\n%s", code, err, out)
		}
		if d := defs[0]; d.Name != "mcp_weather_get_weather" || d.Tool != "get_weather" || d.Anthropic["input_schema"] == nil ||
			d.OpenAI["function"].(map[string]any)["parameters"] == nil || d.InputSchema["properties"].(map[string]any)["city"] == nil {
			t.Errorf("tools --json: %+v", d)
		}
		out, _, code = trusted(t, dir, "tools", "weather", "--schema", "mcp_weather_get_weather")
		if code != 0 || !strings.Contains(out, `"required": [`) || !strings.Contains(out, `"city": {`) {
			t.Errorf("--schema: exit %d\n%s", code, out)
		}
	})

	t.Run("call", func(t *testing.T) {
		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{"weather", "get_weather", "city=Lisbon", "units=imperial"}, `"units": "imperial",`},
			{[]string{"filesystem", "read_text_file", "path=" + filepath.Join(dir, "files", "note.txt")}, "a note in a file\n"},
			{[]string{"memory", "create_entities", "--args", `{"entities":[{"name":"Ada","entityType":"person","observations":["wrote the first program"]}]}`}, `"name": "Ada"`},
			{[]string{"memory", "search_nodes", "query=Ada"}, `"wrote the first program"`},
			{[]string{"everything", "echo", "message=hello there"}, "Echo: hello there\n"},
			{[]string{"everything-http", "get-sum", "a=2", "b=3.5"}, "5.5"},
			{[]string{"gothings", "test_simple_text"}, "This is a simple text response for testing.\n"},
			{[]string{"collide", "report_daily"}, "underscored\n"},
			{[]string{"collide", "report.daily"}, "dotted\n"},
		} {
			out, errOut, code := trusted(t, dir, append([]string{"call"}, c.args...)...)
			if code != 0 || !strings.Contains(out, c.want) {
				t.Errorf("call %s: exit %d, want 0 and %q in:\n%s%s", strings.Join(c.args, " "), code, c.want, out, errOut)
			}
		}
		// --json prints the whole result.
		out, _, code := trusted(t, dir, "call", "weather", "get_weather", "--args", `{"city":"Paris"}`, "--json")
		var res struct {
			Content           []map[string]any
			StructuredContent map[string]any
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 || res.StructuredContent["city"] != "Paris" || res.Content[0]["type"] != "text" {
			t.Errorf("call --json: exit %d, %v\n%s", code, err, out)
		}
		// Progress, drawn as a bar.
		out, errOut, code := trusted(t, dir, "call", "everything", "trigger-long-running-operation", "duration=1", "steps=4", "--progress", "always")
		if code != 0 || !strings.Contains(out, "Long running operation completed") ||
			!strings.Contains(errOut, "\r\033[K[=======>                      ]  25% 1/4") || !strings.Contains(errOut, "[==============================] 100% 4/4\n") {
			t.Errorf("progress: exit %d\n%s%q", code, out, errOut)
		}
		// A task's status messages, drawn as they come, without a bar (they have no
		// numbers): a task of 2026-07-28 (examples/everything) and one of 2025-11-25's
		// experimental tasks (server-everything's simulate-research-query, which requires one).
		out, errOut, code = trusted(t, dir, "call", "gothings", "slow_compute", "seconds=2", "label=demo", "--progress", "always")
		if code != 0 || !strings.Contains(out, `Computation "demo" completed after 2 seconds.`) ||
			!strings.Contains(errOut, "\r\033[KComputing \"demo\": 1 of 2 seconds.") || strings.Contains(errOut, "<=>") {
			t.Errorf("a task's progress: exit %d\n%s%q", code, out, errOut)
		}
		out, errOut, code = trusted(t, dir, "call", "everything", "simulate-research-query", "topic=Go", "--progress", "always")
		if code != 0 || !strings.Contains(out, "# Research Report: Go") || !strings.Contains(errOut, "\r\033[KSynthesizing findings...") {
			t.Errorf("a task of 2025-11-25: exit %d\n%s%q", code, out, errOut)
		}
		// Log messages go to stderr.
		_, errOut, code = trusted(t, dir, "call", "gothings", "test_tool_with_logging")
		if code != 0 || !strings.Contains(errOut, "[gothings] info: ") {
			t.Errorf("logging: exit %d\n%s", code, errOut)
		}
		// --elicitation decline declines a question.
		out, errOut, code = trusted(t, dir, "call", "gothings", "test_elicitation", "message=Who are you?", "--elicitation", "decline")
		if code != 0 || !strings.Contains(errOut, `server gothings asked "Who are you?"; declined (--elicitation decline)`) || !strings.Contains(out, "action=decline") {
			t.Errorf("elicitation: exit %d\n%s%s", code, out, errOut)
		}
		// --sampling decline declines a sampling request: a server with sessions (npm's
		// server-everything) gets the rejection and answers the call with an error result;
		// one of the stateless revision (examples/everything) asked in its result, and the
		// call ends without one.
		const declined = "asked for a message from a model (sampling); declined (--sampling decline)\n"
		out, errOut, code = trusted(t, dir, "call", "everything", "trigger-sampling-request", "prompt=Say hi", "--sampling", "decline")
		if code != 1 || !strings.Contains(out, "User rejected sampling request") || !strings.HasPrefix(errOut, "mcpgen: server everything "+declined) {
			t.Errorf("sampling, 2025-11-25: exit %d\n%s%s", code, out, errOut)
		}
		out, errOut, code = trusted(t, dir, "call", "gothings", "test_sampling", "prompt=Say hi", "--sampling", "decline")
		if code != 1 || out != "" || errOut != "mcpgen: server gothings "+declined+"mcpgen call: gothings/test_sampling ended without a result: its request for a model's message was declined\n" {
			t.Errorf("sampling, 2026-07-28: exit %d\n%s%s", code, out, errOut)
		}
		// Without a terminal, and without --sampling, sampling is not declared: the server
		// of the stateless revision refuses the call, and mcpgen says how to declare it.
		out, errOut, code = trusted(t, dir, "call", "gothings", "test_sampling", "prompt=Say hi")
		if code != 2 || out != "" || !strings.Contains(errOut, "-32021") || !strings.Contains(errOut, "--sampling decline") {
			t.Errorf("sampling, not declared: exit %d\n%s%s", code, out, errOut)
		}
	})

	t.Run("read and prompt", func(t *testing.T) {
		out, errOut, code := trusted(t, dir, "read", "gothings", "test://static-text")
		if code != 0 || out != "This is the content of the static text resource.\n" {
			t.Errorf("read: exit %d\n%s%s", code, out, errOut)
		}
		out, errOut, code = trusted(t, dir, "prompt", "gothings", "test_prompt_with_arguments", "arg1=one", "arg2=two")
		if code != 0 || !strings.Contains(out, "user: ") || !strings.Contains(out, "one") || !strings.Contains(out, "two") {
			t.Errorf("prompt: exit %d\n%s%s", code, out, errOut)
		}
		out, _, code = trusted(t, dir, "prompt", "everything", "simple-prompt", "--json")
		if code != 0 || !strings.Contains(out, `"messages": [`) {
			t.Errorf("prompt --json: exit %d\n%s", code, out)
		}
	})

	t.Run("exit statuses", func(t *testing.T) {
		for _, c := range []struct {
			args []string
			code int
			want string
		}{
			{[]string{"call", "gothings", "test_error_handling"}, 1, "mcpgen call: gothings/test_error_handling returned an error (isError)\n"},
			{[]string{"call", "weather", "get_wether"}, 2, "mcpgen call: server weather has no tool get_wether; did you mean get_weather?\n"},
			{[]string{"call", "weather", "get_weather", "city"}, 2, `mcpgen call: argument "city": write key=value`},
			{[]string{"call", "everything", "get-sum", "a=two", "b=1"}, 2, `mcpgen call: argument a: "two" is not a number`},
			{[]string{"call", "nowhere", "x"}, 2, `mcpgen call: no server "nowhere" in .mcp.json; its servers are collide, everything, everything-http, filesystem, gothings, memory, weather`},
			{[]string{"call", "weather"}, 2, "mcpgen call: give the tool: mcpgen call SERVER TOOL [key=value ...]"},
			{[]string{"call", "weather", "get_weather"}, 1, "mcpgen call: weather/get_weather returned an error (isError)\n"}, // its text, on stdout, says city is missing
			{[]string{"read", "gothings", "test://nothing-here"}, 2, "mcpgen read: gothings: "},
			{[]string{"call", "--url", "http://127.0.0.1:1/mcp", "x"}, 2, "server 127_0_0_1 failed: "},
			{[]string{"servers", "--config", "nope.json"}, 2, "mcpgen servers: stat nope.json: no such file or directory"},
			{[]string{"tools", "--bogus"}, 2, "flag provided but not defined: -bogus"},
		} {
			out, errOut, code := trusted(t, dir, c.args...)
			if code != c.code || !strings.Contains(errOut, c.want) || strings.Count(errOut, "\n") > 4 {
				t.Errorf("mcpgen %s: exit %d, want %d and %q in a few lines of stderr:\n%s%s", strings.Join(c.args, " "), code, c.code, c.want, out, errOut)
			}
		}
	})
}

// One server given on the command line instead of a configuration.
func TestHostOneServer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, errOut, code := mcpgen(t, dir, "tools", "--stdio", weatherBin)
	if code != 0 || !strings.HasPrefix(out, "SERVER   TOOL         DESCRIPTION\nweather  get_weather  ") {
		t.Errorf("tools --stdio: exit %d\n%s%s", code, out, errOut)
	}
	srv := startHTTP(t, weatherBin)
	out, errOut, code = mcpgen(t, dir, "call", "--url", srv.url, "get_weather", "city=Oslo")
	if code != 0 || !strings.Contains(out, `"city": "Oslo"`) {
		t.Errorf("call --url: exit %d\n%s%s", code, out, errOut)
	}
	// Named by the name it gives itself, not by the URL's host.
	out, errOut, code = mcpgen(t, dir, "servers", "--url", srv.url)
	if code != 0 || !regexp.MustCompile(`\nweather +http +ready +2026-07-28 +1 `).MatchString(out) {
		t.Errorf("servers --url: exit %d\n%s%s", code, out, errOut)
	}
	base := startNodeServer(t, serverScript(t, "server-everything"), "sse")
	out, errOut, code = mcpgen(t, dir, "call", "--sse", base+"/sse", "--name", "legacy", "echo", "message=over SSE")
	if code != 0 || out != "Echo: over SSE\n" {
		t.Errorf("call --sse: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = mcpgen(t, dir, "servers", "--stdio", "node '"+serverScript(t, "server-memory")+"'")
	if code != 0 || !regexp.MustCompile(`\nserver-memory +stdio +ready +2025-11-25 +9 `).MatchString(out) {
		t.Errorf("servers --stdio 'node ...': exit %d\n%s%s", code, out, errOut)
	}
}

// A server that fails to start says why; one that never answers initialize is given up on
// at the connect timeout, without holding up the others; nothing outlives the command.
func TestHostBrokenServers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	marker := strconv.Itoa(os.Getpid()) + "1" // a sleep nobody else runs
	os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(`{"mcpServers": {
  "weather": {"command": "`+weatherBin+`"},
  "broken": {"command": "sh", "args": ["-c", "echo starting >&2; echo 'fatal: MISSING_API_KEY is not set' >&2; exit 3"]},
  "hangs": {"command": "sleep", "args": ["`+marker+`"]}
}}`), 0o644)
	begun := time.Now()
	out, errOut, code := trusted(t, dir, "servers", "--connect-timeout", "2s")
	took := time.Since(begun)
	if code != 1 || !strings.Contains(errOut, "mcpgen servers: 2 of 3 servers failed") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
	for _, re := range []string{
		`\nbroken +stdio +failed +- `, `\nhangs +stdio +failed +- `, `\nweather +stdio +ready +2026-07-28 +1 `,
		`server broken failed: .*exited with status 3 \(sh\); the last lines of its stderr:\n    starting\n    fatal: MISSING_API_KEY is not set\n`,
		`server hangs failed: no answer within 2s \(the connect timeout\)`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("output does not match %s:\n%s", re, out)
		}
	}
	if took > 8*time.Second {
		t.Errorf("servers took %s with a connect timeout of 2s", took)
	}
	if out, err := exec.Command("pgrep", "-f", "sleep "+marker).Output(); err == nil {
		t.Errorf("the hanging server outlived mcpgen: %s", out)
	}
	// The working server's tools are listed anyway; the failed ones are reported.
	out, errOut, code = trusted(t, dir, "tools", "--connect-timeout", "2s")
	if code != 1 || out != "SERVER   TOOL         DESCRIPTION\nweather  get_weather  Returns the current weather and a three-day forecast for a city.\n" || !strings.Contains(errOut, "server broken failed") {
		t.Errorf("tools: exit %d\n%s%s", code, out, errOut)
	}
	// A call to a server that did not start says why, at once.
	_, errOut, code = trusted(t, dir, "call", "broken", "anything")
	if code != 2 || !strings.Contains(errOut, "mcpgen call: server broken failed: ") || !strings.Contains(errOut, "MISSING_API_KEY") {
		t.Errorf("call broken: exit %d\n%s", code, errOut)
	}
}

// A configuration with three mistakes gets three diagnostics, and nothing is started.
func TestHostConfigMistakes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(`{
  "mcpServers": {
    "starts": {"command": "sh", "args": ["-c", "touch started"]},
    "web search": {"command": "ws"},
    "remote": {"type": "ws", "url": "https://localhost:1/mcp"},
    "api": {"type": "http", "headers": {"Authorization": "Bearer ${TOKEN:-none}"}}
  }
}`), 0o644)
	out, errOut, code := mcpgen(t, dir, "servers")
	want := `.mcp.json:4:5: server name "web search" cannot form tool names (mcp_web search_tool): model APIs take letters, digits, _ and - only
	hint: use letters, digits, _ and -, for example "web_search"
.mcp.json:5:37: url "https://localhost:1/mcp" of server "remote" is not a ws:// or wss:// URL
	hint: a WebSocket endpoint is ws:// or wss://, such as "wss://example.com/mcp"; an http:// or https:// endpoint is "type": "http"
.mcp.json:6:12: server "api" is reached over http but has no url
	hint: add "url": the server's endpoint, such as "https://example.com/mcp"
mcpgen servers: 3 problems in .mcp.json; nothing was started
`
	if code != 2 || out != "" || errOut != want {
		t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant:\n%s", code, out, errOut, want)
	}
	time.Sleep(100 * time.Millisecond)
	if _, err := os.Stat(filepath.Join(dir, "started")); err == nil {
		t.Error("a server was started from a configuration with mistakes")
	}
}

// A project's .mcp.json nobody approved starts nothing: mcpgen and examples/host, with no
// terminal to ask at, say how to approve it and exit; the command that would have left a
// file behind did not run.
func TestHostNeedsApproval(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(`{"mcpServers": {
  "starts": {"command": "sh", "args": ["-c", "touch started"]},
  "remote": {"type": "http", "url": "http://127.0.0.1:1/mcp", "headers": {"Authorization": "Bearer ${MCP_TEST_DIR}"}}
}}`), 0o644)
	out, errOut, code := mcpgen(t, dir, "servers")
	want := "mcpgen servers: .mcp.json is a project's configuration you have not approved; nothing was started.\n" +
		"Run mcpgen at a terminal to see what it would run and approve it, or add --trust --allow-env MCP_TEST_DIR to start its servers this once without asking (as in CI)\n"
	if code != 2 || out != "" || errOut != want {
		t.Errorf("mcpgen servers: exit %d, stdout %q, stderr:\n%s\nwant:\n%s", code, out, errOut, want)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, hostBin, "-http", "127.0.0.1:0")
	cmd.Dir = dir
	printed, err := cmd.CombinedOutput()
	wantHost := filepath.Join(dir, ".mcp.json") + " is not approved; a project's servers start only once its configuration is approved; " +
		"nothing was started: run the host at a terminal to review its servers, or with -trust -allow-env MCP_TEST_DIR\n"
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || string(printed) != wantHost {
		t.Errorf("examples/host: %v, printed:\n%s\nwant:\n%s", err, printed, wantHost)
	}
	time.Sleep(100 * time.Millisecond)
	if _, err := os.Stat(filepath.Join(dir, "started")); err == nil {
		t.Error("a server of an unapproved file was started")
	}
}
