// Command codegraph benchmarks examples/codegraph on large corpora (the Go standard library,
// this repository) against gopls, the incumbent: cold and incremental index times, store
// size, and the latency of answering through MCP, beside gopls's command line against a warm
// daemon and gopls's own MCP server (gopls mcp), on the same questions about the same
// symbols; and whether the answers agree (goplsref.Agreement says how they are compared).
//
// scripts/bench.sh codegraph runs it; it prints Markdown tables and writes the differences
// it found to -out.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/examples/codegraph/goplsref"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// symbol is a question set: which of gopls's questions apply to it.
type symbol struct {
	name            string
	impl, hierarchy bool
}

// The fixed symbols of each corpus. The standard library's 20 are the agreement set.
var symbols = map[string][]symbol{
	"std": {
		{"net/http.NewRequestWithContext", false, true},
		{"net/http.Client.Do", true, true},
		{"net/http.Header.Get", true, true},
		{"net/url.Parse", false, true},
		{"encoding/json.Unmarshal", false, true},
		{"encoding/json.Marshaler", true, false},
		{"sort.Interface", true, false},
		{"context.WithTimeout", false, true},
		{"sync.WaitGroup.Wait", true, true},
		{"os.ReadFile", false, true},
		{"strconv.Itoa", false, true},
		{"time.Duration.String", true, true},
		{"errors.Is", false, true},
		{"io.ReadAll", false, true},
		{"bufio.NewScanner", false, true},
		{"go/ast.Inspect", false, true},
		{"regexp.MustCompile", false, true},
		{"path/filepath.Walk", false, true},
		{"net/http.RoundTripper", true, false},
		{"io.ReaderFrom", true, false},
	},
	"mcpgen": {
		{"github.com/mcpgen/mcpgen/runtime/mcp.Sample", false, true},
		{"github.com/mcpgen/mcpgen/runtime/mcp.Server.CallTool", true, true},
		{"github.com/mcpgen/mcpgen/runtime/mcp.Connect", false, true},
		{"github.com/mcpgen/mcpgen/runtime/mcp.Transport", true, false},
		{"github.com/mcpgen/mcpgen/runtime/mcp.Progress", false, true},
		{"github.com/mcpgen/mcpgen/runtime/jsonwire.Encoder.String", true, true},
		{"github.com/mcpgen/mcpgen/gen.Generate", false, true},
		{"github.com/mcpgen/mcpgen/runtime/host.Start", false, true},
		{"github.com/mcpgen/mcpgen/runtime/mcp.TaskStore", true, false},
		{"github.com/mcpgen/mcpgen/runtime/mcp.Client.CallTool", true, true},
	},
}

// sinks are where the call-path query leads from each symbol.
var sinks = map[string]string{"std": "errors.New", "mcpgen": "fmt.Errorf"}

type corpusFlag []string

func (c *corpusFlag) String() string     { return strings.Join(*c, ",") }
func (c *corpusFlag) Set(v string) error { *c = append(*c, v); return nil }

func main() {
	codegraph := flag.String("codegraph", "", "the codegraph binary")
	gopls := flag.String("gopls", "", "the gopls binary")
	out := flag.String("out", ".", "where to write the database and the differences")
	rounds := flag.Int("rounds", 5, "rounds of questions for codegraph")
	goplsRounds := flag.Int("gopls-rounds", 2, "rounds of questions for gopls")
	var corpora, edits corpusFlag
	flag.Var(&corpora, "corpus", "NAME=DIR to index (repeat)")
	flag.Var(&edits, "edit", "NAME=FILE, relative to the corpus, to change for the incremental run (repeat)")
	flag.Parse()
	ctx := context.Background()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	var tables []string
	for _, c := range corpora {
		name, dir, _ := strings.Cut(c, "=")
		edit := ""
		for _, e := range edits {
			if n, f, _ := strings.Cut(e, "="); n == name {
				edit = f
			}
		}
		b := &bench{name: name, dir: dir, edit: edit, codegraph: *codegraph, gopls: *gopls, out: *out, rounds: *rounds, goplsRounds: *goplsRounds}
		if err := b.run(ctx); err != nil {
			log.Fatalf("%s: %v", name, err)
		}
		tables = append(tables, b.table())
	}
	fmt.Println(strings.Join(tables, "\n"))
}

