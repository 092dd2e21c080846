package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// project writes a .mcp.json into a new directory and returns its path.
func project(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), ".mcp.json")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// userConfigDir points the user's configuration directory at a new directory.
func userConfigDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	t.Setenv("HOME", dir) // where os.UserConfigDir looks on macOS
	if got, err := os.UserConfigDir(); err != nil || (got != dir && !strings.HasPrefix(got, dir)) {
		t.Skipf("the user's configuration directory is %s here, not under the test's", got)
	}
	return dir
}

// A project's file starts nothing until approved: no process, no request.
func TestProjectConfigStartsNothing(t *testing.T) {
	userConfigDir(t)
	var requests atomic.Int32
	remote := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		http.Error(w, "no", http.StatusNotFound)
	}))
	defer remote.Close()
	marker := filepath.Join(t.TempDir(), "started")
	path := project(t, fmt.Sprintf(`{"mcpServers": {
  "local": {"command": "sh", "args": ["-c", "touch %s; exit 3"]},
  "remote": {"type": "http", "url": %q}
}}`, marker, remote.URL+"/mcp"))
	cfg, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.NeedsApproval() {
		t.Fatal("a project's file needs no approval")
	}
	h := Start(cfg, &Options{RestartMin: time.Hour})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	for _, st := range h.Servers() {
		if st.State != Failed || !errors.Is(st.Err, ErrNotApproved) || !strings.Contains(st.Err.Error(), path+" is not approved") {
			t.Errorf("server %s: %s, %v; want failed, not approved", st.Name, st.State, st.Err)
		}
	}
	time.Sleep(200 * time.Millisecond)
	h.Close()
	if _, err := os.Stat(marker); err == nil {
		t.Error("the command of an unapproved file ran")
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests to the server of an unapproved file", n)
	}
	for _, st := range h.Servers() {
		if st.State != Stopped {
			t.Errorf("server %s is %s after Close", st.Name, st.State)
		}
	}

	// Approved, the same file starts both: the gate above is the approval, nothing else.
	if err := cfg.Approve(); err != nil {
		t.Fatal(err)
	}
	h = Start(cfg, &Options{RestartMin: time.Hour})
	defer h.Close()
	if err := h.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("approved, the command did not run: %v", err)
	}
	if requests.Load() == 0 {
		t.Error("approved, the remote server was not reached")
	}
	h.Close()
	goleak.VerifyNone(t, goleak.IgnoreCurrent())
}

