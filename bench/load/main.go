// Command load drives an MCP server process with tools/call requests and reports what it
// served: calls per second, and the server process's CPU time per call from the kernel's
// accounting (user + system time of all its threads, read from /proc). The CPU figure is
// the steadier one: it leaves out the driver's own cost and most of the noise of a shared
// machine.
//
//	load [flags] -- COMMAND [ARG...]
//
// Over stdio (the default) it starts COMMAND, initializes one session and keeps -inflight
// requests in flight on it. With -http it starts COMMAND --http 127.0.0.1:0, reads the URL
// the server prints to stderr ("... http://127.0.0.1:PORT/mcp"), and runs -inflight
// clients, each with a session of its own and one request at a time, on keep-alive
// connections. Every answer is checked to be a result, not an error.
//
// By default it speaks revision 2025-06-18, with initialize and a session, which every
// server compared speaks. With -stateless it speaks 2026-07-28 instead: no initialize, every
// request carries its revision, client info and capabilities in _meta (and, over HTTP, the
// Mcp-Protocol-Version, Mcp-Method and Mcp-Name headers), each POST on its own.
//
// The same driver runs every server of scripts/bench.sh, so that only the servers differ.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	calls := flag.Int("calls", 20000, "tools/call requests to measure")
	warmup := flag.Int("warmup", 2000, "tools/call requests before measuring")
	inflight := flag.Int("inflight", 16, "requests in flight at once (over HTTP: clients, each with a session)")
	useHTTP := flag.Bool("http", false, "start the server with --http 127.0.0.1:0 and drive it over Streamable HTTP")
	stateless := flag.Bool("stateless", false, "speak revision "+statelessVersion+" (no session) instead of "+protocolVersion)
	name := flag.String("name", "", "the name to report (default: the command's base name)")
	asJSON := flag.Bool("json", false, "print the result as one JSON object")
	timeout := flag.Duration("timeout", 2*time.Minute, "give up after this long")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: load [flags] -- COMMAND [ARG...]\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 || *calls <= 0 || *inflight <= 0 || *warmup < 0 {
		flag.Usage()
		os.Exit(2)
	}
	if *name == "" {
		*name = filepath.Base(flag.Arg(0))
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()

	cfg := config{calls: *calls, warmup: *warmup, inflight: *inflight, stateless: *stateless}
	var res result
	var err error
	if *useHTTP {
		res, err = runHTTP(ctx, cfg, flag.Args())
	} else {
		res, err = runStdio(ctx, cfg, flag.Args())
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "load: %s: %v\n", *name, err)
		os.Exit(1)
	}
	res.Name, res.Transport, res.Revision = *name, "stdio", protocolVersion
	if *useHTTP {
		res.Transport = "http"
	}
	if *stateless {
		res.Revision = statelessVersion
	}
	if *asJSON {
		json.NewEncoder(os.Stdout).Encode(res)
		return
	}
	fmt.Printf("%-12s %-5s %s %8.1fk calls/s  %7.2f µs server CPU/call  (%d calls, %d in flight, %.2fs)\n",
		res.Name, res.Transport, res.Revision, res.CallsPerSec/1000, res.CPUPerCallMicros, res.Calls, res.InFlight, res.Seconds)
}

type config struct {
	calls, warmup, inflight int
	stateless               bool
}

// call returns the tools/call request of the configured revision.
func (c config) call(b []byte, id int) []byte {
	if c.stateless {
		return appendStatelessCall(b, id)
	}
	return appendCall(b, id)
}

// result is what one run measured.
type result struct {
	Name             string  `json:"name"`
	Transport        string  `json:"transport"`
	Revision         string  `json:"revision"`
	Calls            int     `json:"calls"`
	InFlight         int     `json:"inflight"`
	Seconds          float64 `json:"seconds"`
	CallsPerSec      float64 `json:"callsPerSec"`
	CPUPerCallMicros float64 `json:"cpuPerCallMicros"`
}

const (
	protocolVersion = "2025-06-18" // a revision with sessions, which every server compared speaks
	initialize      = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + protocolVersion + `","capabilities":{},"clientInfo":{"name":"load","version":"1"}}}`
	initialized     = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	callPrefix      = `{"jsonrpc":"2.0","id":`
	callSuffix      = `,"method":"tools/call","params":{"name":"get_weather","arguments":{"city":"Oslo"}}}`

	// The stateless revision: every request stands alone, with what initialize said in _meta.
	statelessVersion = "2026-07-28"
	statelessSuffix  = `,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"` + statelessVersion +
		`","io.modelcontextprotocol/clientInfo":{"name":"load","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}},"name":"get_weather","arguments":{"city":"Oslo"}}}`
)

func appendCall(b []byte, id int) []byte {
	b = append(b, callPrefix...)
	b = strconv.AppendInt(b, int64(id), 10)
	return append(b, callSuffix...)
}

func appendStatelessCall(b []byte, id int) []byte {
	b = append(b, callPrefix...)
	b = strconv.AppendInt(b, int64(id), 10)
	return append(b, statelessSuffix...)
}

