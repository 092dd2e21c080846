package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/host"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// childProcess runs the test binary as something else when the environment says so: as a
// stdio server that leaves a marker file the moment it starts (MCPGEN_TEST_SERVER=marker,
// the file in MCPGEN_TEST_MARKER), or as mcpgen itself (MCPGEN_TEST_CLI, its arguments in
// JSON), with the process's own stdin and stderr, which a test may make a terminal.
func childProcess() {
	if add, ok := testServers[os.Getenv("MCPGEN_TEST_SERVER")]; ok {
		s := mcp.NewServer(mcp.Implementation{Name: os.Getenv("MCPGEN_TEST_SERVER"), Version: "1"}, nil)
		add(s)
		s.ServeStdio(context.Background())
		os.Exit(0)
	}
	if os.Getenv("MCPGEN_TEST_SERVER") == "marker" {
		os.WriteFile(os.Getenv("MCPGEN_TEST_MARKER"), nil, 0o644)
		s := mcp.NewServer(mcp.Implementation{Name: "marker", Version: "1"}, nil)
		s.AddTool(mcp.Tool{Name: "hello", Description: "Says hello.", InputSchema: `{"type":"object"}`,
			Handler: func(ctx context.Context, c *mcp.ToolCall) { c.ReturnText("hello") }})
		s.ServeStdio(context.Background())
		os.Exit(0)
	}
	if args := os.Getenv("MCPGEN_TEST_CLI"); args != "" {
		var list []string
		if err := json.Unmarshal([]byte(args), &list); err != nil {
			panic(err)
		}
		os.Exit(run(context.Background(), append([]string{"mcpgen"}, list...), os.Stdout, os.Stderr))
	}
}

// configHome points the user's configuration directory (approvals, tokens, the user's own
// mcp.json) at a new directory.
func configHome(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	t.Setenv("HOME", dir)
	if got, _ := os.UserConfigDir(); !strings.HasPrefix(got, dir) {
		t.Skipf("the user's configuration directory is %s here, not under the test's", got)
	}
	return dir
}

// markerServer is a stdio server of the configuration: the test binary, which creates
// marker when it starts.
func markerServer(marker string) map[string]any {
	return map[string]any{"command": os.Args[0], "env": map[string]string{"MCPGEN_TEST_SERVER": "marker", "MCPGEN_TEST_MARKER": marker}}
}

// writeConfig writes servers as .mcp.json into dir and returns its path.
func writeConfig(t *testing.T, dir string, servers map[string]any) string {
	t.Helper()
	b, _ := json.MarshalIndent(map[string]any{"mcpServers": servers}, "", "  ")
	path := filepath.Join(dir, ".mcp.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func started(marker string) bool {
	_, err := os.Stat(marker)
	return err == nil
}

// remoteServer is an MCP server over HTTP that keeps the Authorization header of every
// request.
type remoteServer struct {
	URL  string
	mu   sync.Mutex
	auth []string
}

func newRemoteServer(t *testing.T) *remoteServer {
	rs := &remoteServer{}
	srv := mcp.NewServer(mcp.Implementation{Name: "remote", Version: "1"}, nil)
	srv.AddTool(mcp.Tool{Name: "ping", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *mcp.ToolCall) { c.ReturnText("pong") }})
	h := srv.HTTPHandler(nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rs.mu.Lock()
		rs.auth = append(rs.auth, r.Header.Get("Authorization"))
		rs.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { ts.Close(); h.Close() })
	rs.URL = ts.URL + "/mcp"
	return rs
}

func (rs *remoteServer) requests() []string {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return append([]string(nil), rs.auth...)
}

