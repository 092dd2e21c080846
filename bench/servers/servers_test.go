package servers_test

// The benchmark servers, as the load benchmark runs them: built programs, started as child
// processes, spoken to over stdio and over Streamable HTTP. Each is compared with mcpgen's
// examples/weather, which is the reference: the SDK servers must give the same reports
// (and declare the same input schema), the floor must give the same bytes.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// programs are the servers under test; weather is the reference.
var programs = []string{"gosdk", "mcpgo", "floor"}

const protocolVersion = "2025-06-18"

// build builds examples/weather and the three servers into dir, with one go command.
func build(t *testing.T, dir string) map[string]string {
	t.Helper()
	cmd := exec.Command("go", "build", "-o", dir+string(filepath.Separator),
		"github.com/mcpgen/mcpgen/examples/weather",
		"github.com/mcpgen/mcpgen/bench/servers/gosdk",
		"github.com/mcpgen/mcpgen/bench/servers/mcpgo",
		"github.com/mcpgen/mcpgen/bench/servers/floor",
	)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	bins := map[string]string{}
	for _, name := range append([]string{"weather"}, programs...) {
		bins[name] = filepath.Join(dir, name)
	}
	return bins
}

// A client speaks to one server process. request returns the server's answer to a
// request exactly as it came (a line over stdio, a JSON body or an event's data over
// HTTP); notify sends a notification; close ends the session and checks that the process
// exits cleanly.
type client interface {
	request(t *testing.T, id any, method string, params any) []byte
	notify(t *testing.T, method string)
	close(t *testing.T)
}

type transport struct {
	name  string
	start func(t *testing.T, bin string) client
}

var transports = []transport{{"stdio", startStdio}, {"http", startHTTP}}

// session is what a server answered in one session, which every server gets alike.
type session struct {
	initialize []byte
	tools      []byte // tools/list; not asked of the floor, which answers anything else as a call
	calls      map[string][]byte
	invalid    []byte // a call with arguments that break the input schema; not asked of the floor
}

// The calls every server gets, by their request ids.
var calls = []struct {
	id   any
	args map[string]any
}{
	{2, map[string]any{"city": "Oslo"}},
	{3, map[string]any{"city": "Oslo", "units": "imperial"}},
	{"k-4", map[string]any{"city": "Oslo"}},
	{5, map[string]any{"city": "  San Francisco ", "units": "metric"}},
}

func runSession(t *testing.T, c client, floor bool) session {
	t.Helper()
	s := session{calls: map[string][]byte{}}
	s.initialize = c.request(t, 1, "initialize", map[string]any{
		"protocolVersion": protocolVersion,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "servers_test", "version": "1"},
	})
	c.notify(t, "notifications/initialized")
	if !floor {
		s.tools = c.request(t, 10, "tools/list", map[string]any{})
	}
	for _, call := range calls {
		s.calls[fmt.Sprint(call.id)] = c.request(t, call.id, "tools/call", map[string]any{"name": "get_weather", "arguments": call.args})
	}
	if !floor {
		s.invalid = c.request(t, 11, "tools/call", map[string]any{"name": "get_weather", "arguments": map[string]any{"city": "Oslo", "units": "kelvin"}})
	}
	c.close(t)
	return s
}

func TestServers(t *testing.T) {
	bins := build(t, t.TempDir())
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			ref := runSession(t, tr.start(t, bins["weather"]), false)
			for _, name := range programs {
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					floor := name == "floor"
					got := runSession(t, tr.start(t, bins[name]), floor)
					if floor {
						compareBytes(t, ref, got)
					} else {
						compareSDK(t, ref, got)
					}
				})
			}
		})
	}
}

// TestStdioSignals checks that each server, serving stdio, exits with status 0 at SIGINT
// and at SIGTERM while its stdin is still open.
func TestStdioSignals(t *testing.T) {
	bins := build(t, t.TempDir())
	for _, name := range programs {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
			t.Run(name+"/"+sig.String(), func(t *testing.T) {
				t.Parallel()
				c := startStdio(t, bins[name]).(*stdioClient)
				c.request(t, 1, "initialize", map[string]any{ // it has installed its handlers by now
					"protocolVersion": protocolVersion,
					"capabilities":    map[string]any{},
					"clientInfo":      map[string]any{"name": "servers_test", "version": "1"},
				})
				if err := c.p.cmd.Process.Signal(sig); err != nil {
					t.Fatal(err)
				}
				c.p.waitClean(t, sig.String())
			})
		}
	}
}