type bench struct {
	name, dir, edit, codegraph, gopls, out string
	rounds, goplsRounds                    int
	db                                     string

	cold, incremental, upToDate time.Duration
	goplsWarmup                 time.Duration // from its start to the end of its first round
	packages, reindexed         string
	size                        int64
	latency                     map[string][]time.Duration
	agree                       map[string][2]int // question -> agreeing, asked
	askedAgain                  map[string]int    // agreeing only when gopls was asked at a use
	diffs                       []string
}

func (b *bench) run(ctx context.Context) error {
	b.latency = map[string][]time.Duration{}
	b.agree = map[string][2]int{}
	b.askedAgain = map[string]int{}
	b.db = filepath.Join(b.out, b.name+".db")
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(b.db + suffix)
	}
	log.Printf("%s: cold index of %s", b.name, b.dir)
	var err error
	var line string
	if b.cold, line, err = b.index(ctx); err != nil {
		return err
	}
	b.packages = strings.Fields(line)[1]
	fi, err := os.Stat(b.db)
	if err != nil {
		return err
	}
	b.size = fi.Size()
	if b.upToDate, _, err = b.index(ctx); err != nil {
		return err
	}
	if b.edit != "" {
		log.Printf("%s: incremental index after changing %s", b.name, b.edit)
		file := filepath.Join(b.dir, b.edit)
		orig, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		if err := replace(file, append(append([]byte(nil), orig...), "\n// changed by the codegraph benchmark\n"...)); err != nil {
			return err
		}
		b.incremental, line, err = b.index(ctx)
		if rerr := replace(file, orig); rerr != nil {
			return rerr
		}
		if err != nil {
			return err
		}
		b.reindexed = strings.Fields(line)[3]
		if _, _, err := b.index(ctx); err != nil { // back to the original
			return err
		}
	}
	if err := b.ask(ctx); err != nil {
		return err
	}
	if err := b.askGopls(ctx); err != nil {
		return err
	}
	if err := b.askGoplsMCP(ctx); err != nil {
		return err
	}
	if len(b.diffs) > 0 {
		name := filepath.Join(b.out, b.name+"-differences.txt")
		os.WriteFile(name, []byte(strings.Join(b.diffs, "\n")+"\n"), 0o644)
		log.Printf("%s: differences from gopls written to %s", b.name, name)
	}
	return nil
}

// replace writes a file by renaming a new one over it: a corpus made of hard links to
// another tree changes here only.
func replace(file string, data []byte) error {
	tmp := file + ".codegraph-bench"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, file)
}

// index runs codegraph -index and returns its wall time and its report line.
func (b *bench) index(ctx context.Context) (time.Duration, string, error) {
	start := time.Now()
	out, err := exec.CommandContext(ctx, b.codegraph, "-db", b.db, "-index", b.dir).CombinedOutput()
	d := time.Since(start)
	if err != nil {
		return 0, "", fmt.Errorf("codegraph -index: %v\n%s", err, out)
	}
	log.Printf("%s (%v)", strings.TrimSpace(string(out)), d.Round(time.Millisecond))
	return d, strings.TrimSpace(string(out)), nil
}

func timed(b *bench, what string, f func() error) error {
	start := time.Now()
	err := f()
	b.latency[what] = append(b.latency[what], time.Since(start))
	return err
}

// ours holds codegraph's answers, as agreement sets, by question and symbol.
type answers map[string]goplsref.Set

