package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// writeTree writes files (path -> content) below a new temporary directory.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, content := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// start builds the index of root and runs it until the test ends.
func start(t *testing.T, root string, opts Options) *Index {
	t.Helper()
	ix, err := New(root, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); ix.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done; ix.Close() })
	select {
	case <-ix.Ready():
	case <-time.After(30 * time.Second):
		t.Fatal("the index was not built in 30s")
	}
	if err := ix.Err(); err != nil {
		t.Fatal(err)
	}
	return ix
}

// all runs a search to the end, page by page, and returns every hit as path:line:column.
func all(t *testing.T, ix *Index, s Search, page int) []string {
	t.Helper()
	var out []string
	s.Max = page
	for range 10000 {
		res, err := ix.Search(context.Background(), &s)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range res.Hits {
			out = append(out, fmt.Sprintf("%s:%d:%d", h.Path, h.Line, h.Column))
		}
		if !res.More {
			return out
		}
		s.After = res.Cursor
	}
	t.Fatal("the search never ended")
	return nil
}

// grep is the reference: every line of every file that the regular expression matches,
// tried line by line.
func grep(files map[string]string, expr string) []string {
	re := regexp.MustCompile(expr)
	var out []string
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		if strings.ContainsRune(files[p], 0) {
			continue
		}
		lines := strings.Split(strings.TrimSuffix(files[p], "\n"), "\n")
		if files[p] == "" {
			lines = nil
		}
		for i, l := range lines {
			if loc := re.FindStringIndex(l); loc != nil {
				out = append(out, fmt.Sprintf("%s:%d:%d", p, i+1, loc[0]+1))
			}
		}
	}
	return out
}

// TestSearchAgreesWithGrep runs literal and regular-expression searches, both cases, over
// random text and checks that the index finds exactly what reading every line finds: the
// trigram queries never leave out a file that holds a match.
func TestSearchAgreesWithGrep(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"foo", "Foo", "FOO", "bar", "baz", "readFile", "ReadFile", "read_file", "k", "K", "\u212a", "s", "\u017f",
		"é", "É", "ab", "abc", "xyz", "x", "{", "}", "(", ")", ".", "*", "\t", " ", " ", "func", "Func", "café", "CAFÉ", "\r"}
	files := map[string]string{}
	for i := range 40 {
		var b strings.Builder
		for range 1 + rng.IntN(30) {
			for range rng.IntN(8) {
				b.WriteString(words[rng.IntN(len(words))])
			}
			b.WriteByte('\n')
		}
		s := b.String()
		if i%7 == 0 {
			s = strings.TrimSuffix(s, "\n") // no newline at the end
		}
		files[fmt.Sprintf("d%d/f%02d.txt", i%3, i)] = s
	}
	files["bin/data.bin"] = "foo\x00bar\n"
	files["empty.txt"] = ""
	root := writeTree(t, files)
	ix := start(t, root, Options{})

	cases := []struct {
		query         string
		regex, sensit bool
	}{
		{"foo", false, false}, {"foo", false, true}, {"Foo", false, true}, {"readfile", false, false}, {"read_file", false, false},
		{"k", false, false}, {"kk", false, false}, {"K", false, true}, {"café", false, false}, {"CAFÉ", false, true}, {"sss", false, false},
		{"a.c", false, false}, {"(foo)", false, false}, {"{", false, false}, {"abcxyz", false, false}, {"foobar", false, true},
		{`foo|bar`, true, false}, {`f[o0]o`, true, false}, {`read.?file`, true, false}, {`^foo`, true, false}, {`foo$`, true, true},
		{`^$`, true, false}, {`\bfunc\b`, true, false}, {`(?i)readfile`, true, true}, {`[A-Z]{3}`, true, true}, {`a+bc`, true, false},
		{`(foo|baz)+bar`, true, false}, {`x\s+y`, true, false}, {`k.*k`, true, false}, {`é`, true, false}, {`\x{212a}`, true, true},
		{`[^a-z]{4}`, true, false}, {`ab(c|x)yz?`, true, false}, {`.`, true, false}, {`fo{2,}`, true, false}, {`\t\t`, true, false},
		{`\r$`, true, false}, {`baz\s*$`, true, true}, {`(readFile|read_file)\(`, true, false}, {`(readFile|ReadFile)`, true, true},
		{`foo.*bar`, true, false}, {`Foo.*Bar`, true, true}, {`café.*foo`, true, false}, {"sfoo bars", false, false}, {"k foo", false, false},
	}
	for _, c := range cases {
		expr := c.query
		if !c.regex {
			expr = regexp.QuoteMeta(expr)
		}
		if !c.sensit {
			expr = "(?i)" + expr
		}
		// The reference matches line by line, with \n out of classes as the matcher has it.
		want := grep(files, "(?m)"+strings.ReplaceAll(expr, `\s`, `[\t\f\r ]`))
		m, err := NewMatcher(c.query, c.regex, c.sensit)
		if err != nil {
			t.Fatalf("%q: %v", c.query, err)
		}
		for _, page := range []int{4, 1000} {
			got := all(t, ix, Search{Matcher: m, Path: "."}, page)
			if !slices.Equal(got, want) {
				t.Errorf("query %q (regex %v, case-sensitive %v), pages of %d: query %v\n got %d hits %v\nwant %d hits %v",
					c.query, c.regex, c.sensit, page, m.Query(), len(got), got, len(want), want)
			}
		}
	}
}