// compareBytes checks that the floor answered initialize and the metric calls with
// exactly examples/weather's bytes.
func compareBytes(t *testing.T, ref, got session) {
	if !bytes.Equal(got.initialize, ref.initialize) {
		t.Errorf("initialize:\n got %s\nwant %s", got.initialize, ref.initialize)
	}
	for _, call := range calls {
		if call.args["units"] == "imperial" || call.args["city"] != "Oslo" {
			continue // the floor has one answer: Oslo's metric report
		}
		id := fmt.Sprint(call.id)
		if !bytes.Equal(got.calls[id], ref.calls[id]) {
			t.Errorf("call %s:\n got %s\nwant %s", id, got.calls[id], ref.calls[id])
		}
	}
}

// compareSDK checks an SDK server's answers against examples/weather's: the same reports
// (as structured content, and as the JSON of the text content), the same tool, the same
// input schema, and arguments that break it rejected.
func compareSDK(t *testing.T, ref, got session) {
	init := result(t, "initialize", got.initialize)
	if init["protocolVersion"] != protocolVersion {
		t.Errorf("initialize: protocolVersion %v, want %s", init["protocolVersion"], protocolVersion)
	}
	if caps, _ := init["capabilities"].(map[string]any); caps["tools"] == nil {
		t.Errorf("initialize: no tools capability: %s", got.initialize)
	}

	refTool, gotTool := onlyTool(t, ref.tools), onlyTool(t, got.tools)
	for _, key := range []string{"name", "title", "description"} {
		if gotTool[key] != refTool[key] {
			t.Errorf("tools/list: %s %q, want %q", key, gotTool[key], refTool[key])
		}
	}
	refAnn, _ := refTool["annotations"].(map[string]any)
	gotAnn, _ := gotTool["annotations"].(map[string]any)
	for key, want := range refAnn {
		if gotAnn[key] != want {
			t.Errorf("tools/list: annotation %s %v, want %v", key, gotAnn[key], want)
		}
	}
	refIn, _ := refTool["inputSchema"].(map[string]any)
	gotIn, _ := gotTool["inputSchema"].(map[string]any)
	if _, ok := gotIn["description"]; !ok {
		// mcp-go's input schema has no place for the description of the whole object.
		refIn = maps(refIn)
		delete(refIn, "description")
	}
	if !reflect.DeepEqual(gotIn, refIn) {
		t.Errorf("tools/list: input schema\n got %v\nwant %v", gotIn, refIn)
	}
	if gotTool["outputSchema"] == nil {
		t.Errorf("tools/list: no output schema")
	}

	for _, call := range calls {
		id := fmt.Sprint(call.id)
		want, gotReport := report(t, ref.calls[id]), report(t, got.calls[id])
		if !reflect.DeepEqual(gotReport, want) {
			t.Errorf("call %s %v: structured content\n got %v\nwant %v", id, call.args, gotReport, want)
		}
	}

	if res := result(t, "invalid call", got.invalid); res["isError"] != true {
		t.Errorf("a call with invalid arguments was not rejected: %s", got.invalid)
	}
	if res := result(t, "invalid call", ref.invalid); res["isError"] != true {
		t.Errorf("examples/weather did not reject a call with invalid arguments: %s", ref.invalid)
	}
}

