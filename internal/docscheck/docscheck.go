// Package docscheck checks the project's documentation as a reader would use it: every
// relative link in the Markdown pages leads to a file that exists (and to a heading that
// exists, by GitHub's anchor rules); every Go code block that is a complete file (it has a
// package clause) is generated with mcpgen and vetted, in a module of its own that uses
// this checkout; and every mcpgen command a shell block shows exists, with the flags shown.
//
// A code block opts out with an HTML comment on the line before its fence, which GitHub does
// not show:
//
//	<!-- docscheck: skip -->
//
// and blocks that make one package together (a tools.go and its main.go) name a directory:
//
//	<!-- docscheck: dir=hello -->
//
// Blocks that are fragments (no package clause) are not compiled.
package docscheck

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Problem is one thing wrong in a page, at a line.
type Problem struct {
	File string // relative to the root, with slashes
	Line int
	Msg  string
}

func (p Problem) String() string { return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Msg) }

// Options say what to check.
type Options struct {
	// Root is the repository's root: the pages are found under it, and links may not leave it.
	Root string
	// Pages are the Markdown files to check, relative to Root. nil means the project's:
	// README.md, every .md file under docs/, and every README.md under examples/.
	Pages []string
	// ModuleDir is the directory of the module (with its go.mod and go.sum) that Go blocks
	// use through a replace directive; "" means Root.
	ModuleDir string
	// NoCompile leaves the Go blocks unchecked.
	NoCompile bool
	// RepoURL and RepoRoot make links that start with RepoURL (such as
	// "https://github.com/mcpgen/mcpgen/blob/main/") links into the repository at RepoRoot
	// (default: Root), checked as relative ones are: pages that live elsewhere, like a new
	// project's README, link to the guide by URL.
	RepoURL, RepoRoot string
	// Command parses the arguments of an mcpgen command line as mcpgen would, without
	// running anything, and says what is wrong with them. nil leaves commands unchecked.
	Command func(args []string) error
}

// Check checks the pages and returns their problems, sorted by file and line. The error is
// for failures of the check itself (a page that cannot be read, no go command).
func Check(ctx context.Context, opts Options) ([]Problem, error) {
	root, err := filepath.Abs(opts.Root)
	if err != nil {
		return nil, err
	}
	names := opts.Pages
	if names == nil {
		if names, err = projectPages(root); err != nil {
			return nil, err
		}
	}
	var problems []Problem
	var pages []*page
	cache := map[string]*page{}
	for _, name := range names {
		name = filepath.ToSlash(name)
		p, err := loadPage(root, name, func(line int, msg string) {
			problems = append(problems, Problem{name, line, msg})
		})
		if err != nil {
			return nil, err
		}
		cache[name] = p
		pages = append(pages, p)
	}
	repo := repoLinks{url: opts.RepoURL}
	if repo.root, err = filepath.Abs(cmp.Or(opts.RepoRoot, opts.Root)); err != nil {
		return nil, err
	}
	for _, p := range pages {
		problems = append(problems, checkLinks(root, p, cache, repo)...)
		if opts.Command != nil {
			problems = append(problems, checkCommands(p, opts.Command)...)
		}
	}
	if !opts.NoCompile {
		mod := cmp.Or(opts.ModuleDir, root)
		found, err := compileBlocks(ctx, mod, pages)
		if err != nil {
			return nil, err
		}
		problems = append(problems, found...)
	}
	slices.SortStableFunc(problems, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line))
	})
	return problems, nil
}

// projectPages lists the project's documentation.
func projectPages(root string) ([]string, error) {
	names := []string{"README.md"}
	for _, dir := range []string{"docs", "examples"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if os.IsNotExist(err) {
					return nil
				}
				return err
			}
			if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(d.Name(), ".md") || dir == "examples" && d.Name() != "README.md" {
				return nil
			}
			rel, err := filepath.Rel(root, path)
			names = append(names, filepath.ToSlash(rel))
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	return names, nil
}

func loadPage(root, name string, report func(int, string)) (*page, error) {
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
	if err != nil {
		return nil, err
	}
	return parsePage(name, string(data), report), nil
}
