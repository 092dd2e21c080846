package e2e

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestNewProject does what a new user does, as the README's Quickstart says and with the go
// command's defaults (GOFLAGS=-buildvcs=auto: mcpgen's build carries a version stamped from
// git, which no module proxy has): build mcpgen, scaffold a project, add the greet tool of
// the Quickstart and the second tool the project's README shows, each in a new file,
// regenerate, vet, test, call greet with go tool mcpgen as the Quickstart does, and run the
// server over stdio and HTTP, calling the tools. Then it changes a tool without regenerating:
// check mode and go test fail with a diff until go generate runs. Last, it gives the server
// a command-line argument as the README shows.
func TestNewProject(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	root := userClone(t)
	mcpgen := filepath.Join(work, "mcpgen")
	runCmd(t, root, "go", "build", "-o", mcpgen, "./cmd/mcpgen") // the Quickstart's "build it first"
	if out := runCmd(t, work, "go", "version", "-m", mcpgen); !strings.Contains(out, "\tmod\tgithub.com/mcpgen/mcpgen\tv0.0.0-") {
		t.Fatalf("mcpgen's build carries no version stamped from git:\n%s", out)
	}

	out := runCmd(t, work, mcpgen, "new", "hello")
	if !strings.Contains(out, "Created hello, module hello, server hello") || !strings.Contains(out, `README.md
("Which mcpgen") says how to pin it`) {
		t.Errorf("mcpgen new said:\n%s", out)
	}
	dir := filepath.Join(work, "hello")
	for _, f := range []string{"go.mod", "go.sum", "main.go", "tools.go", "mcp_gen.go", "tools_test.go", "server_test.go", "README.md", ".gitignore", ".github/workflows/mcp.yml"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("the new project lacks %s", f)
		}
	}
	gomod, _ := os.ReadFile(filepath.Join(dir, "go.mod"))
	if !bytes.Contains(gomod, []byte("tool github.com/mcpgen/mcpgen/cmd/mcpgen")) || !bytes.Contains(gomod, []byte("replace github.com/mcpgen/mcpgen => "+root)) {
		t.Errorf("go.mod does not use this checkout of mcpgen as a tool:\n%s", gomod)
	}
	// Light: telemetry's modules only for a project that asks for it (TestNewProjectWithTelemetry),
	// and none for the tool (mcpgen links no OpenTelemetry).
	for _, heavy := range []string{"go.opentelemetry.io", "prometheus", "google.golang.org/grpc", "google.golang.org/protobuf"} {
		if bytes.Contains(gomod, []byte(heavy)) {
			t.Errorf("a new project's go.mod requires %s:\n%s", heavy, gomod)
		}
	}

	if out := runCmd(t, dir, "gofmt", "-l", "."); out != "" {
		t.Errorf("the new project is not gofmt'd: %s", out)
	}

	// A second tool, in a file of its own, as the project's README shows.
	readme, _ := os.ReadFile(filepath.Join(dir, "README.md"))
	addTool := readmeExample(t, string(readme), "## Add a tool")
	write(t, filepath.Join(dir, "add.go"), addTool)
	if out := runCmd(t, dir, "go", "generate", "./..."); out != "" {
		t.Errorf("go generate printed %q; the README says it prints nothing", out)
	}
	runCmd(t, dir, "go", "vet", "./...")
	runCmd(t, dir, "go", "test", "./...")
	if out := runCmd(t, dir, "gofmt", "-l", "."); out != "" {
		t.Errorf("not gofmt'd after go generate: %s", out)
	}
	bin := filepath.Join(dir, "hello")
	runCmd(t, dir, "go", "build", "-o", bin, ".")

	// The README's Quickstart: greet.go, generated, built, and called with go tool mcpgen.
	quick, _ := os.ReadFile("../README.md")
	write(t, filepath.Join(dir, "greet.go"), readmeExample(t, string(quick), "## Quickstart"))
	runCmd(t, dir, "go", "generate", "./...")
	runCmd(t, dir, "go", "build", "-o", bin, ".")
	if out, errOut, code := runStatus(t, dir, "go", "tool", "mcpgen", "call", "--stdio", "./hello", "greet", "name=Ada", "excited=true"); code != 0 || out != "Hello, Ada!\n" {
		t.Errorf("go tool mcpgen call greet: exit %d %q %s", code, out, errOut)
	}
	if out, errOut, code := runStatus(t, dir, "go", "tool", "mcpgen", "call", "--stdio", "./hello", "greet"); code != 1 || !strings.Contains(out+errOut, "/name: missing required property") {
		t.Errorf("go tool mcpgen call greet without a name: exit %d %q %q", code, out, errOut)
	}

	for _, tc := range transportsOf(bin) {
		t.Run(tc.name, func(t *testing.T) {
			c := newClient(t, tc.start(t), "2025-11-25", nil)
			if name := c.initialize(map[string]any{})["serverInfo"].(map[string]any)["name"]; name != "hello" {
				t.Errorf("server name %v", name)
			}
			if got := names(c.must("tools/list", nil)["tools"].([]any), "name"); !slices.Equal(got, []string{"add", "count_words", "greet"}) {
				t.Errorf("tools %v", got)
			}
			sum := c.must("tools/call", map[string]any{"name": "add", "arguments": map[string]any{"a": 2, "b": 0.5}})
			if s := sum["structuredContent"].(map[string]any)["sum"]; s != 2.5 {
				t.Errorf("add: %v", sum)
			}
			counts := c.must("tools/call", map[string]any{"name": "count_words", "arguments": map[string]any{"text": "one two three"}})
			if w := counts["structuredContent"].(map[string]any)["words"]; w != 3.0 {
				t.Errorf("count_words: %v", counts)
			}
		})
	}

	// --http: an address without a host gets a hint; one beyond this machine is printed as
	// a URL that works here, with a warning that other hosts are refused.
	if _, stderr, code := runStatus(t, dir, bin, "--http", "8080"); code != 2 || !strings.Contains(stderr, "--http 127.0.0.1:8080") {
		t.Errorf("--http 8080: exit %d %q", code, stderr)
	}
	t.Run("http all interfaces", func(t *testing.T) {
		cmd := exec.Command(bin, "--http", ":0")
		stderr, _ := cmd.StderrPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }()
		r := bufio.NewReader(stderr)
		first, _ := r.ReadString('\n')
		second, _ := r.ReadString('\n')
		_, url, _ := strings.Cut(strings.TrimSpace(first), "serving MCP at ")
		if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.Contains(second, "warning") || !strings.Contains(second, "AllowedHosts") {
			t.Fatalf("the server said:\n%s%s", first, second)
		}
		go io.Copy(io.Discard, r)
		resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusForbidden {
			t.Errorf("the printed URL %s is refused", url)
		}
	})

	// Change the arguments of add without regenerating: check mode notices, with a diff, and
	// so does go test.
	write(t, filepath.Join(dir, "add.go"), strings.Replace(addTool, "\tB float64 `json:\"b\"`\n", "\tB float64 `json:\"b\"`\n\t// C is a third number.\n\tC float64 `json:\"c,omitempty\"`\n", 1))
	stdout, stderr, code := runStatus(t, dir, mcpgen, "check", "./...")
	if code != 1 || !strings.Contains(stdout, `+    "c": {`) || !strings.Contains(stdout, "--- mcp_gen.go") || !strings.Contains(stderr, "mcp_gen.go is stale") {
		t.Errorf("check after changing a tool: exit %d, stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	stdout, _, code = runStatus(t, dir, "go", "test", "./...")
	if code != 1 || !strings.Contains(stdout, "--- FAIL: TestGeneratedCodeIsCurrent") || !strings.Contains(stdout, `+    "c": {`) || !strings.Contains(stdout, "go generate ./...") {
		t.Errorf("go test after changing a tool: exit %d\n%s", code, stdout)
	}
	runCmd(t, dir, "go", "generate", "./...")
	if _, stderr, code := runStatus(t, dir, mcpgen, "check", "./..."); code != 0 {
		t.Errorf("check after go generate: exit %d\n%s", code, stderr)
	}
	runCmd(t, dir, "go", "test", "-run", "TestGeneratedCodeIsCurrent", "./...")

	// A command-line argument, as the README shows: a method tool on a value made from it
	// in setup, and the tests given one.
	examples := readmeExamples(t, string(readme), "## Command-line arguments")
	if len(examples) != 3 {
		t.Fatalf("the README shows %d Go examples of command-line arguments, want notes.go, setup and serverArgs", len(examples))
	}
	write(t, filepath.Join(dir, "notes.go"), examples[0])
	replaceIn(t, filepath.Join(dir, "main.go"), "func setup(", "\n}\n", examples[1])
	replaceIn(t, filepath.Join(dir, "server_test.go"), "var serverArgs", "\n", examples[2])
	runCmd(t, dir, "go", "generate", "./...")
	runCmd(t, dir, "go", "vet", "./...")
	runCmd(t, dir, "go", "test", "./...")
	runCmd(t, dir, "go", "build", "-o", bin, ".")
	if _, stderr, code := runStatus(t, dir, bin); code != 2 || !strings.Contains(stderr, "hello: give the directory of notes to serve") || !strings.Contains(stderr, "Usage: hello") {
		t.Errorf("without its argument: exit %d %q, want 2 with the error and the usage", code, stderr)
	}
	notes := t.TempDir()
	write(t, filepath.Join(notes, "todo.txt"), "water the plants")
	for _, tc := range transportsOf(bin, notes) {
		t.Run("argument "+tc.name, func(t *testing.T) {
			c := newClient(t, tc.start(t), "2025-11-25", nil)
			c.initialize(map[string]any{})
			got := c.must("tools/call", map[string]any{"name": "read_note", "arguments": map[string]any{"name": "todo.txt"}})
			if text := got["content"].([]any)[0].(map[string]any)["text"]; text != "water the plants" {
				t.Errorf("read_note: %v", got)
			}
		})
	}
}

// userClone returns a copy of this checkout as a user's clone of it is: its files (those git
// tracks and those it would, as they are now) in a git repository of their own, with one
// commit, whose .git is a directory. The go command stamps what it builds there with a
// version from git; it does not in a git worktree, whose .git is a file.
func userClone(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "mcpgen")
	for _, name := range strings.Fields(runCmd(t, "..", "git", "ls-files", "--cached", "--others", "--exclude-standard")) {
		fi, err := os.Lstat(filepath.Join("..", name))
		if errors.Is(err, fs.ErrNotExist) || err == nil && !fi.Mode().IsRegular() {
			continue // deleted and not yet committed, or a link (.cache)
		}
		data, err := os.ReadFile(filepath.Join("..", name))
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), data, fi.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	runCmd(t, dir, "git", "init", "-q")
	runCmd(t, dir, "git", "add", "-A")
	runCmd(t, dir, "git", "-c", "user.name=e2e", "-c", "user.email=e2e@example.com", "commit", "-q", "-m", "clone")
	return dir
}

