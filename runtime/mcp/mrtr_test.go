package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

const samplingMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{},"roots":{}}}`

func sampleText(ctx context.Context, q string) (string, error) {
	res, err := Sample(ctx, &CreateMessageRequest{Messages: []SamplingMessage{{Content: Text{Text: q}}}, MaxTokens: 5})
	if err != nil {
		return "", err
	}
	return res.Content.(Text).Text, nil
}

// inputRequests returns the keys and questions of an InputRequiredResult, and its state.
func inputRequests(t *testing.T, m map[string]any) (map[string]string, string) {
	t.Helper()
	r := result(t, m)
	if r["resultType"] != "input_required" {
		t.Fatalf("want an InputRequiredResult, got %v", m)
	}
	qs := map[string]string{}
	for k, v := range r["inputRequests"].(map[string]any) {
		p := v.(map[string]any)["params"].(map[string]any)
		if msgs, ok := p["messages"].([]any); ok {
			qs[k] = msgs[0].(map[string]any)["content"].(map[string]any)["text"].(string)
		} else {
			qs[k] = v.(map[string]any)["method"].(string)
		}
	}
	state, _ := r["requestState"].(string)
	return qs, state
}

func answerText(text string) string {
	return `{"role":"assistant","content":{"type":"text","text":"` + text + `"},"model":"m"}`
}

// Questions asked from several goroutines find their own answers: a default key is the
// question's digest, not its place in the run.
func TestConcurrentAsksFindTheirAnswers(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(Tool{Name: "two", Description: "Asks twice at once.", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *ToolCall) {
		var wg sync.WaitGroup
		var a, b string
		var errA, errB error
		wg.Go(func() { a, errA = sampleText(ctx, "A?") })
		wg.Go(func() { b, errB = sampleText(ctx, "B?") })
		wg.Wait()
		if err := errors.Join(errA, errB); err != nil {
			c.ReturnError(err)
			return
		}
		c.ReturnText(a + b)
	}})
	h := start(t, srv)
	for i := range 20 {
		qs, state := inputRequests(t, h.roundTrip(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"two",`+samplingMeta+`}}`))
		responses := map[string]json.RawMessage{}
		for k, q := range qs {
			responses[k] = json.RawMessage(answerText(strings.TrimSuffix(q, "?")))
		}
		rs, _ := json.Marshal(responses)
		m := h.roundTrip(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"two","inputResponses":` + string(rs) + `,"requestState":"` + state + `",` + samplingMeta + `}}`)
		if got := toolText(t, m); got != "AB" {
			t.Fatalf("run %d: %q", i, got)
		}
	}
}

// A key names one question: a context carrying a key, used for two different questions,
// is an error, not two requests under one key.
func TestInputKeyNamesOneQuestion(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(Tool{Name: "sticky", Description: "Reuses a key.", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *ToolCall) {
		ctx = WithInputKey(ctx, "k")
		_, err1 := sampleText(ctx, "one?")
		_, err2 := Roots(ctx)
		if err2 != nil && !errors.Is(err2, ErrInputRequired) {
			c.ReturnError(err2)
			return
		}
		c.ReturnError(err1)
	}})
	h := start(t, srv)
	m := h.roundTrip(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sticky",` + samplingMeta + `}}`)
	qs, _ := inputRequests(t, m)
	if len(qs) != 1 || qs["k"] != "one?" {
		t.Errorf("input requests: %v", qs)
	}
}

