// Command host is an agent's start-up in miniature, written on mcpgen's host package: it
// reads .mcp.json, connects to every server at once, prints what it found, and serves a
// small status API until interrupted, while the host restarts servers that exit.
//
//	go run ./examples/host [-config .mcp.json] [-http 127.0.0.1:8090] [-trust] [-allow-env NAME,...]
//
// A project's .mcp.json is code, so the host starts its servers only once they are approved:
// at a terminal it shows what they would run and asks (and remembers the answer, in the
// approvals mcpgen keeps too, until the file changes); -trust starts them without asking,
// this once. -allow-env names the environment variables the file's urls and headers may
// send. The user's own ~/.config/mcpgen/mcp.json needs no approval.
//
//	GET  /api/mcp/status   servers (state, revision, pid, errors, stderr) and tools, as JSON
//	GET  /api/tools        the tools, in the shape Anthropic's Messages API takes
//	GET  /api/mcp/logs     recent events: state changes, calls with duration and outcome
//	POST /api/call/{name}  call the tool mcp_{server}_{tool} with the JSON body as arguments
//	                       (404 for a tool the host does not know, 503 while its server is not ready)
//
// With OTEL_EXPORTER_OTLP_ENDPOINT set, the host exports an OpenTelemetry span of each
// message it exchanges with its servers, and a call to /api/call continues the trace its
// request names (the W3C traceparent header): the agent's turn, the host's call and the
// server's work are one trace.
//
// The API calls the user's tools, so it answers only this machine's programs, not the web
// pages its browser shows: a request must name this machine (localhost, a loopback address
// or the -http address) as its Host, which a page that rebinds its own name to 127.0.0.1
// cannot; a POST must be application/json, which a page cannot send to another origin
// without asking first (CORS preflight, which the API never allows); and a browser's
// cross-origin POST (Origin, Sec-Fetch-Site) is refused (http.CrossOriginProtection). The
// Host check keeps web pages out, not the network: a client on another machine may send
// "Host: localhost". So the API, which has no authentication, listens on this machine's
// loopback only: an -http address others may reach is refused.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcpgen/mcpgen/runtime/host"
	"github.com/mcpgen/mcpgen/runtime/otelmcp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	"golang.org/x/term"
)

func main() {
	config := flag.String("config", ".mcp.json", "the servers, as Claude Code and Claude Desktop write them")
	addr := flag.String("http", "127.0.0.1:8090", "serve the status API on `address`")
	trust := flag.Bool("trust", false, "start the servers of a project's configuration without asking, this once")
	allowEnv := flag.String("allow-env", "", "let urls and headers send the environment variables `NAMES` (comma-separated)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	consent := &host.Consent{Trust: *trust}
	if *allowEnv != "" {
		consent.AllowEnv = strings.Split(*allowEnv, ",")
	}
	if err := run(ctx, *config, *addr, consent); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(ctx context.Context, config, addr string, consent *host.Consent) error {
	cfg, err := host.LoadConfig(config)
	if err != nil {
		return err // a *host.ConfigError lists every problem as file:line:col: message
	}
	// Approved before anything of it runs: recorded earlier, -trust, or asked now.
	if consent.Approvals, err = host.DefaultApprovals(); err != nil {
		return err
	}
	if term.IsTerminal(int(os.Stdin.Fd())) && term.IsTerminal(int(os.Stderr.Fd())) {
		consent.Ask = host.AskAt(os.Stdin, os.Stderr)
	}
	var refused *host.NotApprovedError
	if err := consent.Approve(ctx, cfg); errors.As(err, &refused) {
		how := "-trust"
		if len(refused.Variables) > 0 {
			how += " -allow-env " + strings.Join(refused.Variables, ",")
		}
		return fmt.Errorf("%w; nothing was started: run the host at a terminal to review its servers, or with %s", err, how)
	} else if err != nil {
		return err
	}
	tel, err := otelmcp.Setup(ctx, otelmcp.SetupOptions{ServiceName: "mcpgen-host"})
	if err != nil {
		return err
	}
	defer func() {
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		tel.Shutdown(shutdown) // the last spans go out before the program exits
	}()
	fmt.Printf("found %d MCP servers, connecting...\n", len(cfg.Servers))

	logs := &recent{max: 200}
	opts := &host.Options{Events: func(e host.Event) {
		logs.add(e)
		if e.Kind == host.EventState && (e.State == host.Ready || e.State == host.Failed) {
			fmt.Println(e) // the host keeps going: a failed server is tried again
		}
	}}
	tel.Client(&opts.Client)
	h := host.Start(cfg, opts)
	defer h.Close() // stops every server process; nothing outlives it

	waitCtx, cancel := context.WithTimeout(ctx, time.Minute)
	h.Ready(waitCtx) // every server ready or failed once
	cancel()
	for _, t := range h.Tools() {
		fmt.Printf("[%s] %s: %s\n", t.Server, t.Name, firstLine(t.Description()))
	}
	for _, c := range h.Collisions() {
		fmt.Println("renamed:", c)
	}

	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/mcp/status", func(w http.ResponseWriter, r *http.Request) {
		var st struct {
			Servers []host.ServerStatus `json:"servers"`
			Tools   []toolSummary       `json:"tools"`
		}
		st.Servers = h.Servers()
		for _, t := range h.Tools() {
			st.Tools = append(st.Tools, toolSummary{t.Name, t.Server, t.Tool.Name, firstLine(t.Description())})
		}
		writeJSON(w, st)
	})
	mux.HandleFunc("GET /api/tools", func(w http.ResponseWriter, r *http.Request) {
		defs := []json.RawMessage{}
		for _, t := range h.Tools() {
			defs = append(defs, t.Anthropic())
		}
		writeJSON(w, defs)
	})
	mux.HandleFunc("GET /api/mcp/logs", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, logs.list())
	})
	mux.HandleFunc("POST /api/call/{name}", func(w http.ResponseWriter, r *http.Request) {
		var args map[string]any
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&args); err != nil {
			http.Error(w, "the body is not a JSON object of arguments: "+err.Error(), http.StatusBadRequest)
			return
		}
		// The caller's trace, if its request names one, is the call's.
		ctx := otel.GetTextMapPropagator().Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		res, err := h.CallTool(ctx, r.PathValue("name"), args)
		switch {
		case errors.Is(err, host.ErrNotReady): // restarting, say: its tools stay known
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
		case errors.Is(err, host.ErrUnknown):
			http.Error(w, err.Error(), http.StatusNotFound)
		case err != nil:
			http.Error(w, err.Error(), http.StatusBadGateway)
		default:
			writeJSON(w, res)
		}
	})
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && !tcp.IP.IsLoopback() {
		ln.Close()
		return fmt.Errorf("-http %s: the status API calls your tools and has no authentication, so it listens on this machine's loopback only (127.0.0.1:8090, say): a client elsewhere could send Host: localhost", addr)
	}
	fmt.Printf("status on http://%s/api/mcp/status (Ctrl-C to stop)\n", ln.Addr())
	srv := &http.Server{Handler: localOnly(mux, addr, ln.Addr().String()), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shutdown)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

