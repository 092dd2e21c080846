package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// mhttp is a server process spoken to over Streamable HTTP: each request is a POST of its
// own, with the headers that mirror its body, answered with JSON or an SSE stream.
type mhttp struct {
	t  *testing.T
	tr *httpTransport // the process and its HTTP client; its session machinery is not used
	wg sync.WaitGroup // subscription streams being read
}

func startStatelessHTTP(t *testing.T) *mhttp {
	h := &mhttp{t: t, tr: startHTTP(t, everythingBin)}
	t.Cleanup(h.wg.Wait) // runs before the server is stopped
	return h
}

func (h *mhttp) isHTTP() bool { return true }

// headerParams are the tool arguments the everything server mirrors into headers
// (x-mcp-header), by tool: argument -> header.
var headerParams = map[string]map[string]string{"test_custom_header": {"region": "Region"}}

// request builds the POST of a call, with the headers a client of the revision sends.
func (h *mhttp) request(ctx context.Context, call *mcall) *http.Request {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.tr.url, bytes.NewReader(call.rawMsg))
	if err != nil {
		h.t.Fatal(err)
	}
	hd := req.Header
	hd.Set("Content-Type", "application/json")
	hd.Set("Accept", "application/json, text/event-stream")
	version := statelessRev
	if v, ok := call.meta["io.modelcontextprotocol/protocolVersion"].(string); ok {
		version = v
	}
	hd.Set("Mcp-Protocol-Version", version)
	hd.Set("Mcp-Method", call.method)
	switch call.method {
	case "tools/call", "prompts/get":
		if name, ok := call.params["name"].(string); ok {
			hd.Set("Mcp-Name", name)
		}
	case "resources/read":
		if uri, ok := call.params["uri"].(string); ok {
			hd.Set("Mcp-Name", uri)
		}
	}
	if call.method == "tools/call" {
		name, _ := call.params["name"].(string)
		args, _ := call.params["arguments"].(map[string]any)
		for arg, header := range headerParams[name] {
			if v, ok := args[arg]; ok && v != nil {
				hd.Set("Mcp-Param-"+header, fmt.Sprint(v))
			}
		}
	}
	for k, v := range call.header {
		hd.Del(k)
		if v != "" {
			hd[k] = []string{v} // as written: header names are case-insensitive on the wire
		}
	}
	return req
}

func (h *mhttp) check(t *testing.T, call *mcall, raw []byte) map[string]any {
	t.Helper()
	checkSchema(t, call.version, raw, call.method)
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Errorf("server sent invalid JSON: %v: %s", err, raw)
		return nil
	}
	if _, isCall := m["method"]; isCall && m["id"] != nil {
		t.Errorf("the server sent a request on a response stream: %s", raw)
	}
	return m
}

