// Package longfiles checks that no hand-written Go file of the repository is longer than
// MaxLines. A file that long holds more than one concern; split it by concern, moving
// declarations as they are, into files whose names say what each holds. Generated files
// (their first line begins "// Code generated") and those under a testdata directory are
// not checked. The test of this package runs the check over the repository as part of
// `go test ./...`.
package longfiles

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// MaxLines is the most lines a hand-written Go file may have.
const MaxLines = 600

// A Finding is a file longer than MaxLines.
type Finding struct {
	File  string // relative to the root, with forward slashes
	Lines int
}

func (f Finding) String() string {
	return fmt.Sprintf("%s:%d:1: %d lines, more than the %d a hand-written Go file may have: split it by concern (moving declarations as they are) into files whose names say what each holds",
		f.File, MaxLines+1, f.Lines, MaxLines)
}

// Check reads the named files (relative to root, with forward slashes) and reports every Go
// file longer than MaxLines, but for generated files and those under a testdata directory.
func Check(root string, files []string) ([]Finding, error) {
	var found []Finding
	for _, name := range files {
		if !strings.HasSuffix(name, ".go") || slices.Contains(strings.Split(name, "/"), "testdata") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil {
			return nil, err
		}
		if bytes.HasPrefix(data, []byte("// Code generated")) {
			continue
		}
		lines := bytes.Count(data, []byte("\n"))
		if len(data) > 0 && data[len(data)-1] != '\n' {
			lines++ // a last line without its newline
		}
		if lines > MaxLines {
			found = append(found, Finding{name, lines})
		}
	}
	return found, nil
}
