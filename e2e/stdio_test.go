// Package e2e runs the example servers as real processes and talks to them the way MCP
// clients do, checking every message they send against the specification's schema.json.
package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/spectest"
)

var (
	weatherBin    string
	everythingBin string
	clientBin     string
	mcpgenBin     string
	hostBin       string
	fsclientBin   string
	notesBin      string
	protectedBin  string
	referee       *spectest.Referee
)

func TestMain(m *testing.M) {
	switch os.Getenv("E2E_SERVER") { // the test binary as a server
	case "collide":
		serveCollide() // host_test.go
		return
	case "echo":
		serveEcho() // bounds_test.go
		return
	}
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "mcpgen-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	weatherBin = filepath.Join(dir, "weather")
	everythingBin = filepath.Join(dir, "everything")
	clientBin = filepath.Join(dir, "client")
	mcpgenBin = filepath.Join(dir, "mcpgen")
	hostBin = filepath.Join(dir, "host")
	fsclientBin = filepath.Join(dir, "fsclient")
	notesBin = filepath.Join(dir, "notes")
	protectedBin = filepath.Join(dir, "protected")
	for bin, pkg := range map[string]string{weatherBin: "../examples/weather", everythingBin: "../examples/everything",
		clientBin: "../examples/client", mcpgenBin: "../cmd/mcpgen", hostBin: "../examples/host",
		fsclientBin: "../examples/fsclient", notesBin: "../examples/notes/cmd/notes", protectedBin: "../examples/protected"} {
		build := exec.Command("go", "build", "-o", bin, pkg)
		if bin == mcpgenBin { // built as a user builds it: mcpgen new must work from it
			build.Env = append(os.Environ(), "GOFLAGS=-buildvcs=auto")
		}
		if out, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building %s: %v\n%s", pkg, err, out)
			return 1
		}
	}
	referee = spectest.NewReferee()
	return m.Run()
}

// server is a weather server process, spoken to line by line over stdio.
type server struct {
	t       *testing.T
	tr      *stdioTransport
	version string // protocol version the referee checks messages against
}

// lockedBuffer collects a process's stderr, which a test reads while the process writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func start(t *testing.T, version string) *server {
	t.Helper()
	return &server{t: t, tr: startStdio(t, weatherBin), version: version}
}

// next reads the next message, checks it against the schema and decodes it.
func (s *server) next(method string) map[string]any {
	s.t.Helper()
	select {
	case line, ok := <-s.tr.incoming():
		if !ok {
			s.t.Fatalf("server closed stdout; stderr:\n%s", s.tr.stderr)
		}
		if !bytes.HasSuffix(line, []byte("\n")) || bytes.Count(line, []byte("\n")) != 1 {
			s.t.Fatalf("message not on one line: %q", line)
		}
		if err := referee.Check(s.version, line, method); err != nil {
			s.t.Fatalf("server sent a message that breaks the %s schema: %v\n%s", s.version, err, line)
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			s.t.Fatal(err)
		}
		return m
	case <-time.After(20 * time.Second):
		s.t.Fatalf("no message within 20s; stderr:\n%s", s.tr.stderr)
		return nil
	}
}

func (s *server) send(line string) {
	s.t.Helper()
	if err := s.tr.send([]byte(line)); err != nil {
		s.t.Fatalf("writing to server: %v", err)
	}
}

func (s *server) request(id int, method string, params any) map[string]any {
	s.t.Helper()
	msg := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	b, _ := json.Marshal(msg)
	s.send(string(b))
	resp := s.next(method)
	if resp["id"] != float64(id) {
		s.t.Fatalf("response id %v, want %d", resp["id"], id)
	}
	return resp
}

func (s *server) initialize(version string) map[string]any {
	s.t.Helper()
	r := s.request(0, "initialize", map[string]any{
		"protocolVersion": version,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "e2e", "version": "1"},
	})
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return r
}

func result(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	r, ok := m["result"].(map[string]any)
	if !ok {
		t.Fatalf("want a result, got %v", m)
	}
	return r
}

func errorCode(t *testing.T, m map[string]any) int {
	t.Helper()
	e, ok := m["error"].(map[string]any)
	if !ok {
		t.Fatalf("want an error, got %v", m)
	}
	return int(e["code"].(float64))
}

func toolText(t *testing.T, r map[string]any) string {
	t.Helper()
	content, _ := r["content"].([]any)
	if len(content) == 0 {
		t.Fatalf("no content in %v", r)
	}
	return content[0].(map[string]any)["text"].(string)
}