func TestMatcherRefusesLineBreaks(t *testing.T) {
	for _, q := range []struct {
		query string
		regex bool
	}{{"a\nb", false}, {`a\nb`, true}, {"a\rb", false}} {
		if _, err := NewMatcher(q.query, q.regex, false); err == nil || !strings.Contains(err.Error(), "line") {
			t.Errorf("NewMatcher(%q): err = %v, want one about lines", q.query, err)
		}
	}
	if _, err := NewMatcher(`a(b`, true, false); err == nil || !strings.Contains(err.Error(), "not a valid RE2 regular expression") {
		t.Errorf("a bad regexp: err = %v", err)
	}
}

func TestIgnoreRules(t *testing.T) {
	root := writeTree(t, map[string]string{
		".gitignore":           "*.log\n/build/\n!keep.log\ndocs/**/draft*\n# comment\n\\#hash\ntmp/\n",
		"a.go":                 "package a\n",
		"x.log":                "log\n",
		"keep.log":             "kept\n",
		"#hash":                "hashed\n",
		"build/out.go":         "built\n",
		"sub/build/out.go":     "not anchored: kept\n",
		"sub/tmp/t.txt":        "tmp anywhere\n",
		"sub/.gitignore":       "*.txt\n!important.txt\n",
		"sub/notes.txt":        "ignored by sub\n",
		"sub/important.txt":    "re-included\n",
		"docs/a/b/draft1.md":   "draft\n",
		"docs/a/final.md":      "final\n",
		".git/config":          "[core]\n",
		"node_modules/m/i.js":  "vendored\n",
		"gen.go":               "// Code generated by x. DO NOT EDIT.\n\npackage a\n",
		"web/app.min.js":       "minified\n",
		".github/workflow.yml": "hidden but searched\n",
	})
	ix := start(t, root, Options{})
	var got []string
	for _, f := range ix.Files() {
		flags := ""
		if f.Vendored {
			flags += " vendored"
		}
		if f.Generated {
			flags += " generated"
		}
		got = append(got, f.Path+flags)
	}
	want := []string{".github/workflow.yml", ".gitignore", "a.go", "docs/a/final.md", "gen.go generated", "keep.log",
		"node_modules/m/i.js vendored", "sub/.gitignore", "sub/build/out.go", "sub/important.txt", "web/app.min.js generated"}
	if !slices.Equal(got, want) {
		t.Errorf("files:\n got %q\nwant %q", got, want)
	}
	for _, c := range []struct {
		path  string
		isDir bool
		want  bool
	}{{"x.log", false, true}, {"keep.log", false, false}, {"build", true, true}, {"build/out.go", false, true},
		{"sub/notes.txt", false, true}, {"sub/tmp/new.go", false, true}, {".git/HEAD", false, true}, {"a.go", false, false}} {
		if got := ix.Ignored(c.path, c.isDir); got != c.want {
			t.Errorf("Ignored(%q) = %v, want %v", c.path, got, c.want)
		}
	}
}

