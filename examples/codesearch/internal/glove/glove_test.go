package glove

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestWords(t *testing.T) {
	var got []string
	Words("verifyServerCertificate(HTTPServer, read_file) café2Bar", func(w string) { got = append(got, w) })
	want := []string{"verify", "server", "certificate", "http", "server", "read", "file", "café2", "bar"}
	if !slices.Equal(got, want) {
		t.Errorf("Words:\n got %q\nwant %q", got, want)
	}
}

// A small model in the npm package's JSON, in rank order: the most frequent word first.
const winkJSON = `{"precision": 8, "l2NormIndex": 4, "wordIndex": 5, "size": 5, "dimensions": 4,
 "words": ["the", "host", "hostname", "server", "pizza"],
 "vectors": {
  "the":      [0.1, 0.1, 0.1, 0.1, 0.2, 0],
  "host":     [0.9, 0.1, 0.0, 0.0, 0.9, 1],
  "hostname": [0.8, 0.3, 0.0, 0.0, 0.9, 2],
  "server":   [0.6, 0.6, 0.0, 0.1, 0.8, 3],
  "pizza":    [0.0, 0.0, 1.0, -0.5, 1.1, 4]
 }, "unkVector": [0, 0, 0, 0, 0, 0]}`

// TestConvertAndEmbed: the npm package's vectors, converted to a model file and loaded,
// embed texts so that texts of related words are close and others are not.
func TestConvertAndEmbed(t *testing.T) {
	dir := t.TempDir()
	src, path := filepath.Join(dir, "wink.json"), filepath.Join(dir, "model.bin")
	if err := os.WriteFile(src, []byte(winkJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Convert(src, path); err != nil {
		t.Fatal(err)
	}
	m, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if m.dim != 4 || len(m.scale) != 5 || !strings.Contains(m.Name(), "4 dimensions, 5 words") {
		t.Fatalf("loaded %s", m.Name())
	}
	v, err := m.Embed(context.Background(), []string{"the hostName", "the host server", "pizza", "nothing known"})
	if err != nil {
		t.Fatal(err)
	}
	dot := func(a, b []float32) (s float32) {
		for i := range a {
			s += a[i] * b[i]
		}
		return s
	}
	if near, far := dot(v[0], v[1]), dot(v[0], v[2]); near < 0.9 || far > 0.1 {
		t.Errorf("hostName ~ host server %.3f, ~ pizza %.3f", near, far)
	}
	if n := dot(v[0], v[0]); n < 0.999 || n > 1.001 || dot(v[3], v[3]) != 0 {
		t.Errorf("norms %.4f, %.4f", n, dot(v[3], v[3]))
	}
}

func TestBrokenFiles(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{"empty": "", "other": "not a model\n", "short": magic + "\x04\x05\x04the"} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), 0o644)
		if _, err := Load(p); err == nil {
			t.Errorf("Load of %s: no error", name)
		}
	}
	p := filepath.Join(dir, "bad.json")
	os.WriteFile(p, []byte(`{"dimensions": 4, "words": ["a"], "vectors": {"b": [1, 2, 3, 4]}}`), 0o644)
	if err := Convert(p, filepath.Join(dir, "x.bin")); err == nil || !strings.Contains(err.Error(), `no vector for "a"`) {
		t.Errorf("Convert of vectors that miss a word: %v", err)
	}
	if _, err := Load(filepath.Join(dir, "none.bin")); !os.IsNotExist(err) {
		t.Errorf("Load of no file: %v", err)
	}
}
