// Package gen is mcpgen's generator: it turns Go functions annotated with //mcp:tool (and
// //mcp:resource, //mcp:prompt, //mcp:complete) into generated code that registers them with
// an MCP server, with JSON Schemas derived from their argument and result types and handlers
// that decode, validate and call them.
//
// Generate is the whole pipeline as one function without side effects: it reads packages
// and returns files and diagnostics. Writing the files, comparing them with what is on disk,
// and printing are the caller's business (Write, Compare, Diff). The stages, each a package
// of its own under gen/internal:
//
//	load     packages type-checked with the mcpgen build tag; doc comments, tag positions
//	analyze  directives and their options, signatures, types (schema), names: the model
//	emit     the model written out as Go source
//
// Problems in the user's code are diagnostics (diag), found by load and analyze; the emitter
// finds none.
package gen

import (
	"cmp"
	"fmt"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/gen/importer"
	"github.com/mcpgen/mcpgen/gen/internal/analyze"
	"github.com/mcpgen/mcpgen/gen/internal/diag"
	"github.com/mcpgen/mcpgen/gen/internal/emit"
	"github.com/mcpgen/mcpgen/gen/internal/load"
	"github.com/mcpgen/mcpgen/gen/internal/model"
	"golang.org/x/tools/go/packages"
)

// Names shared with users' code and documentation.
const (
	// Header is the first line of every generated file, the Go convention for generated code.
	Header = model.Header
	// DefaultFileName is the name of the file generated in each package.
	DefaultFileName = model.DefaultFileName
	// RegisterFunc is the generated function that adds a package's tools to a server.
	RegisterFunc = model.RegisterFunc
	// BuildTag is set while mcpgen loads packages. Generated files carry //go:build !mcpgen,
	// so a stale or broken generated file never stands in the way of regenerating it.
	BuildTag = model.BuildTag
	// ContractVersion is the version of the runtime's contract with generated code that
	// generated files keep (the constant ContractN of package runtime/mcp/mcpgen).
	ContractVersion = model.ContractVersion
)

// Config says what to generate.
type Config struct {
	Dir       string   // the directory to resolve patterns in; "" means the current one
	Patterns  []string // package patterns as the go command takes them; none means "."
	BuildTags []string // extra build tags to load with, besides mcpgen
	FileName  string   // the generated file's name; "" means DefaultFileName
	Env       []string // the go command's environment; nil means the process's
	// Overlay are files read in place of what the disk has, by absolute path (files not
	// written yet: mcpgen openapi generates from its own before writing them).
	Overlay map[string][]byte
}

// File is the generated file of one package. Content nil means that a previously generated
// file should go: the package has no directives left, and no code calls its RegisterMCP.
type File struct {
	Package string // import path
	Path    string // absolute path of the file
	Content []byte
	// Snapshot is what the package offers, as a client lists it (nil when it offers
	// nothing): compared with the package's SnapshotFileName by CompareSnapshot.
	Snapshot *importer.Snapshot
}

// Diagnostic is a problem in the code or configuration mcpgen reads, at a position, with a
// hint where one helps. Format writes it as file:line:col: message.
type Diagnostic = diag.Diagnostic

// Result is what Generate produces. When Diagnostics is not empty, Files holds nothing:
// one problem anywhere stops all writing, so a broken run never leaves a half-updated tree.
type Result struct {
	Files       []File
	Diagnostics []Diagnostic
	// Notes are not problems: where a package registers a tool with mcpfunc.AddTool whose
	// function one //mcp:tool line would hand to generated code (mcpgen -v prints them).
	Notes []Diagnostic
}