// Only the answers the body used travel on in the state.
func TestStateCarriesOnlyUsedAnswers(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(Tool{Name: "ask", Description: "Asks two questions in turn.", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *ToolCall) {
		a, err := sampleText(WithInputKey(ctx, "first"), "first?")
		if err != nil {
			c.ReturnError(err)
			return
		}
		b, err := sampleText(WithInputKey(ctx, "second"), "second?")
		if err != nil {
			c.ReturnError(err)
			return
		}
		c.ReturnText(a + b)
	}})
	h := start(t, srv)
	_, state := inputRequests(t, h.roundTrip(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask",`+samplingMeta+`}}`))
	junk := `"junk":{"x":"` + strings.Repeat("j", 100000) + `"}`
	_, state = inputRequests(t, h.roundTrip(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","requestState":"`+state+`","inputResponses":{"first":`+answerText("1")+`,`+junk+`},`+samplingMeta+`}}`))
	if len(state) > 2000 {
		t.Errorf("the state grew to %d bytes with answers nobody asked for", len(state))
	}
	m := h.roundTrip(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask","requestState":"` + state + `","inputResponses":{"second":` + answerText("2") + `},` + samplingMeta + `}}`)
	if got := toolText(t, m); got != "12" {
		t.Errorf("third round: %q", got)
	}
}

// -32021 is for a body that failed for want of a capability; a body that caught the error
// and failed otherwise gets its own error result.
func TestMissingCapabilityOnlyWhenThatIsTheFailure(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(Tool{Name: "context", Description: "Needs sampling.context.", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *ToolCall) {
		_, err := Sample(ctx, &CreateMessageRequest{Messages: []SamplingMessage{{Content: Text{Text: "hi"}}}, IncludeContext: "thisServer", MaxTokens: 5})
		c.ReturnError(err)
	}})
	srv.AddTool(Tool{Name: "fallback", Description: "Falls back, then fails.", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *ToolCall) {
		if _, err := Roots(ctx); err == nil {
			c.ReturnText("roots")
			return
		}
		c.ReturnError(errors.New("no roots, and the fallback failed too"))
	}})
	h := start(t, srv)
	m := h.roundTrip(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"context",` + samplingMeta + `}}`)
	if errorCode(t, m) != CodeMissingRequiredClientCapability || !strings.Contains(string(mustJSON(m)), `"requiredCapabilities":{"sampling":{"context":{}}}`) {
		t.Errorf("sampling.context: %v", m)
	}
	m = h.roundTrip(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fallback","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	if r := result(t, m); r["isError"] != true || !strings.Contains(toolText(t, m), "fallback failed") {
		t.Errorf("fallback: %v", m)
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func TestCacheHintsAreChecked(t *testing.T) {
	for _, opts := range []*ServerOptions{
		{Cache: &CacheHint{TTL: -time.Second, Scope: CachePublic}},
		{CacheFor: map[string]CacheHint{"tools/list": {TTL: time.Second}}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("accepted %+v", opts)
				}
			}()
			quietServer(opts)
		}()
	}
}

func postStateless(t *testing.T, url, method, body string, header ...string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func TestStatelessHTTPEdges(t *testing.T) {
	srv := quietServer(nil)
	started := make(chan struct{})
	srv.AddTool(Tool{Name: "slow", Description: "Takes a while.", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *ToolCall) {
		close(started)
		select {
		case <-time.After(300 * time.Millisecond):
			c.ReturnText("finished")
		case <-ctx.Done():
			c.ReturnText("cancelled")
		}
	}})
	h := srv.HTTPHandler(nil)
	ts := httptest.NewServer(h)
	defer ts.Close()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

	// Mcp-Method has no base64 form.
	if resp := postStateless(t, ts.URL, "=?base64?dG9vbHMvbGlzdA==?=", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+meta+`}}`); resp.StatusCode != 400 {
		t.Errorf("base64 Mcp-Method: %d", resp.StatusCode)
	}
	// A subscription needs SSE.
	if resp := postStateless(t, ts.URL, "subscriptions/listen", `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{`+meta+`}}`, "Accept", "application/json"); resp.StatusCode != 406 {
		t.Errorf("listen taking JSON only: %d", resp.StatusCode)
	}
	// A stateful notification with a mistyped version header gets the stateful answer.
	if resp := postStateless(t, ts.URL, "", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, "Mcp-Protocol-Version", "2025-11-2"); resp.StatusCode != 400 {
		t.Errorf("stateful notification with a bad version: %d", resp.StatusCode)
	}
	// Shutdown lets a stateless request finish, as it does a stateful one.
	done := make(chan string, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow",`+meta+`}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "slow")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- err.Error()
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		done <- string(b)
	}()
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	h.Shutdown(ctx)
	if got := <-done; !strings.Contains(got, "finished") {
		t.Errorf("a stateless request at shutdown: %s", got)
	}
}

// A client that never reads its stream costs bounded memory: the oldest notifications go.
func TestResponseStreamIsBounded(t *testing.T) {
	st := newStatelessStream()
	note := []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`)
	for range 3 * maxStreamEvents {
		st.Write(context.Background(), note)
	}
	st.respond([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`), http.StatusOK)
	msgs, final, _ := st.pending(nil, 0, false) // no connection writes it: nil is its owner
	if !final || len(msgs) > maxStreamEvents || !strings.Contains(string(msgs[len(msgs)-1].data), `"result"`) {
		t.Errorf("%d messages kept, final %v", len(msgs), final)
	}
}
