// Package index keeps a trigram index of a directory tree, current as files change, and
// searches it: a literal or regular expression is first turned into a query over trigrams,
// which narrows the files to the few that can hold a match, and only those are read.
//
// The index holds no file contents: for each trigram (three bytes, ASCII letters in lower
// case) it lists the files that hold it, delta-encoded, which is a fraction of the text's
// size. It lives in memory as one immutable segment plus the files changed since, and on
// disk as one file that a restart loads, re-reading only the files whose size or
// modification time changed.
package index

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Options configure an Index.
type Options struct {
	// Dir is where the index is kept between runs; "" keeps it in memory only.
	Dir string
	// MaxFileSize is the size past which a file is listed but not indexed (default 16 MiB).
	MaxFileSize int64
	// Watch keeps the index current as files change: inotify on Linux, elsewhere a walk of
	// the tree every PollInterval (default 5 s).
	Watch        bool
	PollInterval time.Duration
	// Logf receives progress and problems; nil discards them.
	Logf func(format string, args ...any)
}

// Index is the index of one directory tree. Its methods are safe for concurrent use.
type Index struct {
	root   string
	fsroot *os.Root
	opts   Options

	view  atomic.Pointer[view]
	ready chan struct{} // closed once the index is built or loaded
	err   error         // why it could not be, once ready is closed

	// While the first build runs: the files it found, and how many it has read.
	walked atomic.Pointer[[]File]
	done   atomic.Int64

	mu        sync.Mutex // serializes changes
	syncMu    sync.Mutex // one Sync at a time: a search waits for the changes another drained
	watch     watcher
	dirty     bool // changed since saved
	listeners []func(paths []string)
	logged    map[string]bool // problems logged already
}

// view is one state of the index: a segment, which of its files are gone or changed, and the
// files changed since it was built.
type view struct {
	base  *segment
	dead  []bool // by file number in base; nil when none
	delta []*deltaFile

	filesOnce sync.Once
	files     []File
}

// deltaFile is a file indexed since the segment was built, with its trigrams.
type deltaFile struct {
	File
	tris []trigram
}

// New returns the index of the tree at root; Run builds or loads it and keeps it current.
func New(root string, opts Options) (*Index, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	info, err := os.Stat(abs)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", root)
	}
	fsroot, err := os.OpenRoot(abs)
	if err != nil {
		return nil, err
	}
	if opts.MaxFileSize <= 0 {
		opts.MaxFileSize = 16 << 20
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = 5 * time.Second
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	ix := &Index{root: abs, fsroot: fsroot, opts: opts, ready: make(chan struct{})}
	ix.view.Store(&view{base: &segment{offs: []uint32{0}}})
	return ix, nil
}

// Close releases the tree (FS); call it after Run returned.
func (ix *Index) Close() error { return ix.fsroot.Close() }

// Root returns the absolute path of the tree.
func (ix *Index) Root() string { return ix.root }

// Stat describes the file or directory at rel within the root (following links that stay
// within it); a link that leads outside is an error.
func (ix *Index) Stat(rel string) (fs.FileInfo, error) { return ix.fsroot.Stat(rel) }

// Ready is closed once the index can answer searches.
func (ix *Index) Ready() <-chan struct{} { return ix.ready }

// Err reports why the index could not be built, once Ready is closed.
func (ix *Index) Err() error { return ix.err }

// Progress reports how many files the first build has read, of how many.
func (ix *Index) Progress() (done, total int) {
	if w := ix.walked.Load(); w != nil {
		return int(ix.done.Load()), len(*w)
	}
	return 0, 0
}

// OnChange registers fn to be told the paths of files that changed, after the index has
// taken them in. Call it before Run.
func (ix *Index) OnChange(fn func(paths []string)) { ix.listeners = append(ix.listeners, fn) }