// mcpgen new --telemetry makes a server that exports OpenTelemetry and serves Prometheus's
// /metrics: its go.mod requires their modules, and its own tests (the server over HTTP with
// --metrics) pass.
func TestNewProjectWithTelemetry(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	if out, errOut, code := mcpgen(t, work, "new", "--telemetry", "traced"); code != 0 {
		t.Fatalf("mcpgen new --telemetry: exit %d\n%s%s", code, out, errOut)
	}
	dir := filepath.Join(work, "traced")
	gomod, _ := os.ReadFile(filepath.Join(dir, "go.mod"))
	main, _ := os.ReadFile(filepath.Join(dir, "main.go"))
	if !bytes.Contains(gomod, []byte("go.opentelemetry.io/otel")) || !bytes.Contains(gomod, []byte("prometheus")) || !bytes.Contains(main, []byte("otelmcp.Setup")) {
		t.Errorf("go.mod and main.go of a project with telemetry:\n%s\n%s", gomod, main)
	}
	runCmd(t, dir, "go", "vet", "./...")
	runCmd(t, dir, "go", "test", "./...")
}

// replaceIn replaces, in a file, the text from the first start up to and including the
// first end after it, with repl.
func replaceIn(t *testing.T, path, start, end, repl string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	i := strings.Index(text, start)
	j := strings.Index(text[max(i, 0):], end)
	if i < 0 || j < 0 {
		t.Fatalf("%s has no %q ... %q", path, start, end)
	}
	write(t, path, text[:i]+repl+text[i+j+len(end):])
}

