package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/redistest"
)

// Three replicas of examples/everything behind HAProxy, sharing a state key and a Redis task
// store, as the README's "Running several replicas" describes. scripts/test.sh installs
// redis-server and haproxy (Debian's packages); without them the test fails, saying so.
func TestReplicasBehindALoadBalancer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sock := redistest.Start(t)
	const key = "6d637067656e2d7265706c6963612d746573742d73746174652d6b65792d3332" // 32 bytes, hex
	var replicas []*replica
	for i := range 3 {
		replicas = append(replicas, startReplica(t, fmt.Sprintf("r%d", i+1), "-state-key", key, "-redis", "unix://"+sock))
	}
	lb := startHAProxy(t, dir, replicas)
	c := &lbClient{t: t, url: lb}

	// Revision 2026-07-28: round robin over the replicas, no failures.
	served := map[string]int{}
	for i := range 30 {
		res, replica := c.stateless("tools/call", map[string]any{"name": "greet", "arguments": map[string]any{"name": fmt.Sprint(i)}})
		if text := firstText(res); text != fmt.Sprintf("Hello, %d!", i) {
			t.Fatalf("greet %d through %s: %v", i, replica, res)
		}
		served[replica]++
	}
	t.Logf("30 stateless calls: %v", served)
	for _, r := range replicas {
		if served[r.name] != 10 {
			t.Errorf("round robin: %v, want 10 calls on each replica", served)
			break
		}
	}

	// A multi round-trip request whose rounds land on different replicas completes: the
	// state the first sealed, the second opens.
	first, on1 := c.stateless("tools/call", map[string]any{"name": "test_input_required_result_elicitation"})
	if first["resultType"] != "input_required" {
		t.Fatalf("round 1: %v", first)
	}
	second, on2 := c.stateless("tools/call", map[string]any{"name": "test_input_required_result_elicitation",
		"inputResponses": map[string]any{"user_name": map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}},
		"requestState":   first["requestState"]})
	if on1 == on2 || firstText(second) != "Hello, Ada!" {
		t.Errorf("round 1 on %s, round 2 on %s: %v", on1, on2, second)
	}

	// A task created through one replica is polled to completion through the others.
	created, owner := c.stateless("tools/call", map[string]any{"name": "slow_compute", "arguments": map[string]any{"seconds": 1, "label": "spread"}})
	id, _ := created["taskId"].(string)
	if created["resultType"] != "task" || id == "" {
		t.Fatalf("slow_compute: %v", created)
	}
	task, pollers := c.waitTask(id, "completed", 10*time.Second)
	if !strings.Contains(firstText(task["result"].(map[string]any)), "Result: 42") || len(pollers) < 2 {
		t.Errorf("task created on %s, polled on %v: %v", owner, pollers, task)
	}
	// ... and cancelled through another.
	created, owner = c.stateless("tools/call", map[string]any{"name": "slow_compute", "arguments": map[string]any{"seconds": 60, "label": "cancel"}})
	id, _ = created["taskId"].(string)
	if _, on := c.stateless("tasks/cancel", map[string]any{"taskId": id}); on == owner {
		t.Errorf("the cancel landed on the task's own replica %s; round robin should have sent it on", on)
	}
	c.waitTask(id, "cancelled", 5*time.Second)

	// A session of revision 2025-11-25 stays on its replica: the balancer sticks to the
	// Mcp-Session-Id the replica gave it.
	session, home := c.initialize()
	for i := range 6 {
		res, on := c.inSession(session, "tools/call", map[string]any{"name": "greet", "arguments": map[string]any{"name": "s"}})
		if on != home || firstText(res) != "Hello, s!" {
			t.Fatalf("session call %d on %s, session on %s: %v", i, on, home, res)
		}
	}

	// One replica killed mid-run: stateless traffic goes on, only the calls in flight on it
	// fail, and its task is reported failed.
	created, owner = c.stateless("tools/call", map[string]any{"name": "slow_compute", "arguments": map[string]any{"seconds": 60, "label": "orphan"}})
	orphan, _ := created["taskId"].(string)
	const workers = 4
	// Failed calls by when they began: before the kill (in flight on the victim then: at most
	// one per worker), in the second after it (the balancer has yet to see the replica gone:
	// a request it sends on a connection it kept to the dead replica fails, HAProxy retries
	// only a connection that could not be made), and later (none may).
	var ok, failed, window, late atomic.Int64
	var killedAt atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				began := time.Now()
				err := c.tryGreet(fmt.Sprintf("%d-%d", w, i))
				switch {
				case err == nil:
					ok.Add(1)
				case killedAt.Load() != 0 && began.UnixNano() > killedAt.Load()+int64(time.Second):
					late.Add(1) // began a second after the kill: the balancer should know by then
					t.Errorf("a call a second after the kill failed: %v", err)
				case killedAt.Load() != 0 && began.UnixNano() >= killedAt.Load():
					window.Add(1)
				default:
					failed.Add(1)
				}
			}
		})
	}
	time.Sleep(500 * time.Millisecond)
	victim := replicas[0]
	for _, r := range replicas {
		if r.name == owner {
			victim = r
		}
	}
	killedAt.Store(time.Now().UnixNano())
	victim.kill()
	time.Sleep(2 * time.Second)
	close(stop)
	wg.Wait()
	t.Logf("killed %s (the task's replica) mid-run: %d calls answered; failed: %d in flight at the kill, %d begun in the second after it", victim.name, ok.Load(), failed.Load(), window.Load())
	if failed.Load() > workers || ok.Load() < 100 {
		t.Errorf("%d calls in flight at the kill failed (at most the %d workers' may), %d answered", failed.Load(), workers, ok.Load())
	}
	began := time.Now()
	task, _ = c.waitTask(orphan, "failed", 20*time.Second)
	t.Logf("the killed replica's task reported failed %.1fs after the kill: %v", time.Since(time.Unix(0, killedAt.Load())).Seconds(), task["statusMessage"])
	if e, _ := task["error"].(map[string]any); e["code"] != -32603.0 {
		t.Errorf("failed task: %v (waited %v)", task, time.Since(began))
	}
}