// Run builds the index (or loads it and refreshes what changed), then keeps it current
// until ctx ends, and saves it on the way out.
func (ix *Index) Run(ctx context.Context) error {
	if ix.opts.Watch {
		// Before the walk, so that changes made while it runs are heard of too.
		ix.watch = ix.newWatcher()
		defer ix.watch.close()
	}
	start := time.Now()
	loaded := false
	if ix.opts.Dir != "" {
		if v, err := ix.load(); err == nil {
			ix.view.Store(v)
			loaded = true
			n := ix.refresh(ctx)
			ix.opts.Logf("index: loaded %d files from %s and re-read %d changed in %v", len(v.base.files), ix.opts.Dir, n, time.Since(start).Round(time.Millisecond))
		} else if !errors.Is(err, os.ErrNotExist) {
			ix.opts.Logf("index: %v; building it anew", err)
		}
	}
	if !loaded {
		if err := ix.build(ctx); err != nil {
			ix.err = err
			close(ix.ready)
			return err
		}
		v := ix.view.Load()
		ix.opts.Logf("index: %d files (%s of text) indexed in %v; %s of index", len(v.base.files), byteSize(textBytes(v.base.files)),
			time.Since(start).Round(time.Millisecond), byteSize(int64(len(v.base.post)+4*len(v.base.tris)+4*len(v.base.offs))))
		ix.dirty = true
	}
	close(ix.ready)
	ix.save()
	defer ix.save()
	if ix.watch == nil {
		<-ctx.Done()
		return nil
	}
	saveTick := time.NewTicker(30 * time.Second)
	defer saveTick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-ix.watch.pending():
			ix.Sync()
		case <-saveTick.C:
			ix.save()
		}
	}
}

// Sync takes in what the watcher has heard of so far, so that a search sees every change
// made before it began (on Linux, where the kernel queues the events as files are written).
func (ix *Index) Sync() {
	if ix.watch == nil {
		return
	}
	select {
	case <-ix.ready:
	default:
		return
	}
	ix.syncMu.Lock()
	defer ix.syncMu.Unlock()
	paths, rescan := ix.watch.drain()
	if rescan {
		ix.refresh(context.Background())
		return
	}
	if len(paths) > 0 {
		ix.update(paths)
	}
}

// build walks the tree and indexes every file in it.
func (ix *Index) build(ctx context.Context) error {
	w, err := walk(ix.fsroot)
	if err != nil {
		return err
	}
	ix.logProblems(w)
	files := w.files
	ix.walked.Store(&files)
	ix.opts.Logf("index: reading %d files below %s", len(files), ix.root)
	b := newSegmentBuilder()
	err = ix.readAll(ctx, files, func(i int, tris []trigram) { b.add(uint32(i), tris) })
	if err != nil {
		return err
	}
	ix.view.Store(&view{base: b.finish(files)})
	return nil
}