func TestGlob(t *testing.T) {
	for _, c := range []struct {
		glob, path string
		want       bool
	}{
		{"*.go", "a/b/c.go", true}, {"*.go", "c.go.txt", false}, {"*.{ts,tsx}", "src/x.tsx", true}, {"*.{ts,tsx}", "src/x.js", false},
		{"cmd/**/*.go", "cmd/a/b/c.go", true}, {"cmd/**/*.go", "cmd/c.go", true}, {"cmd/**/*.go", "x/cmd/c.go", false},
		{"src/*.js", "src/a/b.js", false}, {"[ab].txt", "dir/a.txt", true}, {"[!ab].txt", "dir/c.txt", true}, {"[!ab].txt", "a.txt", false},
		{"/*.md", "README.md", true},
	} {
		g, err := CompileGlob(c.glob)
		if err != nil {
			t.Fatalf("%q: %v", c.glob, err)
		}
		if got := g.Match(c.path); got != c.want {
			t.Errorf("glob %q on %q = %v, want %v", c.glob, c.path, got, c.want)
		}
	}
	if _, err := CompileGlob("*.{go"); err == nil {
		t.Error("an unclosed brace was accepted")
	}
}

// TestSearchOptions checks path, glob, skipped files and their inclusion, and context.
func TestSearchOptions(t *testing.T) {
	root := writeTree(t, map[string]string{
		"a/one.go":             "package a\n// needle one\nfunc One() {}\n",
		"a/two.txt":            "l1\nl2\nneedle two\nl4\nl5\n",
		"b/three.go":           "needle three\n",
		"vendor/v.go":          "needle vendored\n",
		"gen.go":               "// Code generated by hand. DO NOT EDIT.\nneedle generated\n",
		"blob.bin":             "needle\x00",
		"ab/needle-prefix.txt": "needle in ab\n",
	})
	ix := start(t, root, Options{})
	m, _ := NewMatcher("needle", false, false)
	run := func(s Search) (*Result, []string) {
		s.Matcher = m
		if s.Max == 0 {
			s.Max = 100
		}
		res, err := ix.Search(context.Background(), &s)
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, h := range res.Hits {
			paths = append(paths, h.Path)
		}
		return res, paths
	}
	res, got := run(Search{Path: "."})
	if want := []string{"a/one.go", "a/two.txt", "ab/needle-prefix.txt", "b/three.go"}; !slices.Equal(got, want) {
		t.Errorf("whole tree: %q, want %q", got, want)
	}
	var reasons []string
	for _, s := range res.Skipped {
		reasons = append(reasons, fmt.Sprintf("%s:%d:%s", s.Reason, s.Files, s.Example))
	}
	if want := []string{"binary:1:blob.bin", "vendored:1:vendor/v.go", "generated:1:gen.go"}; !slices.Equal(reasons, want) {
		t.Errorf("skipped %q, want %q", reasons, want)
	}
	if _, got := run(Search{Path: "a"}); !slices.Equal(got, []string{"a/one.go", "a/two.txt"}) {
		t.Errorf("path a (not ab): %q", got)
	}
	if _, got := run(Search{Path: "a/two.txt"}); !slices.Equal(got, []string{"a/two.txt"}) {
		t.Errorf("path of a file: %q", got)
	}
	glob, _ := CompileGlob("*.go")
	if _, got := run(Search{Path: ".", Glob: glob}); !slices.Equal(got, []string{"a/one.go", "b/three.go"}) {
		t.Errorf("glob *.go: %q", got)
	}
	if _, got := run(Search{Path: ".", IncludeVendored: true, IncludeGenerated: true}); !slices.Equal(got,
		[]string{"a/one.go", "a/two.txt", "ab/needle-prefix.txt", "b/three.go", "gen.go", "vendor/v.go"}) {
		t.Errorf("with vendored and generated: %q", got)
	}
	res, _ = run(Search{Path: "a/two.txt", Context: 2})
	h := res.Hits[0]
	if h.Line != 3 || h.Column != 1 || h.Text != "needle two" || !slices.Equal(h.Before, []string{"l1", "l2"}) || !slices.Equal(h.After, []string{"l4", "l5"}) {
		t.Errorf("context: %+v", h)
	}
	if _, err := ix.Search(context.Background(), &Search{Matcher: m, Path: ".", Max: 1, After: "not a cursor"}); err == nil {
		t.Error("a bad cursor was accepted")
	}
}