func TestWeatherOverStdio(t *testing.T) {
	s := start(t, "2025-11-25")
	init := result(t, s.initialize("2025-11-25"))
	if init["protocolVersion"] != "2025-11-25" || init["serverInfo"].(map[string]any)["name"] != "weather" {
		t.Fatalf("initialize: %v", init)
	}
	if r := result(t, s.request(1, "ping", nil)); len(r) != 0 {
		t.Fatalf("ping: %v", r)
	}

	tools := result(t, s.request(2, "tools/list", nil))["tools"].([]any)
	if len(tools) != 1 {
		t.Fatalf("tools: %v", tools)
	}
	tool := tools[0].(map[string]any)
	in := tool["inputSchema"].(map[string]any)
	props := in["properties"].(map[string]any)
	units := props["units"].(map[string]any)
	if tool["name"] != "get_weather" || in["type"] != "object" || in["additionalProperties"] != false ||
		fmt.Sprint(in["required"]) != "[city]" || props["city"].(map[string]any)["minLength"] != 1.0 ||
		fmt.Sprint(units["enum"]) != "[metric imperial]" || units["default"] != "metric" ||
		tool["annotations"].(map[string]any)["readOnlyHint"] != true {
		t.Fatalf("tool entry: %v", tool)
	}
	outputSchema, _ := json.Marshal(tool["outputSchema"])

	call := func(id int, args any) map[string]any {
		return result(t, s.request(id, "tools/call", map[string]any{"name": "get_weather", "arguments": args}))
	}
	r := call(3, map[string]any{"city": "Lisbon"})
	structured, _ := json.Marshal(r["structuredContent"])
	if r["isError"] == true || r["structuredContent"].(map[string]any)["city"] != "Lisbon" || r["structuredContent"].(map[string]any)["units"] != "metric" {
		t.Fatalf("call: %v", r)
	}
	if err := spectest.Validate(outputSchema, structured); err != nil {
		t.Fatalf("structuredContent does not match the outputSchema: %v", err)
	}
	var fromText any
	if err := json.Unmarshal([]byte(toolText(t, r)), &fromText); err != nil || fmt.Sprint(fromText) != fmt.Sprint(r["structuredContent"]) {
		t.Fatalf("the text block does not carry the structured content: %v", err)
	}
	if again := call(4, map[string]any{"city": "Lisbon", "units": "imperial"}); again["structuredContent"].(map[string]any)["units"] != "imperial" {
		t.Fatalf("imperial: %v", again)
	}

	for i, tt := range []struct {
		args any
		want []string
	}{
		{map[string]any{}, []string{"/city: missing required property"}},
		{map[string]any{"city": 5}, []string{"/city: expected string, got number"}},
		{map[string]any{"city": ""}, []string{"/city: must be at least 1 character long"}},
		{map[string]any{"city": "Oslo", "units": "kelvin"}, []string{`/units: must be one of "metric", "imperial"`}},
		{map[string]any{"city": "Oslo", "unit": "metric"}, []string{`/unit: unknown property; expected one of "city", "units"`}},
		{map[string]any{"city": nil, "units": true}, []string{"/city: expected string, got null", "/units: expected string, got boolean"}},
		{map[string]any{"city": "  "}, []string{"city must not be blank"}}, // the function's own error
	} {
		r := call(10+i, tt.args)
		text := toolText(t, r)
		if r["isError"] != true {
			t.Errorf("%v accepted: %v", tt.args, r)
		}
		for _, w := range tt.want {
			if !strings.Contains(text, w) {
				t.Errorf("%v: %q does not mention %q", tt.args, text, w)
			}
		}
	}

	for _, tt := range []struct {
		line string
		code int
		id   any
	}{
		{`{"jsonrpc":"2.0","id":30,"method":"tools/call","params":{"name":"get_forecast","arguments":{}}}`, -32602, 30.0},
		{`{"jsonrpc":"2.0","id":31,"method":"tools/call","params":{"name":"get_weather","arguments":"Lisbon"}}`, -32602, 31.0},
		{`{"jsonrpc":"2.0","id":32,"method":"resources/list"}`, -32601, 32.0},
		{`{"jsonrpc":"2.0","id":33,"method":"tools/call",`, -32700, nil},
		{`{"id":34,"method":"ping"}`, -32600, 34.0},
		{`"just a string"`, -32600, nil},
	} {
		s.send(tt.line)
		r := s.next("")
		if code := errorCode(t, r); code != tt.code || r["id"] != tt.id {
			t.Errorf("%s: code %d id %v, want %d id %v", tt.line, code, r["id"], tt.code, tt.id)
		}
	}

	// Still serving after all of that.
	if r := call(40, map[string]any{"city": "Porto"}); r["isError"] == true {
		t.Fatalf("call after errors: %v", r)
	}
}

