// Package scaffold creates new projects for `mcpgen new`: it renders the embedded templates
// into a directory, resolves the new module's dependencies (go mod tidy) and generates its
// code, so that the project builds, tests and serves on its first run. Nothing is left
// behind when any step fails: the project is put together in a temporary directory beside
// the target and moved into place at the end.
package scaffold

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"text/template"

	"github.com/mcpgen/mcpgen/gen"
	"github.com/mcpgen/mcpgen/gen/openapi"
	"github.com/mcpgen/mcpgen/templates"
	"golang.org/x/mod/module"
)

// ModulePath is mcpgen's own module path.
const ModulePath = "github.com/mcpgen/mcpgen"

// GoVersion is the go directive of new projects: mcpgen's own, the oldest Go it builds with.
const GoVersion = "1.25.0"

// Options say what to create.
type Options struct {
	Dir    string // the new project's directory: it must not exist, or be empty
	Module string // the module path; "" derives it from the directory's name
	Name   string // the MCP server's name, also its binary's; "" derives it from the directory's name
	MCPGen Source // the mcpgen the project uses
	// Telemetry makes a server that exports OpenTelemetry traces and metrics and serves
	// Prometheus's /metrics (runtime/otelmcp), and requires their modules.
	Telemetry bool
	// OpenAPI is an OpenAPI document (a file or URL) whose operations the server serves too,
	// a tool each: copied into the project, with package api generated from it.
	OpenAPI string
}

// Source is the mcpgen a new project uses: a released version, or a checkout.
type Source struct {
	Version string // the version go.mod requires
	Dir     string // the checkout go.mod replaces mcpgen with; "" for a release
}

// Project is what New created.
type Project struct {
	Dir    string
	Module string
	Name   string
	Files  []string // relative to Dir, sorted
}

// UsageError is a problem with the options, as opposed to a failure while creating.
type UsageError struct{ msg string }

func (e *UsageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &UsageError{fmt.Sprintf(format, args...)} }

var serverName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// New creates a project. It runs the go command (go mod tidy), which may download modules.
func New(ctx context.Context, opts Options) (*Project, error) {
	if opts.Dir == "" {
		return nil, usagef("no directory given: mcpgen new <dir>")
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, err
	}
	p := &Project{Dir: dir, Module: opts.Module, Name: opts.Name}
	base := filepath.Base(dir)
	if p.Name == "" {
		p.Name = base
		if !serverName.MatchString(p.Name) {
			return nil, usagef("cannot use the directory name %q as the server's name; give one with --name", base)
		}
	} else if !serverName.MatchString(p.Name) {
		return nil, usagef("invalid server name %q: use letters, digits, '.', '_' and '-', starting with a letter or digit", p.Name)
	}
	if p.Module == "" {
		p.Module = strings.ToLower(base)
		if module.CheckImportPath(p.Module) != nil {
			return nil, usagef("cannot derive a module path from the directory name %q; give one with --module, for example --module example.com/%s", base, p.Name)
		}
	} else if err := module.CheckImportPath(p.Module); err != nil {
		return nil, usagef("invalid module path %q: %v", p.Module, err)
	}
	if opts.MCPGen.Version == "" {
		return nil, errors.New("scaffold: no mcpgen version given")
	}
	if err := checkTarget(dir); err != nil {
		return nil, err
	}

	// Put the project together beside its target, then move it into place.
	parent := filepath.Dir(dir)
	createdParent, err := mkdirAll(parent)
	if err != nil {
		return nil, err
	}
	tmp, done := "", false
	defer func() {
		if !done {
			if tmp != "" {
				os.RemoveAll(tmp)
			}
			if createdParent != "" {
				os.RemoveAll(createdParent)
			}
		}
	}()
	if tmp, err = os.MkdirTemp(parent, "."+base+".mcpgen-new-*"); err != nil {
		return nil, err
	}
	// MkdirTemp makes a private directory; the project's should look like any other.
	if err := os.Chmod(tmp, 0o755); err != nil {
		return nil, err
	}
	data := templates.Data{Module: p.Module, Name: p.Name, GoVersion: GoVersion,
		MCPGenVersion: opts.MCPGen.Version, MCPGenDir: opts.MCPGen.Dir, Telemetry: opts.Telemetry,
		OpenAPI: opts.OpenAPI != "", OpenAPIEnv: openapi.EnvPrefix(p.Name)}
	if err := render(tmp, data); err != nil {
		return nil, err
	}
	// Outside any workspace: the new module stands alone.
	env := append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	if opts.OpenAPI != "" {
		// Before go mod tidy, which reads main.go's import of package api.
		if err := addOpenAPI(ctx, tmp, p.Name, opts.OpenAPI, env); err != nil {
			return nil, err
		}
	}
	if err := goCommand(ctx, tmp, env, "mod", "tidy"); err != nil {
		return nil, fmt.Errorf("resolving the new module's dependencies, which needs the Go module proxy or the modules in the module cache: %w", err)
	}
	res, err := gen.Generate(gen.Config{Dir: tmp, Patterns: []string{"./..."}, Env: env})
	if err != nil {
		return nil, fmt.Errorf("generating the project's code: %w", err)
	}
	if len(res.Diagnostics) > 0 {
		return nil, fmt.Errorf("generating the project's code (please report this as an mcpgen bug): %s", res.Diagnostics[0].Format(tmp))
	}
	for _, f := range res.Files {
		if _, err := gen.Write(f); err != nil {
			return nil, err
		}
	}
	if p.Files, err = listFiles(tmp); err != nil {
		return nil, err
	}
	if err := os.Remove(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err // not empty any more: someone wrote there meanwhile
	}
	if err := os.Rename(tmp, dir); err != nil {
		return nil, err
	}
	done = true
	return p, nil
}

