package mcp

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The runtime links only its own module and the client's output-schema checker (with the
// golang.org/x/text it uses for its messages): every server built on it carries what it
// links. A feature that needs more, such as mcpfunc's schemas derived at run time by
// invopop/jsonschema, lives in a package of its own that only its users import.
func TestRuntimeLinksFewModules(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{with .Module}}{{.Path}}{{end}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	allowed := []string{"github.com/mcpgen/mcpgen", "github.com/santhosh-tekuri/jsonschema/v6", "golang.org/x/text"}
	var extra []string
	for _, m := range strings.Fields(string(out)) {
		if !slices.Contains(allowed, m) && !slices.Contains(extra, m) {
			extra = append(extra, m)
		}
	}
	if len(extra) > 0 {
		t.Errorf("runtime/mcp links %s: every server would carry them; put what needs them in a package of its own", strings.Join(extra, ", "))
	}
}
