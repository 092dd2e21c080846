package scaffold

import (
	"bytes"
	"context"
	"go/format"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/docscheck"
	"github.com/mcpgen/mcpgen/templates"
	"golang.org/x/mod/modfile"
)

func TestGoVersionIsMCPGens(t *testing.T) {
	data, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.Parse("go.mod", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.Go.Version != GoVersion {
		t.Errorf("GoVersion %s, but mcpgen's go.mod says %s", GoVersion, f.Go.Version)
	}
}

func TestLocalFindsThisCheckout(t *testing.T) {
	src, err := Local()
	if err != nil {
		t.Fatal(err)
	}
	root, _ := filepath.Abs("..")
	if src.Dir != root || src.Version != "v0.0.0" {
		t.Errorf("Local() = %+v, want the checkout at %s", src, root)
	}
}

// What a build recorded decides the mcpgen a new project uses: a version with a checksum
// (from the module proxy) is a release; a version the go command stamped from git in a
// checkout is not, "+dirty" or not, tagged or not, and the checkout (a replace directive's,
// or this source file's) is used instead.
func TestLocalTellsACheckoutFromARelease(t *testing.T) {
	root, _ := filepath.Abs("..")
	src := filepath.Join(root, "scaffold")
	checkout := Source{Version: "v0.0.0", Dir: root}
	for _, tc := range []struct {
		name string
		mod  *debug.Module
		src  string
		want Source
	}{
		{"release", &debug.Module{Path: ModulePath, Version: "v1.2.3", Sum: "h1:abc="}, "/home/u/go/pkg/mod/github.com/mcpgen/mcpgen@v1.2.3/scaffold", Source{Version: "v1.2.3"}},
		{"pseudo-version from the proxy", &debug.Module{Path: ModulePath, Version: "v0.0.0-20261126141354-459582db7a29", Sum: "h1:abc="}, "", Source{Version: "v0.0.0-20261126141354-459582db7a29"}},
		{"stamped from git", &debug.Module{Path: ModulePath, Version: "v0.0.0-20261126141354-459582db7a29"}, src, checkout},
		{"stamped from git, dirty", &debug.Module{Path: ModulePath, Version: "v0.0.0-20261126141354-459582db7a29+dirty"}, src, checkout},
		{"stamped from a tag", &debug.Module{Path: ModulePath, Version: "v1.2.3"}, src, checkout},
		{"devel", &debug.Module{Path: ModulePath, Version: "(devel)"}, src, checkout},
		{"no build info", nil, src, checkout},
		{"replaced", &debug.Module{Path: ModulePath, Version: "v1.2.3", Replace: &debug.Module{Path: root}}, "", checkout},
		{"replaced relatively", &debug.Module{Path: ModulePath, Version: "v1.2.3", Replace: &debug.Module{Path: "../mcpgen"}}, src, checkout},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := local(tc.mod, tc.src)
			if err != nil || got != tc.want {
				t.Errorf("local = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
	// A checkout's build without its source path (-trimpath) cannot tell where it is.
	for _, mod := range []*debug.Module{{Path: ModulePath, Version: "v0.0.0-20261126141354-459582db7a29"}, {Path: ModulePath, Version: "v1.2.3"}} {
		if got, err := local(mod, ""); err == nil || !strings.Contains(err.Error(), "--mcpgen-dir") {
			t.Errorf("local(%s, no source) = %+v, %v; want an error that names --mcpgen-dir", mod.Version, got, err)
		}
	}
}

// Both kinds of project render: from a checkout (with a replace directive) and from a
// release (with a version and no replace).
func TestRender(t *testing.T) {
	for _, tc := range []struct {
		name string
		data templates.Data
	}{
		{"checkout", templates.Data{Module: "example.com/hello", Name: "hello", GoVersion: GoVersion, MCPGenVersion: "v0.0.0", MCPGenDir: "/src/mcpgen"}},
		{"release", templates.Data{Module: "example.com/hello", Name: "hello", GoVersion: GoVersion, MCPGenVersion: "v1.2.3"}},
		{"long name", templates.Data{Module: "example.com/hello", Name: "a-much-longer-server.name_2", GoVersion: GoVersion, MCPGenVersion: "v1.2.3"}},
		{"telemetry", templates.Data{Module: "example.com/hello", Name: "hello", GoVersion: GoVersion, MCPGenVersion: "v1.2.3", Telemetry: true}},
		{"openapi", templates.Data{Module: "example.com/hello", Name: "hello", GoVersion: GoVersion, MCPGenVersion: "v1.2.3", OpenAPI: true, OpenAPIEnv: "HELLO"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := render(dir, tc.data); err != nil {
				t.Fatal(err)
			}
			files, _ := listFiles(dir)
			if got := strings.Join(files, " "); got != ".github/workflows/mcp.yml .gitignore README.md generate_test.go go.mod main.go server_test.go tools.go tools_test.go" {
				t.Errorf("files: %s", got)
			}
			gomod, _ := os.ReadFile(filepath.Join(dir, "go.mod"))
			f, err := modfile.Parse("go.mod", gomod, nil)
			if err != nil {
				t.Fatalf("go.mod: %v\n%s", err, gomod)
			}
			if f.Module.Mod.Path != "example.com/hello" || len(f.Tool) != 1 || f.Tool[0].Path != "github.com/mcpgen/mcpgen/cmd/mcpgen" ||
				len(f.Require) != 1 || f.Require[0].Mod.Version != tc.data.MCPGenVersion {
				t.Errorf("go.mod:\n%s", gomod)
			}
			readme, _ := os.ReadFile(filepath.Join(dir, "README.md"))
			workflow, _ := os.ReadFile(filepath.Join(dir, ".github/workflows/mcp.yml"))
			// Telemetry only on request: without it, nothing of OpenTelemetry or Prometheus.
			main, _ := os.ReadFile(filepath.Join(dir, "main.go"))
			serverTest, _ := os.ReadFile(filepath.Join(dir, "server_test.go"))
			if got := bytes.Contains(main, []byte("runtime/otelmcp")) && bytes.Contains(main, []byte(`flag.Bool("metrics"`)) &&
				bytes.Contains(serverTest, []byte(`"--metrics"`)) && strings.Contains(string(readme), "OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318"); got != tc.data.Telemetry {
				t.Errorf("telemetry %v, but main.go, server_test.go and README.md say %v:\n%s", tc.data.Telemetry, got, main)
			}
			// An OpenAPI document's operations only on request (mcpgen new --from-openapi).
			if got := bytes.Contains(main, []byte(`"example.com/hello/api"`)) && bytes.Contains(main, []byte(`api.NewClient(os.Getenv("HELLO_BASE_URL"))`)); got != tc.data.OpenAPI {
				t.Errorf("openapi %v, but main.go says %v:\n%s", tc.data.OpenAPI, got, main)
			}
			if !tc.data.Telemetry && (bytes.Contains(main, []byte("otelmcp")) || bytes.Contains(main, []byte("metrics")) || !strings.Contains(string(readme), "mcpgen new --telemetry")) {
				t.Errorf("a project without telemetry mentions it:\n%s", main)
			}
			if tc.data.MCPGenDir != "" {
				if len(f.Replace) != 1 || f.Replace[0].New.Path != "/src/mcpgen" || !strings.Contains(string(readme), "replace github.com/mcpgen/mcpgen => /src/mcpgen") {
					t.Errorf("a checkout's project does not say so:\n%s", gomod)
				}
				// Its CI cannot reach the checkout, and says why.
				if !bytes.Contains(workflow, []byte("exists only on the machine that created this project")) || !strings.Contains(string(readme), "**CI.**") {
					t.Errorf("a checkout's workflow does not explain the replace directive:\n%s", workflow)
				}
			} else if len(f.Replace) != 0 || !strings.Contains(string(readme), "go get -tool github.com/mcpgen/mcpgen/cmd/mcpgen@latest") ||
				bytes.Contains(workflow, []byte("replace")) {
				t.Errorf("a release's project:\n%s\n%s", gomod, workflow)
			}
			for _, want := range []string{`"` + tc.data.Name + `": {`, `"url": "http://127.0.0.1:8080/mcp"`, "go generate ./...", "go tool mcpgen check ./...",
				"./" + tc.data.Name + " --http 127.0.0.1:8080", "@modelcontextprotocol/inspector@0.21.1", "claude mcp add --transport http", `"streamable-http"`} {
				if !strings.Contains(string(readme), want) {
					t.Errorf("README lacks %q", want)
				}
			}
			// The Go files are gofmt'd as rendered, whatever the name.
			for _, name := range files {
				if !strings.HasSuffix(name, ".go") {
					continue
				}
				src, _ := os.ReadFile(filepath.Join(dir, name))
				if formatted, err := format.Source(src); err != nil || !bytes.Equal(formatted, src) {
					t.Errorf("%s is not gofmt'd (%v):\n%s", name, err, src)
				}
			}
		})
	}
}

// guideURL is where a new project's README links to mcpgen's guide: the project lives
// elsewhere, so its links into this repository are URLs of its files on GitHub.
const guideURL = "https://github.com/mcpgen/mcpgen/blob/main/"

// The README of a new project has working links, both its own (to its sections, to its
// workflow file) and those into mcpgen's guide, checked against this checkout's docs/.
func TestREADMELinks(t *testing.T) {
	for _, data := range []templates.Data{
		{Module: "example.com/hello", Name: "hello", GoVersion: GoVersion, MCPGenVersion: "v0.0.0", MCPGenDir: "/src/mcpgen"},
		{Module: "example.com/hello", Name: "hello", GoVersion: GoVersion, MCPGenVersion: "v1.2.3"},
	} {
		dir := t.TempDir()
		if err := render(dir, data); err != nil {
			t.Fatal(err)
		}
		readme, _ := os.ReadFile(filepath.Join(dir, "README.md"))
		if n := strings.Count(string(readme), guideURL+"docs/"); n < 10 {
			t.Errorf("the README links to the guide %d times; it should point to its pages", n)
		}
		problems, err := docscheck.Check(context.Background(), docscheck.Options{
			Root: dir, Pages: []string{"README.md"}, NoCompile: true, RepoURL: guideURL, RepoRoot: "..",
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range problems {
			t.Error(p)
		}
	}
}
