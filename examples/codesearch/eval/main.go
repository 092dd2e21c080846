// Command eval measures how well search_by_embedding answers questions in words: the
// questions of questions.go, over Go's standard library (GOROOT/src of the Go that runs it,
// judged on Go 1.26), each ranked by BM25, by the embedding model's vectors and by their
// fusion, with hits@10 (the share of questions with an answer among the first ten) and
// MRR@10 (the mean of 1/rank of the first answer, 0 past ten). It also reports what the
// index cost: the time to build it, cut the chunks and embed them, and the peak memory.
//
//	go run ./examples/codesearch/eval                 # the whole of $(go env GOROOT)/src
//	go run ./examples/codesearch/eval -v DIR          # another copy, and every question's ranks
//
// ./scripts/bench.sh codesearch runs it; its test runs the pinned subset (subsetDirs).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/examples/codesearch/internal/glove"
	"github.com/mcpgen/mcpgen/examples/codesearch/internal/index"
	"github.com/mcpgen/mcpgen/examples/codesearch/internal/semantic"
)

func main() {
	indexDir := flag.String("index-dir", "", "keep the index in `dir` between runs (default: build it in a temporary directory)")
	verbose := flag.Bool("v", false, "print every question's ranks")
	subset := flag.Bool("subset", false, "ask only the questions of the pinned subset (for a tree of subsetDirs)")
	embedURL := flag.String("embed-url", "", "rank vectors from this OpenAI-compatible endpoint instead of the built-in model")
	embedModel := flag.String("embed-model", "", "the model's name, with -embed-url")
	flag.Parse()
	log.SetFlags(0)
	root := flag.Arg(0)
	if root == "" {
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			log.Fatalf("eval: go env GOROOT: %v", err)
		}
		root = filepath.Join(strings.TrimSpace(string(out)), "src")
	}
	emb, err := embedder(*embedURL, *embedModel)
	if err != nil {
		log.Fatalf("eval: %v", err)
	}
	dir := *indexDir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "codesearch-eval"); err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(dir)
	}
	qs := questions
	if *subset {
		qs = nil
		for _, q := range questions {
			if q.subset {
				qs = append(qs, q)
			}
		}
	}
	rep, err := evaluate(context.Background(), root, dir, emb, qs)
	if err != nil {
		log.Fatalf("eval: %v", err)
	}
	rep.write(os.Stdout, *verbose)
}

// embedder is the model the evaluation ranks vectors with.
func embedder(url, model string) (semantic.Embedder, error) {
	if url != "" {
		return &semantic.OpenAI{URL: url, Model: model, APIKey: os.Getenv("CODESEARCH_EMBED_API_KEY")}, nil
	}
	path, err := glove.Path()
	if err != nil {
		return nil, err
	}
	m, err := glove.Load(path)
	if err != nil {
		return nil, fmt.Errorf("the built-in model: %v (install it: go run ./examples/codesearch --install-model)", err)
	}
	return m, nil
}

// methods are the rankings compared.
var methods = []semantic.Method{semantic.BM25, semantic.Vectors, semantic.Fusion}

// report is what an evaluation measured.
type report struct {
	tree, goVersion, model          string
	files, chunks                   int
	indexTime, chunkTime, embedTime time.Duration
	peakRSS                         int64 // bytes; 0 where unknown
	load                            string
	// ranks[m][q] is the rank (1-based) of question q's first answer by method m, 0 for
	// none in the first ten.
	ranks     map[semantic.Method][]int
	questions []question
}

// evaluate indexes the tree at root (keeping the index in dir) and ranks every question by
// every method.
func evaluate(ctx context.Context, root, dir string, emb semantic.Embedder, qs []question) (*report, error) {
	rep := &report{tree: root, goVersion: runtime.Version(), model: emb.Name(), questions: qs, ranks: map[semantic.Method][]int{}, load: loadAverage()}
	ix, err := index.New(root, index.Options{Dir: dir, MaxFileSize: 16 << 20})
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	sem := semantic.New(ix, semantic.Options{Dir: dir, Embedder: emb})
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{}, 2)
	defer func() { cancel(); <-done; <-done }()
	begin := time.Now()
	go func() { ix.Run(rctx); done <- struct{}{} }()
	go func() { sem.Run(rctx); done <- struct{}{} }()
	<-ix.Ready()
	if err := ix.Err(); err != nil {
		return nil, err
	}
	rep.indexTime = time.Since(begin)
	<-sem.Ready()
	rep.chunkTime = time.Since(begin) - rep.indexTime
	begin = time.Now()
	if err := sem.EmbedAll(ctx, nil); err != nil {
		return nil, err
	}
	rep.embedTime = time.Since(begin)
	rep.files, rep.chunks = ix.Stats().TextFiles, sem.Chunks()
	for _, m := range methods {
		for _, q := range qs {
			ans, err := sem.Search(ctx, semantic.Query{Text: q.text, Dir: ".", Max: 10, IncludeGenerated: true, Method: m})
			if err != nil {
				return nil, err
			}
			rank := 0
			for i, h := range ans.Hits {
				if contains(q.relevant, h.Path+":"+h.Name) {
					rank = i + 1
					break
				}
			}
			rep.ranks[m] = append(rep.ranks[m], rank)
		}
	}
	rep.peakRSS = peakRSS()
	return rep, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// scores returns hits@10 and MRR@10 of a method.
func (r *report) scores(m semantic.Method) (hits, mrr float64) {
	for _, rank := range r.ranks[m] {
		if rank > 0 {
			hits++
			mrr += 1 / float64(rank)
		}
	}
	n := float64(len(r.ranks[m]))
	return hits / n, mrr / n
}

func (r *report) write(w io.Writer, verbose bool) {
	fmt.Fprintf(w, "%d questions over %s (%s; answers judged on %s): %d text files, %d chunks; model %s\n",
		len(r.questions), r.tree, r.goVersion, judgedOn, r.files, r.chunks, r.model)
	fmt.Fprintf(w, "index %v, chunks %v, embedding %v; peak RSS %s; load average %s on %d CPUs\n\n",
		r.indexTime.Round(time.Millisecond), r.chunkTime.Round(time.Millisecond), r.embedTime.Round(time.Millisecond), mib(r.peakRSS), r.load, runtime.NumCPU())
	fmt.Fprintln(w, "| ranking | hits@10 | MRR@10 |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, m := range methods {
		h, mrr := r.scores(m)
		fmt.Fprintf(w, "| %s | %.2f (%d of %d) | %.3f |\n", m, h, int(h*float64(len(r.questions))+0.5), len(r.questions), mrr)
	}
	if !verbose {
		return
	}
	fmt.Fprintln(w, "\n| question | bm25 | vectors | fusion |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for i, q := range r.questions {
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", q.text, rank(r.ranks[semantic.BM25][i]), rank(r.ranks[semantic.Vectors][i]), rank(r.ranks[semantic.Fusion][i]))
	}
}

func rank(n int) string {
	if n == 0 {
		return "–"
	}
	return fmt.Sprint(n)
}

func mib(n int64) string {
	if n == 0 {
		return "unknown"
	}
	return fmt.Sprintf("%d MiB", n>>20)
}

// peakRSS reads the process's peak resident memory (Linux).
func peakRSS() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), &kb)
			return kb << 10
		}
	}
	return 0
}

func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(data))[:3], " ")
}