// Generate loads the packages cfg names and generates a file for each package with
// annotated functions. The error is for failures to load at all (a pattern matching no
// package, the go command failing); problems in the code are diagnostics.
func Generate(cfg Config) (*Result, error) {
	if len(cfg.Patterns) == 0 {
		cfg.Patterns = []string{"."}
	}
	if cfg.FileName == "" {
		cfg.FileName = DefaultFileName
	}
	if why := ValidFileName(cfg.FileName); why != "" {
		return nil, fmt.Errorf("output file name %q %s", cfg.FileName, why)
	}
	fset := token.NewFileSet()
	pkgs, err := load.Packages(load.Config{Dir: cfg.Dir, Patterns: cfg.Patterns, BuildTags: cfg.BuildTags, Env: cfg.Env, Overlay: cfg.Overlay}, fset)
	if err != nil {
		return nil, err
	}
	diags := diag.NewList(fset)
	src := load.NewSource(pkgs, fset, diags)
	res := &Result{}
	for _, pkg := range pkgs {
		res.Files = append(res.Files, generatePackage(&cfg, pkg, src, diags)...)
		res.Notes = append(res.Notes, funcNotes(pkg, fset)...)
	}
	res.Diagnostics = diags.Sorted()
	if len(res.Diagnostics) > 0 {
		res.Files = nil
	}
	slices.SortFunc(res.Files, func(a, b File) int { return cmp.Compare(a.Path, b.Path) })
	return res, nil
}

// GenerateFiles generates the file of the package in dir whose files, by absolute path, are
// given (they need not be written yet; others of the package on disk are read too), type-checking
// it in this process: mcpgen openapi's packages, which Generate would have the go command
// compile first.
func GenerateFiles(cfg Config, dir string, files map[string][]byte) (*Result, error) {
	if cfg.FileName == "" {
		cfg.FileName = DefaultFileName
	}
	fset := token.NewFileSet()
	pkg, err := load.Files(load.Config{BuildTags: cfg.BuildTags, Env: cfg.Env}, dir, files, fset)
	if err != nil {
		return nil, err
	}
	diags := diag.NewList(fset)
	src := load.NewSource([]*packages.Package{pkg}, fset, diags)
	res := &Result{Files: generatePackage(&cfg, pkg, src, diags)}
	res.Diagnostics = diags.Sorted()
	if len(res.Diagnostics) > 0 {
		res.Files = nil
	}
	return res, nil
}

// generatePackage returns the files of one package: its generated file, if it has directives
// (or no longer has, but code calls its RegisterMCP), and the removal of generated files it
// no longer needs (after the directives are gone, or the output name changed).
func generatePackage(cfg *Config, pkg *packages.Package, src *load.Source, diags *diag.List) []File {
	if load.Errors(pkg, diags) {
		return nil
	}
	dir := load.Dir(pkg)
	if dir == "" {
		return nil
	}
	path := filepath.Join(dir, cfg.FileName)
	var files []File
	// Generated files are left out by the build tag while loading, so they are among the
	// ignored files; any but the one being generated is a leftover.
	for _, f := range pkg.IgnoredFiles {
		if f != path && load.IsGenerated(f) {
			files = append(files, File{Package: pkg.PkgPath, Path: f})
		}
	}
	if _, err := os.Stat(path); err == nil && !load.IsGenerated(path) {
		diags.Add(token.Position{Filename: path}, "remove or rename it, or choose another name for the generated file with -o",
			"this file was not generated by mcpgen; refusing to overwrite it")
		return nil
	}
	before := diags.Len()
	p := analyze.Package(pkg, src, diags)
	if diags.Len() > before {
		return nil
	}
	// No directives (left): the file goes, unless code still calls RegisterMCP, which then
	// adds nothing.
	if p.Empty() && !load.KeepRegister(pkg, dir, path) {
		if load.IsGenerated(path) {
			files = append(files, File{Package: pkg.PkgPath, Path: path})
		}
		return files
	}
	content, err := emit.File(p)
	if err != nil {
		// A bug in mcpgen, not in the user's code: say so plainly.
		diags.Add(token.Position{Filename: path}, "please report this as an mcpgen bug", "internal error: %v", err)
		return nil
	}
	return append(files, File{Package: pkg.PkgPath, Path: path, Content: content, Snapshot: snapshot(p)})
}

// IsGenerated reports whether the file at path was written by mcpgen: it starts with
// Header.
func IsGenerated(path string) bool { return load.IsGenerated(path) }

// ValidFileName reports why name cannot be the generated file's name, or "" if it can.
func ValidFileName(name string) string {
	switch {
	case name != filepath.Base(name) || strings.ContainsAny(name, `/\`):
		return "must be a file name, without a directory: the file goes in each package's directory"
	case !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_"):
		return "must end in .go, not _test.go, and not start with . or _ (the go command would ignore it)"
	}
	return ""
}