// replica is one server process behind the balancer.
type replica struct {
	name   string
	addr   string // host:port
	cmd    *exec.Cmd
	stderr *lockedBuffer
	killed atomic.Bool
}

func startReplica(t *testing.T, name string, args ...string) *replica {
	t.Helper()
	cmd, u, stderr := launch(t, everythingBin, args...)
	r := &replica{name: name, cmd: cmd, stderr: stderr}
	if parsed, err := url.Parse(u); err == nil {
		r.addr = parsed.Host
	}
	t.Cleanup(func() {
		if r.killed.Load() {
			return
		}
		r.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- r.cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("replica %s exited with %v on SIGTERM; stderr:\n%s", name, err, r.stderr)
			}
		case <-time.After(10 * time.Second):
			r.cmd.Process.Kill()
			t.Errorf("replica %s did not stop on SIGTERM", name)
		}
	})
	return r
}

func (r *replica) kill() {
	r.killed.Store(true)
	r.cmd.Process.Kill()
	r.cmd.Wait()
}

// haproxyConfig is the balancer's configuration, as the README shows it: round robin, a
// session of the stateful revisions stuck to the replica that created it (by the
// Mcp-Session-Id header of its answer to initialize), health checks every 200 ms, and a
// request that cannot connect to a replica sent to another.
const haproxyConfig = `global
    maxconn 2000

defaults
    mode http
    timeout connect 1s
    timeout client 60s
    timeout server 60s
    retries 3
    option redispatch

frontend mcp
    bind 127.0.0.1:%d
    default_backend replicas

backend replicas
    balance roundrobin
    stick-table type string len 64 size 100k expire 30m
    stick on req.hdr(Mcp-Session-Id)
    stick store-response res.hdr(Mcp-Session-Id)
    http-response set-header X-Replica %%[srv_name]
%s`

// startHAProxy starts HAProxy in front of the replicas and returns the URL of the endpoint.
func startHAProxy(t *testing.T, dir string, replicas []*replica) string {
	t.Helper()
	bin, err := exec.LookPath("haproxy")
	if err != nil {
		bin, err = exec.LookPath("/usr/sbin/haproxy") // Debian's, when /usr/sbin is not on PATH
	}
	if err != nil {
		t.Fatalf("haproxy is not installed (apt-get install haproxy; ./scripts/test.sh installs it): %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	var servers strings.Builder
	for _, r := range replicas {
		fmt.Fprintf(&servers, "    server %s %s check inter 200ms fall 1 rise 2\n", r.name, r.addr)
	}
	cfg := filepath.Join(dir, "haproxy.cfg")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, haproxyConfig, port, servers.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-db", "-f", cfg)
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	url := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			time.Sleep(500 * time.Millisecond) // the first health checks mark the replicas up
			return url
		}
		if time.Now().After(deadline) {
			t.Fatalf("haproxy did not listen within 10s:\n%s", out)
		}
	}
}

// lbClient speaks MCP to the balancer with raw requests, and reads which replica answered.
type lbClient struct {
	t   *testing.T
	url string
	id  atomic.Int64
}

const statelessMetaJSON = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"replicas","version":"1"},"io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}}`

