package gen

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// scratchDir makes a directory in testdata, inside this module, so that packages in it load
// like a user's.
func scratchDir(t *testing.T, name string) string {
	t.Helper()
	if err := os.MkdirAll("testdata", 0o777); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("testdata", name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	abs, _ := filepath.Abs(dir)
	return abs
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o666); err != nil {
		t.Fatal(err)
	}
}

// generateIn runs Generate on the packages and writes what it returns.
func generateIn(t *testing.T, dir string, patterns ...string) []File {
	t.Helper()
	res, err := Generate(Config{Dir: dir, Patterns: patterns})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Diagnostics) > 0 {
		t.Fatalf("diagnostics: %v", res.Diagnostics)
	}
	for _, f := range res.Files {
		if _, err := Write(f); err != nil {
			t.Fatal(err)
		}
	}
	return res.Files
}

func goBuild(t *testing.T, dir string, pkgs ...string) {
	t.Helper()
	cmd := exec.Command("go", append([]string{"vet"}, pkgs...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go vet %s: %v\n%s", strings.Join(pkgs, " "), err, out)
	}
}

var directiveLine = regexp.MustCompile(`(?m)^//mcp:.*$`)

const emptyRegister = "func RegisterMCP(s *mcp.Server) {}\n"

// A server whose last directive is removed keeps compiling: its generated file keeps a
// RegisterMCP that adds nothing while main calls it, and goes once main does not.
func TestNoDirectivesLeftInAServer(t *testing.T) {
	dir := scratchDir(t, "empty-main")
	for _, name := range []string{"main.go", "weather.go", DefaultFileName} {
		b, err := os.ReadFile(filepath.Join("..", "examples", "weather", name))
		if err != nil {
			t.Fatal(err)
		}
		if name == "weather.go" {
			b = directiveLine.ReplaceAll(b, nil)
		}
		writeFile(t, filepath.Join(dir, name), string(b))
	}
	files := generateIn(t, dir)
	if len(files) != 1 || !bytes.HasSuffix(files[0].Content, []byte(emptyRegister)) {
		t.Fatalf("generated %d files:\n%s", len(files), files[0].Content)
	}
	goBuild(t, dir, ".")
	if again := generateIn(t, dir); len(again) != 1 || !bytes.Equal(again[0].Content, files[0].Content) {
		t.Fatalf("a second run changed the file")
	}

	main := filepath.Join(dir, "main.go")
	b, _ := os.ReadFile(main)
	writeFile(t, main, strings.Replace(string(b), "RegisterMCP(srv)", "_ = srv", 1))
	if files := generateIn(t, dir); len(files) != 1 || files[0].Content != nil {
		t.Fatalf("the generated file was not removed: %d files", len(files))
	}
	if _, err := os.Stat(filepath.Join(dir, DefaultFileName)); !os.IsNotExist(err) {
		t.Fatalf("%s is still there", DefaultFileName)
	}
	goBuild(t, dir, ".")
}

// A package whose RegisterMCP another package of the module calls, or its own tests, keeps
// an empty one, though mcpgen loads the package alone (as go generate has it).
func TestNoDirectivesLeftInALibrary(t *testing.T) {
	dir := scratchDir(t, "empty-lib")
	tool := `package tools

// Hello says hello.
//
//mcp:tool
func Hello() string { return "hello" }
`
	writeFile(t, filepath.Join(dir, "tools", "tools.go"), tool)
	if files := generateIn(t, filepath.Join(dir, "tools")); len(files) != 1 || files[0].Content == nil {
		t.Fatalf("no generated file")
	}
	root, _ := filepath.Abs("..")
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		t.Fatal(err)
	}
	app := `package main

import (
	"github.com/mcpgen/mcpgen/runtime/mcp"
	tl "github.com/mcpgen/mcpgen/` + filepath.ToSlash(rel) + `/tools"
)

func main() {
	srv := mcp.NewServer(mcp.Implementation{Name: "app", Version: "0"}, nil)
	tl.RegisterMCP(srv)
}
`
	writeFile(t, filepath.Join(dir, "app", "main.go"), app)
	writeFile(t, filepath.Join(dir, "tools", "tools.go"), directiveLine.ReplaceAllString(tool, ""))

	files := generateIn(t, filepath.Join(dir, "tools"))
	if len(files) != 1 || !bytes.HasSuffix(files[0].Content, []byte(emptyRegister)) {
		t.Fatalf("with a caller in another package: %d files", len(files))
	}
	goBuild(t, dir, "./...")

	// Only a test of the package calls it.
	os.RemoveAll(filepath.Join(dir, "app"))
	test := `package tools

import (
	"testing"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

func TestRegister(t *testing.T) { RegisterMCP(mcp.NewServer(mcp.Implementation{Name: "t", Version: "0"}, nil)) }
`
	writeFile(t, filepath.Join(dir, "tools", "tools_test.go"), test)
	if files := generateIn(t, filepath.Join(dir, "tools")); len(files) != 1 || files[0].Content == nil {
		t.Fatalf("with a caller in a test: %d files", len(files))
	}
	goBuild(t, dir, "./...")

	// Nothing calls it.
	os.Remove(filepath.Join(dir, "tools", "tools_test.go"))
	if files := generateIn(t, filepath.Join(dir, "tools")); len(files) != 1 || files[0].Content != nil {
		t.Fatalf("without callers, the file was not removed: %d files", len(files))
	}
}