// readmeExample returns the first Go code block after a heading of a README.
func readmeExample(t *testing.T, readme, heading string) string {
	t.Helper()
	return readmeExamples(t, readme, heading)[0]
}

// readmeExamples returns the Go code blocks of a section of a README, from its heading to
// the next heading of the same level.
func readmeExamples(t *testing.T, readme, heading string) []string {
	t.Helper()
	_, section, ok := strings.Cut(readme, "\n"+heading+"\n")
	level, _, _ := strings.Cut(heading, " ")
	section, _, _ = strings.Cut(section, "\n"+level+" ")
	var blocks []string
	for ok {
		_, section, ok = strings.Cut(section, "\n```go\n")
		code, rest, closed := strings.Cut(section, "\n```\n")
		if !ok || !closed {
			break
		}
		blocks = append(blocks, code+"\n")
		section = rest
	}
	if len(blocks) == 0 {
		t.Fatalf("the README has no Go example under %q", heading)
	}
	return blocks
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o666); err != nil {
		t.Fatal(err)
	}
}

// command is a command run in dir as a user runs it: the project stands alone (no go.work
// applies), and the go command stamps builds from git (-buildvcs=auto, its default, which
// this repository's machines turn off).
func command(dir, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-buildvcs=auto")
	return cmd
}

// runCmd runs a command in dir and returns its output, failing the test if it fails.
func runCmd(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	out, err := command(dir, name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// runStatus runs a command in dir and returns its output and exit status.
func runStatus(t *testing.T, dir, name string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := command(dir, name, args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if exit, ok := err.(*exec.ExitError); ok {
		return o.String(), e.String(), exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), 0
}
