package otelcoltest

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
)

// moduleDir is where the collector's module is, from the repository's root.
const moduleDir = "e2e/otelcol"

var built struct {
	once sync.Once
	path string
	err  error
}

// Binary returns the path of the collector built from e2e/otelcol, building it the first
// time. The binary is kept in .cache/otelcol/KEY/otelcol, KEY a hash of the module's
// go.mod, go.sum and Go files and of the Go version, so a run builds it at most once and
// later runs find it; a build takes minutes from a cold Go build cache. Packages tested
// at the same time wait for one build, under a lock file.
func Binary(t testing.TB) string {
	t.Helper()
	built.once.Do(func() { built.path, built.err = build() })
	if built.err != nil {
		t.Fatalf("building the OpenTelemetry Collector (%s): %v", moduleDir, built.err)
	}
	return built.path
}

func build() (string, error) {
	root, err := repositoryRoot()
	if err != nil {
		return "", err
	}
	src := filepath.Join(root, moduleDir)
	key, err := sourceKey(src)
	if err != nil {
		return "", err
	}
	cache := filepath.Join(root, ".cache", "otelcol")
	bin := filepath.Join(cache, key, "otelcol")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		return "", err
	}
	unlock, err := lockFile(filepath.Join(cache, "build.lock"))
	if err != nil {
		return "", err
	}
	defer unlock()
	if _, err := os.Stat(bin); err == nil {
		return bin, nil // built by another package's test while this one waited
	}
	tmp := bin + ".tmp"
	cmd := exec.Command("go", "build", "-mod=readonly", "-buildvcs=false", "-o", tmp, ".")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build in %s: %v\n%s", src, err, out)
	}
	if err := os.Rename(tmp, bin); err != nil {
		return "", err
	}
	// Binaries of other versions of the module are of no more use.
	entries, _ := os.ReadDir(cache)
	for _, e := range entries {
		if e.IsDir() && e.Name() != key {
			os.RemoveAll(filepath.Join(cache, e.Name()))
		}
	}
	return bin, nil
}

// sourceKey hashes what the binary is built from.
func sourceKey(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	var names []string
	for _, e := range entries {
		if n := e.Name(); !e.IsDir() && (n == "go.mod" || n == "go.sum" || filepath.Ext(n) == ".go") {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	h := sha256.New()
	fmt.Fprintf(h, "%s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d\n", n, len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// repositoryRoot is the nearest directory above the working directory (a test's package
// directory) that holds e2e/otelcol.
func repositoryRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, moduleDir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no directory above the working directory holds " + moduleDir)
		}
		dir = parent
	}
}
