package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ReadFileInput names a file and the lines to read.
type ReadFileInput struct {
	// Path of a file in an indexed project: relative to its root, or absolute.
	FilePath string `json:"file_path" jsonschema:"minLength=1"`
	// Offset is how many lines to skip.
	Offset int `json:"offset,omitempty" jsonschema:"minimum=0"`
	// Limit on the lines returned.
	Limit int `json:"limit,omitempty" jsonschema:"minimum=1,maximum=5000,default=500"`
	// Project whose root a relative path starts at, when several are indexed.
	Project string `json:"project,omitempty"`
}

// ReadFile returns lines of a file of an indexed project, after a header
// "# Lines {start}-{end} of {total}".
//
//mcp:tool read_file readonly
func (g *Graph) ReadFile(ctx context.Context, in ReadFileInput) (string, error) {
	path, err := g.file(ctx, in.Project, in.FilePath)
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	lines := strings.SplitAfter(string(b), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	total := len(lines)
	if in.Offset > total || (in.Offset == total && total > 0) {
		return "", fmt.Errorf("offset %d is past the end of %s, which has %d lines", in.Offset, in.FilePath, total)
	}
	limit := in.Limit
	if limit == 0 {
		limit = 500
	}
	end := min(in.Offset+limit, total)
	text := strings.Join(lines[in.Offset:end], "")
	return fmt.Sprintf("# Lines %d-%d of %d\n%s", min(in.Offset+1, end), end, total, text), nil
}

// file is the absolute path of a file of an indexed project: one whose path, after
// symbolic links, is inside a project's root. Nothing else may be read or written.
func (g *Graph) file(ctx context.Context, project, name string) (string, error) {
	ps, err := g.store.Projects(ctx)
	if err != nil {
		return "", err
	}
	if len(ps) == 0 {
		return "", fmt.Errorf("no project is indexed yet: index one with index_repository")
	}
	id, err := g.project(ctx, project)
	if err != nil {
		return "", err
	}
	var candidates []string
	for _, p := range ps {
		if id != 0 && p.ID != id {
			continue
		}
		path := name
		if !filepath.IsAbs(path) {
			path = filepath.Join(p.Root, filepath.FromSlash(name))
		}
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			continue
		}
		root, err := filepath.EvalSymlinks(p.Root)
		if err != nil {
			continue
		}
		if rel, err := filepath.Rel(root, real); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			candidates = append(candidates, real)
		}
	}
	switch len(candidates) {
	case 0:
		return "", fmt.Errorf("%s is not a file of an indexed project (give a path relative to a project's root, or an absolute one inside it)", name)
	case 1:
		return candidates[0], nil
	}
	return "", fmt.Errorf("%s is in several projects (%s): say which with project", name, strings.Join(candidates, ", "))
}

// ReplaceInput says what to replace in a file.
type ReplaceInput struct {
	// Path of a file in an indexed project: relative to its root, or absolute.
	FilePath string `json:"file_path" jsonschema:"minLength=1"`
	// The exact text to replace: it must occur exactly once in the file.
	TargetCode string `json:"target_code" jsonschema:"minLength=1"`
	// The text to put in its place.
	ReplacementCode string `json:"replacement_code"`
	// Project whose root a relative path starts at, when several are indexed.
	Project string `json:"project,omitempty"`
}

// ReplaceReport says what a replacement did.
type ReplaceReport struct {
	Message  string `json:"message"`
	FilePath string `json:"file_path"`
	// Line where the replaced text began.
	Line int `json:"line"`
	// Packages that hold the file, reindexed after the change.
	Packages []string `json:"packages"`
	// TypeChecks says whether those packages still type-check.
	TypeChecks bool `json:"type_checks"`
	// Errors are the type errors if not.
	Errors []string `json:"errors,omitempty"`
}

