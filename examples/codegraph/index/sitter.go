package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/mcpgen/mcpgen/examples/codegraph/graph"
	"github.com/mcpgen/mcpgen/examples/internal/grammar"
)

// The languages without a type checker here: tree-sitter parses each file, the language's
// extractor finds its declarations, imports and calls, and its resolver links each call to
// a declaration through the file's scopes and imports ("scope"), or failing that by the name
// alone when one declaration has it ("name"). Files are grouped in families whose files
// resolve against each other (JavaScript and TypeScript; C and C++).

// sfile is what an extractor found in one file.
type sfile struct {
	rel     string // relative to the root, with slashes
	lines   int
	unit    string // the graph package the file belongs to
	unitDir string
	defs    []sdef
	imports []simport
	calls   []scall
	bases   []sbase
	// locals are the variables of a function assigned a construction, "caller var" ->
	// the class as written ("s = UserService()"): a call s.m() is UserService.m.
	locals map[string]string
	errors int // syntax errors tree-sitter recovered from
}

// sdef is a declaration.
type sdef struct {
	kind, name, qname, parent string // parent: the enclosing class's qname, or ""
	line, col, endLine        int
	sig, doc                  string
	exported                  bool
}

// simport is a name an import binds in a file.
type simport struct {
	local  string // the name in the file ("json", "JSONDecoder", "np"); "" binds nothing
	target string // what it stands for ("json", "json.decoder.JSONDecoder")
	module string // the module imported, for the imports edge ("" for none)
	line   int
	col    int
}

// scall is a call (or a construction) in a file.
type scall struct {
	caller string // the enclosing declaration's qname, or the unit's
	class  string // the enclosing class's qname, or ""
	recv   string // the receiver as written ("", "self", "os.path", "this")
	name   string // the name called
	line   int
	col    int
}

// sbase is a class's base class or interface, as written.
type sbase struct {
	class, name string
	iface       bool // implements, not extends
	line, col   int
}

// family is a group of languages whose files resolve against each other.
type family struct {
	name      string
	languages []string
	unitOf    func(root string, sf sourceFile) string
	extract   func(f *sfile, root *sitter.Node, src []byte, path string)
	newIndex  func(files []*sfile) resolver
}

// resolver links a call to what it calls: the target's qname and how it was found ("scope"
// or "name"), or "" when it cannot tell.
type resolver interface {
	resolve(f *sfile, c scall) (target, how string)
	base(f *sfile, b sbase) (target, how string)
}

var families = []*family{pythonFamily, typescriptFamily, javaFamily, rustFamily, cFamily}

func familyOf(lang string) *family {
	for _, f := range families {
		for _, l := range f.languages {
			if l == lang {
				return f
			}
		}
	}
	return nil
}

// sourceFile is a file of a family, found by the walk.
type sourceFile struct {
	abs, rel string
	lang     *grammar.Language
}

// maxSourceSize is the largest file indexed: larger ones are generated or minified.
const maxSourceSize = 1 << 20

// walkSources finds the files of the tree-sitter languages under root, by family, leaving
// out hidden directories and those of dependencies and builds (but for the root itself).
func walkSources(root string) map[*family][]sourceFile {
	out := map[*family][]sourceFile{}
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if path != root && skipSourceDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		l := grammar.ForFile(d.Name())
		if l == nil || strings.HasSuffix(d.Name(), ".min.js") || !d.Type().IsRegular() {
			return nil
		}
		fam := familyOf(l.Name)
		if fam == nil {
			return nil
		}
		if fi, err := d.Info(); err != nil || fi.Size() > maxSourceSize {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		out[fam] = append(out[fam], sourceFile{abs: path, rel: filepath.ToSlash(rel), lang: l})
		return nil
	})
	cppHeaders(out[cFamily])
	return out
}

// cppHeaders parses a project's .h files as C++ when it has C++ files: their classes and
// namespaces are C++'s (C's grammar would not see them), and C++'s grammar reads C too.
func cppHeaders(files []sourceFile) {
	var cpp *grammar.Language
	for _, f := range files {
		if f.lang.Name == "cpp" {
			cpp = f.lang
			break
		}
	}
	if cpp == nil {
		return
	}
	for i := range files {
		if strings.HasSuffix(files[i].rel, ".h") {
			files[i].lang = cpp
		}
	}
}

func skipSourceDir(name string) bool {
	switch name {
	case "node_modules", "__pycache__", "target", "dist", "build", "vendor", "testdata":
		return true
	}
	return strings.HasPrefix(name, ".")
}

// SourceExtensions are the extensions of the files the indexer reads: Go's, and those of
// the languages tree-sitter parses.
func SourceExtensions() []string {
	out := []string{".go"}
	for _, l := range grammar.Languages {
		if familyOf(l.Name) != nil {
			out = append(out, l.Extensions...)
		}
	}
	return out
}

// sitterLanguages names the languages tree-sitter indexes.
func sitterLanguages() []string {
	var out []string
	for _, f := range families {
		out = append(out, f.languages...)
	}
	return out
}