// A project's file nobody approved starts nothing, whichever command reads it: no process,
// no request; the error says how to approve, and the exit status is 2.
func TestUnapprovedConfigStartsNothing(t *testing.T) {
	home := configHome(t)
	t.Setenv("SECRET_TOKEN", "s3cret")
	dir := t.TempDir()
	marker := filepath.Join(dir, "started")
	remote := newRemoteServer(t)
	path := writeConfig(t, dir, map[string]any{
		"local":  markerServer(marker),
		"remote": map[string]any{"type": "http", "url": remote.URL, "headers": map[string]string{"Authorization": "Bearer ${SECRET_TOKEN}"}},
	})
	for _, args := range [][]string{
		{"servers"}, {"tools"}, {"tools", "local"}, {"call", "local", "hello"}, {"read", "local", "test://x"},
		{"prompt", "local", "p"}, {"import", "local", "-o", filepath.Join(dir, "client")},
	} {
		trust := "--trust" // the local server alone sends nothing
		if len(args) == 1 {
			trust += " --allow-env SECRET_TOKEN"
		}
		want := path + " is a project's configuration you have not approved; nothing was started.\n" +
			"Run mcpgen at a terminal to see what it would run and approve it, or add " + trust + " to start its servers this once without asking (as in CI)\n"
		code, out, errOut := mcpgen(t, append(args, "--config", path)...)
		if code != 2 || out != "" || errOut != "mcpgen "+args[0]+": "+want {
			t.Errorf("mcpgen %s: exit %d, stdout %q, stderr:\n%s\nwant exit 2 and:\nmcpgen %s: %s", strings.Join(args, " "), code, out, errOut, args[0], want)
		}
	}
	if started(marker) {
		t.Error("the command of an unapproved file ran")
	}
	if r := remote.requests(); len(r) > 0 {
		t.Errorf("the server of an unapproved file was sent %d requests: %q", len(r), r)
	}
	if _, err := os.Stat(filepath.Join(home, "mcpgen", "approvals.json")); err == nil {
		t.Error("an approval was recorded")
	}
}

// --trust starts a project's servers this once and records nothing; variables in urls and
// headers go only with --allow-env (or MCPGEN_ALLOW_ENV), and a file that names others is
// refused whole, each at its line and column.
func TestTrustAndAllowEnv(t *testing.T) {
	home := configHome(t)
	t.Setenv("SECRET_TOKEN", "s3cret")
	t.Setenv("MCPGEN_ALLOW_ENV", "")
	dir := t.TempDir()
	marker := filepath.Join(dir, "started")
	path := writeConfig(t, dir, map[string]any{"local": markerServer(marker)})

	code, out, errOut := mcpgen(t, "tools", "--trust", "--config", path)
	if code != 0 || !strings.HasPrefix(out, "SERVER  TOOL   DESCRIPTION\nlocal   hello  Says hello.") || !started(marker) {
		t.Fatalf("--trust: exit %d, started %v\n%s%s", code, started(marker), out, errOut)
	}
	if _, err := os.Stat(filepath.Join(home, "mcpgen", "approvals.json")); err == nil {
		t.Error("--trust recorded an approval")
	}
	if code, _, _ := mcpgen(t, "tools", "--config", path); code != 2 {
		t.Errorf("trusted once, then exit %d without --trust", code)
	}

	os.Remove(marker)
	remote := newRemoteServer(t)
	path = writeConfig(t, dir, map[string]any{
		"local":  markerServer(marker),
		"remote": map[string]any{"type": "http", "url": remote.URL + "?org=${ORG:-none}", "headers": map[string]string{"Authorization": "Bearer ${SECRET_TOKEN}"}},
	})
	code, out, errOut = mcpgen(t, "tools", "--trust", "--allow-env", "UNRELATED", "--config", path)
	want := path + `:12:26: header "Authorization" of server "remote" would send environment variable SECRET_TOKEN, which is not allowed
	hint: variables in url and headers go to the server, so only those the user allows are expanded: allow SECRET_TOKEN, or write the value in the file
` + path + `:15:14: the url of server "remote" would send environment variable ORG, which is not allowed
	hint: variables in url and headers go to the server, so only those the user allows are expanded: allow ORG, or write the value in the file
mcpgen tools: 2 problems in ` + path + `; nothing was started (to let its servers have ORG, SECRET_TOKEN, add --allow-env ORG,SECRET_TOKEN)
`
	if code != 2 || out != "" || errOut != want {
		t.Errorf("--trust without --allow-env: exit %d, stdout %q, stderr:\n%s\nwant:\n%s", code, out, errOut, want)
	}
	if started(marker) || len(remote.requests()) > 0 {
		t.Errorf("a refused file started something: marker %v, requests %q", started(marker), remote.requests())
	}

	// Only the servers that start count: the local one alone needs no variable.
	code, out, errOut = mcpgen(t, "call", "local", "hello", "--trust", "--config", path)
	if code != 0 || out != "hello\n" || len(remote.requests()) > 0 {
		t.Errorf("call local --trust: exit %d, %d requests to remote\n%s%s", code, len(remote.requests()), out, errOut)
	}

	for _, c := range []struct {
		args []string
		env  string
	}{
		{[]string{"--allow-env", "SECRET_TOKEN,ORG"}, ""},
		{[]string{"--allow-env", "SECRET_TOKEN", "--allow-env", "ORG"}, ""},
		{nil, "ORG,SECRET_TOKEN"},
	} {
		t.Setenv("MCPGEN_ALLOW_ENV", c.env)
		code, out, errOut = mcpgen(t, append([]string{"call", "remote", "ping", "--trust", "--config", path}, c.args...)...)
		if code != 0 || out != "pong\n" {
			t.Errorf("%q, MCPGEN_ALLOW_ENV=%q: exit %d\n%s%s", c.args, c.env, code, out, errOut)
		}
	}
	for _, auth := range remote.requests() {
		if auth != "Bearer s3cret" {
			t.Errorf("the server had Authorization %q", auth)
		}
	}
}

