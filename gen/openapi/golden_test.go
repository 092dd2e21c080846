package openapi

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpgen/mcpgen/gen"
)

var update = flag.Bool("update", false, "rewrite the golden packages")

// Each package of golden/openapi is what mcpgen openapi writes from its openapi.yaml (or
// openapi.json): generated again, it is the same, byte for byte. Its own tests call the tools.
func TestGolden(t *testing.T) {
	dirs, _ := filepath.Glob("../../golden/openapi/*")
	if len(dirs) == 0 {
		t.Fatal("no golden cases")
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			spec := "openapi.yaml"
			if _, err := os.Stat(filepath.Join(dir, spec)); err != nil {
				spec = "openapi.json"
			}
			src, err := Read(context.Background(), filepath.Join(dir, spec))
			if err != nil {
				t.Fatal(err)
			}
			doc, err := Parse(src)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Generate(doc, Options{Dir: dir, Spec: spec, Digest: src.Digest})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range res.Files {
				if *update {
					if _, err := gen.Write(f); err != nil {
						t.Fatal(err)
					}
					continue
				}
				old, err := os.ReadFile(f.Path)
				if f.Content == nil {
					if err == nil {
						t.Errorf("%s: not generated any more", f.Path)
					}
					continue
				}
				if !bytes.Equal(old, f.Content) {
					d, _ := gen.Diff(f, f.Path)
					t.Errorf("%s differs from what is generated now (go test ./gen/openapi -update):\n%s", f.Path, d)
				}
			}
		})
	}
}
