package docscheck

import (
	"bytes"
	"context"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/gen"
	"golang.org/x/mod/modfile"
)

// goPackage is the Go blocks that make one package: one block, or the blocks of a page that
// name the same directory.
type goPackage struct {
	page   *page
	dir    string // in the temporary module
	name   string // the package clause's
	blocks []block
}

func (g *goPackage) file(b block) string { return "l" + strconv.Itoa(b.line) + ".go" }

// compileBlocks writes the Go blocks of the pages that are complete files into a temporary
// module that requires the module in modDir (replaced by the directory), generates the code
// of those with //mcp: directives as go generate would, and runs go vet on them all. Each
// problem is reported at its line in the page.
func compileBlocks(ctx context.Context, modDir string, pages []*page) ([]Problem, error) {
	var problems []Problem
	var pkgs []*goPackage
	for _, p := range pages {
		byDir := map[string]*goPackage{}
		for _, b := range p.blocks {
			if b.skip || b.lang != "go" && b.lang != "golang" {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), "", b.text, parser.PackageClauseOnly)
			if err != nil {
				continue // a fragment
			}
			dir := b.dir
			if dir == "" {
				dir = "l" + strconv.Itoa(b.line)
			}
			g := byDir[dir]
			if g == nil {
				g = &goPackage{page: p, dir: sanitize(p.path) + "__" + dir, name: f.Name.Name}
				byDir[dir] = g
				pkgs = append(pkgs, g)
			}
			if f.Name.Name != g.name {
				problems = append(problems, Problem{p.path, b.line, fmt.Sprintf("package %s, but the blocks of dir=%s before it are package %s", f.Name.Name, b.dir, g.name)})
				continue
			}
			g.blocks = append(g.blocks, b)
		}
	}
	if len(pkgs) == 0 {
		return problems, nil
	}
	tmp, err := os.MkdirTemp("", "docscheck-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	if err := writeModule(tmp, modDir); err != nil {
		return nil, err
	}
	where := map[string]*goPackage{} // by directory in the module
	for _, g := range pkgs {
		where[g.dir] = g
		if err := os.Mkdir(filepath.Join(tmp, g.dir), 0o755); err != nil {
			return nil, err
		}
		for _, b := range g.blocks {
			if err := os.WriteFile(filepath.Join(tmp, g.dir, g.file(b)), []byte(b.text), 0o644); err != nil {
				return nil, err
			}
		}
	}
	env := append(os.Environ(), "GOWORK=off", "GOFLAGS=", "GOPROXY=off")

	// Generate, package by package, so that one block's mistake stays its own.
	for _, g := range pkgs {
		if !needsGenerate(g) {
			continue
		}
		res, err := gen.Generate(gen.Config{Dir: tmp, Patterns: []string{"./" + g.dir}, Env: env})
		if err != nil {
			problems = append(problems, Problem{g.page.path, g.blocks[0].line, "mcpgen: " + err.Error()})
		} else if len(res.Diagnostics) > 0 {
			for _, d := range res.Diagnostics {
				file, line := g.page.path, g.blocks[0].line
				if b, ok := g.block(filepath.Base(d.Pos.Filename)); ok {
					line = b.line + d.Pos.Line
				}
				msg := "mcpgen: " + d.Message
				if d.Hint != "" {
					msg += " (hint: " + d.Hint + ")"
				}
				problems = append(problems, Problem{file, line, msg})
			}
		} else {
			for _, f := range res.Files {
				if _, err := gen.Write(f); err != nil {
					return nil, err
				}
			}
			continue
		}
		// Not generated: vetting it would only repeat the problem as undefined names.
		if err := os.RemoveAll(filepath.Join(tmp, g.dir)); err != nil {
			return nil, err
		}
		delete(where, g.dir)
	}
	if len(where) == 0 {
		return problems, nil
	}
	cmd := exec.CommandContext(ctx, "go", "vet", "./...")
	cmd.Dir, cmd.Env = tmp, env
	out, err := cmd.CombinedOutput()
	if err == nil {
		return problems, nil
	}
	found := vetProblems(out, where)
	if len(found) == 0 {
		return nil, fmt.Errorf("go vet of the documentation's Go blocks failed: %v\n%s", err, out)
	}
	return append(problems, found...), nil
}

// block returns the block written to the file of that name.
func (g *goPackage) block(file string) (block, bool) {
	for _, b := range g.blocks {
		if g.file(b) == file {
			return b, true
		}
	}
	return block{}, false
}

// needsGenerate reports whether a package has anything for mcpgen to generate.
func needsGenerate(g *goPackage) bool {
	for _, b := range g.blocks {
		if strings.Contains(b.text, "//mcp:") || strings.Contains(b.text, "mcp.Elicit[") {
			return true
		}
	}
	return false
}

// vetPosRE matches a position in go vet's (and the compiler's) messages.
var vetPosRE = regexp.MustCompile(`^(?:vet: )?(?:\S*/)?([^\s:/]+)/([^\s:/]+\.go):(\d+)(?::\d+)?: (.*)$`)

// vetProblems turns go vet's messages about the blocks' files into problems of the pages.
func vetProblems(out []byte, where map[string]*goPackage) []Problem {
	var problems []Problem
	for _, l := range strings.Split(string(out), "\n") {
		m := vetPosRE.FindStringSubmatch(strings.TrimSpace(l))
		if m == nil {
			continue
		}
		g := where[m[1]]
		if g == nil {
			continue
		}
		line, _ := strconv.Atoi(m[3])
		if b, ok := g.block(m[2]); ok {
			problems = append(problems, Problem{g.page.path, b.line + line, "go vet: " + m[4]})
		} else { // the generated file: the generator's fault, or the block's code around it
			problems = append(problems, Problem{g.page.path, g.blocks[0].line, "go vet: " + m[2] + ":" + m[3] + ": " + m[4]})
		}
	}
	return problems
}

// writeModule writes the go.mod and go.sum of a module that requires the module in modDir,
// replaced by that directory, and every module it requires, at the same versions: the
// blocks build as a user's module would, without the network.
func writeModule(dir, modDir string) error {
	modDir, err := filepath.Abs(modDir)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(filepath.Join(modDir, "go.mod"))
	if err != nil {
		return err
	}
	src, err := modfile.Parse("go.mod", data, nil)
	if err != nil {
		return err
	}
	f := &modfile.File{}
	if err := f.AddModuleStmt("example.com/docs"); err != nil {
		return err
	}
	if src.Go != nil {
		if err := f.AddGoStmt(src.Go.Version); err != nil {
			return err
		}
	}
	path := src.Module.Mod.Path
	f.AddNewRequire(path, "v0.0.0", false)
	for _, r := range src.Require {
		f.AddNewRequire(r.Mod.Path, r.Mod.Version, true)
	}
	if err := f.AddReplace(path, "", modDir, ""); err != nil {
		return err
	}
	out, err := f.Format()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), out, 0o644); err != nil {
		return err
	}
	sum, err := os.ReadFile(filepath.Join(modDir, "go.sum"))
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644)
}

// sanitize makes a page's path a directory name.
func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '_'
		}
	}
	return string(bytes.ToLower(b))
}