// SurgicalReplaceCode replaces one exact occurrence of a block of code in a source file of an
// indexed project, writes the file atomically, reindexes the package, and reports whether it
// still type-checks. Zero or several occurrences change nothing and are reported. Only the
// files the server's operator allows are written: source files inside the directories it
// was started with, outside hidden directories.
//
//mcp:tool surgical_replace_code destructive
func (g *Graph) SurgicalReplaceCode(ctx context.Context, in ReplaceInput) (ReplaceReport, error) {
	path, err := g.file(ctx, in.Project, in.FilePath)
	if err != nil {
		return ReplaceReport{}, err
	}
	if err := g.Policy.canWrite(path); err != nil {
		return ReplaceReport{}, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return ReplaceReport{}, err
	}
	text := string(b)
	at, err := onlyOccurrence(text, in.TargetCode, in.FilePath)
	if err != nil {
		return ReplaceReport{}, err
	}
	text = text[:at] + in.ReplacementCode + text[at+len(in.TargetCode):]
	if err := writeAtomically(path, []byte(text)); err != nil {
		return ReplaceReport{}, err
	}
	r := ReplaceReport{FilePath: in.FilePath, Line: strings.Count(string(b[:at]), "\n") + 1, TypeChecks: true}
	root, err := g.rootOf(ctx, path)
	if err != nil {
		return ReplaceReport{}, err
	}
	if _, err = g.reindex(ctx, root, nil); err != nil {
		return ReplaceReport{}, fmt.Errorf("replaced the code in %s, but reindexing failed: %w", in.FilePath, err)
	}
	pkgs, err := g.store.PackagesOfFile(ctx, root, path)
	if err != nil {
		return ReplaceReport{}, err
	}
	r.Packages = []string{}
	for _, p := range pkgs {
		r.Packages = append(r.Packages, p.Path)
		if p.Errors != "" {
			r.TypeChecks = false
			r.Errors = append(r.Errors, strings.Split(p.Errors, "\n")...)
		}
	}
	r.Message = fmt.Sprintf("Successfully replaced code block in %s (line %d); its package still type-checks.", in.FilePath, r.Line)
	if !r.TypeChecks {
		r.Message = fmt.Sprintf("Replaced code block in %s (line %d), but its package no longer type-checks: see errors.", in.FilePath, r.Line)
	}
	return r, nil
}

// onlyOccurrence is where target occurs in text, if it occurs exactly once.
func onlyOccurrence(text, target, name string) (int, error) {
	at := strings.Index(text, target)
	if at < 0 {
		msg := fmt.Sprintf("target_code does not occur in %s; nothing was changed", name)
		if loose := strings.Index(squeeze(text), squeeze(target)); loose >= 0 {
			msg += " (it would, but for spacing: copy the text exactly, tabs and all, as read_file shows it)"
		}
		return 0, errors.New(msg)
	}
	lines := []int{strings.Count(text[:at], "\n") + 1}
	for from := at + 1; ; {
		next := strings.Index(text[from:], target)
		if next < 0 {
			break
		}
		from += next
		lines = append(lines, strings.Count(text[:from], "\n")+1)
		from++
	}
	if len(lines) > 1 {
		return 0, fmt.Errorf("target_code occurs %d times in %s (at lines %s); nothing was changed: include more of the surrounding code so that it occurs once",
			len(lines), name, strings.Trim(strings.Join(strings.Fields(fmt.Sprint(lines)), ", "), "[]"))
	}
	return at, nil
}

// squeeze drops all white space, to tell "differs only in spacing" from "absent".
func squeeze(s string) string {
	return strings.Join(strings.Fields(s), "")
}

// writeAtomically replaces a file by writing a new one beside it and renaming it over the
// old, so that a reader (or a crash) sees the old file or the new, never half of one.
func writeAtomically(path string, data []byte) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after the rename, there is nothing to remove
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(fi.Mode().Perm()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// rootOf is the root of the project that holds the file.
func (g *Graph) rootOf(ctx context.Context, path string) (string, error) {
	ps, err := g.store.Projects(ctx)
	if err != nil {
		return "", err
	}
	best := ""
	for _, p := range ps {
		root, err := filepath.EvalSymlinks(p.Root)
		if err != nil {
			continue
		}
		if strings.HasPrefix(path, root+string(filepath.Separator)) && len(root) > len(best) {
			best = p.Root
		}
	}
	if best == "" {
		return "", fmt.Errorf("%s is in no indexed project", path)
	}
	return best, nil
}