// runSitterOnly indexes a project without Go.
func runSitterOnly(ctx context.Context, store *graph.Store, root string, sources map[*family][]sourceFile, res *Result, start time.Time, progress Progress) (*Result, error) {
	w, err := store.BeginIndex(ctx, root, res.Project)
	if err != nil {
		return nil, err
	}
	defer w.Rollback()
	x := &extractor{root: root, files: &fileCache{root: root, sums: map[string]fileSum{}}}
	res.Load = time.Since(start)
	if err := x.sitterAll(ctx, store, sources, w, res, progress); err != nil {
		return nil, err
	}
	if err := w.Commit(); err != nil {
		return nil, err
	}
	res.Total = time.Since(start)
	return res, nil
}

// sitterAll indexes every family's files (and forgets the units of a family gone).
func (x *extractor) sitterAll(ctx context.Context, store *graph.Store, sources map[*family][]sourceFile, w *graph.Writer, res *Result, progress Progress) error {
	for _, fam := range families {
		old, err := w.Hashes(fam.name)
		if err != nil {
			return err
		}
		if len(old) == 0 && len(sources[fam]) == 0 {
			continue
		}
		if err := x.sitterFamily(ctx, fam, sources[fam], old, w, res, progress); err != nil {
			return err
		}
	}
	sort.Strings(res.Removed)
	return nil
}

// sitterFamily indexes a family's files: when any changed (or came or went) since the last
// run, all are parsed again and resolved, since a change in one may change how another's
// calls resolve; only the units whose facts changed are written.
func (x *extractor) sitterFamily(ctx context.Context, fam *family, files []sourceFile, old map[string]string, w *graph.Writer, res *Result, progress Progress) error {
	// Which unit each file is in, and whether anything changed.
	content := map[string][]string{} // unit -> "rel sum" lines
	unitOf := make([]string, len(files))
	for i, sf := range files {
		unitOf[i] = fam.unitOf(x.root, sf)
	}
	for i, sf := range files {
		s := x.files.sum(sf.abs)
		content[unitOf[i]] = append(content[unitOf[i]], fmt.Sprintf("%s %x", sf.rel, s.sum))
	}
	hashes := map[string]string{}
	same := len(content) == len(old)
	for u, lines := range content {
		sort.Strings(lines)
		h := sha256.Sum256([]byte("codegraph 2\n" + strings.Join(lines, "\n")))
		hashes[u] = hex.EncodeToString(h[:16])
		if before, ok := old[u]; !ok || !strings.HasPrefix(before, hashes[u]+":") {
			same = false
		}
	}
	res.Packages += len(content)
	for u := range old {
		if _, ok := content[u]; !ok {
			res.Removed = append(res.Removed, u)
			if err := w.RemovePackage(u); err != nil {
				return err
			}
		}
	}
	if same {
		return nil
	}
	progress(0, len(files), fmt.Sprintf("parsing %d %s files", len(files), fam.name))
	parsed, err := x.parseAll(ctx, fam, files, unitOf)
	if err != nil {
		return err
	}
	r := fam.newIndex(parsed)
	byUnit := map[string][]*sfile{}
	for _, f := range parsed {
		byUnit[f.unit] = append(byUnit[f.unit], f)
	}
	units := make([]string, 0, len(byUnit))
	for u := range byUnit {
		units = append(units, u)
	}
	sort.Strings(units)
	for i, u := range units {
		facts := unitFacts(fam, r, u, byUnit[u])
		facts.Hash = hashes[u] + ":" + factsDigest(facts)
		if old[u] == facts.Hash {
			continue
		}
		if err := w.WritePackage(facts); err != nil {
			return fmt.Errorf("writing %s: %w", u, err)
		}
		res.Indexed = append(res.Indexed, u)
		if len(facts.Errors) > 0 {
			res.Broken = append(res.Broken, u)
		}
		progress(i+1, len(units), "indexed "+u)
	}
	return nil
}

