package host

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

func env(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
}

func TestParseConfig(t *testing.T) {
	data := `{
  "mcpServers": {
    "weather": {"command": "./weather", "args": ["--units", "${UNITS:-metric}"], "env": {"KEY": "${API_KEY}"}, "cwd": "/srv"},
    "remote": {"type": "http", "url": "https://${HOST}/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}, "timeout": 90},
    "implied-http": {"url": "http://localhost:3001/mcp", "timeout": "1m30s"},
    "legacy": {"type": "sse", "url": "http://localhost:3001/sse"},
    "socket": {"type": "ws", "url": "wss://example.com/mcp"},
    "implied-ws": {"url": "ws://localhost:3002/ws"},
    "alias": {"type": "websocket", "url": "ws://127.0.0.1:3003/ws"},
    "explicit": {"type": "stdio", "command": "npx", "args": ["-y", "pkg@1.0.0"]},
    "off": {"command": "nothing", "disabled": true}
  }
}`
	cfg, err := ParseConfig(".mcp.json", []byte(data), env(map[string]string{"API_KEY": "k1", "HOST": "example.com", "TOKEN": "t0k"}))
	if err != nil {
		t.Fatal(err)
	}
	// What goes to a remote server expands once approved, with the variables allowed.
	if r := cfg.Servers[5]; r.URL != "https://${HOST}/mcp" || r.Headers["Authorization"] != "Bearer ${TOKEN}" {
		t.Errorf("before approval: url %q, headers %v", r.URL, r.Headers)
	}
	if err := cfg.Approve("HOST", "TOKEN"); err != nil {
		t.Fatal(err)
	}
	want := []ServerConfig{
		{Name: "alias", Transport: WS, URL: "ws://127.0.0.1:3003/ws"},
		{Name: "explicit", Transport: Stdio, Command: "npx", Args: []string{"-y", "pkg@1.0.0"}},
		{Name: "implied-http", Transport: HTTP, URL: "http://localhost:3001/mcp", Timeout: 90 * time.Second},
		{Name: "implied-ws", Transport: WS, URL: "ws://localhost:3002/ws"},
		{Name: "legacy", Transport: SSE, URL: "http://localhost:3001/sse"},
		{Name: "remote", Transport: HTTP, URL: "https://example.com/mcp", Headers: map[string]string{"Authorization": "Bearer t0k"}, Timeout: 90 * time.Second},
		{Name: "socket", Transport: WS, URL: "wss://example.com/mcp"},
		{Name: "weather", Transport: Stdio, Command: "./weather", Args: []string{"--units", "metric"}, Env: []string{"KEY=k1"}, Dir: "/srv"},
	}
	if !reflect.DeepEqual(cfg.Servers, want) {
		t.Errorf("servers\n got %+v\nwant %+v", cfg.Servers, want)
	}
}

func TestParseVSCodeConfig(t *testing.T) {
	cfg, err := ParseConfig("mcp.json", []byte(`{"servers": {"fs": {"type": "stdio", "command": "mcp-fs", "args": ["/tmp"]}, "gh": {"type": "http", "url": "https://api.example.com/mcp/"}}}`), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Servers) != 2 || cfg.Servers[0].Name != "fs" || cfg.Servers[1].Transport != HTTP {
		t.Errorf("servers %+v", cfg.Servers)
	}
}

// Every mistake at once, each where it is.
func TestConfigProblems(t *testing.T) {
	data := `{
  "mcpServers": {
    "good": {"command": "ok"},
    "bad name": {"command": "x"},
    "kind": {"type": "pigeon", "url": "ws://x"},
    "nothing": {"args": ["a"]},
    "remote": {"type": "http"},
    "num": {"command": "x", "args": [1], "env": {"A": "${MISSING}"}, "timeout": "soon"},
    "socket": {"type": "ws"},
    "plain": {"type": "ws", "url": "http://localhost:3000/mcp"}
  }
}`
	_, err := ParseConfig("dir/.mcp.json", []byte(data), env(nil))
	var ce *ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v, want a ConfigError", err)
	}
	want := []string{
		`dir/.mcp.json:4:5: server name "bad name" cannot form tool names (mcp_bad name_tool): model APIs take letters, digits, _ and - only`,
		`dir/.mcp.json:5:22: unknown type "pigeon" of server "kind"`,
		`dir/.mcp.json:6:16: server "nothing" runs over stdio but has no command`,
		`dir/.mcp.json:7:15: server "remote" is reached over http but has no url`,
		`dir/.mcp.json:8:38: an item of args is a number, not a string`,
		`dir/.mcp.json:8:55: environment variable MISSING is not set`,
		`dir/.mcp.json:8:81: timeout is not a positive number of seconds or a duration`,
		`dir/.mcp.json:9:15: server "socket" is reached over ws but has no url`,
		`dir/.mcp.json:10:36: url "http://localhost:3000/mcp" of server "plain" is not a ws:// or wss:// URL`,
	}
	var got []string
	for _, p := range ce.Problems {
		got = append(got, fmt.Sprintf("%s:%d:%d: %s", p.File, p.Line, p.Col, p.Message))
		if p.Hint == "" {
			t.Errorf("no hint for %q", p.Message)
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(ce.Problems[0].Hint, `"bad_name"`) {
		t.Errorf("hint %q suggests no name", ce.Problems[0].Hint)
	}
}

func TestConfigSyntaxError(t *testing.T) {
	_, err := ParseConfig("x.json", []byte("{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"}\n    \"b\": {}\n  }\n}"), env(nil))
	if err == nil || !strings.HasPrefix(err.Error(), "x.json:4:5: not valid JSON") {
		t.Errorf("error %v", err)
	}
	for _, bad := range []string{``, `[]`, `{"other": {}}`, `{"mcpServers": []}`, `{"mcpServers": {"a": "cmd"}}`, `{"mcpServers": {"a": {"command": "x", "url": "http://y"}}}`, `{"mcpServers": {"a": {"type": "http", "url": "ftp://y"}}}`} {
		_, err := ParseConfig("x.json", []byte(bad), env(nil))
		var ce *ConfigError
		if !errors.As(err, &ce) || len(ce.Problems) != 1 {
			t.Errorf("%s: error %v, want one problem", bad, err)
		}
	}
}

func TestQualifiedName(t *testing.T) {
	for _, c := range []struct{ server, tool, want string }{
		{"weather", "get_weather", "mcp_weather_get_weather"},
		{"fs", "read.file", "mcp_fs_read_file"},
		{"my-server", "naïve tool", "mcp_my-server_na_ve_tool"},
	} {
		if got := QualifiedName(c.server, c.tool); got != c.want {
			t.Errorf("QualifiedName(%q, %q) = %q, want %q", c.server, c.tool, got, c.want)
		}
	}
	long := QualifiedName("a-server-with-a-long-name", "a_tool_whose_name_goes_on_and_on_and_on_for_a_while")
	if len(long) != MaxNameLength || !strings.HasPrefix(long, "mcp_a-server-with-a-long-name_a_tool_whose_") {
		t.Errorf("long name %q (%d)", long, len(long))
	}
	other := QualifiedName("a-server-with-a-long-name", "a_tool_whose_name_goes_on_and_on_and_on_for_a_while_longer")
	if other == long || len(other) != MaxNameLength {
		t.Errorf("two long names shorten to the same %q", other)
	}
	if QualifiedName("a-server-with-a-long-name", "a_tool_whose_name_goes_on_and_on_and_on_for_a_while") != long {
		t.Error("shortening is not deterministic")
	}
}