// result decodes a JSON-RPC response and returns its result.
func result(t *testing.T, what string, msg []byte) map[string]any {
	t.Helper()
	var resp struct {
		Result map[string]any  `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(msg, &resp); err != nil || resp.Result == nil {
		t.Fatalf("%s: not a result (%v): %s", what, err, msg)
	}
	return resp.Result
}

// onlyTool returns the one tool of a tools/list answer.
func onlyTool(t *testing.T, msg []byte) map[string]any {
	t.Helper()
	tools, _ := result(t, "tools/list", msg)["tools"].([]any)
	if len(tools) != 1 {
		t.Fatalf("tools/list: want one tool: %s", msg)
	}
	tool, _ := tools[0].(map[string]any)
	return tool
}

// report returns the structured content of a tools/call answer, after checking that the
// answer is not an error and that its one text content is the same report's JSON.
func report(t *testing.T, msg []byte) map[string]any {
	t.Helper()
	res := result(t, "tools/call", msg)
	if res["isError"] == true {
		t.Fatalf("tools/call: error: %s", msg)
	}
	structured, _ := res["structuredContent"].(map[string]any)
	if structured == nil {
		t.Fatalf("tools/call: no structured content: %s", msg)
	}
	content, _ := res["content"].([]any)
	if len(content) != 1 {
		t.Fatalf("tools/call: want one content block: %s", msg)
	}
	block, _ := content[0].(map[string]any)
	text, _ := block["text"].(string)
	var fromText map[string]any
	if block["type"] != "text" || json.Unmarshal([]byte(text), &fromText) != nil || !reflect.DeepEqual(fromText, structured) {
		t.Errorf("tools/call: the text content is not the structured content's JSON: %s", msg)
	}
	return structured
}

func maps(m map[string]any) map[string]any {
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// encode is one JSON-RPC message, without a newline.
func encode(t *testing.T, id any, method string, params any) []byte {
	t.Helper()
	msg := map[string]any{"jsonrpc": "2.0", "method": method}
	if id != nil {
		msg["id"] = id
	}
	if params != nil {
		msg["params"] = params
	}
	b, err := json.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sameID reports whether msg is the response to the request with the given id.
func sameID(msg []byte, id any) bool {
	var resp struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	want, _ := json.Marshal(id)
	return json.Unmarshal(msg, &resp) == nil && resp.Method == "" && bytes.Equal(resp.ID, want)
}

// process is a started server. Its stderr is kept for failure messages, and its first
// line is also sent on firstLine.
type process struct {
	cmd       *exec.Cmd
	stderr    *lockedBuffer
	firstLine chan string
	exited    chan error
}

// start prepares to run bin with args, its stdout written to stdout.
func start(t *testing.T, stdout io.Writer, bin string, args ...string) *process {
	t.Helper()
	p := &process{cmd: exec.Command(bin, args...), firstLine: make(chan string, 1), exited: make(chan error, 1)}
	p.stderr = &lockedBuffer{firstLine: p.firstLine}
	p.cmd.Stdout, p.cmd.Stderr = stdout, p.stderr
	return p
}

// run starts the process, and kills it when the test ends if it still runs; done (if not
// nil) is called once it has exited and all its output has been written.
func (p *process) run(t *testing.T, done func()) {
	t.Helper()
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		err := p.cmd.Wait()
		if done != nil {
			done()
		}
		p.exited <- err
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill() // harmless once it has exited
		err := <-p.exited
		p.exited <- err
	})
}

// waitClean waits for the process to exit and checks that it exited with status 0.
func (p *process) waitClean(t *testing.T, after string) {
	t.Helper()
	select {
	case err := <-p.exited:
		p.exited <- err // for the cleanup
		if err != nil {
			t.Errorf("exit after %s: %v\nstderr:\n%s", after, err, p.stderr)
		}
	case <-time.After(5 * time.Second):
		t.Errorf("still running 5s after %s\nstderr:\n%s", after, p.stderr)
	}
}

// lockedBuffer keeps what a process writes to stderr, and sends its first line on
// firstLine.
type lockedBuffer struct {
	mu        sync.Mutex
	b         bytes.Buffer
	firstLine chan string
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.b.Write(p)
	if b.firstLine != nil {
		if line, _, ok := strings.Cut(b.b.String(), "\n"); ok {
			b.firstLine <- line
			b.firstLine = nil
		}
	}
	return len(p), nil
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// lineWriter sends what is written to it on lines, line by line (with their newlines).
type lineWriter struct {
	partial []byte
	lines   chan []byte
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.partial = append(w.partial, p...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			return len(p), nil
		}
		select {
		case w.lines <- bytes.Clone(w.partial[:i+1]):
		default: // more than the test reads: it has failed already
		}
		w.partial = w.partial[i+1:]
	}
}

// stdioClient writes lines to the server's stdin and reads its stdout line by line.
type stdioClient struct {
	p     *process
	in    io.WriteCloser
	lines chan []byte // stdout's lines, closed once the process has exited
}

func startStdio(t *testing.T, bin string) client {
	lines := make(chan []byte, 256)
	p := start(t, &lineWriter{lines: lines}, bin)
	in, err := p.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.run(t, func() { close(lines) })
	return &stdioClient{p: p, in: in, lines: lines}
}

func (c *stdioClient) request(t *testing.T, id any, method string, params any) []byte {
	t.Helper()
	if _, err := c.in.Write(append(encode(t, id, method, params), '\n')); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	timeout := time.After(5 * time.Second)
	for {
		select {
		case line, ok := <-c.lines:
			if !ok {
				t.Fatalf("%s: stdout closed\nstderr:\n%s", method, c.p.stderr)
			}
			if sameID(line, id) {
				return line
			}
		case <-timeout:
			t.Fatalf("%s: no answer in 5s\nstderr:\n%s", method, c.p.stderr)
		}
	}
}

func (c *stdioClient) notify(t *testing.T, method string) {
	t.Helper()
	if _, err := c.in.Write(append(encode(t, nil, method, nil), '\n')); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
}

// close closes stdin: the server must exit, with status 0.
func (c *stdioClient) close(t *testing.T) {
	t.Helper()
	c.in.Close()
	c.p.waitClean(t, "EOF on stdin")
}

// httpClient posts each message to the server's /mcp, as a Streamable HTTP client does.
type httpClient struct {
	p       *process
	url     string
	http    *http.Client
	session string // Mcp-Session-Id, once initialized
}

var announcement = regexp.MustCompile(`^serving MCP at (http://127\.0\.0\.1:([0-9]+)/mcp)$`)

func startHTTP(t *testing.T, bin string) client {
	p := start(t, io.Discard, bin, "--http", "127.0.0.1:0")
	p.run(t, nil)
	var line string
	select {
	case line = <-p.firstLine:
	case <-time.After(5 * time.Second):
		t.Fatalf("no line on stderr in 5s")
	}
	m := announcement.FindStringSubmatch(line)
	if m == nil || m[2] == "0" {
		t.Fatalf("first line on stderr: %q, want \"serving MCP at http://127.0.0.1:PORT/mcp\"", line)
	}
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &httpClient{p: p, url: m[1], http: &http.Client{Transport: tr, Timeout: 5 * time.Second}}
}

func (c *httpClient) post(t *testing.T, body []byte) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
		req.Header.Set("MCP-Protocol-Version", protocolVersion)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v\nstderr:\n%s", body, err, c.p.stderr)
	}
	return resp
}

func (c *httpClient) request(t *testing.T, id any, method string, params any) []byte {
	t.Helper()
	resp := c.post(t, encode(t, id, method, params))
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s: reading the answer: %v", method, err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: %s: %s", method, resp.Status, body)
	}
	if method == "initialize" {
		c.session = resp.Header.Get("Mcp-Session-Id")
		if c.session == "" {
			t.Errorf("initialize: no Mcp-Session-Id")
		}
	}
	ct := resp.Header.Get("Content-Type")
	switch {
	case strings.HasPrefix(ct, "application/json"):
		return body
	case strings.HasPrefix(ct, "text/event-stream"):
		msg, err := sseAnswer(body, id)
		if err != nil {
			t.Fatalf("%s: %v: %s", method, err, body)
		}
		return msg
	}
	t.Fatalf("%s: Content-Type %q: %s", method, ct, body)
	return nil
}

