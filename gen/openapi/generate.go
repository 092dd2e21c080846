// Package openapi is mcpgen openapi: an MCP server generated from an OpenAPI description
// (3.0, 3.1, or Swagger 2.0; JSON or YAML), a tool per operation. It writes Go source that
// mcpgen's generator then reads as it reads any package of //mcp:tool methods:
//
//	openapi_gen.go  the API interface (a method per operation), Tools (a //mcp:tool method
//	                per operation, calling API), the operations' digests
//	types_gen.go    the arguments' and results' types, from the document's schemas by the
//	                JSON Schema to Go mapping mcpgen import has, with their doc comments and
//	                jsonschema tags (enums, formats, bounds), and their JSON codecs
//	client_gen.go   Client: API over HTTP, with credentials from the environment
//	main_gen.go     with Options.Main, the server program
//	mcp_gen.go      mcpgen's generator's: the schemas, the validating decoders, RegisterMCP
package openapi

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/dave/jennifer/jen"
	"github.com/mcpgen/mcpgen/gen"
)

// Options say what to generate.
type Options struct {
	Dir     string // the package's directory
	Package string // its name; "main" with Main
	Main    bool   // write the server program too
	// Spec and Digest are the document's location as recorded in the files (relative to
	// Dir when a file) and its digest.
	Spec   string
	Digest string
	// Include and Exclude select operations (Select says how); none included means all.
	Include, Exclude []string
	ServerName       string // the program's name (default: the package's, or the directory's)
	// PlanOnly: the tools only (Result.Tools, with their schemas from the document); no files.
	PlanOnly  bool
	EnvPrefix string // of the environment variables of credentials (default: ServerName)
	Env       []string
}

// Result is a generated package.
type Result struct {
	Files []gen.File // in Dir; mcp_gen.go last
	Tools []*Tool
	// Notes are what was left out or typed loosely: operations not read, schemas left as
	// json.RawMessage.
	Notes []string
}

// Generate generates the package of a document.
func Generate(doc *Document, opts Options) (*Result, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	sel, err := NewSelection(opts.Include, opts.Exclude)
	if err != nil {
		return nil, err
	}
	all := plan(doc)
	var tools []*Tool
	for _, t := range all {
		if sel.Selects(t) {
			tools = append(tools, t)
		}
	}
	if len(tools) == 0 {
		return nil, fmt.Errorf("no operation selected: the document has %d (%s)", len(all), sel)
	}
	if opts.PlanOnly {
		return &Result{Tools: tools, Notes: slices.Clone(doc.Notes)}, nil
	}
	g := newGen(doc, tools, &opts)
	res := &Result{Tools: tools, Notes: slices.Clone(doc.Notes)}
	res.Notes = append(res.Notes, g.mapping.Fallbacks()...)
	files := []struct {
		name string
		f    *jen.File
	}{{ToolsFile, g.toolsFile()}, {TypesFile, g.typesFile()}, {ClientFile, g.clientFile()}}
	if opts.Main {
		files = append(files, struct {
			name string
			f    *jen.File
		}{MainFile, g.mainFile()})
	}
	overlay := map[string][]byte{}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, err
	}
	// Formatting is most of writing a file; the files are formatted at once, one a core.
	srcs, errs := make([][]byte, len(files)), make([]error, len(files))
	var wg sync.WaitGroup
	for i, fl := range files {
		wg.Go(func() { srcs[i], errs[i] = render(fl.f) })
	}
	wg.Wait()
	for i, fl := range files {
		src, err := srcs[i], errs[i]
		if err != nil {
			return nil, fmt.Errorf("internal error (please report this as an mcpgen bug): %s: %w", fl.name, err)
		}
		path := filepath.Join(dir, fl.name)
		overlay[path] = src
		res.Files = append(res.Files, gen.File{Path: path, Content: src})
	}
	if !opts.Main {
		res.Files = append(res.Files, gen.File{Path: filepath.Join(dir, MainFile)}) // goes, if an earlier run wrote it
	}
	// mcpgen's generator reads the files as they will be.
	stage, err := gen.GenerateFiles(gen.Config{Env: opts.Env, DeclarationsOnly: true}, dir, overlay)
	if err != nil {
		return nil, fmt.Errorf("%w (is %s in a Go module that requires github.com/mcpgen/mcpgen, with go mod tidy run? go build there says why)", err, opts.Dir)
	}
	if len(stage.Diagnostics) > 0 {
		var lines []string
		for _, d := range stage.Diagnostics {
			lines = append(lines, d.Format(dir))
		}
		return nil, fmt.Errorf("internal error (please report this as an mcpgen bug, with the document): the generated code has problems:\n%s", strings.Join(lines, "\n"))
	}
	for _, f := range stage.Files {
		if f.Content != nil || !slices.ContainsFunc(res.Files, func(g gen.File) bool { return g.Path == f.Path }) {
			res.Files = append(res.Files, f)
		}
	}
	last := func(f gen.File) int {
		if filepath.Base(f.Path) == gen.DefaultFileName {
			return 1
		}
		return 0
	}
	slices.SortStableFunc(res.Files, func(a, b gen.File) int { return cmp.Compare(last(a), last(b)) })
	return res, nil
}

func (o *Options) defaults() error {
	if o.Dir == "" {
		o.Dir = "."
	}
	abs, err := filepath.Abs(o.Dir)
	if err != nil {
		return err
	}
	base := filepath.Base(abs)
	if o.Main {
		o.Package = "main"
	}
	if o.Package == "" {
		o.Package = packageName(base)
	}
	if o.ServerName == "" {
		o.ServerName = base
		if o.Package != "main" {
			o.ServerName = o.Package
		}
	}
	if o.EnvPrefix == "" {
		o.EnvPrefix = o.ServerName
	}
	if _, err := os.Stat(abs); err == nil {
		if existing, _ := filepath.Glob(filepath.Join(abs, "*.go")); len(existing) > 0 {
			return checkOwn(abs, existing)
		}
	}
	return nil
}

// checkOwn refuses to write over a file of the same name that mcpgen did not generate.
func checkOwn(dir string, files []string) error {
	for _, name := range []string{ToolsFile, TypesFile, ClientFile, MainFile} {
		path := filepath.Join(dir, name)
		if slices.Contains(files, path) && !gen.IsGenerated(path) {
			return fmt.Errorf("%s was not generated by mcpgen; refusing to overwrite it (move it, or choose another directory)", path)
		}
	}
	return nil
}

// packageName makes a package name of a directory's name.
func packageName(base string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(base) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	s := b.String()
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		s = "api" + s
	}
	return s
}
