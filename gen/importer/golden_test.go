package importer

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	udiff "github.com/aymanbagabas/go-udiff"
)

var update = flag.Bool("update", false, "rewrite the generated packages of the golden cases")

// The golden cases are under golden/import (and examples/fsclient): each directory holds a snapshot of a real
// server's (snapshot.json, as mcpgen import --save writes it) and the package generated from
// it, which go vet and go build check as any package of the module. The snapshots of npm's
// reference servers are checked against the pinned servers themselves by the end-to-end
// tests (mcpgen import --check).
func TestGolden(t *testing.T) {
	dirs, _ := filepath.Glob("../../golden/import/*")
	dirs = append(dirs, "../../examples/fsclient/filesystem") // the README's example
	if len(dirs) < 6 {
		t.Fatalf("only %d golden cases", len(dirs))
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, SnapshotFile))
			if err != nil {
				t.Fatal(err)
			}
			snap, err := ReadSnapshot(data)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Generate(snap, Options{Package: filepath.Base(dir), Dir: dir})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range res.Files {
				if *update {
					if err := os.WriteFile(f.Path, f.Data, 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(f.Path)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(f.Data, want) {
					t.Errorf("%s differs from what is generated (go test ./gen/importer -update rewrites it):\n%s", f.Path,
						udiff.Unified(f.Path, "generated", string(want), string(f.Data)))
				}
			}
			// Generating twice gives the same bytes.
			again, _ := Generate(snap, Options{Package: filepath.Base(dir), Dir: dir})
			for i := range again.Files {
				if !bytes.Equal(again.Files[i].Data, res.Files[i].Data) {
					t.Errorf("%s: two runs differ", again.Files[i].Path)
				}
			}
			if !strings.HasPrefix(string(res.Files[0].Data), Header+"\n") {
				t.Errorf("%s does not start with the generated-file header", res.Files[0].Path)
			}
		})
	}
}