func (b *bench) ask(ctx context.Context) error {
	c, err := mcp.Connect(ctx, &mcp.CommandTransport{Command: b.codegraph, Args: []string{"-db", b.db}}, nil)
	if err != nil {
		return err
	}
	defer c.Close()
	callJSON := func(tool string, args map[string]any, v any) error {
		res, err := c.CallTool(ctx, tool, args)
		if err != nil {
			return err
		}
		if err := res.Err(); err != nil {
			return fmt.Errorf("%s %v: %w", tool, args, err)
		}
		if v == nil {
			return nil
		}
		return json.Unmarshal(res.StructuredContent, v)
	}
	log.Printf("%s: codegraph through MCP, %d rounds of %d symbols", b.name, b.rounds, len(symbols[b.name]))
	ours = map[string]answers{}
	for r := range b.rounds + 1 { // round 0 warms up and collects the answers
		for _, s := range symbols[b.name] {
			record := func(what string, f func() error) error {
				if r == 0 {
					return f()
				}
				return timed(b, "codegraph "+what, f)
			}
			var snip struct {
				QualifiedName string `json:"qualified_name"`
				FilePath      string `json:"file_path"`
				NameLine      int    `json:"name_line"`
				NameCol       int    `json:"name_col"`
				Found         bool   `json:"found"`
				Message       string `json:"message"`
			}
			if err := record("get_code_snippet", func() error {
				return callJSON("get_code_snippet", map[string]any{"qualified_name": s.name}, &snip)
			}); err != nil {
				return err
			}
			if !snip.Found {
				return fmt.Errorf("%s: %s", s.name, snip.Message)
			}
			decl[s.name] = goplsref.Pos{File: filepath.Join(b.dir, snip.FilePath), Line: snip.NameLine, Col: snip.NameCol}
			var refs struct {
				References []struct {
					File      string `json:"file"`
					Line, Col int
				} `json:"references"`
				Truncated bool `json:"truncated"`
			}
			if err := record("find_references", func() error {
				return callJSON("find_references", map[string]any{"qualified_name": s.name}, &refs)
			}); err != nil {
				return err
			}
			if r == 0 {
				set := goplsref.Set{}
				for _, x := range refs.References {
					set.Add("%s:%d:%d", x.File, x.Line, x.Col)
				}
				keep(s.name, "references", set)
			}
			if s.impl {
				var impls struct {
					Implementations []struct {
						File      string `json:"file"`
						Line, Col int
					} `json:"implementations"`
				}
				if err := record("find_implementations", func() error {
					return callJSON("find_implementations", map[string]any{"interface": s.name}, &impls)
				}); err != nil {
					return err
				}
				if r == 0 {
					set := goplsref.Set{}
					for _, x := range impls.Implementations {
						if x.File != "" {
							set.Add("%s:%d:%d", x.File, x.Line, x.Col)
						}
					}
					keep(s.name, "implementation", set)
				}
			}
			if s.hierarchy {
				var callers struct {
					Callers []struct {
						File      string `json:"file"`
						Line, Col int
						Sites     []struct {
							File      string `json:"file"`
							Line, Col int
						} `json:"sites"`
					} `json:"callers"`
				}
				if err := record("find_callers", func() error {
					return callJSON("find_callers", map[string]any{"qualified_name": s.name}, &callers)
				}); err != nil {
					return err
				}
				var callees struct {
					Callees []struct {
						Callee string `json:"callee"`
						Sites  []struct {
							File      string `json:"file"`
							Line, Col int
						} `json:"sites"`
					} `json:"callees"`
				}
				if err := record("find_callees", func() error {
					return callJSON("find_callees", map[string]any{"qualified_name": s.name}, &callees)
				}); err != nil {
					return err
				}
				if err := record("find_call_path", func() error {
					return callJSON("find_call_path", map[string]any{"from": s.name, "to": sinks[b.name], "max_depth": 4}, nil)
				}); err != nil {
					return err
				}
				if r == 0 {
					in, out := goplsref.Set{}, goplsref.Set{}
					for _, c := range callers.Callers {
						for _, x := range c.Sites {
							in.Add("%s:%d:%d <- %s:%d:%d", c.File, c.Line, c.Col, x.File, x.Line, x.Col)
						}
					}
					for _, c := range callees.Callees {
						short := c.Callee[strings.LastIndex(c.Callee, ".")+1:]
						for _, x := range c.Sites {
							out.Add("%s @ %s:%d:%d", short, x.File, x.Line, x.Col)
						}
					}
					keep(s.name, "incoming calls", in)
					keep(s.name, "outgoing calls", out)
				}
			}
		}
	}
	return nil
}

var (
	ours = map[string]answers{}
	decl = map[string]goplsref.Pos{}
)

func keep(sym, question string, s goplsref.Set) {
	if ours[question] == nil {
		ours[question] = answers{}
	}
	ours[question][sym] = s
}