// parseAll parses the files on every CPU and extracts what each holds; trees are closed as
// soon as they are read.
func (x *extractor) parseAll(ctx context.Context, fam *family, files []sourceFile, unitOf []string) ([]*sfile, error) {
	out := make([]*sfile, len(files))
	next := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				sf := files[i]
				src, err := os.ReadFile(sf.abs)
				if err != nil {
					continue
				}
				tree, err := grammar.Parse(ctx, sf.lang, src)
				if err != nil {
					continue
				}
				f := &sfile{rel: sf.rel, unit: unitOf[i], unitDir: filepath.ToSlash(filepath.Dir(sf.rel)), lines: x.files.lines(sf.abs)}
				root := tree.RootNode()
				if root.HasError() {
					f.errors = countErrors(root)
				}
				fam.extract(f, root, src, sf.rel)
				tree.Close()
				out[i] = f
			}
		}()
	}
	for i := range files {
		select {
		case next <- i:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var parsed []*sfile
	for _, f := range out {
		if f != nil {
			parsed = append(parsed, f)
		}
	}
	return parsed, nil
}

func countErrors(n *sitter.Node) int {
	count := 0
	it := sitter.NewIterator(n, sitter.DFSMode)
	it.ForEach(func(c *sitter.Node) error {
		if c.IsError() || c.IsMissing() {
			count++
		}
		return nil
	})
	return count
}

// unitFacts makes a unit's facts: its files, declarations, and edges resolved.
func unitFacts(fam *family, r resolver, unit string, files []*sfile) *graph.PackageFacts {
	sort.Slice(files, func(i, j int) bool { return files[i].rel < files[j].rel })
	f := &graph.PackageFacts{Language: fam.name, Path: unit, Name: unit[strings.LastIndexAny(unit, "./:")+1:], Dir: files[0].unitDir}
	f.Nodes = append(f.Nodes, graph.Node{Kind: "module", Name: f.Name, QName: unit, File: -1, Exported: true, Signature: fam.name + " " + unit})
	for i, sf := range files {
		f.Files = append(f.Files, graph.File{Path: sf.rel, Lines: sf.lines})
		if sf.errors > 0 {
			f.Errors = append(f.Errors, fmt.Sprintf("%s: %d syntax errors", sf.rel, sf.errors))
		}
		for _, d := range sf.defs {
			f.Nodes = append(f.Nodes, graph.Node{Kind: d.kind, Name: d.name, QName: d.qname, Parent: d.parent, File: i,
				Line: d.line, Col: d.col, EndLine: d.endLine, Exported: d.exported, Signature: d.sig, Doc: d.doc})
			owner := d.parent
			if owner == "" {
				owner = unit
			}
			f.Edges = append(f.Edges, graph.Edge{Kind: "defines", Src: owner, Dst: d.qname, File: i, Line: d.line, Col: d.col, Resolution: "scope"})
		}
		for _, im := range sf.imports {
			if im.module != "" {
				f.Edges = append(f.Edges, graph.Edge{Kind: "imports", Src: unit, Dst: im.module, File: i, Line: im.line, Col: im.col, Resolution: "scope"})
			}
		}
		for _, b := range sf.bases {
			if t, how := r.base(sf, b); t != "" {
				kind := "extends"
				if b.iface {
					kind = "implements"
				}
				f.Edges = append(f.Edges, graph.Edge{Kind: kind, Src: b.class, Dst: t, File: i, Line: b.line, Col: b.col, Resolution: how},
					graph.Edge{Kind: "references", Src: b.class, Dst: t, File: i, Line: b.line, Col: b.col, Resolution: how})
			}
		}
		for _, c := range sf.calls {
			if t, how := r.resolve(sf, c); t != "" {
				f.Edges = append(f.Edges, graph.Edge{Kind: "calls", Src: c.caller, Dst: t, File: i, Line: c.line, Col: c.col, Resolution: how},
					graph.Edge{Kind: "references", Src: c.caller, Dst: t, File: i, Line: c.line, Col: c.col, Resolution: how})
			}
		}
	}
	return f
}

// factsDigest is a digest of a unit's facts: a unit whose facts are the same as the last
// run's is not written again.
func factsDigest(f *graph.PackageFacts) string {
	d := sha256.New()
	for _, n := range f.Nodes {
		fmt.Fprintf(d, "n %s %s %s %d %d %d %d %s\x00%s\x00", n.Kind, n.QName, n.Parent, n.File, n.Line, n.Col, n.EndLine, n.Signature, n.Doc)
	}
	for _, e := range f.Edges {
		fmt.Fprintf(d, "e %s %s %s %d %d %d %s\n", e.Kind, e.Src, e.Dst, e.File, e.Line, e.Col, e.Resolution)
	}
	for _, file := range f.Files {
		fmt.Fprintf(d, "f %s %d\n", file.Path, file.Lines)
	}
	fmt.Fprintf(d, "x %s\n", strings.Join(f.Errors, "\n"))
	return hex.EncodeToString(d.Sum(nil)[:16])
}

// text is a node's source.
func text(n *sitter.Node, src []byte) string {
	if n == nil {
		return ""
	}
	return string(src[n.StartByte():n.EndByte()])
}

// pos is a node's line and column, 1-based (columns count bytes, as Go's do).
func pos(n *sitter.Node) (int, int) {
	p := n.StartPoint()
	return int(p.Row) + 1, int(p.Column) + 1
}

func endLine(n *sitter.Node) int { return int(n.EndPoint().Row) + 1 }

// children are a node's named children.
func children(n *sitter.Node) []*sitter.Node {
	out := make([]*sitter.Node, 0, n.NamedChildCount())
	for i := range int(n.NamedChildCount()) {
		out = append(out, n.NamedChild(i))
	}
	return out
}

// firstLine is the first line of a node's text, for a signature.
func firstLine(n *sitter.Node, src []byte) string {
	s := text(n, src)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "{"))
}