// TestSavedIndexReloaded checks that a restart loads the saved index and re-reads only what
// changed while it was not running.
func TestSavedIndexReloaded(t *testing.T) {
	root := writeTree(t, map[string]string{"a.txt": "alpha\n", "b.txt": "beta\n", "c.txt": "gamma\n"})
	dir := t.TempDir()
	var logs []string
	logf := func(f string, a ...any) { logs = append(logs, fmt.Sprintf(f, a...)) }
	func() {
		ix, err := New(root, Options{Dir: dir, Logf: logf})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); ix.Run(ctx) }()
		<-ix.Ready()
		cancel()
		<-done
		ix.Close()
	}()
	if _, err := os.Stat(filepath.Join(dir, indexFile)); err != nil {
		t.Fatalf("no index saved: %v", err)
	}
	os.WriteFile(filepath.Join(root, "b.txt"), []byte("beta changed, longer\n"), 0o644)
	os.Remove(filepath.Join(root, "c.txt"))
	os.WriteFile(filepath.Join(root, "d.txt"), []byte("delta\n"), 0o644)
	logs = nil
	ix := start(t, root, Options{Dir: dir, Logf: logf})
	if !slices.ContainsFunc(logs, func(l string) bool {
		return strings.Contains(l, "loaded 3 files") && strings.Contains(l, "re-read 3 changed")
	}) {
		t.Errorf("logs %q: want a load of 3 files with 3 changed", logs)
	}
	for q, want := range map[string][]string{"changed": {"b.txt:1:6"}, "gamma": nil, "delta": {"d.txt:1:1"}, "alpha": {"a.txt:1:1"}} {
		m, _ := NewMatcher(q, false, false)
		if got := all(t, ix, Search{Matcher: m, Path: "."}, 10); !slices.Equal(got, want) {
			t.Errorf("%q after restart: %q, want %q", q, got, want)
		}
	}
}

// TestWatcherSeesChanges checks that a file written, added or removed is found (or not) by
// the next search, with no waiting: the search drains the watcher's queue first.
func TestWatcherSeesChanges(t *testing.T) {
	root := writeTree(t, map[string]string{"a.txt": "first\n", "sub/b.txt": "second\n"})
	ix := start(t, root, Options{Watch: true, PollInterval: time.Hour})
	find := func(q string) []string {
		m, _ := NewMatcher(q, false, true)
		return all(t, ix, Search{Matcher: m, Path: "."}, 10)
	}
	find("first") // the first search after the build takes in the watches
	for i := range 20 {
		word := fmt.Sprintf("edit%dword", i)
		os.WriteFile(filepath.Join(root, "a.txt"), []byte("first\n"+word+"\n"), 0o644)
		if got := find(word); !slices.Equal(got, []string{"a.txt:2:1"}) {
			t.Fatalf("edit %d: %q, want a.txt:2:1", i, got)
		}
	}
	os.WriteFile(filepath.Join(root, "sub/new.txt"), []byte("brandnew\n"), 0o644)
	if got := find("brandnew"); !slices.Equal(got, []string{"sub/new.txt:1:1"}) {
		t.Errorf("a new file: %q", got)
	}
	os.MkdirAll(filepath.Join(root, "newdir/deep"), 0o755)
	os.WriteFile(filepath.Join(root, "newdir/deep/x.txt"), []byte("indeepdir\n"), 0o644)
	if got := find("indeepdir"); !slices.Equal(got, []string{"newdir/deep/x.txt:1:1"}) {
		t.Errorf("a file in a new directory: %q", got)
	}
	os.Remove(filepath.Join(root, "sub/b.txt"))
	if got := find("second"); len(got) != 0 {
		t.Errorf("a removed file: %q", got)
	}
	os.WriteFile(filepath.Join(root, ".gitignore"), []byte("sub/\n"), 0o644)
	if got := find("brandnew"); len(got) != 0 {
		t.Errorf("a file newly ignored: %q", got)
	}
}