// compare records whether gopls's answer (asked at the declaration) is codegraph's. When
// codegraph lists uses gopls does not, gopls is asked again at the first of them in each
// package, and its answers are joined: gopls's answers depend on where it is asked (asked at
// errors.Is's declaration, it omits the uses in packages net and os/user that it lists when
// asked at one of them).
func (b *bench) compare(sym, question string, gopls goplsref.Set, again func(goplsref.Pos) (goplsref.Set, error)) {
	a := b.agree[question]
	a[1]++
	diff := gopls.Diff(ours[question][sym])
	onlyOurs := len(diff) > 0 && !slices.ContainsFunc(diff, func(d string) bool { return !strings.HasPrefix(d, "+ ") })
	if onlyOurs && again != nil {
		joined := goplsref.Set{}
		for k := range gopls {
			joined[k] = true
		}
		asked := map[string]bool{}
		var at []string
		for _, d := range diff {
			site := d[2:]
			if i := strings.LastIndex(site, " <- "); i >= 0 {
				site = site[i+4:]
			}
			var p goplsref.Pos
			if _, err := fmt.Sscanf(strings.ReplaceAll(site, ":", " "), "%s %d %d", &p.File, &p.Line, &p.Col); err != nil || asked[filepath.Dir(p.File)] {
				continue
			}
			asked[filepath.Dir(p.File)] = true
			at = append(at, site)
			p.File = filepath.Join(b.dir, p.File)
			second, err := again(p)
			if err != nil {
				break
			}
			for k := range second {
				joined[k] = true
			}
		}
		if len(joined.Diff(ours[question][sym])) == 0 {
			b.diffs = append(b.diffs, fmt.Sprintf("%s %s: gopls asked at the declaration differs in %d; asked there and at %s it agrees", sym, question, len(diff), strings.Join(at, ", ")))
			diff = nil
			b.askedAgain[question]++
		}
	}
	if len(diff) == 0 {
		a[0]++
	} else {
		b.diffs = append(b.diffs, fmt.Sprintf("%s %s: %d differences (- gopls only, + codegraph only)", sym, question, len(diff)))
		for i, d := range diff {
			if i == 50 {
				b.diffs = append(b.diffs, fmt.Sprintf("  ... and %d more", len(diff)-50))
				break
			}
			b.diffs = append(b.diffs, "  "+d)
		}
	}
	b.agree[question] = a
}

func (b *bench) askGopls(ctx context.Context) error {
	d, err := goplsref.Start(ctx, b.gopls, b.dir)
	if err != nil {
		return err
	}
	defer d.Close()
	first := symbols[b.name][0]
	log.Printf("%s: warming the gopls daemon up", b.name)
	start := time.Now()
	if _, err := d.References(ctx, decl[first.name]); err != nil {
		return err
	}
	log.Printf("%s: gopls daemon answered its first question after %v; %d rounds after one to warm it up", b.name, time.Since(start).Round(time.Millisecond), b.goplsRounds)
	for r := range b.goplsRounds + 1 {
		// Round 0 fills gopls's caches (and collects the answers): it is not timed, as
		// codegraph's round 0 is not.
		timed := func(b *bench, what string, f func() error) error {
			if r == 0 {
				return f()
			}
			return timed(b, what, f)
		}
		if r == 1 {
			b.goplsWarmup = time.Since(start)
			log.Printf("%s: gopls warm after %v", b.name, b.goplsWarmup.Round(time.Millisecond))
		}
		for _, s := range symbols[b.name] {
			at := decl[s.name]
			var refs []goplsref.Pos
			if err := timed(b, "gopls references", func() (err error) { refs, err = d.References(ctx, at); return err }); err != nil {
				return err
			}
			if r == 0 {
				b.compare(s.name, "references", goplsref.ReferenceSet(b.dir, refs), func(p goplsref.Pos) (goplsref.Set, error) {
					refs, err := d.References(ctx, p)
					return goplsref.ReferenceSet(b.dir, refs), err
				})
			}
			if s.impl {
				var impls []goplsref.Pos
				if err := timed(b, "gopls implementation", func() (err error) { impls, err = d.Implementation(ctx, at); return err }); err != nil {
					return err
				}
				if r == 0 {
					b.compare(s.name, "implementation", goplsref.ImplementationSet(b.dir, impls), nil)
				}
			}
			if s.hierarchy {
				var in, out []goplsref.Call
				if err := timed(b, "gopls call_hierarchy", func() (err error) { in, out, err = d.CallHierarchy(ctx, at); return err }); err != nil {
					return err
				}
				if r == 0 {
					b.compare(s.name, "incoming calls", goplsref.IncomingSet(b.dir, in), func(p goplsref.Pos) (goplsref.Set, error) {
						in, _, err := d.CallHierarchy(ctx, p)
						return goplsref.IncomingSet(b.dir, in), err
					})
					b.compare(s.name, "outgoing calls", goplsref.OutgoingSet(b.dir, out), nil)
				}
			}
		}
	}
	return nil
}