type toolSummary struct {
	Name        string `json:"name"`
	Server      string `json:"server"`
	Tool        string `json:"tool"`
	Description string `json:"description"`
}

// recent keeps the last events, as a host's log page shows them.
type recent struct {
	mu     sync.Mutex
	max    int
	events []logLine
}

type logLine struct {
	Time    time.Time `json:"time"`
	Kind    string    `json:"kind"`
	Server  string    `json:"server,omitempty"`
	Tool    string    `json:"tool,omitempty"`
	Outcome string    `json:"outcome,omitempty"`
	Millis  float64   `json:"durationMs,omitempty"`
	Text    string    `json:"text"`
}

func (r *recent) add(e host.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.events) == r.max {
		r.events = r.events[1:]
	}
	r.events = append(r.events, logLine{Time: e.Time, Kind: string(e.Kind), Server: e.Server, Tool: e.Tool,
		Outcome: e.Outcome, Millis: float64(e.Duration.Microseconds()) / 1000, Text: e.String()})
}

func (r *recent) list() []logLine {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]logLine{}, r.events...)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return first
}

// localOnly serves h to this machine's programs only: the Host must be localhost, a
// loopback address or one of addrs (where the API listens), a POST must carry JSON, and a
// browser's cross-origin POST is refused.
func localOnly(h http.Handler, addrs ...string) http.Handler {
	jsonOnly := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
				http.Error(w, "the body must be application/json", http.StatusUnsupportedMediaType)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
	sameOrigin := http.NewCrossOriginProtection().Handler(jsonOnly)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !localHost(r.Host, addrs) {
			// A web page whose name was rebound to this machine (DNS rebinding) sends its
			// own name here.
			http.Error(w, "the host "+r.Host+" is not this machine's: the API answers requests to localhost or "+addrs[0], http.StatusForbidden)
			return
		}
		sameOrigin.ServeHTTP(w, r)
	})
}

// localHost reports whether a request's Host names this machine: localhost or a loopback
// address (with any port), or one of addrs exactly.
func localHost(host string, addrs []string) bool {
	for _, a := range addrs {
		if strings.EqualFold(host, a) {
			return true
		}
	}
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	if a, err := netip.ParseAddr(strings.Trim(name, "[]")); err == nil {
		return a.Unmap().IsLoopback()
	}
	return strings.EqualFold(name, "localhost")
}
