// Package load loads the packages mcpgen generates for, with the mcpgen build tag (so that
// generated files stay out of the way), and indexes what go/types does not keep of them: doc
// comments, struct tag positions and //mcp:schema directives.
package load

import (
	"fmt"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/gen/internal/diag"
	"github.com/mcpgen/mcpgen/gen/internal/model"
	"golang.org/x/tools/go/packages"
)

// Config says what to load.
type Config struct {
	Dir       string   // the directory to resolve patterns in; "" means the current one
	Patterns  []string // package patterns as the go command takes them
	BuildTags []string // extra build tags, besides mcpgen's
	Env       []string // the go command's environment; nil means the process's
	// Overlay are files read in place of what the disk has (or does not have), by absolute
	// path: mcpgen openapi's, before they are written.
	Overlay map[string][]byte
	// DeclarationsOnly type-checks Files' declarations, not their function bodies: for code
	// mcpgen wrote itself and its tests compile (mcpgen openapi's stage one), which calls no
	// mcp.Elicit (the one thing analysis reads in bodies). GitHub's checks in 0.3 s, not 1.
	DeclarationsOnly bool
}

// Packages type-checks the packages matching cfg.Patterns, from source, with the mcpgen
// build tag.
func Packages(cfg Config, fset *token.FileSet) ([]*packages.Package, error) {
	tags := append([]string{model.BuildTag}, cfg.BuildTags...)
	pcfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes |
			packages.NeedTypesInfo | packages.NeedModule,
		Dir:        cfg.Dir,
		Env:        cfg.Env,
		Fset:       fset,
		Overlay:    cfg.Overlay,
		BuildFlags: []string{"-tags=" + strings.Join(tags, ",")},
		Tests:      false,
	}
	pkgs, err := packages.Load(pcfg, cfg.Patterns...)
	if err != nil {
		return nil, fmt.Errorf("loading packages: %w", err)
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("no packages match %s", strings.Join(cfg.Patterns, " "))
	}
	return pkgs, nil
}

// undefinedGenerated matches the type errors of code that uses the generated file, which is
// left out while loading.
var undefinedGenerated = regexp.MustCompile(`^undefined: (\w+\.)?` + model.RegisterFunc + `$`)

// Errors turns a package's load and type errors into diagnostics, skipping the ones caused
// by the generated file being left out. It reports whether there were any.
func Errors(pkg *packages.Package, diags *diag.List) (failed bool) {
	for _, e := range pkg.Errors {
		switch {
		case e.Kind == packages.TypeError && undefinedGenerated.MatchString(e.Msg):
			continue
		case e.Kind == packages.ListError && strings.HasPrefix(e.Msg, "# ") && pkg.TypesInfo != nil:
			// The compiler's output, run by go list for export data: it repeats the type
			// errors of the package, which are reported one by one with their positions.
			continue
		}
		diags.Add(ParsePosition(e.Pos), "", "%s", e.Msg)
		failed = true
	}
	return failed
}

var positionForm = regexp.MustCompile(`^(.*?):(\d+)(?::(\d+))?$`)

// ParsePosition reads the "file:line:col" form go/packages reports positions in.
func ParsePosition(s string) token.Position {
	m := positionForm.FindStringSubmatch(s)
	if m == nil {
		if s == "-" {
			s = ""
		}
		return token.Position{Filename: s}
	}
	line, _ := strconv.Atoi(m[2])
	col, _ := strconv.Atoi(m[3])
	return token.Position{Filename: m[1], Line: line, Column: col}
}

// Dir returns the directory of a package's source files.
func Dir(pkg *packages.Package) string {
	if pkg.Dir != "" {
		return pkg.Dir
	}
	if len(pkg.GoFiles) > 0 {
		return filepath.Dir(pkg.GoFiles[0])
	}
	return ""
}