// askGoplsMCP asks gopls's own MCP server (gopls mcp, over stdio) for the references of
// each symbol: go_symbol_references is its one tool of the kind (it has no call hierarchy
// or implementation tool).
func (b *bench) askGoplsMCP(ctx context.Context) error {
	c, err := mcp.Connect(ctx, &mcp.CommandTransport{Command: b.gopls, Args: []string{"mcp"}, Dir: b.dir}, &mcp.ClientOptions{Timeout: 10 * time.Minute})
	if err != nil {
		return err
	}
	defer c.Close()
	log.Printf("%s: gopls mcp, %d rounds", b.name, b.goplsRounds)
	for r := range b.goplsRounds + 1 {
		for _, s := range symbols[b.name] {
			inPkg := s.name[strings.LastIndex(s.name, "/")+1:]
			inPkg = inPkg[strings.Index(inPkg, ".")+1:]
			args := map[string]any{"file": decl[s.name].File, "symbol": inPkg}
			f := func() error {
				res, err := c.CallTool(ctx, "go_symbol_references", args)
				if err != nil {
					return err
				}
				return res.Err()
			}
			if r == 0 {
				err = f() // the first call loads the workspace
			} else {
				err = timed(b, "gopls mcp go_symbol_references", f)
			}
			if err != nil {
				return fmt.Errorf("gopls mcp go_symbol_references %v: %w", args, err)
			}
		}
	}
	return nil
}

func pct(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(p*float64(len(s))+0.5) - 1
	return s[max(0, min(i, len(s)-1))]
}

func ms(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= 10*time.Millisecond:
		return fmt.Sprintf("%.0f ms", float64(d)/1e6)
	default:
		return fmt.Sprintf("%.2f ms", float64(d)/1e6)
	}
}

func (b *bench) table() string {
	var t strings.Builder
	fmt.Fprintf(&t, "### %s (%s)\n\n", b.name, b.dir)
	fmt.Fprintf(&t, "| packages | cold index | re-index, %s changed | re-index, nothing changed | store |\n|---|---|---|---|---|\n", b.edit)
	fmt.Fprintf(&t, "| %s | %.1f s | %.1f s (%s packages) | %.1f s | %.0f MB |\n\n", b.packages, b.cold.Seconds(), b.incremental.Seconds(), b.reindexed, b.upToDate.Seconds(), float64(b.size)/1e6)
	fmt.Fprintf(&t, "The gopls daemon took %.0f s from its start to the end of its first round of questions (not timed below).\n\n", b.goplsWarmup.Seconds())
	fmt.Fprintf(&t, "| question | calls | p50 | p99 |\n|---|---|---|---|\n")
	var keys []string
	for k := range b.latency {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&t, "| %s | %d | %s | %s |\n", k, len(b.latency[k]), ms(pct(b.latency[k], 0.5)), ms(pct(b.latency[k], 0.99)))
	}
	fmt.Fprintf(&t, "\n| agreement with gopls | symbols agreeing | of which only with gopls asked at a use |\n|---|---|---|\n")
	for _, q := range []string{"references", "implementation", "incoming calls", "outgoing calls"} {
		if a, ok := b.agree[q]; ok {
			fmt.Fprintf(&t, "| %s | %d of %d | %d |\n", q, a[0], a[1], b.askedAgain[q])
		}
	}
	return t.String()
}
