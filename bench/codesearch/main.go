// Command codesearch benchmarks examples/codesearch on a large tree against ripgrep and git
// grep, in one run (scripts/bench.sh codesearch):
//
//   - cold index: a server started with an empty index directory, until its first
//     search_code answers (the search waits for the index); then the size of the index on
//     disk beside the size of the text it covers;
//   - warm restart: a second server on the same index directory, until its first answer;
//   - 20 fixed queries (literals and regular expressions, rare and frequent terms, both
//     cases), each timed through MCP (mcpgen's client, over stdio, one session) and as
//     ripgrep and git grep processes on the same tree, in turns, RUNS times after one
//     warm-up round, so that the page cache is warm for all;
//   - agreement: every query's full result (search_code paged 1000 matches at a time) is
//     compared with ripgrep's, file, line and column, and its count with git grep's.
//
// The same rules apply to all three: .gitignore honoured without a git repository
// (ripgrep --no-require-git, git grep --no-index --exclude-standard), hidden files searched,
// files with a NUL byte skipped, files over 16 MiB skipped, links not followed. search_code
// is asked to include vendored and generated files (it skips them by default; the other
// tools have no such notion), and its default of max_results 50 is timed as an assistant
// uses it, beside the full result.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// query is one of the fixed queries.
type query struct {
	Text          string
	Regex         bool
	CaseSensitive bool
	Kind          string // what it exercises
}

// queries are the fixed queries of each corpus: 20 each.
var queries = map[string][]query{
	"go": {
		{Text: "x509.ParseCertificate", Kind: "literal, rare"},
		{Text: "deadlineExceededError", Kind: "literal, rare"},
		{Text: "http.StatusTeapot", CaseSensitive: true, Kind: "literal, rare"},
		{Text: "zzqqxxnotfound", Kind: "literal, no match"},
		{Text: "func NewReader", CaseSensitive: true, Kind: "literal"},
		{Text: "sync.Mutex", CaseSensitive: true, Kind: "literal"},
		{Text: "unsafe.Pointer", Kind: "literal, frequent"},
		{Text: "context.Context", Kind: "literal, frequent"},
		{Text: "return nil, err", CaseSensitive: true, Kind: "literal, frequent"},
		{Text: "TODO", CaseSensitive: true, Kind: "literal, frequent"},
		{Text: "goroutine", Kind: "literal, frequent"},
		{Text: "Copyright 2009 The Go Authors", Kind: "literal, very frequent"},
		{Text: `func \([a-z]+ \*[A-Za-z]+\) Close\(\) error`, Regex: true, CaseSensitive: true, Kind: "regex"},
		{Text: `errors\.New\("[^"]*not found`, Regex: true, Kind: "regex"},
		{Text: `0x[0-9a-f]{16}`, Regex: true, CaseSensitive: true, Kind: "regex, frequent"},
		{Text: `panic\(".*unreachable`, Regex: true, Kind: "regex"},
		{Text: `for [a-z]+, [a-z]+ := range`, Regex: true, CaseSensitive: true, Kind: "regex, frequent"},
		{Text: `^import \($`, Regex: true, CaseSensitive: true, Kind: "regex, anchored, frequent"},
		{Text: `(Marshal|Unmarshal)JSON\(`, Regex: true, CaseSensitive: true, Kind: "regex, alternation"},
		{Text: `[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}`, Regex: true, Kind: "regex, no literal"},
	},
	"node": {
		{Text: "createElement", CaseSensitive: true, Kind: "literal"},
		{Text: "useLayoutEffect", Kind: "literal, rare"},
		{Text: "ERR_INVALID_ARG_TYPE", CaseSensitive: true, Kind: "literal, rare"},
		{Text: "zzqqxxnotfound", Kind: "literal, no match"},
		{Text: "Object.defineProperty", CaseSensitive: true, Kind: "literal, frequent"},
		{Text: "require(", CaseSensitive: true, Kind: "literal, very frequent"},
		{Text: "function", Kind: "literal, very frequent"},
		{Text: "Promise.resolve", Kind: "literal"},
		{Text: "TypeError", CaseSensitive: true, Kind: "literal, frequent"},
		{Text: "@deprecated", Kind: "literal, frequent"},
		{Text: "hasOwnProperty", Kind: "literal, frequent"},
		{Text: "SyntaxKind.Identifier", CaseSensitive: true, Kind: "literal"},
		{Text: `export (default )?function [A-Za-z]+`, Regex: true, CaseSensitive: true, Kind: "regex"},
		{Text: `module\.exports\s*=`, Regex: true, Kind: "regex, frequent"},
		{Text: `interface [A-Z][A-Za-z]*Options`, Regex: true, CaseSensitive: true, Kind: "regex"},
		{Text: `new Error\(['"][^'"]*not found`, Regex: true, Kind: "regex"},
		{Text: `^\s*\* @param \{string\}`, Regex: true, CaseSensitive: true, Kind: "regex, anchored, frequent"},
		{Text: `(addEventListener|removeEventListener)\(`, Regex: true, CaseSensitive: true, Kind: "regex, alternation"},
		{Text: `https?://[a-z.]+/[a-z]+`, Regex: true, Kind: "regex, frequent"},
		{Text: `[0-9]{3}-[0-9]{4}`, Regex: true, Kind: "regex, no literal"},
	},
}

