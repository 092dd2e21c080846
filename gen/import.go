package gen

import (
	"errors"
	"fmt"
	"go/token"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpgen/mcpgen/gen/importer"
	"github.com/mcpgen/mcpgen/gen/internal/analyze"
	"github.com/mcpgen/mcpgen/gen/internal/diag"
	"github.com/mcpgen/mcpgen/gen/internal/emit"
	"github.com/mcpgen/mcpgen/gen/internal/load"
	"github.com/mcpgen/mcpgen/gen/internal/model"
)

// ImportSource is an mcpgen server's package as mcpgen import reads it: what it offers,
// and the Go types a client package can reuse.
type ImportSource struct {
	Snapshot *importer.Snapshot // GoPackage is the package's import path
	Reuse    *importer.Reuse
}

// errNotOne: mcpgen import reads one server package at a time.
var errNotOne = errors.New("give one package")

// ImportDiagnostics is the error of ImportPackage when the package has problems.
type ImportDiagnostics []Diagnostic

func (d ImportDiagnostics) Error() string {
	var lines []string
	cwd, _ := os.Getwd()
	for _, x := range d {
		lines = append(lines, x.Format(cwd))
	}
	return strings.Join(lines, "\n")
}

// ImportPackage reads the server package that cfg's one pattern names, for a client package
// named clientName in clientDir. The client reuses each tool's argument and result types
// that it can import (exported, from a package other than main); the others it generates
// from the schemas, and Reuse.Notes says why.
func ImportPackage(cfg Config, clientDir, clientName string) (*ImportSource, error) {
	if len(cfg.Patterns) != 1 || strings.Contains(cfg.Patterns[0], "...") {
		return nil, fmt.Errorf("%w, not %s", errNotOne, strings.Join(cfg.Patterns, " "))
	}
	fset := token.NewFileSet()
	pkgs, err := load.Packages(load.Config{Dir: cfg.Dir, Patterns: cfg.Patterns, BuildTags: cfg.BuildTags, Env: cfg.Env}, fset)
	if err != nil {
		return nil, err
	}
	if len(pkgs) != 1 {
		return nil, fmt.Errorf("%w: %s matches %d packages", errNotOne, cfg.Patterns[0], len(pkgs))
	}
	pkg := pkgs[0]
	diags := diag.NewList(fset)
	src := load.NewSource(pkgs, fset, diags)
	var p *model.Package
	if !load.Errors(pkg, diags) {
		p = analyze.Package(pkg, src, diags)
	}
	if d := diags.Sorted(); len(d) > 0 {
		return nil, ImportDiagnostics(d)
	}
	snap := snapshot(p)
	if snap == nil {
		return nil, fmt.Errorf("package %s has no //mcp: tools, prompts or resource templates to import", pkg.PkgPath)
	}
	snap.GoPackage = pkg.PkgPath

	// The client's import path decides what it may import (internal packages).
	clientPath := clientName
	if abs, err := filepath.Abs(clientDir); err == nil && pkg.Module != nil && pkg.Module.Dir != "" {
		if rel, err := filepath.Rel(pkg.Module.Dir, abs); err == nil && !strings.HasPrefix(rel, "..") {
			clientPath = pkg.Module.Path + "/" + filepath.ToSlash(rel)
		}
	}
	var tools []*model.Tool
	for _, d := range p.Decls {
		if t, ok := d.(*model.Tool); ok {
			tools = append(tools, t)
		}
	}
	r, err := emit.ClientCodecs(clientPath, clientName, tools)
	if err != nil {
		return nil, fmt.Errorf("internal error (please report this as an mcpgen bug): %w", err)
	}
	return &ImportSource{Snapshot: snap, Reuse: r}, nil
}
