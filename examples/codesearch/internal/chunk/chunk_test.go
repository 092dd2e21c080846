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
		"sample.ts": {"tree-sitter", []string{
			"import  1-1", "class Cache 3-8", "method Cache.get 9-12", "method Cache.set 14-17", "function load 20-24",
			"var double 26-28", "interface Shape 30-32",
		}},
		"sample.py": {"tree-sitter", []string{
			"import  1-1", "function top 4-6", "class Shape 9-13", "method Shape.area 14-15", "method Shape.label 17-19", "function fetch 22-23",
		}},
		"sample.rs": {"tree-sitter", []string{
			"import  1-1", "struct Point 3-6", "impl fmt::Display for Point 8-8", "method fmt::Display for Point.fmt 9-11", "function origin 14-16",
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

// TestEveryItemInAChunk: what tree-sitter parses is cut at its definitions, one-line items
// too, and every line of code is in a chunk (before: pub struct S; and type X = {...} were in
// none, so no search found them, and a Ruby file was cut into windows of 60 lines).
func TestEveryItemInAChunk(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      []string
	}{
		{"lib.rs", "pub struct S;\npub type T = u32;\nconst N: usize = 3;\nmacro_rules! m { () => {} }\n",
			[]string{"struct S 1-1", "type T 2-2", "const N 3-3", "macro m 4-4"}},
		{"types.ts", "type X = { a: number };\nexport type Y = string;\nlet z = 1;\nconsole.log(z);\n",
			[]string{"type X 1-1", "type Y 2-2", "var z 3-3", "code  4-4"}},
		{"greeter.rb", "require \"json\"\n\n# Greeter greets.\nclass Greeter\n  # hello says hi.\n  def hello(name)\n    \"hi\"\n  end\n\n  def self.make\n    new\n  end\nend\n",
			[]string{"code  1-1", "class Greeter 3-4", "method Greeter.hello 5-8", "method Greeter.make 10-12"}},
		{"Cache.java", "package x;\nimport java.util.List;\n/** A cache. */\npublic class Cache {\n  int n;\n  /** get. */\n  public int get() { return n; }\n}\n",
			[]string{"package  1-1", "import  2-2", "class Cache 3-5", "method Cache.get 6-7"}},
		{"add.c", "#include <stdio.h>\n/* add adds. */\nstatic int add(int a, int b) { return a + b; }\nstruct point { int x; };\n",
			[]string{"import  1-1", "function add 2-3", "struct point 4-4"}},
		{"shape.swift", "import Foundation\n/// A point.\nstruct Point { var x: Int }\nfunc top() {}\n",
			[]string{"import  1-1", "class Point 2-3", "function top 4-4"}},
	} {
		r := File(c.name, []byte(c.src))
		var got []string
		for _, ch := range r.Chunks {
			got = append(got, fmt.Sprintf("%s %s %d-%d", ch.Kind, ch.Name, ch.StartLine, ch.EndLine))
		}
		if r.Chunker != "tree-sitter" || !slices.Equal(got, c.want) || r.Language == "" {
			t.Errorf("%s: %s %s\n got %q\nwant %q", c.name, r.Language, r.Chunker, got, c.want)
		}
	}
	// Languages no grammar here parses keep their scanners.
	if r := File("a.dart", []byte("class A {\n  void f() {\n  }\n}\n")); r.Chunker != "braces" || len(r.Chunks) == 0 {
		t.Errorf("Dart: %s %+v", r.Chunker, r.Chunks)
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
	f.Add("x.rb", []byte("class A\n  def f; end\nend\nmodule B\n"))
	f.Add("x.c", []byte("int (*f)(void);\nstruct { int x; } s;\n#define X 1\n"))
	f.Fuzz(func(t *testing.T, name string, src []byte) {
		r := File(name, src)
		n := lineCount(src)
		prev := 0
		for _, c := range r.Chunks {
			if c.StartLine < 1 || c.EndLine < c.StartLine || c.EndLine > n {
				t.Fatalf("%s (%s, %d lines): chunk %+v", name, r.Chunker, n, c)
			}
			if r.Chunker == "tree-sitter" && c.StartLine <= prev { // no line in two chunks
				t.Fatalf("%s: chunk %+v overlaps the one before, which ends at %d", name, c, prev)
			}
			prev = c.EndLine
		}
	})
}