// checkTarget refuses a directory that is not empty, or a path that is a file.
func checkTarget(dir string) error {
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return usagef("%s exists and is not a directory", dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if len(entries) > 0 {
		return usagef("%s is not empty; mcpgen new creates a project in a new or empty directory", dir)
	}
	return nil
}

// mkdirAll creates dir and its missing parents, returning the topmost one it created ("" if
// none), for removal on failure.
func mkdirAll(dir string) (string, error) {
	top := ""
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		}
		top = d
		if filepath.Dir(d) == d {
			break
		}
	}
	if top == "" {
		return "", nil
	}
	return top, os.MkdirAll(dir, 0o777)
}

// render writes the templates into dir.
func render(dir string, data templates.Data) error {
	return fs.WalkDir(templates.Project, "project", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		text, err := fs.ReadFile(templates.Project, name)
		if err != nil {
			return err
		}
		t, err := template.New(name).Option("missingkey=error").Parse(string(text))
		if err != nil {
			return fmt.Errorf("template %s: %w", name, err)
		}
		var out bytes.Buffer
		if err := t.Execute(&out, data); err != nil {
			return fmt.Errorf("template %s: %w", name, err)
		}
		rel := targetName(strings.TrimPrefix(name, "project/"))
		target := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(target), 0o777); err != nil {
			return err
		}
		return os.WriteFile(target, out.Bytes(), 0o666)
	})
}

// targetName maps a template's name to the file it becomes: without .tmpl, and with the
// dot-file names restored.
func targetName(name string) string {
	name = strings.TrimSuffix(name, ".tmpl")
	first, rest, _ := strings.Cut(name, "/")
	switch first {
	case "gitignore":
		first = ".gitignore"
	case "github":
		first = ".github"
	}
	return path.Join(first, rest)
}

func goCommand(ctx context.Context, dir string, env []string, args ...string) error {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, bytes.TrimSpace(out))
	}
	return nil
}

func listFiles(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files = append(files, filepath.ToSlash(rel))
		return nil
	})
	return files, err
}

// Local returns the mcpgen this program was built from: a released version, or, for a
// development build, the checkout it was built from (found through a replace directive, or
// through this source file's path, which builds without -trimpath record).
func Local() (Source, error) {
	var mod *debug.Module
	if info, ok := debug.ReadBuildInfo(); ok {
		if info.Main.Path == ModulePath {
			mod = &info.Main
		}
		for _, dep := range info.Deps {
			if dep.Path == ModulePath {
				mod = dep
			}
		}
	}
	src := ""
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		src = filepath.Dir(file)
	}
	return local(mod, src)
}

