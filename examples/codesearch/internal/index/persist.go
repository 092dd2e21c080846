package index

import (
	"bufio"
	"encoding/gob"
	"fmt"
	"os"
	"path/filepath"
)

// formatVersion changes whenever what is saved changes meaning; an index of another version
// is built anew.
const formatVersion = 1

// indexFile is the name of the saved index in Options.Dir.
const indexFile = "trigrams.idx"

// saved is the index as written to disk: one segment.
type saved struct {
	Version     int
	Root        string
	MaxFileSize int64
	Files       []File
	Tris        []uint32
	Offs        []uint32
	Post        []byte
}

// save writes the index to Options.Dir if it changed since it was last written: first to a
// temporary file, then renamed over the old one, so that a reader never sees half of it.
func (ix *Index) save() {
	if ix.opts.Dir == "" {
		return
	}
	ix.mu.Lock()
	if !ix.dirty {
		ix.mu.Unlock()
		return
	}
	v := ix.view.Load()
	if len(v.delta) > 0 || v.dead != nil {
		v = &view{base: v.merged()}
		ix.view.Store(v)
	}
	ix.dirty = false
	ix.mu.Unlock()
	if err := writeIndex(ix.opts.Dir, &saved{
		Version: formatVersion, Root: ix.root, MaxFileSize: ix.opts.MaxFileSize,
		Files: v.base.files, Tris: v.base.tris, Offs: v.base.offs, Post: v.base.post,
	}); err != nil {
		ix.opts.Logf("index: not saved: %v", err)
		ix.mu.Lock()
		ix.dirty = true
		ix.mu.Unlock()
	}
}

func writeIndex(dir string, s *saved) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, indexFile+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriterSize(tmp, 1<<20)
	if err := gob.NewEncoder(w).Encode(s); err != nil {
		tmp.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, indexFile))
}

// load reads the saved index, if it is of this tree and this version.
func (ix *Index) load() (*view, error) {
	f, err := os.Open(filepath.Join(ix.opts.Dir, indexFile))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var s saved
	if err := gob.NewDecoder(bufio.NewReaderSize(f, 1<<20)).Decode(&s); err != nil {
		return nil, fmt.Errorf("saved index %s cannot be read (%v)", f.Name(), err)
	}
	switch {
	case s.Version != formatVersion:
		return nil, fmt.Errorf("saved index %s is of format %d, not %d", f.Name(), s.Version, formatVersion)
	case s.Root != ix.root:
		return nil, fmt.Errorf("saved index %s is of %s, not %s", f.Name(), s.Root, ix.root)
	case s.MaxFileSize != ix.opts.MaxFileSize:
		return nil, fmt.Errorf("saved index %s was built with another maximum file size", f.Name())
	case len(s.Offs) != len(s.Tris)+1 || len(s.Offs) > 0 && int(s.Offs[len(s.Offs)-1]) != len(s.Post):
		return nil, fmt.Errorf("saved index %s is damaged", f.Name())
	}
	return &view{base: &segment{files: s.Files, tris: s.Tris, offs: s.Offs, post: s.Post}}, nil
}

// SavedSize returns the size of the saved index file, or 0.
func (ix *Index) SavedSize() int64 {
	if ix.opts.Dir == "" {
		return 0
	}
	info, err := os.Stat(filepath.Join(ix.opts.Dir, indexFile))
	if err != nil {
		return 0
	}
	return info.Size()
}