// The user's own configuration (~/.config/mcpgen/mcp.json) is trusted, and read when the
// current directory has no .mcp.json.
func TestUserConfigTrusted(t *testing.T) {
	home := configHome(t)
	dir := filepath.Join(home, "mcpgen")
	os.MkdirAll(dir, 0o700)
	marker := filepath.Join(t.TempDir(), "started")
	path := writeConfig(t, dir, map[string]any{"mine": markerServer(marker)})
	os.Rename(path, filepath.Join(dir, "mcp.json"))
	if _, err := os.Stat(".mcp.json"); err == nil {
		t.Fatal("this test runs where there is no .mcp.json")
	}
	code, out, errOut := mcpgen(t, "tools")
	if code != 0 || out != "SERVER  TOOL   DESCRIPTION\nmine    hello  Says hello.\n" || !started(marker) {
		t.Errorf("the user's own configuration: exit %d\n%s%s", code, out, errOut)
	}
}

// /dev/null is a character device but no terminal: there is nobody to ask there.
func TestDevNullIsNoTerminal(t *testing.T) {
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(f) {
		t.Errorf("%s is taken for a terminal", os.DevNull)
	}
}

// mcpgen trust lists the approvals recorded (each file as approved, changed or missing),
// forgets one (given by a relative path too), saying so, or all; a file without an approval
// is an error (exit 2), and a forgotten file's servers ask again: without a terminal they
// start nothing.
func TestTrustCommand(t *testing.T) {
	configHome(t)
	if code, out, errOut := mcpgen(t, "trust"); code != 0 || out != "no project's configuration is approved\n" || errOut != "" {
		t.Errorf("mcpgen trust with no approvals: exit %d\n%s%s", code, out, errOut)
	}
	approvals, err := host.DefaultApprovals()
	if err != nil {
		t.Fatal(err)
	}
	dirs := map[string]string{}
	for _, name := range []string{"kept", "changed", "gone"} {
		dirs[name] = t.TempDir()
		marker := filepath.Join(dirs[name], "started")
		cfg, err := host.LoadConfig(writeConfig(t, dirs[name], map[string]any{name: markerServer(marker)}))
		if err != nil {
			t.Fatal(err)
		}
		var allow []string
		if name == "kept" {
			allow = []string{"TOKEN", "ORG"}
		}
		if err := approvals.Record(cfg, allow); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dirs["changed"], ".mcp.json"), []byte(`{"mcpServers": {}}`), 0o644)
	os.Remove(filepath.Join(dirs["gone"], ".mcp.json"))
	for _, args := range [][]string{{"trust"}, {"trust", "--list"}} {
		code, out, errOut := mcpgen(t, args...)
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if code != 0 || errOut != "" || len(lines) != 4 || strings.Join(strings.Fields(lines[0]), " ") != "FILE APPROVED ALLOWS NOW" {
			t.Fatalf("mcpgen %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
		}
		for _, line := range lines[1:] {
			f := strings.Fields(line)
			want := map[string]string{dirs["kept"]: "ORG,TOKEN as approved", dirs["changed"]: "- changed", dirs["gone"]: "- missing"}[filepath.Dir(f[0])]
			when, err := time.Parse("2006-01-02 15:04 MST", strings.Join(f[1:min(4, len(f))], " "))
			if len(f) < 6 || err != nil || time.Since(when) > 2*time.Minute || strings.Join(f[4:], " ") != want {
				t.Errorf("mcpgen %s: the line %q, want its file, when, and %q", strings.Join(args, " "), line, want)
			}
		}
	}

	t.Chdir(dirs["kept"])
	code, out, errOut := mcpgen(t, "trust", "--forget", ".mcp.json")
	kept := filepath.Join(dirs["kept"], ".mcp.json")
	if code != 0 || out != "forgot the approval of "+kept+": its servers ask again before they start\n" || errOut != "" {
		t.Errorf("mcpgen trust --forget .mcp.json: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := mcpgen(t, "tools", "--config", kept); code != 2 || out != "" || !strings.Contains(errOut, "you have not approved; nothing was started") || started(filepath.Join(dirs["kept"], "started")) {
		t.Errorf("mcpgen tools once its approval is forgotten: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = mcpgen(t, "trust", "--forget", kept)
	if code != 2 || out != "" || errOut != "mcpgen trust: "+kept+" has no approval to forget ('mcpgen trust' lists them)\n" {
		t.Errorf("mcpgen trust --forget of a file without an approval: exit %d\n%s%s", code, out, errOut)
	}
	if list, _ := approvals.List(); len(list) != 2 {
		t.Errorf("after forgetting one of three: %v", list)
	}
	if code, out, errOut := mcpgen(t, "trust", "--forget-all"); code != 0 || out != "forgot 2 approvals\n" || errOut != "" {
		t.Errorf("mcpgen trust --forget-all: exit %d\n%s%s", code, out, errOut)
	}
	if list, _ := approvals.List(); len(list) != 0 {
		t.Errorf("after --forget-all: %v", list)
	}

	for _, args := range [][]string{{"trust", "--list", "--forget-all"}, {"trust", "--forget", "x", "--forget-all"}, {"trust", "x"}} {
		if code, out, errOut := mcpgen(t, args...); code != 2 || out != "" || !strings.Contains(errOut, "Run 'mcpgen trust --help' for usage.") {
			t.Errorf("mcpgen %s: exit %d, want 2 and a usage error\n%s%s", strings.Join(args, " "), code, out, errOut)
		}
	}
	os.WriteFile(approvals.Path, []byte("{"), 0o600)
	if code, _, errOut := mcpgen(t, "trust", "--forget-all"); code != 2 || !strings.Contains(errOut, approvals.Path) {
		t.Errorf("mcpgen trust --forget-all over a damaged file: exit %d\n%s", code, errOut)
	}
	if data, _ := os.ReadFile(approvals.Path); string(data) != "{" {
		t.Errorf("the damaged file was overwritten: %q", data)
	}
}
