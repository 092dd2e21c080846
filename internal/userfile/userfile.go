// Package userfile reads the small files a program is given or keeps for its user (a
// configuration, approvals, tokens): regular files only, up to MaxSize. A path a cloned
// repository controls can name anything (git keeps symbolic links: .mcp.json -> /dev/zero,
// or a FIFO), and reading it must end in an error, not in a program that waits for ever or
// runs out of memory.
package userfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// MaxSize is the largest file read: far above any configuration, approvals or tokens a
// person keeps.
const MaxSize = 4 << 20

// Open opens path for reading if it is a regular file (after symbolic links). Anything
// else is an error that says what it is, without waiting: a FIFO is checked before it is
// opened, and opened without blocking should it take the file's place in between.
func Open(path string) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := regular(path, fi); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, err
	}
	now, err := f.Stat()
	if err == nil {
		err = regular(path, now)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// regular returns an error unless fi is a regular file's.
func regular(path string, fi fs.FileInfo) error {
	if fi.Mode().IsRegular() {
		return nil
	}
	what := "not a regular file"
	switch m := fi.Mode(); {
	case m.IsDir():
		what = "a directory"
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m&fs.ModeDevice != 0:
		what = "a device"
	}
	return &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w: it is %s", ErrNotRegular, what)}
}

// ErrNotRegular is wrapped by the error of a path that is not a regular file.
var ErrNotRegular = errors.New("only regular files are read")

// ErrTooLarge is wrapped by the error of a file larger than MaxSize.
var ErrTooLarge = fmt.Errorf("larger than %d MiB", MaxSize>>20)

// Read reads f to its end, up to MaxSize bytes: a larger file is an error.
func Read(f *os.File) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxSize {
		return nil, &fs.PathError{Op: "read", Path: f.Name(), Err: ErrTooLarge}
	}
	return data, nil
}

// ReadFile reads the regular file at path, up to MaxSize bytes (Open, then Read).
func ReadFile(path string) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f)
}
