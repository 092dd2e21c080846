package gen

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Which of a server package's types a client can reuse, and why not the others.
func TestImportPackageReuse(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/x\n\ngo 1.25\n",
		"srv/srv.go": `package srv

import (
	"context"

	"example.com/x/srv/internal/inner"
)

type base struct{ X int ` + "`json:\"x\"`" + ` }

// Embedded is reached through base, which other packages cannot name.
type Embedded struct {
	base
	Y int ` + "`json:\"y\"`" + `
}

type hidden struct{ Z int ` + "`json:\"z\"`" + ` }

// Deep names a type of an internal package.
type Deep struct{ V inner.V ` + "`json:\"v\"`" + ` }

// ReadOnly reads itself but cannot write itself.
//
//mcp:schema {"type": "string"}
type ReadOnly struct{ s string }

func (r *ReadOnly) UnmarshalJSON(b []byte) error { r.s = string(b); return nil }

// WithReadOnly takes one.
type WithReadOnly struct {
	R ReadOnly ` + "`json:\"r\"`" + `
}

// Fine is fine both ways.
type Fine struct {
	A string            ` + "`json:\"a\"`" + `
	B map[string][]int  ` + "`json:\"b,omitempty\"`" + `
	C *Fine             ` + "`json:\"c,omitempty\"`" + `
}

// E returns Fine.
//
//mcp:tool embedded
func E(ctx context.Context, in Embedded) (Fine, error) { return Fine{}, nil }

// H returns a type of its own package.
//
//mcp:tool hidden
func H(ctx context.Context, in Fine) (hidden, error) { return hidden{}, nil }

// D echoes Deep.
//
//mcp:tool deep
func D(ctx context.Context, in Deep) (Deep, error) { return in, nil }

// R takes a type that only decodes.
//
//mcp:tool takes_reader
func R(ctx context.Context, in WithReadOnly) error { return nil }

// F echoes Fine.
//
//mcp:tool fine
func F(ctx context.Context, in Fine) (Fine, error) { return in, nil }
`,
		"srv/internal/inner/inner.go": "package inner\n\n// V is internal to srv.\ntype V struct{ N int `json:\"n\"` }\n",
		"plain/plain.go":              "package plain\n\nfunc F() {}\n",
	}
	for name, text := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	src, err := ImportPackage(Config{Dir: dir, Patterns: []string{"./srv"}}, filepath.Join(dir, "client"), "client")
	if err != nil {
		t.Fatal(err)
	}
	if src.Snapshot.GoPackage != "example.com/x/srv" || len(src.Snapshot.Tools) != 5 {
		t.Errorf("snapshot: %s, %d tools", src.Snapshot.GoPackage, len(src.Snapshot.Tools))
	}
	type reuse struct{ in, out bool }
	got := map[string]reuse{}
	for name, r := range src.Reuse.Tools {
		got[name] = reuse{r.In != nil, r.Out != nil}
	}
	want := map[string]reuse{"embedded": {false, true}, "hidden": {true, false}, "fine": {true, true}}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("tool %s: reused (in, out) = %v, want %v", name, got[name], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("reused: %v, want %v", got, want)
	}
	wantNotes := []string{
		"tool embedded: the argument type Embedded is generated from the schema: its field x is reached through the unexported embedded field base",
		"tool hidden: the result type hidden is generated from the schema: hidden is not exported",
		"tool deep: the argument type Deep is generated from the schema: package example.com/x/srv/internal/inner is internal to another tree than example.com/x/client",
		"tool deep: the result type Deep is generated from the schema: package example.com/x/srv/internal/inner is internal to another tree than example.com/x/client",
		"tool takes_reader: the argument type WithReadOnly is generated from the schema: example.com/x/srv.ReadOnly cannot write itself (it has no MarshalText or MarshalJSON)",
	}
	for _, n := range wantNotes {
		if !slices.Contains(src.Reuse.Notes, n) {
			t.Errorf("no note %q; notes:\n%s", n, strings.Join(src.Reuse.Notes, "\n"))
		}
	}
	if !strings.Contains(string(src.Reuse.Codec), "func mcpgenEncodeFine(e *jsonwire.Encoder, v *srv.Fine)") ||
		!strings.Contains(string(src.Reuse.Codec), "func mcpgenDecodeFine(d *jsonwire.Decoder, v *srv.Fine)") {
		t.Errorf("codec:\n%s", src.Reuse.Codec)
	}

	// Inside srv's tree, the internal package may be imported.
	src, err = ImportPackage(Config{Dir: dir, Patterns: []string{"./srv"}}, filepath.Join(dir, "srv", "client"), "client")
	if err != nil {
		t.Fatal(err)
	}
	if r := src.Reuse.Tools["deep"]; r.In == nil || r.Out == nil {
		t.Errorf("deep from srv/client: not reused; notes: %v", src.Reuse.Notes)
	}

	// Mistakes.
	if _, err := ImportPackage(Config{Dir: dir, Patterns: []string{"./plain"}}, "c", "c"); err == nil || !strings.Contains(err.Error(), "package example.com/x/plain has no //mcp: tools") {
		t.Errorf("a package without directives: %v", err)
	}
	if _, err := ImportPackage(Config{Dir: dir, Patterns: []string{"./..."}}, "c", "c"); !errors.Is(err, errNotOne) {
		t.Errorf("./...: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "srv", "broken.go"), []byte("package srv\n\nvar _ int = \"s\"\n"), 0o644)
	_, err = ImportPackage(Config{Dir: dir, Patterns: []string{"./srv"}}, "c", "c")
	var diags ImportDiagnostics
	if !errors.As(err, &diags) || !strings.Contains(err.Error(), "broken.go:3:13: ") {
		t.Errorf("a package that does not compile: %v", err)
	}
}