func TestOlderProtocolVersions(t *testing.T) {
	for _, version := range []string{"2024-11-05", "2025-03-26", "2025-06-18"} {
		t.Run(version, func(t *testing.T) {
			s := start(t, version)
			if got := result(t, s.initialize(version))["protocolVersion"]; got != version {
				t.Fatalf("negotiated %v", got)
			}
			tool := result(t, s.request(1, "tools/list", nil))["tools"].([]any)[0].(map[string]any)
			_, hasOutput := tool["outputSchema"]
			_, hasAnnotations := tool["annotations"]
			if hasOutput != (version >= "2025-06-18") || hasAnnotations != (version >= "2025-03-26") {
				t.Fatalf("tool entry for %s: %v", version, tool)
			}
			r := result(t, s.request(2, "tools/call", map[string]any{"name": "get_weather", "arguments": map[string]any{"city": "Rome"}}))
			if _, ok := r["structuredContent"]; ok != (version >= "2025-06-18") || !strings.Contains(toolText(t, r), `"city":"Rome"`) {
				t.Fatalf("call result for %s: %v", version, r)
			}
		})
	}
	s := start(t, "2025-11-25")
	if got := result(t, s.initialize("1.0.0"))["protocolVersion"]; got != "2025-11-25" {
		t.Fatalf("unknown version answered with %v", got)
	}
}

func TestRequestsBeforeInitialize(t *testing.T) {
	s := start(t, "2025-11-25")
	if r := s.request(1, "ping", nil); len(result(t, r)) != 0 {
		t.Fatalf("ping before initialize: %v", r)
	}
	if code := errorCode(t, s.request(2, "tools/list", nil)); code != -32600 {
		t.Fatalf("tools/list before initialize: %d", code)
	}
	s.initialize("2025-11-25")
	if code := errorCode(t, s.request(3, "initialize", map[string]any{"protocolVersion": "2025-11-25"})); code != -32600 {
		t.Fatalf("second initialize: %d", code)
	}
}

func TestLargeMessage(t *testing.T) {
	s := start(t, "2025-11-25")
	s.initialize("2025-11-25")
	city := strings.Repeat("x", 16<<20)
	r := result(t, s.request(1, "tools/call", map[string]any{"name": "get_weather", "arguments": map[string]any{"city": city}}))
	if r["isError"] != true || !strings.Contains(toolText(t, r), "/city: must be at most 100 characters long") {
		t.Fatalf("16 MiB argument: %.200v", r)
	}
	if r := s.request(2, "ping", nil); len(result(t, r)) != 0 {
		t.Fatalf("ping after a large message: %v", r)
	}
}

func TestHostileInputDoesNotStopTheServer(t *testing.T) {
	s := start(t, "2025-11-25")
	s.initialize("2025-11-25")
	hostile := []string{
		strings.Repeat("[", 200000),
		"\xff\xfe\x00garbage",
		`{"jsonrpc":"2.0","id":1e999,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_weather","arguments":{"city":"\ud800"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_weather","arguments":{"city":"a","city":"b"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_weather","arguments":{"units":` + strings.Repeat(`{"a":`, 20000) + `1` + strings.Repeat("}", 20000) + `}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`,
		`{"jsonrpc":"2.0","method":"no/such/notification"}`,
		`{"jsonrpc":"2.0","id":4,"result":{}}`,
	}
	for _, line := range hostile {
		s.send(line)
	}
	// Notifications and stray responses get no reply; every other line gets exactly one.
	for range len(hostile) - 3 {
		s.next("")
	}
	if r := s.request(5, "ping", nil); len(result(t, r)) != 0 {
		t.Fatalf("ping after hostile input: %v", r)
	}
}

func TestExitsCleanlyOnEOF(t *testing.T) {
	s := start(t, "2025-11-25")
	s.initialize("2025-11-25")
	s.tr.close()
	select {
	case err := <-s.tr.exited:
		if err != nil {
			t.Fatalf("exit: %v; stderr:\n%s", err, s.tr.stderr)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("server still running 10s after stdin closed")
	}
	s.tr.exited <- nil // for the cleanup
	if msg := s.tr.stderr.String(); msg != "" {
		t.Errorf("unexpected output on stderr:\n%s", msg)
	}
}