// sseAnswer returns the data of the event in an event stream that answers id.
func sseAnswer(stream []byte, id any) ([]byte, error) {
	for event := range strings.SplitSeq(strings.ReplaceAll(string(stream), "\r\n", "\n"), "\n\n") {
		var data []string
		for line := range strings.SplitSeq(event, "\n") {
			if d, ok := strings.CutPrefix(line, "data:"); ok {
				data = append(data, strings.TrimPrefix(d, " "))
			}
		}
		if msg := []byte(strings.Join(data, "\n")); len(data) > 0 && sameID(msg, id) {
			return msg, nil
		}
	}
	return nil, errors.New("no event answers the request")
}

func (c *httpClient) notify(t *testing.T, method string) {
	t.Helper()
	resp := c.post(t, encode(t, nil, method, nil))
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Errorf("%s: %s, want 202 Accepted", method, resp.Status)
	}
}

// close ends the session with DELETE, then stops the server with SIGTERM: it must exit,
// with status 0.
func (c *httpClient) close(t *testing.T) {
	t.Helper()
	req, err := http.NewRequest(http.MethodDelete, c.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Mcp-Session-Id", c.session)
	req.Header.Set("MCP-Protocol-Version", protocolVersion)
	resp, err := c.http.Do(req)
	if err != nil {
		t.Fatalf("DELETE: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Errorf("DELETE: %s", resp.Status)
	}
	c.http.CloseIdleConnections()
	if err := c.p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	c.p.waitClean(t, "SIGTERM")
}