func main() {
	server := flag.String("server", "", "the codesearch binary")
	corpus := flag.String("corpus", "", "the tree to search")
	set := flag.String("queries", "go", "the query set: go or node")
	runs := flag.Int("runs", 10, "timed rounds of every query, after one warm-up round")
	label := flag.String("name", "", "the corpus's name in the report")
	flag.Parse()
	if *server == "" || *corpus == "" || queries[*set] == nil || *runs < 1 {
		flag.Usage()
		os.Exit(2)
	}
	if *label == "" {
		*label = *corpus
	}
	if err := run(*server, *corpus, *label, queries[*set], *runs); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// maxFileSize is the limit on file size all three tools get.
const maxFileSize = 16 << 20

func run(server, corpus, label string, qs []query, runs int) error {
	ctx := context.Background()
	abs, err := filepath.Abs(corpus)
	if err != nil {
		return err
	}
	corpus = abs
	indexDir, err := os.MkdirTemp("", "codesearch-bench-index")
	if err != nil {
		return err
	}
	defer os.RemoveAll(indexDir)
	args := []string{"--index-dir", indexDir, "--wait", "1h", corpus}

	// Cold: the first answer waits for the index; then the semantic index, for its size.
	start := time.Now()
	c, err := connect(ctx, server, args)
	if err != nil {
		return err
	}
	if _, err := search(ctx, c, query{Text: "zzqqxxnotfound"}, 1, ""); err != nil {
		return err
	}
	cold := time.Since(start)
	semStart := time.Now()
	if _, err := c.CallTool(ctx, "search_by_embedding", map[string]any{"query": "open a file"}); err != nil {
		return err
	}
	semantic := time.Since(semStart)
	c.Close() // the server saves its index as it exits
	trigramSize, totalIndex := dirSize(indexDir, "trigrams.idx"), dirSize(indexDir, "")
	src := sourceSize(corpus)

	// Warm restart, and the server the queries run on.
	start = time.Now()
	c, err = connect(ctx, server, args)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := search(ctx, c, query{Text: "zzqqxxnotfound"}, 1, ""); err != nil {
		return err
	}
	warm := time.Since(start)

	fmt.Printf("\n### %s\n\n", label)
	fmt.Printf("%s of source in %d files (%s of it text that is indexed: no NUL byte, at most 16 MiB).\n\n", size(src.all), src.files, size(src.text))
	fmt.Println("| | |")
	fmt.Println("|---|---|")
	fmt.Printf("| cold index (start to first answer) | %v |\n", cold.Round(time.Millisecond))
	fmt.Printf("| semantic index (chunks, BM25), after it | %v |\n", semantic.Round(time.Millisecond))
	fmt.Printf("| warm restart (start to first answer) | %v |\n", warm.Round(time.Millisecond))
	fmt.Printf("| trigram index on disk | %s (%.1f%% of the text) |\n", size(trigramSize), 100*float64(trigramSize)/float64(src.text))
	fmt.Printf("| whole index on disk (trigrams and chunks) | %s (%.1f%% of the text) |\n\n", size(totalIndex), 100*float64(totalIndex)/float64(src.text))

	// Agreement first (it also warms the page cache): every match of each query.
	type row struct {
		q                        query
		full                     time.Duration
		n, rgN, gitN             int
		agree                    string
		mcp50, rg, rgHead, gitgr []time.Duration
	}
	rows := make([]*row, len(qs))
	for i, q := range qs {
		r := &row{q: q}
		rows[i] = r
		t0 := time.Now()
		got, err := searchAll(ctx, c, q)
		if err != nil {
			return fmt.Errorf("%s: %v", q.Text, err)
		}
		r.full = time.Since(t0)
		want, err := ripgrep(ctx, corpus, q, -1)
		if err != nil {
			return fmt.Errorf("rg %s: %v", q.Text, err)
		}
		gg, err := gitGrep(ctx, corpus, q)
		if err != nil {
			return fmt.Errorf("git grep %s: %v", q.Text, err)
		}
		r.n, r.rgN, r.gitN = len(got), len(want), len(gg)
		r.agree = compare(got, want)
	}
	for round := 0; round <= runs; round++ {
		for _, r := range rows {
			t0 := time.Now()
			if _, err := search(ctx, c, r.q, 50, ""); err != nil {
				return err
			}
			d1 := time.Since(t0)
			t0 = time.Now()
			if _, err := ripgrep(ctx, corpus, r.q, -1); err != nil {
				return err
			}
			d2 := time.Since(t0)
			t0 = time.Now()
			if _, err := ripgrep(ctx, corpus, r.q, 50); err != nil {
				return err
			}
			d3 := time.Since(t0)
			t0 = time.Now()
			if _, err := gitGrep(ctx, corpus, r.q); err != nil {
				return err
			}
			d4 := time.Since(t0)
			if round == 0 {
				continue // warm-up
			}
			r.mcp50, r.rg, r.rgHead, r.gitgr = append(r.mcp50, d1), append(r.rg, d2), append(r.rgHead, d3), append(r.gitgr, d4)
		}
	}

	fmt.Printf("Median of %d runs per query; search_code through MCP (stdio, mcpgen's client), max_results 50 and the full result paged 1000 at a time (one run).\n\n", runs)
	fmt.Println("| query | kind | matches (search_code / rg / git grep) | same as rg | search_code, 50 | search_code, all | rg | rg, first 50 | git grep | rg / search_code |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|")
	var all50, allRG, allHead, allGit []time.Duration
	for _, r := range rows {
		m50, rg := median(r.mcp50), median(r.rg)
		all50, allRG, allHead, allGit = append(all50, r.mcp50...), append(allRG, r.rg...), append(allHead, r.rgHead...), append(allGit, r.gitgr...)
		flags := "i"
		if r.q.CaseSensitive {
			flags = ""
		}
		fmt.Printf("| `%s` %s | %s | %d / %d / %d | %s | %s | %s | %s | %s | %s | %.0fx |\n", strings.ReplaceAll(r.q.Text, "|", `\|`), flags, r.q.Kind, r.n, r.rgN, r.gitN, r.agree,
			ms(m50), ms(r.full), ms(rg), ms(median(r.rgHead)), ms(median(r.gitgr)), float64(rg)/float64(m50))
	}
	fmt.Printf("\nAll %d queries × %d runs: search_code (50) median %s, p99 %s; rg median %s, p99 %s; rg first 50 median %s; git grep median %s, p99 %s. Median speed-up over rg: %.0fx.\n",
		len(rows), runs, ms(median(all50)), ms(percentile(all50, 99)), ms(median(allRG)), ms(percentile(allRG, 99)), ms(median(allHead)),
		ms(median(allGit)), ms(percentile(allGit, 99)), float64(median(allRG))/float64(median(all50)))
	return nil
}

func connect(ctx context.Context, server string, args []string) (*mcp.Client, error) {
	return mcp.Connect(ctx, &mcp.CommandTransport{Command: server, Args: args, Stderr: func(l string) { fmt.Fprintln(os.Stderr, "  server:", l) }},
		&mcp.ClientOptions{Timeout: time.Hour})
}

// match is one matching line, as the three tools report it.
type match struct {
	path      string
	line, col int
}

type searchResult struct {
	Matches []struct {
		FilePath   string `json:"file_path"`
		LineNumber int    `json:"line_number"`
		Column     int    `json:"column"`
	} `json:"matches"`
	Truncated  bool   `json:"truncated"`
	NextCursor string `json:"next_cursor"`
}

func search(ctx context.Context, c *mcp.Client, q query, max int, cursor string) (*searchResult, error) {
	args := map[string]any{"query": q.Text, "regex": q.Regex, "case_sensitive": q.CaseSensitive, "max_results": max, "context_lines": 0,
		"include_vendored": true, "include_generated": true}
	if cursor != "" {
		args["cursor"] = cursor
	}
	res, err := c.CallTool(ctx, "search_code", args)
	if err != nil {
		return nil, err
	}
	if err := res.Err(); err != nil {
		return nil, err
	}
	var out searchResult
	if err := json.Unmarshal(res.StructuredContent, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// searchAll pages through every match.
func searchAll(ctx context.Context, c *mcp.Client, q query) ([]match, error) {
	var out []match
	cursor := ""
	for {
		r, err := search(ctx, c, q, 1000, cursor)
		if err != nil {
			return nil, err
		}
		for _, m := range r.Matches {
			out = append(out, match{m.FilePath, m.LineNumber, m.Column})
		}
		if !r.Truncated {
			return out, nil
		}
		cursor = r.NextCursor
	}
}

// ripgrep runs rg as search_code searches; with head >= 0 it stops reading after head lines
// (rg then stops at its next write).
func ripgrep(ctx context.Context, dir string, q query, head int) ([]match, error) {
	args := []string{"--no-config", "--hidden", "--no-require-git", "--no-ignore-dot", "--no-ignore-parent", "--no-ignore-global",
		"--max-filesize", "16M", "--line-number", "--column", "--no-heading", "--color", "never"}
	if q.CaseSensitive {
		args = append(args, "--case-sensitive")
	} else {
		args = append(args, "--ignore-case")
	}
	if !q.Regex {
		args = append(args, "--fixed-strings")
	}
	args = append(args, "-e", q.Text, ".")
	return runGrep(ctx, dir, "rg", args, nil, head, 1)
}

// gitGrep runs git grep on the same tree, outside any repository.
func gitGrep(ctx context.Context, dir string, q query) ([]match, error) {
	args := []string{"grep", "--no-index", "--exclude-standard", "-I", "--line-number", "--column", "--no-color"}
	if !q.CaseSensitive {
		args = append(args, "--ignore-case")
	}
	if q.Regex {
		args = append(args, "--perl-regexp")
	} else {
		args = append(args, "--fixed-strings")
	}
	args = append(args, "-e", q.Text)
	env := append(os.Environ(), "GIT_CEILING_DIRECTORIES="+filepath.Dir(dir))
	return runGrep(ctx, dir, "git", args, env, -1, 0)
}

// runGrep runs a grep and parses its path:line:column:text lines. git grep exits 1 when
// nothing matches, as rg does.
func runGrep(ctx context.Context, dir, name string, args, env []string, head int, _ int) ([]match, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	var ms []match
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		if m, ok := parseGrepLine(sc.Text()); ok {
			ms = append(ms, m)
		}
		if head >= 0 && len(ms) >= head {
			break
		}
	}
	if head >= 0 {
		out.Close()
		io.Copy(io.Discard, out)
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) && (ee.ExitCode() == 1 || head >= 0) {
		err = nil // 1: no match; a broken pipe after head lines
	}
	if err != nil {
		return nil, fmt.Errorf("%v: %s", err, stderr.String())
	}
	return ms, nil
}

// parseGrepLine reads path:line:column:text.
func parseGrepLine(l string) (match, bool) {
	parts := strings.SplitN(l, ":", 4)
	if len(parts) < 4 {
		return match{}, false
	}
	var m match
	m.path = strings.TrimPrefix(parts[0], "./")
	if _, err := fmt.Sscanf(parts[1]+" "+parts[2], "%d %d", &m.line, &m.col); err != nil {
		return match{}, false
	}
	return m, true
}

// compare says whether two results hold the same files, lines and columns, and if not
// how they differ.
func compare(got, want []match) string {
	key := func(m match) string { return fmt.Sprintf("%s:%d:%d", m.path, m.line, m.col) }
	g := map[string]bool{}
	for _, m := range got {
		g[key(m)] = true
	}
	w := map[string]bool{}
	for _, m := range want {
		w[key(m)] = true
	}
	var onlyGot, onlyWant []string
	for k := range g {
		if !w[k] {
			onlyGot = append(onlyGot, k)
		}
	}
	for k := range w {
		if !g[k] {
			onlyWant = append(onlyWant, k)
		}
	}
	if len(onlyGot) == 0 && len(onlyWant) == 0 {
		return "yes"
	}
	slices.Sort(onlyGot)
	slices.Sort(onlyWant)
	fmt.Fprintf(os.Stderr, "  differences: only search_code %d %q; only rg %d %q\n", len(onlyGot), first(onlyGot, 5), len(onlyWant), first(onlyWant, 5))
	return fmt.Sprintf("no (+%d −%d)", len(onlyGot), len(onlyWant))
}

func first(s []string, n int) []string { return s[:min(n, len(s))] }

type sizes struct {
	all, text int64
	files     int
}

// sourceSize adds up the regular files of the tree (links not followed, .git left out), and
// those of them that are text within the size limit.
func sourceSize(root string) sizes {
	var s sizes
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		s.files++
		s.all += info.Size()
		if info.Size() <= maxFileSize {
			if data, err := os.ReadFile(p); err == nil && !slices.Contains(data, 0) {
				s.text += info.Size()
			}
		}
		return nil
	})
	return s
}

// dirSize is the size of the file name in dir, or of every file in it when name is "".
func dirSize(dir, name string) int64 {
	var n int64
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if name != "" && e.Name() != name {
			continue
		}
		if info, err := e.Info(); err == nil {
			n += info.Size()
		}
	}
	return n
}

func median(d []time.Duration) time.Duration { return percentile(d, 50) }

func percentile(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100
	return s[max(0, min(i, len(s))-1)]
}

func ms(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= 10*time.Millisecond:
		return fmt.Sprintf("%.0f ms", float64(d)/1e6)
	}
	return fmt.Sprintf("%.2f ms", float64(d)/1e6)
}

func size(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
}
