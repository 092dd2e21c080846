package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/mcpgen/mcpgen/internal/scripted"
)

// inputServer is a server of revision 2026-07-28 that answers the first tools/call with
// ask, an InputRequiredResult, and the retry with a text result; retried gets the retry's
// params.
func inputServer(t *testing.T, ask string) (c *Client, retried func() map[string]json.RawMessage) {
	t.Helper()
	var mu sync.Mutex
	var retry map[string]json.RawMessage
	srv := serveScript(t, scripted.Script{Name: "asks", Era: scripted.Modern, Tools: []string{"ask"},
		Answer: func(method string, params json.RawMessage) json.RawMessage {
			if method != "tools/call" {
				return nil
			}
			if !strings.Contains(string(params), "inputResponses") {
				return json.RawMessage(ask)
			}
			mu.Lock()
			json.Unmarshal(params, &retry)
			mu.Unlock()
			return json.RawMessage(`{"resultType":"complete","content":[{"type":"text","text":"thanks"}]}`)
		}})
	c = connect(t, srv.transport, &ClientOptions{Logger: quietLogger(), Roots: []Root{{URI: "file:///work", Name: "work"}}})
	return c, func() map[string]json.RawMessage {
		mu.Lock()
		defer mu.Unlock()
		return retry
	}
}

// The client reads an InputRequiredResult as real servers write it: a null where a request
// might be is none, params null or absent are none, members it does not know are skipped;
// each request is answered once, under its key, and the state goes back unchanged.
func TestClientReadsInputRequestsForgivingly(t *testing.T) {
	c, retried := inputServer(t, `{"resultType":"input_required","inputRequests":{
		"b":{"method":"roots/list"},
		"a":{"method":"roots/list","params":null,"note":"unknown"},
		"gone":null},"requestState":"s1"}`)
	res, err := c.CallTool(context.Background(), "ask", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := TextOf(res.Content); got != "thanks" {
		t.Errorf("the retry's result: %q", got)
	}
	retry := retried()
	if got := string(retry["requestState"]); got != `"s1"` {
		t.Errorf("requestState on the retry: %s, want \"s1\"", got)
	}
	var responses map[string]json.RawMessage
	if err := json.Unmarshal(retry["inputResponses"], &responses); err != nil {
		t.Fatalf("inputResponses on the retry: %v (%s)", err, retry["inputResponses"])
	}
	want := `{"roots":[{"uri":"file:///work","name":"work"}]}`
	if len(responses) != 2 || string(responses["a"]) != want || string(responses["b"]) != want {
		t.Errorf("inputResponses on the retry: %s, want a and b, each %s", retry["inputResponses"], want)
	}
}

// An InputRequiredResult that does not read is an error that says where, with its JSON
// Pointer, rather than a request the client cannot answer.
func TestClientNamesWhatAnInputRequiredResultLacks(t *testing.T) {
	c, _ := inputServer(t, `{"resultType":"input_required","inputRequests":{"k":{"params":{}},"j":{"method":"roots/list","params":[1]}}}`)
	_, err := c.CallTool(context.Background(), "ask", nil)
	if err == nil {
		t.Fatal("a request without a method was answered")
	}
	for _, want := range []string{"InputRequiredResult", "/inputRequests/k/method: missing required property", "/inputRequests/j/params: expected object, got array"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q:\n%v", want, err)
		}
	}
}

// The server reads the retry's inputResponses with their codec: an answer that is not an
// object is invalid params, at its JSON Pointer; a null answers nothing.
func TestServerReadsInputResponses(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(Tool{Name: "ask", Description: "Asks once.", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *ToolCall) {
		a, err := sampleText(WithInputKey(ctx, "first"), "first?")
		if err != nil {
			c.ReturnError(err)
			return
		}
		c.ReturnText(a)
	}})
	h := start(t, srv)
	m := h.roundTrip(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","inputResponses":{"first":"yes","second":{}},` + samplingMeta + `}}`)
	e, _ := m["error"].(map[string]any)
	if msg, _ := e["message"].(string); msg != "invalid params: /inputResponses/first: expected an object (the result of the request it answers), got string" {
		t.Errorf("want invalid params at /inputResponses/first, got %v", m)
	}
	m = h.roundTrip(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","inputResponses":{"first":null},` + samplingMeta + `}}`)
	if qs, _ := inputRequests(t, m); qs["first"] != "first?" {
		t.Errorf("a null answer answered: %v", m)
	}
	m = h.roundTrip(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask","inputResponses":{"first":` + answerText("yes") + `},` + samplingMeta + `}}`)
	if got := toolText(t, m); got != "yes" {
		t.Errorf("answered: %q", got)
	}
}