// readAll reads files in parallel, classifies each (setting Kind and Generated in place) and
// hands the trigrams of each to add, in order.
func (ix *Index) readAll(ctx context.Context, files []File, add func(i int, tris []trigram)) error {
	const batch = 64
	workers := runtime.GOMAXPROCS(0)
	nb := (len(files) + batch - 1) / batch
	results := make([]chan [][]trigram, nb)
	for i := range results {
		results[i] = make(chan [][]trigram, 1)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4*workers) // batches read ahead of the one being added
	stop := make(chan struct{})
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ex := newExtractor()
			for {
				select {
				case sem <- struct{}{}:
				case <-stop:
					return
				}
				bi := int(next.Add(1) - 1)
				if bi >= nb {
					return
				}
				lo, hi := bi*batch, min((bi+1)*batch, len(files))
				out := make([][]trigram, hi-lo)
				for i := lo; i < hi; i++ {
					out[i-lo] = ix.readFile(&files[i], ex)
					ix.done.Add(1)
				}
				results[bi] <- out
			}
		}()
	}
	defer func() { close(stop); wg.Wait() }()
	for bi := range nb {
		select {
		case out := <-results[bi]:
			for j, tris := range out {
				add(bi*batch+j, tris)
			}
			<-sem
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// readFile reads one file, classifies it and returns its trigrams (none if it is not text).
func (ix *Index) readFile(f *File, ex *extractor) []trigram {
	if f.Size > ix.opts.MaxFileSize {
		f.Kind = TooLarge
		return nil
	}
	data, err := readRegular(ix.fsroot, f.Path, ix.opts.MaxFileSize, nil)
	if err != nil {
		var tl *TooLargeError
		if errors.As(err, &tl) { // it grew since it was listed
			f.Kind, f.Size = TooLarge, tl.Size
			return nil
		}
		f.Kind = Binary // unreadable: nothing to search
		return nil
	}
	f.Size = int64(len(data))
	if bytes.IndexByte(data, 0) >= 0 {
		f.Kind = Binary
		return nil
	}
	f.Kind = Text
	f.Generated = isGenerated(f.Path, data)
	return ex.trigrams(data)
}

// logProblems logs what a walk left unread, once per problem.
func (ix *Index) logProblems(w *walkResult) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.logged == nil {
		ix.logged = map[string]bool{}
	}
	for _, p := range w.problems {
		if !ix.logged[p] {
			ix.logged[p] = true
			ix.opts.Logf("index: %s", p)
		}
	}
}

// refresh walks the tree and takes in every file added, changed or removed since the
// index last saw it; it returns how many.
func (ix *Index) refresh(ctx context.Context) int {
	w, err := walk(ix.fsroot)
	if err != nil {
		ix.opts.Logf("index: %v", err)
		return 0
	}
	ix.logProblems(w)
	cur := ix.view.Load().allFiles()
	var changed []string
	i, j := 0, 0
	for i < len(cur) || j < len(w.files) {
		switch {
		case j == len(w.files) || i < len(cur) && cur[i].Path < w.files[j].Path:
			changed = append(changed, cur[i].Path) // removed
			i++
		case i == len(cur) || w.files[j].Path < cur[i].Path:
			changed = append(changed, w.files[j].Path) // added
			j++
		default:
			if cur[i].Size != w.files[j].Size || cur[i].ModTime != w.files[j].ModTime {
				changed = append(changed, cur[i].Path)
			}
			i++
			j++
		}
	}
	if ix.watch != nil {
		ix.watch.rescanned(w.dirs)
	}
	if len(changed) > 0 && ctx.Err() == nil {
		ix.update(changed)
	}
	return len(changed)
}

// update re-reads the files at paths (relative to the root) as they are now: changed,
// added, removed, or now ignored.
func (ix *Index) update(paths []string) {
	slices.Sort(paths)
	paths = slices.Compact(paths)
	ex := newExtractor()
	var fresh []*deltaFile
	for _, p := range paths {
		f, ok := statFile(ix.fsroot, p)
		if !ok || ignoredPath(ix.fsroot, p, false) {
			continue
		}
		d := &deltaFile{File: f}
		d.tris = ix.readFile(&d.File, ex)
		slices.Sort(d.tris) // matchSet searches them
		fresh = append(fresh, d)
	}
	ix.mu.Lock()
	old := ix.view.Load()
	nv := old.with(paths, fresh)
	if len(nv.delta) > max(1024, len(nv.base.files)/8) {
		nv = &view{base: nv.merged()}
	}
	ix.view.Store(nv)
	ix.dirty = true
	ix.mu.Unlock()
	for _, fn := range ix.listeners {
		fn(paths)
	}
}

// with returns a view where the files at paths are replaced by fresh (sorted by path), or
// gone where fresh has none.
func (v *view) with(paths []string, fresh []*deltaFile) *view {
	nv := &view{base: v.base}
	if v.dead != nil {
		nv.dead = slices.Clone(v.dead)
	}
	for _, p := range paths {
		if i, ok := slices.BinarySearchFunc(v.base.files, p, func(f File, p string) int { return strings.Compare(f.Path, p) }); ok {
			if nv.dead == nil {
				nv.dead = make([]bool, len(v.base.files))
			}
			nv.dead[i] = true
		}
	}
	for _, d := range v.delta {
		if _, found := slices.BinarySearch(paths, d.Path); !found {
			nv.delta = append(nv.delta, d)
		}
	}
	nv.delta = append(nv.delta, fresh...)
	slices.SortFunc(nv.delta, func(a, b *deltaFile) int { return strings.Compare(a.Path, b.Path) })
	return nv
}

// allFiles returns every file of the view, sorted by path.
func (v *view) allFiles() []File {
	v.filesOnce.Do(func() {
		out := make([]File, 0, len(v.base.files)+len(v.delta))
		j := 0
		for i, f := range v.base.files {
			if v.dead != nil && v.dead[i] {
				continue
			}
			for j < len(v.delta) && v.delta[j].Path < f.Path {
				out = append(out, v.delta[j].File)
				j++
			}
			out = append(out, f)
		}
		for ; j < len(v.delta); j++ {
			out = append(out, v.delta[j].File)
		}
		v.files = out
	})
	return v.files
}

// merged returns one segment holding the view's files.
func (v *view) merged() *segment {
	files := v.allFiles()
	newNum := func(p string) uint32 {
		i, _ := slices.BinarySearchFunc(files, p, func(f File, p string) int { return strings.Compare(f.Path, p) })
		return uint32(i)
	}
	baseMap := make([]int64, len(v.base.files))
	for i, f := range v.base.files {
		baseMap[i] = -1
		if v.dead == nil || !v.dead[i] {
			baseMap[i] = int64(newNum(f.Path))
		}
	}
	extra := map[trigram][]uint32{}
	for _, d := range v.delta {
		n := newNum(d.Path)
		for _, t := range d.tris {
			extra[t] = append(extra[t], n)
		}
	}
	tris := slices.Clone(v.base.tris)
	for t := range extra {
		tris = append(tris, t)
	}
	slices.Sort(tris)
	tris = slices.Compact(tris)
	s := &segment{files: files, tris: make([]trigram, 0, len(tris)), offs: make([]uint32, 0, len(tris)+1)}
	s.post = make([]byte, 0, len(v.base.post))
	var buf []uint32
	for _, t := range tris {
		buf = buf[:0]
		for _, old := range decode(nil, v.base.lookup(t)) {
			if n := baseMap[old]; n >= 0 {
				buf = append(buf, uint32(n))
			}
		}
		list := unite(buf, extra[t])
		if len(list) == 0 {
			continue
		}
		s.tris = append(s.tris, t)
		s.offs = append(s.offs, uint32(len(s.post)))
		var last uint32
		for k, n := range list {
			if k == 0 {
				s.post = binary.AppendUvarint(s.post, uint64(n))
			} else {
				s.post = binary.AppendUvarint(s.post, uint64(n-last))
			}
			last = n
		}
	}
	s.offs = append(s.offs, uint32(len(s.post)))
	return s
}

// Files returns every file of the tree the index knows, sorted by path.
func (ix *Index) Files() []File { return ix.view.Load().allFiles() }

// Lookup returns what the index knows of the file at rel.
func (ix *Index) Lookup(rel string) (File, bool) {
	files := ix.Files()
	i, ok := slices.BinarySearchFunc(files, rel, func(f File, p string) int { return strings.Compare(f.Path, p) })
	if !ok {
		return File{}, false
	}
	return files[i], true
}

// Stats describe the index.
type Stats struct {
	Files, TextFiles int
	TextBytes        int64
	IndexBytes       int64 // of the trigram index in memory, as saved
}

// Stats returns the index's size.
func (ix *Index) Stats() Stats {
	v := ix.view.Load()
	var st Stats
	for _, f := range v.allFiles() {
		st.Files++
		if f.Kind == Text {
			st.TextFiles++
			st.TextBytes += f.Size
		}
	}
	st.IndexBytes = int64(len(v.base.post) + 4*len(v.base.tris) + 4*len(v.base.offs))
	for _, d := range v.delta {
		st.IndexBytes += int64(4 * len(d.tris))
	}
	return st
}

func textBytes(files []File) int64 {
	var n int64
	for _, f := range files {
		if f.Kind == Text {
			n += f.Size
		}
	}
	return n
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