// TestSearchBeforeReady checks that a search while the first build runs reads the files
// directly and finds the same.
func TestSearchBeforeReady(t *testing.T) {
	root := writeTree(t, map[string]string{"a.txt": "needle\n", "vendor/b.txt": "needle\n"})
	ix, err := New(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	w, err := walk(ix.fsroot)
	if err != nil {
		t.Fatal(err)
	}
	ix.walked.Store(&w.files) // as build does before it reads the files
	m, _ := NewMatcher("needle", false, false)
	res, err := ix.Search(context.Background(), &Search{Matcher: m, Path: ".", Max: 10})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Scanned || len(res.Hits) != 1 || res.Hits[0].Path != "a.txt" || len(res.Skipped) != 1 || res.Skipped[0].Reason != "vendored" {
		t.Errorf("search before the build: %+v", res)
	}
}

func TestLongLinesCut(t *testing.T) {
	long := strings.Repeat("x", 5000) + "needle" + strings.Repeat("y", 5000)
	root := writeTree(t, map[string]string{"min.js": long + "\n"})
	ix := start(t, root, Options{})
	m, _ := NewMatcher("needle", false, false)
	res, err := ix.Search(context.Background(), &Search{Matcher: m, Path: ".", Max: 10, IncludeGenerated: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 1 || res.Hits[0].Column != 5001 || !strings.Contains(res.Hits[0].Text, "needle") || len(res.Hits[0].Text) > maxLineLen+100 {
		t.Errorf("hit in a long line: %+v", res.Hits)
	}
}

// TestFoldIndex checks the case-insensitive literal finder against a plain lower-cased
// search, with the needle at every place, overlapping, and cut short.
func TestFoldIndex(t *testing.T) {
	for _, c := range []struct{ hay, lit string }{
		{"xxAbCxx", "abc"}, {"ABC", "abc"}, {"ab", "abc"}, {"aaaab", "aab"}, {"zQz", "q"}, {"xYz...XYZ", "xyz"},
		{"foo.Bar(x)", "o.bar("}, {"", "a"}, {"-a-b-", "-b-"}, {"éaBc", "abc"}, {"abx abcx ABCX", "abcx"},
	} {
		n := newNeedle([]byte(c.lit), true)
		want := strings.Index(strings.ToLower(c.hay), c.lit)
		if got := n.index([]byte(c.hay)); got != want {
			t.Errorf("foldIndex(%q, %q) = %d, want %d (rare byte at %d)", c.hay, c.lit, got, want, n.rare)
		}
	}
}

// TestNeedles checks which strings a search looks for before it runs the regular
// expression: the cheapest to scan for first, then the others a line must hold.
func TestNeedles(t *testing.T) {
	for _, c := range []struct {
		query         string
		regex, sensit bool
		want          string
	}{
		{"ReadFile", false, true, `"ReadFile"`},
		{"ReadFile", false, false, `"readfile"i`},
		{"Promise.resolve", false, false, `"olve"i "e.re"i "promi"i`},
		{`(add|remove)EventListener\(`, true, true, `"EventListener("`},
		{`(addEventListener|removeEventListener)\(`, true, true, `"eventlistener("i "("`},
		{`new Error\(['"][^'"]*not found`, true, false, `"new error("i "not found"i`},
		// One byte is still far cheaper to scan for than running the regexp on everything.
		{`[0-9]{4}-[0-9]{2}T`, true, false, `"-"i "t"i`},
		{`[0-9]{4}-[0-9]{2}T`, true, true, `"-" "T"`},
		{`\d+`, true, false, ``},
	} {
		m, err := NewMatcher(c.query, c.regex, c.sensit)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, n := range append([]needle{m.lit}, m.others...) {
			if len(n.b) == 0 {
				continue
			}
			s := fmt.Sprintf("%q", n.b)
			if n.fold {
				s += "i"
			}
			got = append(got, s)
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("needles of %q (regex %v, case-sensitive %v): %s, want %s", c.query, c.regex, c.sensit, g, c.want)
		}
	}
}
