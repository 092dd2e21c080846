package index

import (
	"bytes"
	"io/fs"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
)

// Kind says whether a file's text is indexed, and if not why.
type Kind uint8

const (
	Text     Kind = iota // indexed
	Binary               // holds a NUL byte: not text
	TooLarge             // larger than Options.MaxFileSize
)

func (k Kind) String() string {
	switch k {
	case Binary:
		return "binary"
	case TooLarge:
		return "too large"
	}
	return "text"
}

// File is one file of the tree as the index knows it.
type File struct {
	Path    string // slash-separated, relative to the root
	Size    int64
	ModTime int64 // nanoseconds since the epoch
	Kind    Kind
	// Vendored: under a directory of third-party code (vendor, node_modules...).
	Vendored bool
	// Generated: marked as generated ("Code generated ... DO NOT EDIT.", "@generated"), or
	// a lock file or minified bundle.
	Generated bool
}

// vendorDirs are the directory names whose contents are someone else's code, searched only
// when a search asks for vendored files.
var vendorDirs = map[string]bool{
	"vendor": true, "node_modules": true, "bower_components": true, "jspm_packages": true,
	"third_party": true, "third-party": true, "thirdparty": true, ".venv": true, "site-packages": true,
}

// isVendored reports whether rel lies under a vendored directory.
func isVendored(rel string) bool {
	for {
		i := strings.IndexByte(rel, '/')
		if i < 0 {
			return false
		}
		if vendorDirs[rel[:i]] {
			return true
		}
		rel = rel[i+1:]
	}
}

// generatedNames are files that tools write: lock files and minified bundles.
var generatedNames = regexp.MustCompile(`(^|/)(package-lock\.json|yarn\.lock|pnpm-lock\.yaml|Cargo\.lock|composer\.lock|Gemfile\.lock|poetry\.lock|go\.sum)$|\.min\.(js|css|mjs)$|\.map$`)

// generatedMarker finds the marks of generated code near the top of a file: Go's
// convention (https://go.dev/s/generatedcode) and the @generated of other ecosystems.
var generatedMarker = regexp.MustCompile(`(?m)^// Code generated .* DO NOT EDIT\.$|@generated\b`)

// isGenerated reports whether a file is generated, by its name or its first 4 KiB.
func isGenerated(rel string, data []byte) bool {
	if generatedNames.MatchString(rel) {
		return true
	}
	head := data[:min(len(data), 4096)]
	return bytes.Contains(head, []byte("generated")) && generatedMarker.Match(head)
}

// walkResult is what one walk of the tree found.
type walkResult struct {
	files []File   // sorted by path; Kind and Generated not yet known
	dirs  []string // every directory walked, "." first
	// problems are the ignore files the walk did not read, and why.
	problems []string
}

// walk lists the files of the tree below root that are not ignored: .git is skipped,
// .gitignore files (and .git/info/exclude) are honoured as git does, and symbolic links are
// not followed (as ripgrep and git grep do not). Directories are read through root, so
// nothing outside it is ever read, even if a directory is replaced by a link meanwhile.
func walk(root *os.Root) (*walkResult, error) {
	w := &walkResult{}
	base := ignoreStack{}
	data, problem := readIgnoreFile(root, ".git/info/exclude")
	if data != nil {
		base = append(base, parseIgnore(".", data))
	}
	if problem != "" {
		w.problems = append(w.problems, problem)
	}
	if err := walkDir(root, ".", base, w); err != nil {
		return nil, err
	}
	slices.SortFunc(w.files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return w, nil
}

// readDir lists the directory at rel within root.
func readDir(root *os.Root, rel string) ([]fs.DirEntry, error) {
	d, err := root.Open(rel)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.ReadDir(-1)
}

func walkDir(root *os.Root, rel string, ign ignoreStack, w *walkResult) error {
	entries, err := readDir(root, rel)
	if err != nil {
		if rel == "." {
			return err
		}
		return nil // a directory that vanished or cannot be read is left out
	}
	w.dirs = append(w.dirs, rel)
	for _, e := range entries {
		if e.Name() == ".gitignore" {
			data, problem := readIgnoreFile(root, path.Join(rel, ".gitignore"))
			if data != nil {
				ign = append(ign[:len(ign):len(ign)], parseIgnore(rel, data))
			}
			if problem != "" {
				w.problems = append(w.problems, problem)
			}
			break
		}
	}
	for _, e := range entries {
		name := e.Name()
		child := name
		if rel != "." {
			child = rel + "/" + name
		}
		switch t := e.Type(); {
		case t.IsDir():
			if name == ".git" || ign.ignored(child, true) {
				continue
			}
			if err := walkDir(root, child, ign, w); err != nil {
				return err
			}
		case t.IsRegular():
			if ign.ignored(child, false) {
				continue
			}
			info, err := e.Info()
			if err != nil {
				continue
			}
			w.files = append(w.files, File{Path: child, Size: info.Size(), ModTime: info.ModTime().UnixNano(), Vendored: isVendored(child)})
		}
	}
	return nil
}

// ignoredPath reports whether rel, a path below root, is left out of the index: under .git,
// under an ignored directory, or ignored itself. The watcher asks it of paths it hears of.
// It reads the ignore files as walk does.
func ignoredPath(root *os.Root, rel string, isDir bool) bool {
	ign := ignoreStack{}
	if data, _ := readIgnoreFile(root, ".git/info/exclude"); data != nil {
		ign = append(ign, parseIgnore(".", data))
	}
	parts := strings.Split(rel, "/")
	dir := "."
	for i, part := range parts {
		if part == ".git" {
			return true
		}
		if data, _ := readIgnoreFile(root, path.Join(dir, ".gitignore")); data != nil {
			ign = append(ign, parseIgnore(dir, data))
		}
		child := path.Join(dir, part)
		last := i == len(parts)-1
		if ign.ignored(child, !last || isDir) {
			return true
		}
		dir = child
	}
	return false
}

// statFile returns the File for rel as it is on disk now, and whether it is a regular file.
func statFile(root *os.Root, rel string) (File, bool) {
	info, err := root.Lstat(rel)
	if err != nil || !info.Mode().IsRegular() {
		return File{}, false
	}
	return File{Path: rel, Size: info.Size(), ModTime: info.ModTime().UnixNano(), Vendored: isVendored(rel)}, true
}

// Ignored reports whether rel, a path below the root, is left out by .gitignore, or lies
// under .git.
func (ix *Index) Ignored(rel string, isDir bool) bool { return ignoredPath(ix.fsroot, rel, isDir) }

// Vendored reports whether rel lies under a directory of third-party code.
func Vendored(rel string) bool { return isVendored(rel) }
