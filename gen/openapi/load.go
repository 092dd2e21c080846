package openapi

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// MaxDocumentSize bounds what is read of a document: GitHub's description, the largest
// known, is 13 MB as JSON.
const MaxDocumentSize = 256 << 20

// Source is a document as read: where from, its bytes, and its digest.
type Source struct {
	Location string // the file or URL as given
	Data     []byte // as read
	Digest   string // "sha256:" and the hex of the SHA-256 of Data
}

// Read reads a document from a file or an http(s) URL.
func Read(ctx context.Context, location string) (*Source, error) {
	var data []byte
	var err error
	if strings.HasPrefix(location, "http://") || strings.HasPrefix(location, "https://") {
		data, err = fetch(ctx, location)
	} else {
		var f *os.File
		if f, err = os.Open(location); err == nil {
			data, err = io.ReadAll(io.LimitReader(f, MaxDocumentSize+1))
			f.Close()
		}
	}
	if err != nil {
		return nil, err
	}
	if len(data) > MaxDocumentSize {
		return nil, fmt.Errorf("%s: larger than %d MiB", location, MaxDocumentSize>>20)
	}
	return NewSource(location, data), nil
}

// NewSource is a document of the bytes given.
func NewSource(location string, data []byte) *Source {
	sum := sha256.Sum256(data)
	return &Source{Location: location, Data: data, Digest: "sha256:" + hex.EncodeToString(sum[:])}
}

func fetch(ctx context.Context, url string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json, application/yaml;q=0.9, */*;q=0.5")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("%s: %s", url, resp.Status)
	}
	return io.ReadAll(io.LimitReader(resp.Body, MaxDocumentSize+1))
}

// toJSON is the document as JSON, with the members of every object in the order written:
// JSON as it is (less a byte order mark), YAML converted.
func toJSON(location string, data []byte) ([]byte, error) {
	if bytes.HasPrefix(data, []byte{0x1f, 0x8b}) { // gzip: as some packages ship documents
		z, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%s: %v", location, err)
		}
		data, err = io.ReadAll(io.LimitReader(z, MaxDocumentSize+1))
		if err != nil {
			return nil, fmt.Errorf("%s: %v", location, err)
		}
		if len(data) > MaxDocumentSize {
			return nil, fmt.Errorf("%s: larger than %d MiB uncompressed", location, MaxDocumentSize>>20)
		}
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		if !json.Valid(trimmed) {
			var v any
			err := json.Unmarshal(trimmed, &v)
			return nil, fmt.Errorf("%s: not valid JSON: %s", location, jsonErrorAt(trimmed, err))
		}
		return trimmed, nil
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("%s: %v", location, err)
	}
	if len(root.Content) == 0 {
		return nil, fmt.Errorf("%s: empty document", location)
	}
	w := &yamlWriter{budget: 8 * MaxDocumentSize}
	if err := w.node(root.Content[0]); err != nil {
		return nil, fmt.Errorf("%s: %v", location, err)
	}
	return w.buf.Bytes(), nil
}

// jsonErrorAt says where a JSON syntax error is, as line:col.
func jsonErrorAt(data []byte, err error) string {
	se, ok := err.(*json.SyntaxError)
	if !ok {
		return err.Error()
	}
	line, col := 1, 1
	for _, b := range data[:min(int(se.Offset), len(data))] {
		if b == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Sprintf("%d:%d: %v", line, col, err)
}

// yamlWriter writes YAML nodes as JSON. Aliases are expanded, within a budget of bytes, so
// that a document of nested aliases cannot make it write without end.
type yamlWriter struct {
	buf    bytes.Buffer
	budget int
	depth  int
}

func (w *yamlWriter) node(n *yaml.Node) error {
	if w.buf.Len() > w.budget {
		return fmt.Errorf("aliases expand past %d MiB", w.budget>>20)
	}
	w.depth++
	defer func() { w.depth-- }()
	if w.depth > 1000 {
		return fmt.Errorf("line %d: nested more than 1000 deep", n.Line)
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			w.buf.WriteString("null")
			return nil
		}
		return w.node(n.Content[0])
	case yaml.AliasNode:
		return w.node(n.Alias)
	case yaml.MappingNode:
		w.buf.WriteByte('{')
		first := true
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Tag == "!!merge" {
				return fmt.Errorf("line %d: merge keys (<<) are not supported", k.Line)
			}
			if !first {
				w.buf.WriteByte(',')
			}
			first = false
			key := k.Value
			if k.Kind == yaml.AliasNode {
				key = k.Alias.Value
			}
			writeString(&w.buf, key)
			w.buf.WriteByte(':')
			if err := w.node(v); err != nil {
				return err
			}
		}
		w.buf.WriteByte('}')
	case yaml.SequenceNode:
		w.buf.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				w.buf.WriteByte(',')
			}
			if err := w.node(c); err != nil {
				return err
			}
		}
		w.buf.WriteByte(']')
	case yaml.ScalarNode:
		return w.scalar(n)
	}
	return nil
}

func (w *yamlWriter) scalar(n *yaml.Node) error {
	switch n.ShortTag() {
	case "!!null":
		w.buf.WriteString("null")
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			return fmt.Errorf("line %d: %v", n.Line, err)
		}
		w.buf.WriteString(strconv.FormatBool(b))
	case "!!int":
		var i int64
		if err := n.Decode(&i); err != nil {
			// Beyond int64: keep the digits as they are.
			writeString(&w.buf, n.Value)
			return nil
		}
		w.buf.WriteString(strconv.FormatInt(i, 10))
	case "!!float":
		var f float64
		if err := n.Decode(&f); err != nil {
			return fmt.Errorf("line %d: %v", n.Line, err)
		}
		b, err := json.Marshal(f)
		if err != nil { // .inf, .nan: not JSON
			writeString(&w.buf, n.Value)
			return nil
		}
		w.buf.Write(b)
	default: // strings, timestamps, binary: their text
		writeString(&w.buf, n.Value)
	}
	return nil
}

func writeString(buf *bytes.Buffer, s string) {
	b, _ := json.Marshal(s)
	buf.Write(b)
}