// Variables in urls and headers expand only when allowed; every one that is not is listed
// at its line and column, and the configuration stays unapproved.
func TestApproveVariables(t *testing.T) {
	data := `{
  "mcpServers": {
    "api": {"type": "http", "url": "https://${API_HOST}/mcp?key=${API_KEY}", "headers": {"X-Org": "${ORG:-none}"}},
    "gh": {"type": "sse", "url": "https://example.com/sse", "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}", "X-Key": "${API_KEY}"}},
    "local": {"command": "run", "args": ["--token", "${GITHUB_TOKEN}"], "env": {"KEY": "${API_KEY}"}}
  }
}`
	vars := env(map[string]string{"API_HOST": "api.example.com", "API_KEY": "s3cret", "GITHUB_TOKEN": "ghp_x"})
	cfg, err := ParseConfig("dir/.mcp.json", []byte(data), vars)
	if err != nil {
		t.Fatal(err)
	}
	// Not approved: nothing the file sends holds a value, while local values are expanded.
	for _, s := range cfg.Servers {
		for _, v := range append([]string{s.URL}, mapValues(s.Headers)...) {
			if strings.Contains(v, "s3cret") || strings.Contains(v, "ghp_x") || strings.Contains(v, "api.example.com") {
				t.Errorf("server %s holds a variable's value before approval: %q", s.Name, v)
			}
		}
	}
	if l := cfg.Servers[2]; strings.Join(l.Args, " ") != "--token ghp_x" || l.Env[0] != "KEY=s3cret" {
		t.Errorf("local server: %+v", l)
	}

	err = cfg.Approve("API_HOST")
	var ce *ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("Approve: %v, want a ConfigError", err)
	}
	want := []string{
		`dir/.mcp.json:3:36: the url of server "api" would send environment variable API_KEY, which is not allowed`,
		`dir/.mcp.json:3:99: header "X-Org" of server "api" would send environment variable ORG, which is not allowed`,
		`dir/.mcp.json:4:90: header "Authorization" of server "gh" would send environment variable GITHUB_TOKEN, which is not allowed`,
		`dir/.mcp.json:4:125: header "X-Key" of server "gh" would send environment variable API_KEY, which is not allowed`,
	}
	var got []string
	for _, p := range ce.Problems {
		got = append(got, fmt.Sprintf("%s:%d:%d: %s", p.File, p.Line, p.Col, p.Message))
		if !strings.Contains(p.Hint, "allow") {
			t.Errorf("hint %q", p.Hint)
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !cfg.NeedsApproval() || cfg.Servers[0].URL != "https://${API_HOST}/mcp?key=${API_KEY}" {
		t.Errorf("a refused approval changed the configuration: %v, %q", cfg.NeedsApproval(), cfg.Servers[0].URL)
	}

	// A program that starts some servers only needs their variables allowed.
	picked, _ := ParseConfig("dir/.mcp.json", []byte(data), vars)
	picked.Servers = picked.Servers[1:] // gh and local
	if got := strings.Join(picked.Sends(), ","); got != "GITHUB_TOKEN,API_KEY" {
		t.Errorf("Sends of gh and local: %s", got)
	}
	if err := picked.Approve("GITHUB_TOKEN", "API_KEY"); err != nil || picked.Servers[0].Headers["X-Key"] != "s3cret" {
		t.Errorf("approving gh and local: %v, %+v", err, picked.Servers[0])
	}
	if got := strings.Join(cfg.Sends(), ","); got != "API_HOST,API_KEY,ORG,GITHUB_TOKEN" {
		t.Errorf("Sends: %s", got)
	}

	// All allowed; ORG is not set, so its default goes.
	if err := cfg.Approve("API_HOST", "API_KEY", "ORG", "GITHUB_TOKEN"); err != nil {
		t.Fatal(err)
	}
	if api, gh := cfg.Servers[0], cfg.Servers[1]; api.URL != "https://api.example.com/mcp?key=s3cret" || api.Headers["X-Org"] != "none" ||
		gh.Headers["Authorization"] != "Bearer ghp_x" || cfg.NeedsApproval() {
		t.Errorf("approved: %+v %+v", api, gh)
	}

	// An allowed variable that is not set is a problem too; a url that is not http once
	// expanded is one.
	cfg, _ = ParseConfig("x.json", []byte(`{"mcpServers": {"a": {"type": "http", "url": "${BASE}/mcp", "headers": {"K": "${UNSET}"}}}}`), env(map[string]string{"BASE": "ftp://x"}))
	err = cfg.Approve("BASE", "UNSET")
	if err == nil || err.Error() != "x.json:1:46: url \"ftp://x/mcp\" of server \"a\" is not an http:// or https:// URL\nx.json:1:78: environment variable UNSET is not set\n\thint: set it, or give a default: ${UNSET:-value}" {
		t.Errorf("Approve: %v", err)
	}
}

func mapValues(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// The user's own configuration is trusted as it is, however it is reached; the same content
// anywhere else is a project's.
func TestUserConfigTrusted(t *testing.T) {
	dir := userConfigDir(t)
	content := `{"mcpServers": {"api": {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${MY_TOKEN}"}}}}`
	t.Setenv("MY_TOKEN", "mine")
	user, err := UserConfigPath()
	if err != nil || user != filepath.Join(dir, "mcpgen", "mcp.json") {
		t.Fatalf("UserConfigPath: %s, %v", user, err)
	}
	os.MkdirAll(filepath.Dir(user), 0o700)
	os.WriteFile(user, []byte(content), 0o600)
	link := filepath.Join(t.TempDir(), "linked.json")
	if err := os.Symlink(user, link); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{user, link} {
		cfg, err := LoadConfig(path)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.NeedsApproval() || cfg.Servers[0].Headers["Authorization"] != "Bearer mine" {
			t.Errorf("%s: needs approval %v, headers %v", path, cfg.NeedsApproval(), cfg.Servers[0].Headers)
		}
	}
	cfg, err := LoadConfig(project(t, content))
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.NeedsApproval() || cfg.Servers[0].Headers["Authorization"] != "Bearer ${MY_TOKEN}" {
		t.Errorf("a copy of the user's file is trusted: %v %v", cfg.NeedsApproval(), cfg.Servers[0].Headers)
	}
}

// Approvals are kept by absolute path and content, in a file only the user can read.
func TestApprovals(t *testing.T) {
	dir := userConfigDir(t)
	a, err := DefaultApprovals()
	if err != nil || a.Path != filepath.Join(dir, "mcpgen", "approvals.json") {
		t.Fatalf("DefaultApprovals: %+v, %v", a, err)
	}
	path := project(t, `{"mcpServers": {"a": {"command": "x"}}}`)
	cfg, _ := LoadConfig(path)
	if _, ok, changed, err := a.Lookup(cfg); ok || changed || err != nil {
		t.Errorf("before Record: %v %v %v", ok, changed, err)
	}
	if err := a.Record(cfg, []string{"B", "A", "B"}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct {
		path string
		mode os.FileMode
	}{{a.Path, 0o600}, {filepath.Dir(a.Path), 0o700 | os.ModeDir}} {
		if fi, err := os.Stat(p.path); err != nil || fi.Mode() != p.mode {
			t.Errorf("%s: %v, %v; want %v", p.path, fi.Mode(), err, p.mode)
		}
	}
	// Found again through a relative path to the same file.
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	os.Chdir(filepath.Dir(path))
	again, _ := LoadConfig(".mcp.json")
	if allow, ok, _, err := a.Lookup(again); !ok || err != nil || strings.Join(allow, ",") != "A,B" {
		t.Errorf("Lookup: %v %v %v", allow, ok, err)
	}
	// A change of one byte is another file.
	os.WriteFile(path, []byte(`{"mcpServers": {"a": {"command": "y"}}}`), 0o644)
	changed, _ := LoadConfig(path)
	if _, ok, ch, err := a.Lookup(changed); ok || !ch || err != nil {
		t.Errorf("changed file: ok %v, changed %v, %v", ok, ch, err)
	}
	if err := a.Forget(cfg.Review().File); err != nil {
		t.Fatal(err)
	}
	if _, ok, ch, _ := a.Lookup(cfg); ok || ch {
		t.Error("forgotten, still approved")
	}
	leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(a.Path), ".approvals-*"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
	// A damaged file is an error, not an empty one to overwrite.
	os.WriteFile(a.Path, []byte("{"), 0o600)
	if err := a.Record(cfg, nil); err == nil || !strings.Contains(err.Error(), a.Path) {
		t.Errorf("Record over a damaged file: %v", err)
	}
}

// Approvals lists what it keeps, by path, and forgets all of it at once; a damaged file is
// said, not overwritten.
func TestApprovalsListAndForgetAll(t *testing.T) {
	userConfigDir(t)
	a, _ := DefaultApprovals()
	if list, err := a.List(); err != nil || len(list) != 0 {
		t.Errorf("no approvals file: %v %v", list, err)
	}
	first, _ := LoadConfig(project(t, `{"mcpServers": {"a": {"command": "x"}}}`))
	second, _ := LoadConfig(project(t, `{"mcpServers": {"b": {"command": "y"}}}`))
	before := time.Now().UTC().Truncate(time.Second)
	a.Record(second, []string{"TOKEN"})
	a.Record(first, nil)
	list, err := a.List()
	if err != nil || len(list) != 2 {
		t.Fatalf("List: %v %v", list, err)
	}
	want := []*Config{first, second}
	if list[0].File > list[1].File {
		want = []*Config{second, first}
	}
	for i, got := range list {
		r := want[i].Review()
		if got.File != r.File || got.SHA256 != r.SHA256 || got.Time.Before(before) || (want[i] == second) != (len(got.AllowEnv) == 1 && got.AllowEnv[0] == "TOKEN") {
			t.Errorf("approval %d: %+v, want one of %s (%s)", i, got, r.File, r.SHA256)
		}
	}
	if err := a.ForgetAll(); err != nil {
		t.Fatal(err)
	}
	if list, err := a.List(); err != nil || len(list) != 0 {
		t.Errorf("after ForgetAll: %v %v", list, err)
	}
	if _, ok, _, _ := a.Lookup(first); ok {
		t.Error("forgotten, still approved")
	}
	os.WriteFile(a.Path, []byte("{"), 0o600)
	if _, err := a.List(); err == nil || !strings.Contains(err.Error(), a.Path) {
		t.Errorf("List of a damaged file: %v", err)
	}
	if err := a.ForgetAll(); err == nil {
		t.Error("ForgetAll overwrote a damaged file")
	}
}

// AskAt stops waiting for the answer when its context ends, having read nothing: a pipe or
// a terminal is polled while the context lasts (before, the read blocked until a line came,
// whatever the context). The answer typed after is there for the next question.
func TestAskAtEndsWithItsContext(t *testing.T) {
	review := &Review{File: "/p/.mcp.json", Servers: []ServerConfig{{Name: "a", Transport: Stdio, Command: "a"}}}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	type answer struct {
		yes bool
		err error
	}
	done := make(chan answer, 1)
	start := time.Now()
	go func() {
		yes, err := AskAt(r, io.Discard)(ctx, review)
		done <- answer{yes, err}
	}()
	select {
	case a := <-done:
		if a.yes || !errors.Is(a.err, context.DeadlineExceeded) {
			t.Errorf("AskAt once its context ended: %v, %v", a.yes, a.err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("AskAt returned %v after its context ended", d)
		}
	case <-time.After(5 * time.Second):
		w.Write([]byte("n\n")) // let the read end
		<-done
		t.Fatal("AskAt still waited for an answer 5 s after its context (200 ms) ended")
	}
	w.Write([]byte("y\n"))
	if yes, err := AskAt(r, io.Discard)(context.Background(), review); !yes || err != nil {
		t.Errorf("the next question: %v, %v", yes, err)
	}
}

// Consent: asked once, recorded; asked again when the file changes; --trust approves
// without recording; nobody to ask is an error that says what would be sent.
func TestConsent(t *testing.T) {
	userConfigDir(t)
	approvals, _ := DefaultApprovals()
	t.Setenv("TEAM_TOKEN", "t")
	content := `{"mcpServers": {"api": {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${TEAM_TOKEN}"}}}}`
	path := project(t, content)
	var asked []*Review
	answer := true
	c := &Consent{Approvals: approvals, Ask: func(ctx context.Context, r *Review) (bool, error) {
		asked = append(asked, r)
		return answer, nil
	}}
	load := func() *Config {
		cfg, err := LoadConfig(path)
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	ctx := context.Background()

	cfg := load()
	if err := c.Approve(ctx, cfg); err != nil || cfg.NeedsApproval() || cfg.Servers[0].Headers["Authorization"] != "Bearer t" {
		t.Fatalf("approve: %v, %+v", err, cfg.Servers[0])
	}
	if len(asked) != 1 || asked[0].File != path || asked[0].Changed || strings.Join(asked[0].Variables, ",") != "TEAM_TOKEN" {
		t.Fatalf("asked %+v", asked)
	}
	// The first question says a yes is kept.
	if !strings.HasSuffix(asked[0].String(), "came from.\nA yes is remembered until the file changes.\n") {
		t.Errorf("the first review:\n%s", asked[0])
	}
	// Recorded: the next run is not asked.
	if err := c.Approve(ctx, load()); err != nil || len(asked) != 1 {
		t.Errorf("second run: %v, asked %d times", err, len(asked))
	}
	// Changed: asked again, and told so; declined.
	os.WriteFile(path, []byte(strings.Replace(content, "example.com", "evil.example", 1)), 0o644)
	answer = false
	err := c.Approve(ctx, load())
	var na *NotApprovedError
	if !errors.As(err, &na) || !na.Declined || !na.Changed || !errors.Is(err, ErrNotApproved) || len(asked) != 2 || !asked[1].Changed {
		t.Fatalf("changed file: %v, asked %d", err, len(asked))
	}
	// It shows what changed, not the whole file again.
	want := path + ` changed since you approved it; it now asks to start 1 MCP server. What changed:

  api (http)
-   url     https://example.com/mcp
+   url     https://evil.example/mcp
    header  Authorization: Bearer ${TEAM_TOKEN}
    sends   the values of TEAM_TOKEN to this server

The file is a project's: approve it only if you trust where the project came from.
A yes is remembered until the file changes.
`
	if got := asked[1].String(); got != want {
		t.Errorf("the review of the changed file:\n%s\nwant:\n%s", got, want)
	}
	// Nobody to ask.
	c.Ask = nil
	err = c.Approve(ctx, load())
	if !errors.As(err, &na) || na.Declined || !na.Changed || strings.Join(na.Variables, ",") != "TEAM_TOKEN" {
		t.Errorf("no one to ask: %v", err)
	}
	// Trust, without the variable allowed, then with it; not recorded.
	c.Trust = true
	var ce *ConfigError
	if err := c.Approve(ctx, load()); !errors.As(err, &ce) || len(ce.Problems) != 1 {
		t.Errorf("trust without --allow-env: %v", err)
	}
	c.AllowEnv = []string{"TEAM_TOKEN"}
	cfg = load()
	if err := c.Approve(ctx, cfg); err != nil || cfg.NeedsApproval() {
		t.Errorf("trust: %v", err)
	}
	c.Trust = false
	if err := c.Approve(ctx, load()); !errors.Is(err, ErrNotApproved) {
		t.Errorf("trusted once, approved for good: %v", err)
	}
	// A Config built in code is the program's own.
	if err := c.Approve(ctx, &Config{Servers: []ServerConfig{{Name: "x", Transport: Stdio, Command: "x"}}}); err != nil {
		t.Errorf("code's config: %v", err)
	}
}

// The review shows what would run and be sent as written (the OAuth client a server names
// too), and no character of the file can hide another on the terminal.
func TestReview(t *testing.T) {
	data := `{"mcpServers": {
  "tool": {"command": "./bin/tool", "args": ["--name", "two words", "${HOME}/x", "it's"], "env": {"NODE_OPTIONS": "--require ./x.js", "KEY": "${API_KEY}"}, "cwd": "sub"},
  "sneaky": {"command": "echo\u001b[2K\rsafe", "args": ["a\u202eb"]},
  "api": {"type": "http", "url": "https://${API_HOST}/mcp", "headers": {"Authorization": "Bearer ${TOKEN}", "X-Plain": "1"},
    "oauth": {"clientId": "my-app\u001b[8m", "issuer": "https://auth.example.com"}}
}}`
	cfg, err := ParseConfig("/p/.mcp.json", []byte(data), env(map[string]string{"HOME": "/home/u", "API_KEY": "k"}))
	if err != nil {
		t.Fatal(err)
	}
	r := cfg.Review()
	want := `/p/.mcp.json asks to start 3 MCP servers:

  api (http)
    url     https://${API_HOST}/mcp
    header  Authorization: Bearer ${TOKEN}
    header  X-Plain: 1
    sends   the values of API_HOST, TOKEN to this server
    oauth   client "my-app\x1b[8m" at https://auth.example.com, for this server's tokens

  sneaky (stdio)
    runs    "echo\x1b[2K\rsafe" "a\u202eb"

  tool (stdio)
    runs    ./bin/tool --name 'two words' ${HOME}/x 'it'\''s'
    env     NODE_OPTIONS='--require ./x.js'
    env     KEY=${API_KEY}
    in      sub

The file is a project's: approve it only if you trust where the project came from.
`
	if got := r.String(); got != want {
		t.Errorf("review:\n%s\nwant:\n%s", got, want)
	}
	if len(r.SHA256) != 64 || strings.Join(r.Variables, ",") != "API_HOST,TOKEN" {
		t.Errorf("review %+v", r)
	}
	if (&Config{}).Review() != nil {
		t.Error("a Config built in code has a review")
	}
}

// The review of a file that changed since it was approved shows each server that is new
// (+), gone (-) or changed (its lines that are new or gone), and names the others.
func TestReviewOfAChange(t *testing.T) {
	read := func(data string) *Review {
		t.Helper()
		cfg, err := ParseConfig("/p/.mcp.json", []byte(data), env(nil))
		if err != nil {
			t.Fatal(err)
		}
		return cfg.Review()
	}
	before := read(`{"mcpServers": {
  "db": {"command": "db-server", "args": ["--ro"]},
  "docs": {"command": "docs"},
  "old": {"type": "http", "url": "https://old.example/mcp"}
}}`)
	r := read(`{"mcpServers": {
  "db": {"command": "db-server", "args": ["--rw"], "env": {"DSN": "postgres://x"}},
  "docs": {"command": "docs"},
  "new": {"command": "npx", "args": ["-y", "something"]}
}}`)
	r.Changed, r.Before = true, before.reviewed()
	want := `/p/.mcp.json changed since you approved it; it now asks to start 3 MCP servers. What changed:

  db (stdio)
-   runs    db-server --ro
+   runs    db-server --rw
+   env     DSN=postgres://x

+ new (stdio)
+   runs    npx -y something

- old (http), removed

  unchanged: docs

The file is a project's: approve it only if you trust where the project came from.
`
	if got := r.String(); got != want {
		t.Errorf("review:\n%s\nwant:\n%s", got, want)
	}
}

// AskAt: y or yes approves; anything else, or no answer, does not; nothing after the
// answer's line is read.
func TestAskAt(t *testing.T) {
	review := &Review{File: "/p/.mcp.json", Servers: []ServerConfig{{Name: "a", Transport: Stdio, Command: "a"}}}
	for in, want := range map[string]bool{"y\nrest": true, " YES \n": true, "\n": false, "n\n": false, "yes please\n": false, "": false, "y": true} {
		r := strings.NewReader(in)
		var out strings.Builder
		got, err := AskAt(r, &out)(context.Background(), review)
		if err != nil || got != want {
			t.Errorf("%q: %v, %v; want %v", in, got, err, want)
		}
		if !strings.Contains(out.String(), "asks to start 1 MCP server:\n") || !strings.Contains(out.String(), "Start it? [y/N] ") {
			t.Errorf("%q: asked\n%s", in, out.String())
		}
		if in == "y\nrest" && r.Len() != len("rest") {
			t.Errorf("read %d bytes past the answer", len("rest")-r.Len())
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := AskAt(strings.NewReader("y\n"), &strings.Builder{})(ctx, review); err == nil {
		t.Error("asked with a cancelled context")
	}
}
