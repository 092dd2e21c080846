package semantic

import (
	"bufio"
	"encoding/gob"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

const (
	chunksFile    = "chunks.gob"
	formatVersion = 2 // 2: generated files too
)

type savedChunks struct {
	Version int
	Root    string
	Words   []string
	Files   []*fileChunks
}

type savedVectors struct {
	Version int
	Model   string
	Vectors map[[16]byte][]float32
}

// vectorsFile is the file of one model's vectors.
func (s *Index) vectorsFile() string {
	h := sha256Of(s.opts.Embedder.Name())
	return fmt.Sprintf("vectors-%x.gob", h[:6])
}

func (s *Index) load() {
	if s.opts.Dir == "" {
		return
	}
	var sc savedChunks
	if err := readGob(filepath.Join(s.opts.Dir, chunksFile), &sc); err == nil && sc.Version == formatVersion && sc.Root == s.src.Root() {
		s.mu.Lock()
		s.words = sc.Words
		for i, w := range sc.Words {
			s.vocab[w] = uint32(i)
		}
		for _, f := range sc.Files {
			s.files[f.Path] = f
		}
		s.mu.Unlock()
	}
	if s.opts.Embedder != nil {
		var sv savedVectors
		if err := readGob(filepath.Join(s.opts.Dir, s.vectorsFile()), &sv); err == nil && sv.Version == formatVersion && sv.Model == s.opts.Embedder.Name() {
			s.mu.Lock()
			s.vectors = sv.Vectors
			s.mu.Unlock()
		}
	}
}

func (s *Index) save() {
	if s.opts.Dir == "" {
		return
	}
	s.mu.Lock()
	var chunks *savedChunks
	if s.dirty {
		chunks = &savedChunks{Version: formatVersion, Root: s.src.Root(), Words: slices.Clone(s.words)}
		for _, f := range s.files {
			chunks.Files = append(chunks.Files, f)
		}
		slices.SortFunc(chunks.Files, func(a, b *fileChunks) int { return strings.Compare(a.Path, b.Path) })
		s.dirty = false
	}
	var vecs *savedVectors
	if s.vdirty && s.opts.Embedder != nil {
		live := map[[16]byte][]float32{}
		for _, f := range s.files {
			for _, c := range f.Chunks {
				if v, ok := s.vectors[c.Hash]; ok {
					live[c.Hash] = v
				}
			}
		}
		vecs = &savedVectors{Version: formatVersion, Model: s.opts.Embedder.Name(), Vectors: live}
		s.vdirty = false
	}
	s.mu.Unlock()
	if chunks != nil {
		if err := writeGob(s.opts.Dir, chunksFile, chunks); err != nil {
			s.opts.Logf("semantic: chunks not saved: %v", err)
		}
	}
	if vecs != nil {
		if err := writeGob(s.opts.Dir, s.vectorsFile(), vecs); err != nil {
			s.opts.Logf("semantic: vectors not saved: %v", err)
		}
	}
}

func readGob(name string, v any) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	return gob.NewDecoder(bufio.NewReaderSize(f, 1<<20)).Decode(v)
}

func writeGob(dir, name string, v any) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, name+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriterSize(tmp, 1<<20)
	err = gob.NewEncoder(w).Encode(v)
	if err == nil {
		err = w.Flush()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, name))
}

// SavedSize returns the bytes the semantic index takes on disk.
func (s *Index) SavedSize() int64 {
	if s.opts.Dir == "" {
		return 0
	}
	var n int64
	entries, _ := os.ReadDir(s.opts.Dir)
	for _, e := range entries {
		if e.Name() == chunksFile || strings.HasPrefix(e.Name(), "vectors-") && path.Ext(e.Name()) == ".gob" {
			if info, err := e.Info(); err == nil {
				n += info.Size()
			}
		}
	}
	return n
}