// post sends one message and returns the answer's JSON-RPC message and the replica.
func (c *lbClient) post(body []byte, header http.Header) (map[string]any, string, error) {
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, "", err
	}
	req.Header = header
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	hc := &http.Client{Timeout: 30 * time.Second}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, "", err
	}
	replica := resp.Header.Get("X-Replica")
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for line := range strings.SplitSeq(string(data), "\n") {
			if d, ok := strings.CutPrefix(line, "data: "); ok && strings.Contains(d, `"id"`) {
				data = []byte(d)
			}
		}
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, replica, fmt.Errorf("HTTP %s: %.300s", resp.Status, data)
	}
	if e := m["error"]; e != nil {
		return nil, replica, fmt.Errorf("error %v", e)
	}
	res, _ := m["result"].(map[string]any)
	if res == nil {
		return nil, replica, fmt.Errorf("no result: %.300s", data)
	}
	if resp.Header.Get("Mcp-Session-Id") != "" {
		res["_sessionId"] = resp.Header.Get("Mcp-Session-Id")
	}
	return res, replica, nil
}

func (c *lbClient) request(method string, params map[string]any) []byte {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id.Add(1), "method": method, "params": params})
	return body
}

// stateless sends a request of revision 2026-07-28.
func (c *lbClient) stateless(method string, params map[string]any) (map[string]any, string) {
	c.t.Helper()
	res, replica, err := c.post(c.statelessRequest(method, params))
	if err != nil {
		c.t.Fatalf("%s %v (through %s): %v", method, params, replica, err)
	}
	return res, replica
}

func (c *lbClient) statelessRequest(method string, params map[string]any) ([]byte, http.Header) {
	params["_meta"] = json.RawMessage(statelessMetaJSON)
	h := http.Header{}
	h.Set("MCP-Protocol-Version", "2026-07-28")
	h.Set("Mcp-Method", method)
	if name, ok := params["name"].(string); ok {
		h.Set("Mcp-Name", name)
	}
	if id, ok := params["taskId"].(string); ok {
		h.Set("Mcp-Name", id)
	}
	return c.request(method, params), h
}

func (c *lbClient) tryGreet(name string) error {
	res, replica, err := c.post(c.statelessRequest("tools/call", map[string]any{"name": "greet", "arguments": map[string]any{"name": name}}))
	if err == nil && firstText(res) != "Hello, "+name+"!" {
		err = fmt.Errorf("through %s: %v", replica, res)
	}
	return err
}

// waitTask polls tasks/get until the task has the status, and returns it with the replicas
// that answered the polls.
func (c *lbClient) waitTask(id, status string, within time.Duration) (map[string]any, []string) {
	c.t.Helper()
	seen := map[string]bool{}
	var replicas []string
	deadline := time.Now().Add(within)
	for {
		task, on := c.stateless("tasks/get", map[string]any{"taskId": id})
		if !seen[on] {
			seen[on] = true
			replicas = append(replicas, on)
		}
		if task["status"] == status {
			return task, replicas
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("task %s still %v after %v, want %s: %v", id, task["status"], within, status, task)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// initialize starts a session of revision 2025-11-25 and returns its id and replica.
func (c *lbClient) initialize() (string, string) {
	c.t.Helper()
	res, on, err := c.post(c.request("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "replicas", "version": "1"}}), http.Header{})
	if err != nil {
		c.t.Fatalf("initialize: %v", err)
	}
	session, _ := res["_sessionId"].(string)
	if session == "" {
		c.t.Fatalf("initialize: no session id: %v", res)
	}
	h := http.Header{}
	h.Set("Mcp-Session-Id", session)
	h.Set("MCP-Protocol-Version", "2025-11-25")
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	req, _ := http.NewRequest(http.MethodPost, c.url, bytes.NewReader(body))
	req.Header = h
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted || resp.Header.Get("X-Replica") != on {
			c.t.Fatalf("initialized: %s on %s, want 202 on %s", resp.Status, resp.Header.Get("X-Replica"), on)
		}
	} else {
		c.t.Fatal(err)
	}
	return session, on
}

// inSession sends a request of the session.
func (c *lbClient) inSession(session, method string, params map[string]any) (map[string]any, string) {
	c.t.Helper()
	h := http.Header{}
	h.Set("Mcp-Session-Id", session)
	h.Set("MCP-Protocol-Version", "2025-11-25")
	res, on, err := c.post(c.request(method, params), h)
	if err != nil {
		c.t.Fatalf("%s in session (through %s): %v", method, on, err)
	}
	return res, on
}

// firstText is the text of a result's first content block.
func firstText(res map[string]any) string {
	content, _ := res["content"].([]any)
	if len(content) == 0 {
		return ""
	}
	text, _ := content[0].(map[string]any)["text"].(string)
	return text
}
