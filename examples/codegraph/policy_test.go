package main

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// withPolicy serves a fresh graph in this process under a policy.
func withPolicy(t *testing.T, p Policy) *mcp.Client {
	t.Helper()
	c, g := inProcess(t, nil)
	g.Policy = p
	return c
}

// What may be written: before, surgical_replace_code wrote any file under any indexed root
// (.git/config, whose core.fsmonitor runs at the next git status; a Makefile), and
// index_repository made any module on disk writable.
func TestWritePolicy(t *testing.T) {
	dir := module(t)
	os.MkdirAll(filepath.Join(dir, ".git"), 0o755)
	for name, text := range map[string]string{".git/config": "[core]\n\tbare = false\n", "Makefile": "all:\n\tgo build\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	other := copyTree(t, "testdata/accounts") // a module the operator did not name
	replace := func(c *mcp.Client, file, target, with string) string {
		res := callRaw(t, c, "surgical_replace_code", map[string]any{"file_path": file, "target_code": target, "replacement_code": with})
		if res.IsError {
			return res.Content[0].(mcp.Text).Text
		}
		return ""
	}

	p, err := NewPolicy([]string{dir}, false, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := withPolicy(t, p)
	call[IndexReport](t, c, "index_repository", map[string]any{"path": dir})
	if msg := toolError(t, c, "index_repository", map[string]any{"path": other}); !strings.Contains(msg, "may not be indexed") || !strings.Contains(msg, "-index-any") {
		t.Errorf("index_repository outside the roots: %s", msg)
	}
	if msg := replace(c, "shapes.go", "func Unused() {}", "func Unused() { }"); !strings.Contains(msg, "writing is off") {
		t.Errorf("without -write: %q", msg)
	}

	p.Write = true
	c = withPolicy(t, p)
	call[IndexReport](t, c, "index_repository", map[string]any{"path": dir})
	for file, want := range map[string]string{
		".git/config": "it is hidden (.git)",
		"Makefile":    "only source files of the indexed languages (.go, .py",
	} {
		if msg := replace(c, file, "\t", "\t\tfsmonitor = touch /tmp/pwned\n\t"); !strings.Contains(msg, want) {
			t.Errorf("%s with -write: %q, want %q", file, msg, want)
		}
	}
	if msg := replace(c, "shapes.go", "func Unused() {}", "func Unused() { }"); msg != "" {
		t.Errorf("a source file with -write: %s", msg)
	}
	b, _ := os.ReadFile(filepath.Join(dir, ".git", "config"))
	if strings.Contains(string(b), "fsmonitor") {
		t.Errorf(".git/config was written: %q", b)
	}

	// -index-any indexes the other module, which stays unwritable.
	p.IndexAny = true
	c = withPolicy(t, p)
	call[IndexReport](t, c, "index_repository", map[string]any{"path": other})
	if msg := replace(c, filepath.Join(other, "user", "user.go"), "no name", "none"); !strings.Contains(msg, "only inside the directories it was started with") {
		t.Errorf("a module indexed with -index-any: %q", msg)
	}

	// -write-path allows what it names, and nothing else.
	p, err = NewPolicy([]string{dir}, false, false, []string{filepath.Join(dir, "Makefile")})
	if err != nil {
		t.Fatal(err)
	}
	c = withPolicy(t, p)
	call[IndexReport](t, c, "index_repository", map[string]any{"path": dir})
	if msg := replace(c, "Makefile", "go build", "go build ./..."); msg != "" {
		t.Errorf("-write-path Makefile: %s", msg)
	}
	if msg := replace(c, "shapes.go", "func Unused() { }", "func Unused() {}"); !strings.Contains(msg, "writing is off") {
		t.Errorf("a source file with -write-path Makefile only: %q", msg)
	}
}

// Without -write the tool is not offered.
func TestNoWriteToolWithoutWrite(t *testing.T) {
	dir := module(t)
	for _, write := range []bool{false, true} {
		args := []string{"-root", dir}
		if write {
			args = append(args, "-write")
		}
		c := server(t, false, false, nil, args...)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		tools, err := c.ListTools(ctx)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		has := slices.ContainsFunc(tools, func(tl *mcp.Tool) bool { return tl.Name == "surgical_replace_code" })
		if has != write {
			t.Errorf("-write %v: surgical_replace_code offered: %v", write, has)
		}
	}
}

// A listener on a non-loopback address without protection is refused at start (before, a
// client that sent Host: 127.0.0.1 got a session, and surgical_replace_code); with a token,
// every request must carry it.
func TestNonLoopbackListener(t *testing.T) {
	db := filepath.Join(t.TempDir(), "graph.db")
	cmd := exec.Command(binary, "-db", db, "-http", "0.0.0.0:0", "-write", module(t))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(stderr.String(), "refusing to serve on") || !strings.Contains(stderr.String(), "-token-file") {
			t.Errorf("codegraph -http 0.0.0.0:0 without a token: %v, %s", err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("codegraph -http 0.0.0.0:0 without a token served: %s", stderr.String())
	}

	token := filepath.Join(t.TempDir(), "token")
	os.WriteFile(token, []byte("a-token-of-twenty-chars\n"), 0o600)
	url := startHTTP(t, []string{"-db", db, "-http", "0.0.0.0:0", "-token-file", token, "-public-url", "http://codegraph.test:1/mcp"})
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	post := func(auth string) int {
		req, _ := http.NewRequest("POST", url, strings.NewReader(body))
		req.Host = "127.0.0.1"
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", "Bearer "+auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post(""); code != http.StatusUnauthorized {
		t.Errorf("no token, Host 127.0.0.1: %d", code)
	}
	if code := post("a-token-of-twenty-charZ"); code != http.StatusUnauthorized {
		t.Errorf("a wrong token: %d", code)
	}
	if code := post("a-token-of-twenty-chars"); code != http.StatusOK {
		t.Errorf("the token: %d", code)
	}
}
