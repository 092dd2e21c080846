// Package selfcontained checks that the repository's files refer to nothing outside it. A
// user's clone holds the repository and nothing beside it, so a test or script that reads a
// sibling directory (the developers' copy of the MCP specification, say) passes for its
// authors and fails for everybody else. The test of this package runs the check over the
// repository as part of `go test ./...`.
package selfcontained

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// A Finding is one reference to something outside the repository.
type Finding struct {
	File string // relative to the root, with forward slashes
	Line int
	Text string // the reference
	Why  string
}

func (f Finding) String() string {
	return fmt.Sprintf("%s:%d: %s: %s", f.File, f.Line, f.Text, f.Why)
}

// forbidden are names of things that exist on the developers' machines only. They are
// spelled in pieces so that this file does not name them itself.
var forbidden = []struct{ text, why string }{
	{"../" + "shared", "the developers' shared directory is not part of a clone; copy what is needed into the repository"},
	{"shared/" + "mcp-spec", "the developers' copy of the specification is not part of a clone; the schemas tests need are in internal/spectest/schema"},
	{"MCP_" + "SPEC_DIR", "no test may need the specification from outside the repository"},
	{"/work" + "/", "an absolute path of a developer's machine"},
}

// relative matches a path that starts by climbing out of its directory.
var relative = regexp.MustCompile(`(?:^|[\s"'` + "`" + `=(:,])((?:\.\./)+[^\s"'` + "`" + `),;]*)`)

// Check reads the named files (relative to root) and reports every reference to something
// outside root: the names in forbidden anywhere, and in files other than Markdown, relative
// paths that climb above root from the file's directory. Markdown is left out of the
// second rule because documentation tells users where to put their own projects
// ("mcpgen new ../hello"). Binary files are skipped.
func Check(root string, files []string) ([]Finding, error) {
	var found []Finding
	for _, name := range files {
		data, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			return nil, err
		}
		if bytes.IndexByte(data, 0) >= 0 {
			continue
		}
		markdown := strings.HasSuffix(name, ".md")
		dir := filepath.Dir(filepath.FromSlash(name))
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, len(data)+1)
		for line := 1; sc.Scan(); line++ {
			text := sc.Text()
			for _, f := range forbidden {
				if strings.Contains(text, f.text) {
					found = append(found, Finding{name, line, f.text, f.why})
				}
			}
			if markdown {
				continue
			}
			for _, m := range relative.FindAllStringSubmatch(text, -1) {
				p := filepath.Join(dir, filepath.FromSlash(m[1]))
				if p == ".." || strings.HasPrefix(p, ".."+string(filepath.Separator)) {
					found = append(found, Finding{name, line, m[1], "a path outside the repository"})
				}
			}
		}
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return found, nil
}

// Files lists the files of the repository at root: those git tracks or would track (so a
// new file is checked before it is committed), or, outside a git checkout, every file but
// those of build outputs and caches.
func Files(root string) ([]string, error) {
	cmd := exec.Command("git", "ls-files", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	if out, err := cmd.Output(); err == nil {
		var files []string
		for _, f := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			// A file deleted but not yet committed is still listed as cached.
			if _, err := os.Stat(filepath.Join(root, f)); f != "" && err == nil {
				files = append(files, f)
			}
		}
		return files, nil
	}
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", ".cache", "node_modules", "bin":
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		files = append(files, filepath.ToSlash(rel))
		return nil
	})
	return files, err
}
