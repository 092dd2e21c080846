// Package safepath checks the paths an MCP client gives against the root of the codebase:
// relative, slash-separated, without "..", without NUL bytes. What passes is opened through
// an os.Root, which also refuses symbolic links that lead outside the root, so that no
// request can read a file beyond it however the tree changes meanwhile.
package safepath

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// Clean checks p, a path the client gave for the argument named what, and returns it as a
// clean slash-separated path relative to the root ("." for the root itself). "" and "."
// name the root.
func Clean(what, p string) (string, error) {
	if strings.IndexByte(p, 0) >= 0 {
		return "", fmt.Errorf("%s %q contains a NUL byte", what, p)
	}
	if p == "" {
		return ".", nil
	}
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) || hasVolume(p) {
		return "", fmt.Errorf("%s %q is absolute: give a path relative to the root of the codebase (\".\" is the root)", what, p)
	}
	for _, part := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' }) {
		if part == ".." {
			return "", fmt.Errorf("%s %q leads outside the root: paths may not contain \"..\"", what, p)
		}
	}
	return path.Clean(p), nil
}

// hasVolume reports whether p starts with a Windows drive letter, as in C:\ or C:/.
func hasVolume(p string) bool {
	return len(p) >= 2 && p[1] == ':' && (p[0] >= 'a' && p[0] <= 'z' || p[0] >= 'A' && p[0] <= 'Z')
}

// Explain rewrites an error of an os.Root operation on the path p for the client: a path
// that escapes the root through a symbolic link, or that does not exist, in plain words.
func Explain(what, p string, err error) error {
	if err == nil {
		return nil
	}
	cause := err
	var pe *fs.PathError
	if errors.As(err, &pe) {
		cause = pe.Err
	}
	switch {
	case errors.Is(cause, fs.ErrNotExist):
		return &explained{fmt.Sprintf("%s %q does not exist", what, p), err}
	case strings.Contains(cause.Error(), "escapes from parent"), strings.Contains(cause.Error(), "path escapes"):
		return &explained{fmt.Sprintf("%s %q leads outside the root through a symbolic link", what, p), err}
	case errors.Is(cause, fs.ErrPermission):
		return &explained{fmt.Sprintf("%s %q cannot be read: permission denied", what, p), err}
	}
	return &explained{fmt.Sprintf("%s %q: %v", what, p, cause), err}
}

// explained is an error in words for the client that still wraps its cause.
type explained struct {
	msg string
	err error
}

func (e *explained) Error() string { return e.msg }
func (e *explained) Unwrap() error { return e.err }
