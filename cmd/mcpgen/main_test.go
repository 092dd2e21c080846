package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func mcpgen(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), append([]string{"mcpgen"}, args...), &out, &errOut)
	return code, out.String(), errOut.String()
}

// scratchPackage copies a golden case into a directory of this module, so that it loads
// like a user's package, and returns its path relative to this directory.
func scratchPackage(t *testing.T, golden string, withGenerated bool) string {
	t.Helper()
	if err := os.MkdirAll("testdata", 0o777); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("testdata", "pkg")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	files, _ := filepath.Glob(filepath.Join("..", "..", "golden", golden, "*.go"))
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || (!withGenerated && filepath.Base(f) == "mcp_gen.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	return "./" + filepath.ToSlash(dir)
}

func TestCheckCurrentFiles(t *testing.T) {
	code, out, errOut := mcpgen(t, "check", "../../golden/methods", "../../golden/shapes", "../../examples/...")
	if code != 0 || out != "" || errOut != "" {
		t.Fatalf("check on committed files: exit %d\n%s%s", code, out, errOut)
	}
}

func TestGenerateThenCheck(t *testing.T) {
	pkg := scratchPackage(t, "methods", false)

	code, out, errOut := mcpgen(t, "check", pkg)
	if code != 1 || !strings.Contains(out, "--- /dev/null") || !strings.Contains(errOut, "mcp_gen.go is missing") {
		t.Fatalf("check without a generated file: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(pkg, "mcp_gen.go")); !os.IsNotExist(err) {
		t.Fatalf("check wrote a file")
	}

	code, out, errOut = mcpgen(t, "-v", pkg)
	if code != 0 || !strings.HasPrefix(out, "created ") || errOut != "" {
		t.Fatalf("generate: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, _ = mcpgen(t, "-v", pkg); code != 0 || out != "" {
		t.Fatalf("generating again reported changes: %q", out)
	}
	if code, _, _ = mcpgen(t, "--check", pkg); code != 0 {
		t.Fatalf("check after generate: exit %d", code)
	}

	// A changed argument struct makes the generated file stale; the diff shows the change.
	src := filepath.Join(pkg, "index.go")
	b, _ := os.ReadFile(src)
	b = bytes.Replace(b, []byte("Limit int `json:\"limit,omitempty\""), []byte("Offset int `json:\"offset,omitempty\"`\n\tLimit int `json:\"limit,omitempty\""), 1)
	os.WriteFile(src, b, 0o666)
	code, out, errOut = mcpgen(t, "check", pkg)
	if code != 1 || !strings.Contains(out, `+    "offset": {`) || !strings.Contains(errOut, "is stale") || !strings.Contains(errOut, "go generate") {
		t.Fatalf("check after an edit: exit %d\n%s%s", code, out, errOut)
	}
	if code, _, _ = mcpgen(t, pkg); code != 0 {
		t.Fatalf("regenerate: exit %d", code)
	}
	if code, _, _ = mcpgen(t, "check", pkg); code != 0 {
		t.Fatalf("check after regenerating: exit %d", code)
	}

	// Without directives, the generated file is no longer needed.
	b, _ = os.ReadFile(src)
	os.WriteFile(src, bytes.ReplaceAll(b, []byte("//mcp:tool"), []byte("// was a tool")), 0o666)
	if code, _, errOut = mcpgen(t, "check", pkg); code != 1 || !strings.Contains(errOut, "no longer needed") {
		t.Fatalf("check with no directives: exit %d %s", code, errOut)
	}
	if code, out, _ = mcpgen(t, "-v", pkg); code != 0 || !strings.HasPrefix(out, "removed ") {
		t.Fatalf("generate with no directives: exit %d %q", code, out)
	}
}

func TestDiagnosticsExitTwoAndLeaveFilesAlone(t *testing.T) {
	pkg := scratchPackage(t, "methods", true)
	gen := filepath.Join(pkg, "mcp_gen.go")
	before, _ := os.ReadFile(gen)
	src := filepath.Join(pkg, "index.go")
	b, _ := os.ReadFile(src)
	os.WriteFile(src, bytes.Replace(b, []byte(`jsonschema:"minLength=1"`), []byte(`jsonschema:"minLen=1"`), 1), 0o666)

	code, out, errOut := mcpgen(t, pkg)
	if code != 2 || out != "" || !strings.Contains(errOut, `index.go:26:39:`) || !strings.Contains(errOut, `unknown jsonschema tag key "minLen"`) {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if after, _ := os.ReadFile(gen); !bytes.Equal(before, after) {
		t.Fatalf("the generated file changed despite errors")
	}
	if code, _, _ := mcpgen(t, "check", pkg); code != 2 {
		t.Fatalf("check with errors: exit %d", code)
	}
}

func TestUsage(t *testing.T) {
	if code, out, _ := mcpgen(t, "--help"); code != 0 || !strings.Contains(out, "mcpgen check") || !strings.Contains(out, "--check") {
		t.Fatalf("help: exit %d\n%s", code, out)
	}
	if code, out, _ := mcpgen(t, "version"); code != 0 || !strings.HasPrefix(out, "mcpgen ") {
		t.Fatalf("version: exit %d %q", code, out)
	}
	if code, _, errOut := mcpgen(t, "--frobnicate"); code != 2 || !strings.Contains(errOut, "frobnicate") || !strings.Contains(errOut, "mcpgen --help") {
		t.Fatalf("unknown flag: exit %d %q", code, errOut)
	}
	if code, _, errOut := mcpgen(t, "./no/such/dir"); code != 2 || !strings.HasPrefix(errOut, "mcpgen: ") {
		t.Fatalf("missing package: exit %d %q", code, errOut)
	}
	if code, out, _ := mcpgen(t, "help"); code != 0 || !strings.Contains(out, "mcpgen check") {
		t.Fatalf("help command: exit %d\n%s", code, out)
	}
	if code, out, _ := mcpgen(t, "--version"); code != 0 || !strings.HasPrefix(out, "mcpgen version ") {
		t.Fatalf("--version: exit %d %q", code, out)
	}
	if code, _, errOut := mcpgen(t, "bogus"); code != 2 || !strings.Contains(errOut, `unknown command "bogus"`) {
		t.Fatalf("unknown command: exit %d %q", code, errOut)
	}
	for _, name := range []string{"../escape.go", "notgo.txt", "x_test.go"} {
		if code, _, errOut := mcpgen(t, "-o", name, "../../golden/methods"); code != 2 || !strings.Contains(errOut, "output file name") {
			t.Errorf("-o %s: exit %d %q", name, code, errOut)
		}
	}
}

func TestRenamedOutputReplacesTheOldFile(t *testing.T) {
	pkg := scratchPackage(t, "methods", true)
	code, out, errOut := mcpgen(t, "check", "-o", "tools_gen.go", pkg)
	if code != 1 || !strings.Contains(errOut, "tools_gen.go is missing") || !strings.Contains(errOut, "mcp_gen.go is no longer needed") {
		t.Fatalf("check with a new output name: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, _ = mcpgen(t, "-v", "-o", "tools_gen.go", pkg); code != 0 || !strings.Contains(out, "removed") || !strings.Contains(out, "created") {
		t.Fatalf("generate with a new output name: exit %d %q", code, out)
	}
	if _, err := os.Stat(filepath.Join(pkg, "mcp_gen.go")); !os.IsNotExist(err) {
		t.Fatalf("the old generated file is still there")
	}
}

func TestNewUsage(t *testing.T) {
	if code, out, _ := mcpgen(t, "new", "--help"); code != 0 || !strings.Contains(out, "--module") || !strings.Contains(out, "--name") || !strings.Contains(out, "<dir>") {
		t.Fatalf("new --help: exit %d\n%s", code, out)
	}
	if code, out, _ := mcpgen(t, "--help"); code != 0 || !strings.Contains(out, "mcpgen new") {
		t.Fatalf("--help does not mention new:\n%s", out)
	}
	full := t.TempDir()
	if err := os.WriteFile(filepath.Join(full, "x"), nil, 0o666); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"new"}, "give exactly one directory"},
		{[]string{"new", "a", "b"}, "give exactly one directory"},
		{[]string{"new", full}, "is not empty"},
		{[]string{"new", "--module", "bad path!", filepath.Join(t.TempDir(), "p")}, `invalid module path "bad path!"`},
		{[]string{"new", "--name", "a b", filepath.Join(t.TempDir(), "p")}, `invalid server name "a b"`},
		{[]string{"new", filepath.Join(t.TempDir(), "My Server")}, "give one with --name"},
		{[]string{"new", "--name", "srv", filepath.Join(t.TempDir(), "My Server")}, "give one with --module"},
		{[]string{"new", "--mcpgen-dir", t.TempDir(), filepath.Join(t.TempDir(), "p")}, "is not an mcpgen checkout"},
		{[]string{"new", "--frobnicate", "p"}, "frobnicate"},
	} {
		code, _, errOut := mcpgen(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("mcpgen %s: exit %d %q, want 2 and %q", strings.Join(tc.args, " "), code, errOut, tc.want)
		}
	}
	// Nothing was written for the rejected projects.
	if entries, _ := os.ReadDir(full); len(entries) != 1 {
		t.Errorf("the non-empty directory changed: %v", entries)
	}
}

// A server package with a committed snapshot is held to it: a compatible change of its tools
// is a note, a breaking one fails check until mcpgen --snapshot accepts it.
func TestCheckHoldsAServerToItsSnapshot(t *testing.T) {
	pkg := scratchPackage(t, "methods", false)
	if code, out, errOut := mcpgen(t, "--snapshot", "-v", pkg); code != 0 || !strings.Contains(out, "created "+strings.TrimPrefix(pkg, "./")+"/mcp_snapshot.json") {
		t.Fatalf("--snapshot: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := mcpgen(t, "check", pkg); code != 0 || out != "" || errOut != "" {
		t.Fatalf("check right after: exit %d\n%s%s", code, out, errOut)
	}
	src := filepath.Join(pkg, "index.go")
	orig, _ := os.ReadFile(src)
	edit := func(from, to string) {
		t.Helper()
		if !strings.Contains(string(orig), from) {
			t.Fatalf("index.go has no %q", from)
		}
		os.WriteFile(src, []byte(strings.Replace(string(orig), from, to, 1)), 0o666)
		if code, _, errOut := mcpgen(t, pkg); code != 0 {
			t.Fatalf("generate: %s", errOut)
		}
	}

	// An optional property added to Query: compatible.
	edit("	Limit int `json:\"limit,omitempty\"", "	Offset int `json:\"offset,omitempty\"`\n	Limit int `json:\"limit,omitempty\"")
	code, out, errOut := mcpgen(t, "check", pkg)
	if code != 0 || !strings.Contains(out, "compatible: tool search: input /properties/offset: added, optional") || !strings.Contains(errOut, "changed compatibly") {
		t.Errorf("compatible change: exit %d\n%s%s", code, out, errOut)
	}

	// Limit made required: breaking.
	edit("`json:\"limit,omitempty\" jsonschema:\"minimum=1,maximum=50,default=10\"`", "`json:\"limit\" jsonschema:\"minimum=1,maximum=50\"`")
	code, out, errOut = mcpgen(t, "check", pkg)
	if code != 1 || !strings.Contains(out, "breaking:   tool search: input /properties/limit: became required") || !strings.Contains(errOut, "break their callers") {
		t.Errorf("breaking change: exit %d\n%s%s", code, out, errOut)
	}
	// Accepted on purpose.
	if code, _, errOut := mcpgen(t, "--snapshot", pkg); code != 0 {
		t.Fatal(errOut)
	}
	if code, out, errOut := mcpgen(t, "check", pkg); code != 0 || out != "" {
		t.Errorf("after --snapshot: exit %d\n%s%s", code, out, errOut)
	}
}

// mcpgen -v notes the tools a package registers with mcpfunc.AddTool (found by its package
// path and name, whatever the import's name, instantiated or not) whose function one
// //mcp:tool line would hand to generated code; a function literal, a function that is a
// tool already, and another package's AddTool get no note, and nothing is noted without -v,
// nor by check.
func TestQuickPathNote(t *testing.T) {
	os.MkdirAll("testdata", 0o777)
	dir, err := os.MkdirTemp("testdata", "pkg")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	src := `package quick

import (
	"context"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	quickpath "github.com/mcpgen/mcpgen/runtime/mcpfunc"
)

type In struct {
	Name string ` + "`json:\"name\"`" + `
}

// Greet greets.
func Greet(ctx context.Context, in In) (string, error) { return "Hello, " + in.Name, nil }

type Svc struct{}

func (*Svc) Echo(ctx context.Context, in In) (string, error) { return in.Name, nil }

// Tagged is a tool already.
//
//mcp:tool tagged
func Tagged(ctx context.Context, in In) (string, error) { return in.Name, nil }

// Shout is registered by this package's AddTool, not the quick path's.
func Shout(ctx context.Context, in In) (string, error) { return in.Name + "!", nil }

func AddTool(s *mcp.Server, t mcp.Tool, fn func(context.Context, In) (string, error)) {}

func Register(s *mcp.Server, svc *Svc) {
	quickpath.AddTool(s, mcp.Tool{Name: "greet", Description: "Greets."}, Greet)
	quickpath.AddTool[In, string](s, mcp.Tool{Name: "echo"}, svc.Echo)
	quickpath.AddTool(s, mcp.Tool{Name: "literal"}, func(ctx context.Context, in In) (string, error) { return "", nil })
	quickpath.AddTool(s, mcp.Tool{Name: "again"}, Tagged)
	AddTool(s, mcp.Tool{Name: "shout"}, Shout)
}
`
	if err := os.WriteFile(filepath.Join(dir, "quick.go"), []byte(src), 0o666); err != nil {
		t.Fatal(err)
	}
	pkg := "./" + filepath.ToSlash(dir)
	code, out, errOut := mcpgen(t, "-v", pkg)
	file := filepath.Join(dir, "quick.go")
	want := file + `:32:2: note: tool "greet" is registered with mcpfunc.AddTool, which derives its schema and decodes its arguments by reflection on every call
	hint: //mcp:tool greet in the doc comment of Greet (quick.go:15) makes generated code do it, faster, with the doc comments as descriptions; RegisterMCP then registers it, in place of this call
` + file + `:33:2: note: tool "echo" is registered with mcpfunc.AddTool, which derives its schema and decodes its arguments by reflection on every call
	hint: //mcp:tool echo above Svc.Echo (quick.go:19), under a doc comment (the tool's description, which it needs), makes generated code do it, faster, with the doc comments as descriptions; RegisterMCP then registers it, in place of this call
`
	if code != 0 || !strings.HasPrefix(out, "created ") || errOut != want {
		t.Errorf("mcpgen -v: exit %d\n%s%s\nwant on stderr:\n%s", code, out, errOut, want)
	}
	if code, out, errOut := mcpgen(t, pkg); code != 0 || out != "" || errOut != "" {
		t.Errorf("mcpgen without -v: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := mcpgen(t, "check", pkg); code != 0 || out != "" || errOut != "" {
		t.Errorf("mcpgen check: exit %d\n%s%s", code, out, errOut)
	}
}
