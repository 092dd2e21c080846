package index

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Every file of the tree is read here, through the index's os.Root (no path leaves the
// root, whatever links say) and with a limit on its size: the indexer, the searches, the
// tools and resources of the server, and the .gitignore files. Only regular files are read:
// a FIFO is not opened for reading (which would wait for a writer), a device such as
// /dev/zero not read (which never ends).

// MaxIgnoreFile bounds a .gitignore or .git/info/exclude: a larger one is not read.
const MaxIgnoreFile = 1 << 20

// ErrNotRegular is the error of reading what is not a regular file: a directory, a FIFO, a
// device or a socket.
var ErrNotRegular = errors.New("not a regular file")

// TooLargeError is the error of reading a file larger than the read's limit.
type TooLargeError struct {
	Size, Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%d bytes, over the limit of %d", e.Size, e.Limit)
}

// openRegular opens the regular file at rel within root for reading. It never blocks: what
// is not a regular file is refused before it is opened, and opened without waiting (a FIFO
// that replaced the file meanwhile) it is refused after.
func openRegular(root *os.Root, rel string) (*os.File, fs.FileInfo, error) {
	info, err := root.Stat(rel)
	if err != nil {
		return nil, nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, nil, &fs.PathError{Op: "open", Path: rel, Err: ErrNotRegular}
	}
	f, err := root.OpenFile(rel, os.O_RDONLY|openNonBlock, 0)
	if err != nil {
		return nil, nil, err
	}
	if info, err = f.Stat(); err != nil || !info.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = &fs.PathError{Op: "open", Path: rel, Err: ErrNotRegular}
		}
		return nil, nil, err
	}
	return f, info, nil
}

// readRegular reads the regular file at rel within root into *buf (grown as needed; nil
// for a new buffer), at most limit bytes: a larger file, or one that grows past limit as
// it is read, is a *TooLargeError.
func readRegular(root *os.Root, rel string, limit int64, buf *[]byte) ([]byte, error) {
	f, info, err := openRegular(root, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info.Size() > limit {
		return nil, &fs.PathError{Op: "read", Path: rel, Err: &TooLargeError{info.Size(), limit}}
	}
	if buf == nil {
		buf = new([]byte)
	}
	size := int(info.Size()) + 1 // one more, to see the end of a file that grew
	if cap(*buf) < size {
		*buf = make([]byte, size)
	}
	b := (*buf)[:cap(*buf)]
	n := 0
	for {
		k, err := f.Read(b[n:])
		n += k
		if int64(n) > limit {
			return nil, &fs.PathError{Op: "read", Path: rel, Err: &TooLargeError{int64(n), limit}}
		}
		if err == io.EOF {
			return b[:n], nil
		}
		if err != nil {
			return nil, err
		}
		if n == len(b) { // it grew
			b = append(b, 0)[:cap(b)]
			*buf = b
		}
	}
}

// ReadFile reads the regular file at rel (slash-separated, relative to the root), within
// the root, if it holds at most limit bytes; a larger one is an error that wraps a
// *TooLargeError, and what is not a regular file one that wraps ErrNotRegular.
func (ix *Index) ReadFile(rel string, limit int64) ([]byte, error) {
	return readRegular(ix.fsroot, rel, limit, nil)
}

// readIgnoreFile reads a .gitignore or .git/info/exclude: only a regular file, not a link
// (git does not follow a link named .gitignore either), of at most MaxIgnoreFile bytes. It
// returns nil for none, and says why a file it left unread was.
func readIgnoreFile(root *os.Root, rel string) (data []byte, problem string) {
	info, err := root.Lstat(rel)
	if err != nil {
		return nil, ""
	}
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		return nil, rel + " is a symbolic link: not read, as git does not follow it"
	case !info.Mode().IsRegular():
		return nil, rel + " is not a regular file: not read"
	}
	data, err = readRegular(root, rel, MaxIgnoreFile, nil)
	if err != nil {
		return nil, fmt.Sprintf("%s not read: %v", rel, errors.Unwrap(err))
	}
	return data, ""
}

// ReadDir lists at most max entries of the directory at rel within the root, in no
// particular order; more reports that it holds more.
func (ix *Index) ReadDir(rel string, max int) (entries []fs.DirEntry, more bool, err error) {
	info, err := ix.fsroot.Stat(rel)
	if err != nil {
		return nil, false, err
	}
	if !info.IsDir() {
		return nil, false, &fs.PathError{Op: "readdir", Path: rel, Err: errNotDir}
	}
	d, err := ix.fsroot.OpenFile(rel, os.O_RDONLY|openNonBlock, 0)
	if err != nil {
		return nil, false, err
	}
	defer d.Close()
	entries, err = d.ReadDir(max + 1)
	if err != nil && err != io.EOF {
		return nil, false, err
	}
	if len(entries) > max {
		return entries[:max], true, nil
	}
	return entries, false, nil
}

var errNotDir = errors.New("not a directory")