// checkAnswer reports an answer that is not a successful tool result.
func checkAnswer(msg []byte) error {
	if !bytes.Contains(msg, []byte(`"result"`)) || bytes.Contains(msg, []byte(`"isError":true`)) {
		return fmt.Errorf("not a tool result: %.300s", msg)
	}
	return nil
}

// measure runs the measured phase: it reads the server's CPU time, calls run, and reads
// it again.
func measure(pid int, calls int, run func() error) (result, error) {
	cpu0, err := processCPU(pid)
	if err != nil {
		return result{}, err
	}
	start := time.Now()
	if err := run(); err != nil {
		return result{}, err
	}
	elapsed := time.Since(start)
	cpu1, err := processCPU(pid)
	if err != nil {
		return result{}, err
	}
	return result{
		Calls:            calls,
		Seconds:          elapsed.Seconds(),
		CallsPerSec:      float64(calls) / elapsed.Seconds(),
		CPUPerCallMicros: float64(cpu1-cpu0) / float64(time.Microsecond) / float64(calls),
	}, nil
}

// processCPU is the CPU time the process's threads have used: the sum of their run times
// in /proc/PID/task/*/schedstat (nanoseconds), or, where that is missing, utime + stime
// of /proc/PID/stat (clock ticks, assumed 100 a second, as on Linux everywhere).
func processCPU(pid int) (time.Duration, error) {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	var sum time.Duration
	found := false
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue // a thread that has just ended
		}
		f := strings.Fields(string(b))
		if len(f) == 0 {
			continue
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			continue
		}
		sum += time.Duration(ns)
		found = true
	}
	if found {
		return sum, nil
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("reading the server's CPU time: %w", err)
	}
	// The command name (field 2) may hold spaces; the fields after it do not.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("reading the server's CPU time: unexpected /proc/%d/stat", pid)
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond, nil
}

// server is a server process the driver started.
type server struct {
	cmd    *exec.Cmd
	stderr *lockedBuffer
}

// stop ends the process: it closes stdin (a stdio server's signal to stop), then sends
// SIGTERM, then kills it.
func (s *server) stop(stdin io.Closer) {
	if stdin != nil {
		stdin.Close()
	}
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
		return
	case <-time.After(2 * time.Second):
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
}

// failure adds what the server wrote to stderr to err.
func (s *server) failure(err error) error {
	if tail := strings.TrimSpace(s.stderr.String()); tail != "" {
		if len(tail) > 2000 {
			tail = tail[len(tail)-2000:]
		}
		return fmt.Errorf("%w\nserver's stderr:\n%s", err, tail)
	}
	return err
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// runStdio drives a server over its stdin and stdout: one session, cfg.inflight requests in
// flight, each written with one write, answers read as they come.
func runStdio(ctx context.Context, cfg config, argv []string) (result, error) {
	s := &server{cmd: exec.CommandContext(ctx, argv[0], argv[1:]...), stderr: &lockedBuffer{}}
	s.cmd.Stderr = s.stderr
	stdin, err := s.cmd.StdinPipe()
	if err != nil {
		return result{}, err
	}
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		return result{}, err
	}
	if err := s.cmd.Start(); err != nil {
		return result{}, err
	}
	defer s.stop(stdin)
	r := bufio.NewReaderSize(stdout, 1<<20)

	if !cfg.stateless {
		if _, err := io.WriteString(stdin, initialize+"\n"); err != nil {
			return result{}, s.failure(err)
		}
		line, err := readLine(r)
		if err != nil {
			return result{}, s.failure(fmt.Errorf("initialize: %w", err))
		}
		if !bytes.Contains(line, []byte(`"result"`)) {
			return result{}, s.failure(fmt.Errorf("initialize: %s", line))
		}
		if _, err := io.WriteString(stdin, initialized+"\n"); err != nil {
			return result{}, s.failure(err)
		}
	}

	next := 1
	batch := func(n int) error {
		err := pump(stdin, r, cfg, next, n)
		next += n
		return err
	}
	if err := batch(cfg.warmup); err != nil {
		return result{}, s.failure(err)
	}
	res, err := measure(s.cmd.Process.Pid, cfg.calls, func() error { return batch(cfg.calls) })
	if err != nil {
		return result{}, s.failure(err)
	}
	res.InFlight = cfg.inflight
	return res, nil
}

// pump sends n calls with ids from first on, keeping at most inflight unanswered, and reads
// their answers.
func pump(w io.Writer, r *bufio.Reader, cfg config, first, n int) error {
	if n == 0 {
		return nil
	}
	slots := make(chan struct{}, cfg.inflight)
	readErr := make(chan error, 1)
	go func() {
		for range n {
			line, err := readLine(r)
			if err == nil {
				err = checkAnswer(line)
			}
			if err != nil {
				readErr <- err
				return
			}
			<-slots
		}
		readErr <- nil
	}()
	var buf []byte
	for i := range n {
		select {
		case slots <- struct{}{}:
		case err := <-readErr:
			if err == nil {
				err = errors.New("answers ended early")
			}
			return err
		}
		buf = append(cfg.call(buf[:0], first+i), '\n')
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return <-readErr
}

func readLine(r *bufio.Reader) ([]byte, error) {
	line, err := r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		return nil, errors.New("an answer larger than 1 MiB")
	}
	if err == io.EOF {
		return nil, errors.New("the server closed stdout")
	}
	return line, err
}

