package main

import "testing"

// search_code's text block is grep's output: contexts that overlap written once, -- between
// lines that are not adjacent (and none without context, as grep), then what the JSON's
// other fields say.
func TestSearchCodeText(t *testing.T) {
	for _, tt := range []struct {
		name string
		r    SearchCodeResult
		want string
	}{{
		name: "overlapping contexts, a gap, another file",
		r: SearchCodeResult{FilesSearched: 2, Index: "ready", Matches: []CodeMatch{
			{FilePath: "a.go", LineNumber: 2, Column: 3, Line: "x := 1", ContextBefore: []string{"func f() {"}, ContextAfter: []string{"y := x", "x++"}},
			{FilePath: "a.go", LineNumber: 4, Column: 1, Line: "x++", ContextBefore: []string{"x := 1", "y := x"}, ContextAfter: []string{"return x", "}"}},
			{FilePath: "a.go", LineNumber: 10, Column: 5, Line: "// x", ContextBefore: []string{"", "func g() {"}},
			{FilePath: "b.go", LineNumber: 1, Column: 10, Line: "package x", ContextAfter: []string{""}},
		}},
		want: "a.go-1-func f() {\n" +
			"a.go:2:3:x := 1\n" +
			"a.go-3-y := x\n" +
			"a.go:4:1:x++\n" +
			"a.go-5-return x\n" +
			"a.go-6-}\n" +
			"--\n" +
			"a.go-8-\n" +
			"a.go-9-func g() {\n" +
			"a.go:10:5:// x\n" +
			"--\n" +
			"b.go:1:10:package x\n" +
			"b.go-2-\n" +
			"\n4 matching lines; 2 files searched.\n",
	}, {
		name: "contexts that meet",
		r: SearchCodeResult{FilesSearched: 1, Index: "ready", Matches: []CodeMatch{
			{FilePath: "a", LineNumber: 1, Column: 1, Line: "a", ContextAfter: []string{"b"}},
			{FilePath: "a", LineNumber: 4, Column: 1, Line: "a", ContextBefore: []string{"c"}},
		}},
		want: "a:1:1:a\na-2-b\na-3-c\na:4:1:a\n\n2 matching lines; 1 file searched.\n",
	}, {
		name: "no context: no separators",
		r: SearchCodeResult{FilesSearched: 2, Index: "ready", Matches: []CodeMatch{
			{FilePath: "a", LineNumber: 1, Column: 1, Line: "x"},
			{FilePath: "a", LineNumber: 5, Column: 2, Line: " x"},
			{FilePath: "b", LineNumber: 3, Column: 1, Line: "x"},
		}},
		want: "a:1:1:x\na:5:2: x\nb:3:1:x\n\n3 matching lines; 2 files searched.\n",
	}, {
		name: "more to come, files skipped, the index building",
		r: SearchCodeResult{FilesSearched: 1, Truncated: true, NextCursor: "eyJwIjoiYSJ9",
			Index:   "building (3 of 10 files read): this search read the files directly",
			Matches: []CodeMatch{{FilePath: "a", LineNumber: 1, Column: 1, Line: "x"}},
			Skipped: []SkippedFiles{
				{Reason: "binary", Files: 1, Example: "data.bin"},
				{Reason: "too large", Files: 2, Example: "big.sql"},
				{Reason: "vendored", Files: 3, Example: "vendor/v.go", Hint: "set include_vendored to search them"},
			}},
		want: "a:1:1:x\n" +
			"\n1 matching line; 1 file searched.\n" +
			"Not searched: 1 binary file (data.bin); 2 files too large (such as big.sql); 3 vendored files that may match (such as vendor/v.go: set include_vendored to search them).\n" +
			"Index: building (3 of 10 files read): this search read the files directly.\n" +
			"There are more matches: call search_code again with cursor \"eyJwIjoiYSJ9\" for the next ones.\n",
	}, {
		name: "nothing found",
		r:    SearchCodeResult{Index: "ready", Skipped: []SkippedFiles{{Reason: "generated", Files: 1, Example: "gen.go", Hint: "set include_generated to search them"}}},
		want: "No matches; 0 files searched.\nNot searched: 1 generated file that may match (gen.go: set include_generated to search them).\n",
	}} {
		if got := string(tt.r.AppendMCPText([]byte("kept"))); got != "kept"+tt.want {
			t.Errorf("%s:\n%s\nwant\n%s", tt.name, got, "kept"+tt.want)
		}
	}
}
