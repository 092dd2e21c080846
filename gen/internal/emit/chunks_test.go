package emit_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpgen/mcpgen/gen"
	"github.com/mcpgen/mcpgen/gen/internal/emit"
)

// A file formatted in chunks, a chunk per declaration (large files are, a chunk per core),
// is the file gofmt writes whole, byte for byte: every golden package's and example's
// generated file comes out as committed.
func TestChunksFormatAsTheWholeFile(t *testing.T) {
	defer emit.ChunkEveryDeclaration()()
	dirs, _ := filepath.Glob("../../../golden/*")
	examples, _ := filepath.Glob("../../../examples/*")
	before, files := emit.ChunkedFiles(), 0
	for _, dir := range append(dirs, examples...) {
		want, err := os.ReadFile(filepath.Join(dir, gen.DefaultFileName))
		if _, diags := os.Stat(filepath.Join(dir, "diagnostics.txt")); err != nil || diags == nil {
			continue
		}
		abs, _ := filepath.Abs(dir)
		res, err := gen.Generate(gen.Config{Dir: abs})
		if err != nil || len(res.Files) != 1 {
			t.Fatalf("%s: %v (%d files)", dir, err, len(res.Files))
		}
		files++
		if !bytes.Equal(res.Files[0].Content, want) {
			t.Errorf("%s: formatted in chunks, %s differs from the committed one", dir, gen.DefaultFileName)
		}
	}
	if files < 10 || emit.ChunkedFiles()-before < int64(files) {
		t.Errorf("%d files generated, %d of them formatted in chunks", files, emit.ChunkedFiles()-before)
	}
}
