package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// examples/host: what it prints, its status API, and a server killed under it restarted.
func TestExampleHost(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(`{"mcpServers": {
  "weather": {"command": "`+weatherBin+`"},
  "gothings": {"command": "`+everythingBin+`"},
  "broken": {"command": "sh", "args": ["-c", "echo no >&2; exit 1"]}
}}`), 0o644)
	cmd := exec.Command(hostBin, "-http", "127.0.0.1:0", "-trust")
	cmd.Dir = dir
	stdout, _ := cmd.StdoutPipe()
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(stdout)
	var printed []string
	base := ""
	for base == "" && lines.Scan() {
		printed = append(printed, lines.Text())
		if rest, ok := strings.CutPrefix(lines.Text(), "status on "); ok {
			base = strings.TrimSuffix(strings.Fields(rest)[0], "/api/mcp/status")
		}
	}
	go io.Copy(io.Discard, stdout)
	all := strings.Join(printed, "\n")
	for _, want := range []string{
		"found 3 MCP servers, connecting...",
		"[weather] mcp_weather_get_weather: Returns the current weather and a three-day forecast for a city.",
		"[gothings] mcp_gothings_test_simple_text: Returns a fixed text.",
		" broken failed (trying again in 1s): ",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("host printed no %q:\n%s", want, all)
		}
	}
	if base == "" {
		t.Fatalf("no status address:\n%s\n%s", all, stderr.String())
	}

	type status struct {
		Servers []struct {
			Name, State string
			PID         int
			Restarts    int
			Tools       int
		}
		Tools []struct{ Name, Server string }
	}
	get := func(path string, v any) {
		t.Helper()
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	weather := func() (state string, pid, restarts int, tool bool) {
		var st status
		get("/api/mcp/status", &st)
		for _, s := range st.Servers {
			if s.Name == "weather" {
				state, pid, restarts = s.State, s.PID, s.Restarts
			}
		}
		for _, tl := range st.Tools {
			tool = tool || tl.Name == "mcp_weather_get_weather"
		}
		return
	}
	state, pid, _, tool := weather()
	if state != "ready" || pid == 0 || !tool {
		t.Fatalf("weather: %s, pid %d, tool %v", state, pid, tool)
	}
	var defs []map[string]any
	get("/api/tools", &defs)
	if len(defs) < 2 || defs[0]["input_schema"] == nil {
		t.Errorf("/api/tools: %v", defs)
	}
	resp, err := http.Post(base+"/api/call/mcp_weather_get_weather", "application/json", strings.NewReader(`{"city":"Lisbon"}`))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("call: %v %v", resp, err)
	}
	resp.Body.Close()

	// A tool of a server that has not started is not ready (503), not unknown (404); so is
	// the tool of a server that is restarting; a tool nobody has is unknown.
	call := func(name string) (int, string) {
		t.Helper()
		resp, err := http.Post(base+"/api/call/"+name, "application/json", strings.NewReader(`{"city":"Oslo"}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := call("mcp_broken_anything"); code != http.StatusServiceUnavailable || !strings.HasPrefix(body, "mcp_broken_anything: server broken ") {
		t.Errorf("a tool of the broken server: %d %s", code, body)
	}
	if code, body := call("mcp_nobody_anything"); code != http.StatusNotFound {
		t.Errorf("a tool nobody has: %d %s", code, body)
	}

	// Kill the weather server: its tool is unavailable (503), and comes back with a new
	// process.
	syscall.Kill(pid, syscall.SIGKILL)
	deadline := time.Now().Add(20 * time.Second)
	for {
		if state, _, _, _ := weather(); state != "ready" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("weather still ready after its process was killed")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if code, body := call("mcp_weather_get_weather"); code != http.StatusServiceUnavailable || !strings.Contains(body, "server weather ") {
		t.Errorf("a call while weather restarts: %d %s, want 503", code, body)
	}
	for {
		state, newPID, restarts, tool := weather()
		if state == "ready" && restarts == 1 && newPID != pid && newPID != 0 && tool {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("weather not back: %s, pid %d (was %d), restarts %d, tool %v", state, newPID, pid, restarts, tool)
		}
		time.Sleep(50 * time.Millisecond)
	}
	resp, err = http.Post(base+"/api/call/mcp_weather_get_weather", "application/json", strings.NewReader(`{"city":"Oslo"}`))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("call after the restart: %v %v", resp, err)
	}
	resp.Body.Close()
	var logs []struct{ Kind, Server, Tool, Outcome, Text string }
	get("/api/mcp/logs", &logs)
	calls, lost := 0, false
	for _, l := range logs {
		if l.Kind == "call" && l.Tool == "mcp_weather_get_weather" && l.Outcome == "ok" {
			calls++
		}
		lost = lost || l.Kind == "state" && l.Server == "weather" && strings.Contains(l.Text, "failed") && strings.Contains(l.Text, "lost")
	}
	if calls != 2 || !lost {
		t.Errorf("logs: %d calls, lost %v:\n%+v", calls, lost, logs)
	}

	_, newPID, _, _ := weather()
	cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("host exited with %v\n%s", err, stderr.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("host did not stop on interrupt")
	}
	if syscall.Kill(newPID, 0) == nil {
		t.Errorf("the weather server (pid %d) outlived the host", newPID)
	}
}

// examples/host's API calls the user's tools, so it answers this machine's programs only,
// not the web pages the user's browser shows: a cross-site form post (text/plain needs no
// preflight), a cross-site fetch, and a page whose name was rebound to 127.0.0.1 (DNS
// rebinding: its own name as the Host) are refused, reading as well as calling; a JSON
// POST from a program on this machine is answered.
func TestExampleHostAnswersThisMachineOnly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(`{"mcpServers": {"weather": {"command": "`+weatherBin+`"}}}`), 0o644)
	cmd := exec.Command(hostBin, "-http", "127.0.0.1:0", "-trust")
	cmd.Dir = dir
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	lines := bufio.NewScanner(stdout)
	base := ""
	for base == "" && lines.Scan() {
		if rest, ok := strings.CutPrefix(lines.Text(), "status on "); ok {
			base = strings.TrimSuffix(strings.Fields(rest)[0], "/api/mcp/status")
		}
	}
	go io.Copy(io.Discard, stdout)
	if base == "" {
		t.Fatal("no status address")
	}
	port := base[strings.LastIndex(base, ":")+1:]
	send := func(method, path, host string, h map[string]string) (int, string) {
		t.Helper()
		var body io.Reader
		if method == http.MethodPost {
			body = strings.NewReader(`{"city":"Lisbon"}`)
		}
		req, _ := http.NewRequest(method, base+path, body)
		for k, v := range h {
			req.Header.Set(k, v)
		}
		if host != "" {
			req.Host = host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	const call = "/api/call/mcp_weather_get_weather"
	for name, tc := range map[string]struct {
		method, path, host string
		header             map[string]string
		want               int
	}{
		"a cross-site form post": {http.MethodPost, call, "", map[string]string{"Content-Type": "text/plain", "Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		"a cross-site fetch":     {http.MethodPost, call, "", map[string]string{"Content-Type": "application/json", "Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		"a form post":            {http.MethodPost, call, "", map[string]string{"Content-Type": "text/plain"}, http.StatusUnsupportedMediaType},
		"a rebound host's call":  {http.MethodPost, call, "evil.example:" + port, map[string]string{"Content-Type": "application/json", "Origin": "http://evil.example:" + port, "Sec-Fetch-Site": "same-origin"}, http.StatusForbidden},
		"a rebound host's read":  {http.MethodGet, "/api/mcp/status", "evil.example:" + port, nil, http.StatusForbidden},
	} {
		if code, body := send(tc.method, tc.path, tc.host, tc.header); code != tc.want {
			t.Errorf("%s: %d %.120s, want %d", name, code, body, tc.want)
		}
	}
	for _, host := range []string{"", "localhost:" + port} {
		if code, body := send(http.MethodPost, call, host, map[string]string{"Content-Type": "application/json"}); code != http.StatusOK {
			t.Errorf("a program's call (Host %q): %d %.120s", host, code, body)
		}
	}
}
