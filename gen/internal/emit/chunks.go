package emit

import (
	"bytes"
	"go/format"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/dave/jennifer/jen"
)

// A large generated file (GitHub's REST API: 7 MB of Go besides its schemas) is formatted in
// chunks, one a core: gofmt's parse and print are most of writing it, and each top-level
// declaration is formatted on its own. The file's declarations are separated by blank lines
// (File adds one between each two), so a declaration formats the same alone as in the file,
// and the chunks joined by blank lines are the file gofmt writes, byte for byte.

// chunkMarker is the comment line that starts a chunk in the unformatted file.
const chunkMarker = "// mcpgen:chunk 7c1e4f"

// minChunkItems is the number of declarations below which a file is not worth chunking; a
// test sets it to 1, for a chunk per declaration.
var minChunkItems = 64

// addChunked adds the file's top-level code, a blank line between each two, and chunk
// markers where chunks start (none for a small file).
func addChunked(f *jen.File, code []jen.Code) {
	per := 0
	switch cores := runtime.GOMAXPROCS(0); {
	case minChunkItems == 1:
		per = 1
	case len(code) >= minChunkItems && cores > 1:
		per = (len(code) + cores - 1) / cores
	}
	for i, c := range code {
		if i > 0 {
			f.Line()
		}
		if per > 0 && i%per == 0 {
			f.Comment(chunkMarker[len("// "):])
		}
		f.Add(c)
	}
}

// formatChunks formats the unformatted file src, whose chunks start at chunk markers: each
// chunk with the file's head (its header, package clause and imports) at once, then the
// head once and the chunks' declarations, a blank line between each two. ok is false when
// src has no chunks or a chunk did not format as expected; src is then formatted whole.
func formatChunks(src []byte) (out []byte, ok bool) {
	parts := bytes.Split(src, []byte("\n"+chunkMarker+"\n"))
	if len(parts) < 3 {
		return nil, false
	}
	head, chunks := parts[0], parts[1:]
	fhead, err := format.Source(head)
	if err != nil {
		return nil, false
	}
	bodies := make([][]byte, len(chunks))
	failed := make([]bool, len(chunks))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, c := range chunks {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			whole := make([]byte, 0, len(head)+1+len(c))
			whole = append(append(append(whole, head...), '\n'), c...)
			f, err := format.Source(whole)
			rest, found := bytes.CutPrefix(f, fhead)
			body, blank := bytes.CutPrefix(rest, []byte("\n"))
			if err != nil || !found || !blank {
				failed[i] = true
				return
			}
			bodies[i] = body
		})
	}
	wg.Wait()
	size := len(fhead)
	for i, b := range bodies {
		if failed[i] {
			return nil, false
		}
		size += len(b) + 1
	}
	chunkedFiles.Add(1)
	res := bytes.NewBuffer(make([]byte, 0, size))
	res.Write(fhead)
	for _, b := range bodies {
		res.WriteByte('\n')
		res.Write(b)
	}
	return res.Bytes(), true
}

// chunkedFiles counts the files formatted in chunks, for a test to see that it happened.
var chunkedFiles atomic.Int64

// unchunked is src without its chunk markers: the file as it is without them.
func unchunked(src []byte) []byte {
	return bytes.ReplaceAll(src, []byte("\n"+chunkMarker+"\n"), []byte("\n"))
}
