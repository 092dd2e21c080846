package gen

import (
	"bytes"
	"errors"
	"io/fs"
	"os"

	udiff "github.com/aymanbagabas/go-udiff"
)

// Change is what writing a File does to the file on disk.
type Change int

const (
	Unchanged Change = iota
	Created
	Updated
	Removed
)

func (c Change) String() string {
	return [...]string{"unchanged", "created", "updated", "removed"}[c]
}

// Compare says what writing f would change, without writing.
func Compare(f File) (Change, error) {
	old, err := os.ReadFile(f.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if f.Content == nil {
			return Unchanged, nil
		}
		return Created, nil
	case err != nil:
		return Unchanged, err
	case f.Content == nil:
		return Removed, nil
	case bytes.Equal(old, f.Content):
		return Unchanged, nil
	}
	return Updated, nil
}

// Write brings the file on disk in line with f, touching it only if its bytes change (so
// that build caches and editors are not disturbed), and reports what it did.
func Write(f File) (Change, error) {
	c, err := Compare(f)
	if err != nil || c == Unchanged {
		return c, err
	}
	if c == Removed {
		return c, os.Remove(f.Path)
	}
	return c, os.WriteFile(f.Path, f.Content, 0o666)
}

// Diff returns a unified diff from the file on disk to f, or "" when they are the same.
func Diff(f File, label string) (string, error) {
	old, err := os.ReadFile(f.Path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	oldLabel, newLabel := label+" (on disk)", label+" (generated)"
	if err != nil {
		oldLabel = "/dev/null"
	}
	if f.Content == nil {
		newLabel = "/dev/null"
	}
	return udiff.Unified(oldLabel, newLabel, string(old), string(f.Content)), nil
}