// local decides which mcpgen a program whose build recorded mod (nil if none), and whose
// source file is in the directory src ("" if unknown), was built from. A version is a
// release only when it has a checksum: the go command then took mcpgen's module from the
// module proxy (or its cache) and checked it against go.sum. A checkout's build carries a
// version too (the go command stamps one from git, v0.0.0-20260102150405-abcdef123456,
// "+dirty" when files changed, or a tag), but no checksum, and the proxy may have never seen
// that commit: the checkout is used, as a replace directive's is.
func local(mod *debug.Module, src string) (Source, error) {
	if mod != nil && mod.Replace != nil {
		if filepath.IsAbs(mod.Replace.Path) {
			if dir, ok := moduleRoot(mod.Replace.Path); ok {
				return Source{Version: "v0.0.0", Dir: dir}, nil
			}
		}
	} else if mod != nil && mod.Sum != "" && mod.Version != "" && mod.Version != "(devel)" {
		return Source{Version: mod.Version}, nil
	}
	if src != "" {
		if dir, ok := moduleRoot(src); ok {
			return Source{Version: "v0.0.0", Dir: dir}, nil
		}
	}
	return Source{}, errors.New("this mcpgen is a development build that does not know where its source is (built with -trimpath?); give the mcpgen checkout with --mcpgen-dir")
}

// Checkout returns the Source for an mcpgen checkout at dir, after checking that it is one.
func Checkout(dir string) (Source, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Source{}, err
	}
	if root, ok := moduleRoot(abs); !ok || root != abs {
		return Source{}, usagef("%s is not an mcpgen checkout (no go.mod declaring module %s)", abs, ModulePath)
	}
	return Source{Version: "v0.0.0", Dir: abs}, nil
}

// moduleRoot finds, from dir upwards, the directory whose go.mod declares mcpgen's module.
func moduleRoot(dir string) (string, bool) {
	for d := dir; ; d = filepath.Dir(d) {
		if f, err := os.Open(filepath.Join(d, "go.mod")); err == nil {
			s := bufio.NewScanner(f)
			for s.Scan() {
				if fields := strings.Fields(s.Text()); len(fields) == 2 && fields[0] == "module" {
					f.Close()
					if fields[1] == ModulePath {
						return d, true
					}
					return "", false
				}
			}
			f.Close()
		}
		if filepath.Dir(d) == d {
			return "", false
		}
	}
}

// addOpenAPI copies an OpenAPI document into the project and generates package api from it,
// with the file whose go:generate line generates it again.
func addOpenAPI(ctx context.Context, dir, name, spec string, env []string) error {
	src, err := openapi.Read(ctx, spec)
	if err != nil {
		return err
	}
	doc, err := openapi.Parse(src)
	if err != nil {
		return err
	}
	file := "openapi.json"
	if t := bytes.TrimSpace(bytes.TrimPrefix(src.Data, []byte("\xef\xbb\xbf"))); len(t) == 0 || t[0] != '{' {
		file = "openapi.yaml"
	}
	if err := os.WriteFile(filepath.Join(dir, file), src.Data, 0o644); err != nil {
		return err
	}
	apiDir := filepath.Join(dir, "api")
	if err := os.Mkdir(apiDir, 0o755); err != nil {
		return err
	}
	docGo := fmt.Sprintf("// Package api serves the operations of the OpenAPI document ../%s, a tool each: the files\n"+
		"// but this one are generated by mcpgen openapi, and go generate updates them.\npackage api\n\n"+
		"//go:generate go tool mcpgen openapi -o . --name %s ../%s\n", file, name, file)
	if err := os.WriteFile(filepath.Join(apiDir, "doc.go"), []byte(docGo), 0o644); err != nil {
		return err
	}
	res, err := openapi.Generate(doc, openapi.Options{Dir: apiDir, Package: "api", Spec: "../" + file, Digest: src.Digest, ServerName: name, Env: env})
	if err != nil {
		return fmt.Errorf("generating package api from %s: %w", spec, err)
	}
	for _, f := range res.Files {
		if _, err := gen.Write(f); err != nil {
			return err
		}
	}
	return nil
}
