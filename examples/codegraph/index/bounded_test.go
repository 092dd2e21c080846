package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/examples/codegraph/graph"
)

// A run stopped midway keeps the packages it committed, and the next run indexes only the
// rest (before, a run was one transaction: stopped, it kept nothing, and the next started
// over).
func TestInterruptedRunKeepsWhatItCommitted(t *testing.T) {
	defer func(d time.Duration) { checkpointEvery = d }(checkpointEvery)
	checkpointEvery = 0 // commit after every package
	dir := copyModule(t)
	store, err := graph.Open(filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ctx, cancel := context.WithCancel(context.Background())
	written := 0
	_, err = Run(ctx, store, dir, func(done, total int, msg string) {
		if strings.HasPrefix(msg, "indexed ") {
			if written++; written == 2 {
				cancel() // the second package is written, not yet committed
			}
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("the stopped run: %v", err)
	}
	const p = "example.com/shapes"
	hashes, err := store.PackageHashes(context.Background(), dir)
	if err != nil || len(hashes) != 1 || hashes[p] == "" {
		t.Errorf("after the stopped run: %v %v, want %s committed", hashes, err, p)
	}
	res, err := Run(context.Background(), store, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{p + "/cmd/shapes", p + "_test"}; !slices.Equal(res.Indexed, want) {
		t.Errorf("the next run indexed %q, want %q", res.Indexed, want)
	}
	total, err := store.Resolve(context.Background(), 0, "shapes.Total")
	if err != nil {
		t.Fatal(err)
	}
	if callers, _, err := store.Callers(context.Background(), total, 1, 100); err != nil || len(callers) != 4 {
		t.Errorf("callers of Total after both runs: %+v %v", callers, err)
	}
}

// The memory a run holds is bounded by the packages in flight, not by the project: each
// package's syntax and type information go once its facts are made. Before, go/packages
// held all of them until the load ended (the standard library peaked at 2.2 to 3.9 GB).
func TestMemoryIsBoundedByPackagesInFlight(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/big\n\ngo 1.22\n"), 0o644)
	const packages, funcs = 24, 400
	for i := range packages {
		var b strings.Builder
		fmt.Fprintf(&b, "package p%d\n\n", i)
		if i > 0 {
			fmt.Fprintf(&b, "import \"example.com/big/p%d\"\n\nvar _ = p%d.F0\n\n", i-1, i-1)
		}
		for f := range funcs {
			fmt.Fprintf(&b, "// F%d computes.\nfunc F%d(a, b int) int {\n\tx := a + b\n\tfor i := 0; i < a; i++ {\n\t\tx += i * b\n\t\tif x > 1000 {\n\t\t\tx = F%d(x, i) - b\n\t\t}\n\t}\n\treturn x\n}\n\n", f, f, (f+1)%funcs)
		}
		os.MkdirAll(filepath.Join(dir, fmt.Sprintf("p%d", i)), 0o755)
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("p%d", i), "p.go"), []byte(b.String()), 0o644)
	}
	store, err := graph.Open(filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var base, peak uint64
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	base = heap()
	res, err := Run(context.Background(), store, dir, func(done, total int, msg string) {
		if strings.HasPrefix(msg, "indexed ") {
			peak = max(peak, heap())
		}
	})
	if err != nil || res.Packages != packages {
		t.Fatal(res, err)
	}
	// 96,000 lines: their syntax and type information, all held at once, take 100 MB and more.
	if grew := (peak - min(peak, base)) >> 20; grew > 40 {
		t.Errorf("the heap grew by %d MB while indexing %d packages of %d lines", grew, packages, funcs*12)
	}
	t.Logf("heap grew by at most %d MB", (peak-min(peak, base))>>20)
}
