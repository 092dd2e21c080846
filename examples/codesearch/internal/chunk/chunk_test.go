package chunk

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestKnownFiles checks the chunks of files whose boundaries are known, line by line.
func TestKnownFiles(t *testing.T) {
	cases := map[string]struct {
		chunker string
		want    []string // kind name start-end
	}{
		"sample.go": {"go/parser", []string{
			"package sample 1-2", "import fmt, strings 4-7", "const Greeting 9-10", "struct Greeter 12-15",
			"method Greeter.Greet 17-20", "type ID 23-24", "type Set 25-26", "method Set.Add 29-30", "function upper 32-34",
			"var x, y, z, ... 36-36",
		}},
		"sample.ts": {"braces", []string{
			"class Cache<T> 3-8", "method Cache<T>.get 9-12", "method Cache<T>.set 14-17", "function load 20-24",
			"function double 26-28", "interface Shape 30-32",
		}},
		"sample.py": {"indentation", []string{
			"function top 4-6", "class Shape 9-13", "method Shape.area 14-15", "method Shape.label 17-19", "function fetch 22-23",
		}},
		"sample.rs": {"braces", []string{
			"struct Point 3-6", "impl fmt::Display for Point 8-8", "method fmt::Display for Point.fmt 9-11", "function origin 14-16",
		}},
		"sample.md": {"headings", []string{"section  1-2", "section Title 3-6", "section Usage 7-12", "section License 13-14"}},
	}
	for name, c := range cases {
		src, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		r := File(name, src)
		var got []string
		for _, ch := range r.Chunks {
			got = append(got, fmt.Sprintf("%s %s %d-%d", ch.Kind, ch.Name, ch.StartLine, ch.EndLine))
		}
		if r.Chunker != c.chunker || !slices.Equal(got, c.want) {
			t.Errorf("%s: chunker %s, chunks\n%s\nwant %s,\n%s", name, r.Chunker, strings.Join(got, "\n"), c.chunker, strings.Join(c.want, "\n"))
		}
	}
}

func TestWindowsForUnknownFiles(t *testing.T) {
	src := []byte(strings.Repeat("line\n", 130))
	r := File("data.csv", src)
	var got []string
	for _, ch := range r.Chunks {
		got = append(got, fmt.Sprintf("%s %d-%d", ch.Kind, ch.StartLine, ch.EndLine))
	}
	if r.Chunker != "lines" || !slices.Equal(got, []string{"lines 1-60", "lines 61-120", "lines 121-130"}) {
		t.Errorf("%s %q", r.Chunker, got)
	}
	if r := File("empty.txt", nil); len(r.Chunks) != 0 {
		t.Errorf("an empty file: %+v", r.Chunks)
	}
	// Go that does not parse still gives what the parser recovered, or windows.
	if r := File("broken.go", []byte("package p\nfunc (\n")); len(r.Chunks) == 0 {
		t.Error("broken Go: no chunks")
	}
}

func TestText(t *testing.T) {
	src := []byte("a\nb\nc\nd\n")
	if got := Text(src, Chunk{StartLine: 2, EndLine: 3}); got != "b\nc" {
		t.Errorf("Text = %q", got)
	}
	if got := Text(src, Chunk{StartLine: 3, EndLine: 99}); got != "c\nd" {
		t.Errorf("Text past the end = %q", got)
	}
}

// TestBrokenAndRemappedGo checks Go that does not parse and Go with //line directives: the
// chunks stay within the file, at the lines where the declarations are.
func TestBrokenAndRemappedGo(t *testing.T) {
	r := File("line.go", []byte("package p\n\n//line other.go:1000\nfunc main() {\n}\n"))
	if got := fmt.Sprint(r.Chunks); got != "[{package p 1 1} {function main 3 5}]" {
		t.Errorf("//line: %s", got)
	}
	r = File("broken.go", []byte("package p\n\nfunc F() {\n\tx :=\n"))
	for _, c := range r.Chunks {
		if c.StartLine < 1 || c.EndLine < c.StartLine || c.EndLine > 4 {
			t.Errorf("broken Go: %+v", c)
		}
	}
}

// FuzzFile checks that whatever a file holds, every chunk lies within it:
// 1 <= start <= end <= lines.
func FuzzFile(f *testing.F) {
	for _, name := range []string{"sample.go", "sample.ts", "sample.py", "sample.rs", "sample.md"} {
		src, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(name, src)
	}
	f.Add("x.go", []byte("package p\n//line :1\nfunc (\n"))
	f.Add("x.js", []byte("}}}{{{'`\"/*"))
	f.Add("x.py", []byte("class A:\n  def f(): pass\n class B:\n"))
	f.Fuzz(func(t *testing.T, name string, src []byte) {
		r := File(name, src)
		n := lineCount(src)
		for _, c := range r.Chunks {
			if c.StartLine < 1 || c.EndLine < c.StartLine || c.EndLine > n {
				t.Fatalf("%s (%s, %d lines): chunk %+v", name, r.Chunker, n, c)
			}
		}
	})
}