func (h *mhttp) exchange(t *testing.T, call *mcall) *mexchange {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	resp, err := h.tr.hc.Do(h.request(ctx, call))
	if err != nil {
		t.Fatalf("POST %s: %v", call.method, err)
	}
	defer resp.Body.Close()
	x := &mexchange{status: resp.StatusCode, header: resp.Header}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	var raws [][]byte
	switch mt {
	case "application/json":
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("POST %s: reading the answer: %v", call.method, err)
		}
		raws = append(raws, body)
	case "text/event-stream":
		if resp.Header.Get("Mcp-Session-Id") != "" {
			t.Errorf("POST %s: a session id in revision %s", call.method, statelessRev)
		}
		events := make(chan []byte)
		go readSSE(resp.Body, events)
		for ev := range events {
			raws = append(raws, ev)
		}
		if ctx.Err() != nil {
			t.Fatalf("POST %s: the stream did not end within 20s", call.method)
		}
	default:
		body, _ := io.ReadAll(resp.Body)
		if len(body) > 0 || !call.notify {
			t.Fatalf("POST %s: status %d, %q: %s", call.method, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	}
	for i, raw := range raws {
		m := h.check(t, call, raw)
		if m == nil {
			continue
		}
		checkStatelessMessage(t, call, m)
		x.msgs = append(x.msgs, m)
		if _, isCall := m["method"]; !isCall {
			if x.resp != nil {
				t.Errorf("POST %s: a second response: %v", call.method, m)
			}
			x.resp = m
			if i != len(raws)-1 {
				t.Errorf("POST %s: messages after the response: %s", call.method, raws[i+1:])
			}
		}
	}
	if call.notify {
		if x.status != http.StatusAccepted || len(raws) > 0 {
			t.Errorf("notification %s: status %d with %d messages, want 202 and none", call.method, x.status, len(raws))
		}
		return x
	}
	if x.resp == nil {
		t.Fatalf("POST %s: no response (status %d)", call.method, x.status)
	}
	if x.rpcError() == nil && x.status != http.StatusOK {
		t.Errorf("POST %s: a result with status %d", call.method, x.status)
	}
	return x
}

// readSSE sends the data of each event of a stream, and closes events at its end.
func readSSE(body io.Reader, events chan<- []byte) {
	defer close(events)
	r := bufio.NewReader(body)
	var data []string
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "" && len(data) > 0:
			events <- []byte(strings.Join(data, "\n"))
			data = nil
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
}

func (h *mhttp) listen(t *testing.T, call *mcall) *msub {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	resp, err := h.tr.hc.Do(h.request(ctx, call))
	if err != nil {
		cancel()
		t.Fatalf("POST subscriptions/listen: %v", err)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); resp.StatusCode != http.StatusOK || mt != "text/event-stream" {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		t.Fatalf("subscriptions/listen: status %d, %q: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	sub := &msub{id: call.id, msgs: make(chan map[string]any, 64)}
	var once sync.Once
	stopped := make(chan struct{})
	sub.cancel = func() {
		once.Do(func() {
			cancel()
			<-stopped
		})
	}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		defer close(stopped)
		defer close(sub.msgs)
		defer resp.Body.Close()
		events := make(chan []byte)
		go readSSE(resp.Body, events)
		ended := false
		for raw := range events {
			if ended {
				t.Errorf("subscription %s: a message after its response: %s", call.idJSON, raw)
				continue
			}
			m := h.check(t, call, raw)
			if m == nil {
				continue
			}
			checkSubscriptionMessage(t, call, m)
			_, isCall := m["method"]
			ended = !isCall
			select {
			case sub.msgs <- m:
			default:
				t.Errorf("subscription %s: too many messages unread", call.idJSON)
			}
		}
	}()
	t.Cleanup(sub.cancel)
	return sub
}

// post sends one raw POST and returns its status and body, for the methods and requests
// the client above would not send.
func (h *mhttp) post(t *testing.T, method string, header map[string]string, body string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, h.tr.url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := h.tr.hc.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

// TestStatelessHTTP covers what only Streamable HTTP has: the headers that mirror the body,
// their statuses, the methods a stateless endpoint refuses, and subscriptions that end with
// the server.
func TestStatelessHTTP(t *testing.T) {
	t.Parallel()
	h := startStatelessHTTP(t)
	c := &mclient{t: t, conn: h}
	toolName := names(c.must("tools/list", nil, nil)["tools"].([]any), "name")[0]
	b64 := func(s string) string { return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?=" }
	// customHeader calls test_custom_header, whose region the client mirrors into
	// Mcp-Param-Region, with the header overrides.
	customHeader := func(region string, header map[string]string) mcall {
		return mcall{method: "tools/call", params: map[string]any{"name": "test_custom_header", "arguments": map[string]any{"region": region}}, header: header}
	}

	for _, tc := range []struct {
		name   string
		call   mcall
		status int // 200: a result; else the status of a -32020 error
	}{
		{"no MCP-Protocol-Version", mcall{method: "tools/list", header: map[string]string{"Mcp-Protocol-Version": ""}}, 400},
		{"MCP-Protocol-Version differs from _meta", mcall{method: "tools/list", header: map[string]string{"MCP-Protocol-Version": "2025-11-25"}}, 400},
		{"_meta differs from MCP-Protocol-Version", mcall{method: "server/discover", meta: map[string]any{"io.modelcontextprotocol/protocolVersion": "v999.0.0"},
			header: map[string]string{"Mcp-Protocol-Version": statelessRev}}, 400},
		{"no Mcp-Method", mcall{method: "tools/list", header: map[string]string{"Mcp-Method": ""}}, 400},
		{"another Mcp-Method", mcall{method: "tools/list", header: map[string]string{"Mcp-Method": "prompts/list"}}, 400},
		{"Mcp-Method in capitals", mcall{method: "tools/list", header: map[string]string{"Mcp-Method": "TOOLS/LIST"}}, 400},
		{"mcp-method in lower case", mcall{method: "tools/list", header: map[string]string{"Mcp-Method": "", "mcp-method": "tools/list"}}, 200},
		{"MCP-METHOD in capitals", mcall{method: "tools/list", header: map[string]string{"Mcp-Method": "", "MCP-METHOD": "tools/list"}}, 200},
		{"no Mcp-Name", mcall{method: "tools/call", params: map[string]any{"name": toolName, "arguments": map[string]any{}}, header: map[string]string{"Mcp-Name": ""}}, 400},
		{"wrong Mcp-Name", mcall{method: "tools/call", params: map[string]any{"name": toolName, "arguments": map[string]any{}}, header: map[string]string{"Mcp-Name": "wrong_tool_name"}}, 400},
		{"Mcp-Name with spaces", mcall{method: "tools/call", params: map[string]any{"name": toolName, "arguments": map[string]any{}}, header: map[string]string{"Mcp-Name": "  " + toolName + "  "}}, 200},
		{"Mcp-Name in base64", mcall{method: "tools/call", params: map[string]any{"name": "test_simple_text"}, header: map[string]string{"Mcp-Name": b64("test_simple_text")}}, 200},
		{"Mcp-Name in base64 of another", mcall{method: "tools/call", params: map[string]any{"name": "test_simple_text"}, header: map[string]string{"Mcp-Name": b64("test_error_handling")}}, 400},
		{"Mcp-Name in bad base64", mcall{method: "tools/call", params: map[string]any{"name": "test_simple_text"}, header: map[string]string{"Mcp-Name": "=?base64?dGVzdF9zaW1wbGVfdGV4dA?="}}, 400},
		{"Mcp-Name of a prompt", mcall{method: "prompts/get", params: map[string]any{"name": "test_simple_prompt"}, header: map[string]string{"Mcp-Name": "test_prompt_with_image"}}, 400},
		{"Mcp-Name of a resource", mcall{method: "resources/read", params: map[string]any{"uri": "test://static-text"}, header: map[string]string{"Mcp-Name": "test://static-binary"}}, 400},
		{"no Mcp-Name on resources/read", mcall{method: "resources/read", params: map[string]any{"uri": "test://static-text"}, header: map[string]string{"Mcp-Name": ""}}, 400},
		{"Mcp-Name of a resource in base64", mcall{method: "resources/read", params: map[string]any{"uri": "test://static-text"}, header: map[string]string{"Mcp-Name": b64("test://static-text")}}, 200},
		{"Mcp-Param-Region matches", customHeader("us-east", nil), 200},
		{"Mcp-Param-Region differs", customHeader("us-east", map[string]string{"Mcp-Param-Region": "eu-west"}), 400},
		{"no Mcp-Param-Region", customHeader("test-value", map[string]string{"Mcp-Param-Region": ""}), 400},
		{"Mcp-Param-Region in base64", customHeader("Hello", map[string]string{"Mcp-Param-Region": "=?base64?SGVsbG8=?="}), 200},
		{"Mcp-Param-Region in base64 of non-ASCII", customHeader("Zürich", map[string]string{"Mcp-Param-Region": b64("Zürich")}), 200},
		{"Mcp-Param-Region in base64 without padding", customHeader("Hello", map[string]string{"Mcp-Param-Region": "=?base64?SGVsbG8?="}), 400},
		{"Mcp-Param-Region in base64 with bad characters", customHeader("Hello", map[string]string{"Mcp-Param-Region": "=?base64?SGVs!!!bG8=?="}), 400},
		{"Mcp-Param-Region that looks like base64", customHeader("SGVsbG8=", map[string]string{"Mcp-Param-Region": "SGVsbG8="}), 200},
		{"Mcp-Param-Region without the suffix", customHeader("=?base64?SGVsbG8=", map[string]string{"Mcp-Param-Region": "=?base64?SGVsbG8="}), 200},
		{"Mcp-Param-Region with spaces", customHeader("us-east", map[string]string{"Mcp-Param-Region": "  us-east "}), 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &mclient{t: t, conn: h}
			x := c.do(tc.call)
			if tc.status == 200 {
				if x.result() == nil || x.status != 200 {
					t.Errorf("status %d, %v; want a result", x.status, x.resp)
				}
				return
			}
			e := expectError(t, h, x, tc.name, -32020, tc.status)
			if !strings.Contains(fmt.Sprint(e["message"]), "eader") {
				t.Errorf("the message does not say which header: %v", e)
			}
		})
	}

	t.Run("notification", func(t *testing.T) {
		c := &mclient{t: t, conn: h}
		c.do(mcall{method: "notifications/cancelled", params: map[string]any{"requestId": 99}, notify: true})
	})

	t.Run("GET and DELETE", func(t *testing.T) {
		for _, method := range []string{http.MethodGet, http.MethodDelete} {
			status, hd, body := h.post(t, method, map[string]string{"Accept": "text/event-stream", "MCP-Protocol-Version": statelessRev}, "")
			if status != http.StatusMethodNotAllowed || !strings.Contains(hd.Get("Allow"), "POST") {
				t.Errorf("%s with a stateless version: %d, Allow %q: %s", method, status, hd.Get("Allow"), body)
			}
		}
	})

	t.Run("no sessions", func(t *testing.T) {
		// A session id means nothing to a stateless request, and none is given.
		x := c.do(mcall{method: "tools/list", header: map[string]string{"Mcp-Session-Id": "no-such-session"}})
		if x.result() == nil || x.header.Get("Mcp-Session-Id") != "" {
			t.Errorf("with a session id: %d %v %v", x.status, x.header, x.resp)
		}
	})
}

// TestStatelessHTTPShutdown: a server that stops ends its subscriptions gracefully, with the
// listen request's result.
func TestStatelessHTTPShutdown(t *testing.T) {
	t.Parallel()
	h := startStatelessHTTP(t)
	c := &mclient{t: t, conn: h}
	sub := c.listen(5, map[string]any{"toolsListChanged": true})
	if err := h.tr.interrupt(); err != nil {
		t.Fatal(err)
	}
	m, ok := sub.next(10 * time.Second)
	if !ok {
		t.Fatal("the subscription ended without its result")
	}
	if r, _ := m["result"].(map[string]any); r == nil || r["resultType"] != "complete" {
		t.Errorf("the subscription ended with %v", m)
	}
	if m, ok := sub.next(10 * time.Second); ok {
		t.Errorf("after the result: %v", m)
	}
}
