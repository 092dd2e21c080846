package templates

import (
	"io/fs"
	"regexp"
	"strings"
	"testing"
)

// A comment padded to line up with the lines around it goes out of line once a field before
// it is filled in with a name of another length: "go build -o {{.Name}} .   # ...".
var paddedAfterField = regexp.MustCompile(`\}\}.*\S\s{2,}(#|//)`)

func TestNoPaddingAfterFields(t *testing.T) {
	err := fs.WalkDir(Project, "project", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		text, err := fs.ReadFile(Project, name)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(text), "\n") {
			if paddedAfterField.MatchString(line) {
				t.Errorf("%s:%d: a comment aligned after a template field: %s", name, i+1, line)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