// listening is the line a server prints once it serves HTTP: its URL.
var listening = regexp.MustCompile(`http://[^\s"]+`)

// runHTTP starts the server with --http 127.0.0.1:0 and drives it over Streamable HTTP.
func runHTTP(ctx context.Context, cfg config, argv []string) (result, error) {
	s := &server{cmd: exec.CommandContext(ctx, argv[0], append(argv[1:], "--http", "127.0.0.1:0")...), stderr: &lockedBuffer{}}
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		return result{}, err
	}
	if err := s.cmd.Start(); err != nil {
		return result{}, err
	}
	defer s.stop(nil)
	url := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		found := false
		for sc.Scan() {
			s.stderr.Write(append(sc.Bytes(), '\n'))
			if u := listening.FindString(sc.Text()); u != "" && !found {
				found = true
				url <- u
			}
		}
	}()
	var endpoint string
	select {
	case endpoint = <-url:
	case <-time.After(10 * time.Second):
		return result{}, s.failure(errors.New("the server printed no http:// URL to stderr within 10s"))
	case <-ctx.Done():
		return result{}, ctx.Err()
	}

	transport := &http.Transport{MaxIdleConnsPerHost: cfg.inflight, MaxConnsPerHost: cfg.inflight, DisableCompression: true}
	defer transport.CloseIdleConnections()
	hc := &http.Client{Transport: transport, Timeout: 30 * time.Second}
	clients := make([]*httpClient, cfg.inflight)
	for i := range clients {
		c := &httpClient{hc: hc, url: endpoint, stateless: cfg.stateless}
		if !cfg.stateless {
			if err := c.connect(ctx); err != nil {
				return result{}, s.failure(err)
			}
		}
		clients[i] = c
	}
	var nextID atomic.Int64
	run := func(n int) error {
		var left atomic.Int64
		left.Store(int64(n))
		errs := make(chan error, len(clients))
		for _, c := range clients {
			go func() {
				var body []byte
				for left.Add(-1) >= 0 {
					body = cfg.call(body[:0], int(nextID.Add(1)))
					answer, err := c.post(ctx, body)
					if err == nil {
						err = checkAnswer(answer)
					}
					if err != nil {
						left.Store(0)
						errs <- err
						return
					}
				}
				errs <- nil
			}()
		}
		var first error
		for range clients {
			if err := <-errs; err != nil && first == nil {
				first = err
			}
		}
		return first
	}
	if err := run(cfg.warmup); err != nil {
		return result{}, s.failure(err)
	}
	res, err := measure(s.cmd.Process.Pid, cfg.calls, func() error { return run(cfg.calls) })
	if err != nil {
		return result{}, s.failure(err)
	}
	for _, c := range clients {
		c.close(ctx)
	}
	res.InFlight = cfg.inflight
	return res, nil
}

// httpClient is one session over Streamable HTTP, or a stateless client.
type httpClient struct {
	hc        *http.Client
	url       string
	session   string
	stateless bool
}

func (c *httpClient) connect(ctx context.Context) error {
	answer, err := c.post(ctx, []byte(initialize))
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	if !bytes.Contains(answer, []byte(`"result"`)) {
		return fmt.Errorf("initialize: %s", answer)
	}
	_, err = c.post(ctx, []byte(initialized))
	return err
}

// post sends one message and returns the JSON-RPC message of the answer: the body of a JSON
// answer, or the data of an event stream's message event.
func (c *httpClient) post(ctx context.Context, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
		req.Header.Set("Mcp-Protocol-Version", protocolVersion)
	}
	if c.stateless { // the request's metadata, mirrored as the revision asks
		req.Header.Set("Mcp-Protocol-Version", statelessVersion)
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "get_weather")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("HTTP %s: %.300s", resp.Status, data)
	}
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		c.session = id
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for line := range bytes.SplitSeq(data, []byte("\n")) {
			if rest, ok := bytes.CutPrefix(line, []byte("data:")); ok && len(bytes.TrimSpace(rest)) > 0 {
				return bytes.TrimSpace(rest), nil
			}
		}
		return nil, fmt.Errorf("an event stream with no message: %.300s", data)
	}
	return data, nil
}

// close ends the session, as a polite client does.
func (c *httpClient) close(ctx context.Context) {
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, c.url, nil)
	if err != nil || c.session == "" {
		return
	}
	req.Header.Set("Mcp-Session-Id", c.session)
	if resp, err := c.hc.Do(req); err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}
