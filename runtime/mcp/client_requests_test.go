package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// samplingTool asks the client's model, with a deadline, and reports the error it gets.
func samplingTool(timeout time.Duration) Tool {
	return Tool{
		Name: "ask", Description: "Samples.", InputSchema: `{"type":"object"}`,
		Handler: func(ctx context.Context, c *ToolCall) {
			ctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			res, err := Sample(ctx, &CreateMessageRequest{Messages: []SamplingMessage{{Role: RoleUser, Content: Text{Text: "hi"}}}, MaxTokens: 10})
			var capErr *ErrCapability
			var clientErr *ClientError
			switch {
			case errors.As(err, &capErr):
				c.ReturnText("capability: " + capErr.Capability)
			case errors.As(err, &clientErr):
				c.ReturnText("client error: " + clientErr.Message)
			case errors.Is(err, context.DeadlineExceeded):
				c.ReturnText("deadline")
			case err != nil:
				c.ReturnError(err)
			default:
				c.ReturnText(res.Content.(Text).Text)
			}
		},
	}
}

func initializeWith(h *harness, caps string) {
	h.t.Helper()
	result(h.t, h.roundTrip(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":`+caps+`,"clientInfo":{"name":"t","version":"1"}}}`))
	h.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

func toolText(t *testing.T, m map[string]any) string {
	t.Helper()
	return result(t, m)["content"].([]any)[0].(map[string]any)["text"].(string)
}

func TestRequestsToTheClientNeedItsCapability(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(samplingTool(time.Minute))
	h := start(t, srv)
	initializeWith(h, `{"elicitation":{}}`)
	if got := toolText(t, h.roundTrip(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask"}}`)); got != "capability: sampling" {
		t.Fatalf("sampling without the capability: %q", got)
	}
}

func TestRequestToTheClientKeepsTheDeadline(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(samplingTool(200 * time.Millisecond))
	h := start(t, srv)
	initializeWith(h, `{"sampling":{}}`)
	h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask"}}`)
	req := h.recv()
	if req["method"] != "sampling/createMessage" {
		t.Fatalf("want the sampling request, got %v", req)
	}
	// The client never answers: at the deadline the server gives up and says so.
	cancelled := h.recv()
	if cancelled["method"] != "notifications/cancelled" || cancelled["params"].(map[string]any)["requestId"] != req["id"] {
		t.Fatalf("want notifications/cancelled for request %v, got %v", req["id"], cancelled)
	}
	if got := toolText(t, h.recv()); got != "deadline" {
		t.Fatalf("tool saw %q, want the deadline", got)
	}
	// An answer that comes too late is dropped, and the server goes on.
	id, _ := json.Marshal(req["id"])
	h.send(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"role":"assistant","content":{"type":"text","text":"late"},"model":"m"}}`)
	result(t, h.roundTrip(`{"jsonrpc":"2.0","id":2,"method":"ping"}`))
}

func TestClientErrorAnswers(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(samplingTool(time.Minute))
	h := start(t, srv)
	initializeWith(h, `{"sampling":{}}`)
	h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask"}}`)
	req := h.recv()
	id, _ := json.Marshal(req["id"])
	h.send(`{"jsonrpc":"2.0","id":` + string(id) + `,"error":{"code":-1,"message":"user rejected sampling"}}`)
	if got := toolText(t, h.recv()); got != "client error: user rejected sampling" {
		t.Fatalf("tool saw %q", got)
	}
}

func TestEOFReleasesRequestsToTheClient(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(samplingTool(time.Minute))
	h := start(t, srv)
	initializeWith(h, `{"sampling":{}}`)
	h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask"}}`)
	h.recv() // the sampling request, never answered
	h.in.Close()
	res := h.recv()
	if r := result(t, res); r["isError"] != true || !strings.Contains(toolText(t, res), "session has ended") {
		t.Fatalf("the tool waiting on a client that left got %v", res)
	}
}

func TestHTTPOlderClients(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(echoTool("echo"))
	for _, version := range []string{"2025-03-26", "2025-06-18"} {
		t.Run(version, func(t *testing.T) {
			_, c := serveHTTPTest(t, srv, nil)
			m := jsonBody(t, c.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"old","version":"1"}}}`))
			if result(t, m)["protocolVersion"] != version {
				t.Fatalf("negotiated %v", m)
			}
			c.session = c.open[0].Header.Get("Mcp-Session-Id")
			// 2025-03-26 clients send no MCP-Protocol-Version header; 2025-06-18 ones do.
			header := []string{}
			if version >= "2025-06-18" {
				header = []string{"Mcp-Protocol-Version", version}
			}
			if s := c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, header...).StatusCode; s != 202 {
				t.Fatalf("initialized: %d", s)
			}
			m = jsonBody(t, c.post(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, header...))
			tool := result(t, m)["tools"].([]any)[0].(map[string]any)
			if _, hasTitle := tool["title"]; hasTitle != (version >= "2025-06-18") {
				t.Errorf("%s client got a tool %v", version, tool)
			}
		})
	}
}

func TestEveryListIsPaginated(t *testing.T) {
	srv := quietServer(&ServerOptions{PageSize: 1})
	read := func(ctx context.Context, uri string) ([]ResourceContents, error) { return textContents(uri, ""), nil }
	readT := func(ctx context.Context, uri string, vars map[string]string) ([]ResourceContents, error) {
		return textContents(uri, ""), nil
	}
	get := func(ctx context.Context, args *Input) (*GetPromptResult, error) {
		return &GetPromptResult{}, nil
	}
	for _, n := range []string{"x", "y"} {
		srv.AddTool(echoTool(n))
		srv.AddResource(Resource{URI: "test://" + n, Name: n, Read: read})
		srv.AddResourceTemplate(ResourceTemplate{URITemplate: "test://" + n + "/{id}", Name: n, Read: readT})
		srv.AddPrompt(Prompt{Name: n, Get: get})
	}
	h := start(t, srv)
	h.initialize("2025-11-25")
	for method, field := range map[string]string{"tools/list": "tools", "resources/list": "resources", "resources/templates/list": "resourceTemplates", "prompts/list": "prompts"} {
		var pages int
		cursor := ""
		for {
			params := `{}`
			if cursor != "" {
				params = `{"cursor":"` + cursor + `"}`
			}
			res := result(t, h.roundTrip(`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`+params+`}`))
			if items := res[field].([]any); len(items) != 1 {
				t.Fatalf("%s page %d: %d items, want 1", method, pages, len(items))
			}
			pages++
			next, _ := res["nextCursor"].(string)
			if next == "" {
				break
			}
			cursor = next
		}
		if pages != 2 {
			t.Errorf("%s: %d pages, want 2", method, pages)
		}
	}
}

func TestListChangedOverStdio(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(echoTool("x"))
	h := start(t, srv)
	h.initialize("2025-11-25")
	result(t, h.roundTrip(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	srv.AddTool(echoTool("y"))
	if m := h.recv(); m["method"] != "notifications/tools/list_changed" {
		t.Fatalf("got %v, want tools/list_changed", m)
	}
	srv.AddPrompt(Prompt{Name: "p", Get: func(ctx context.Context, args *Input) (*GetPromptResult, error) { return nil, nil }})
	if m := h.recv(); m["method"] != "notifications/prompts/list_changed" {
		t.Fatalf("got %v, want prompts/list_changed", m)
	}
	srv.AddResource(Resource{URI: "test://r", Name: "r", Read: func(ctx context.Context, uri string) ([]ResourceContents, error) { return nil, nil }})
	if m := h.recv(); m["method"] != "notifications/resources/list_changed" {
		t.Fatalf("got %v, want resources/list_changed", m)
	}
}

type themeForm struct{ Theme, Name string }

// A form with a titled select and a text field, as mcpgen generates for 2025-11-25.
const themeFormSchema = `{"type":"object","properties":{
	"theme":{"type":"string","title":"Theme","oneOf":[{"const":"light","title":"Light theme"},{"const":"dark","title":"Dark theme"}]},
	"name":{"type":"string"}},"required":["theme"]}`

func decodeThemeForm(d *jsonwire.Decoder, v *themeForm) {
	for key := range d.Members {
		switch string(key) {
		case "theme":
			v.Theme, _ = d.String()
		case "name":
			v.Name, _ = d.String()
		default:
			d.Skip()
		}
	}
}

func elicitTool() Tool {
	return Tool{
		Name: "ask", Description: "Elicits.", InputSchema: `{"type":"object"}`,
		Handler: func(ctx context.Context, c *ToolCall) {
			v, action, err := Elicit[themeForm](ctx, "Pick")
			if err != nil {
				c.ReturnError(err)
				return
			}
			c.ReturnText(string(action) + " " + v.Theme)
		},
	}
}

func TestElicitSpeaksTheClientsRevision(t *testing.T) {
	for _, tc := range []struct {
		version, want string
	}{
		{"2025-11-25", `{"mode":"form","message":"Pick","requestedSchema":{"type":"object","properties":{"theme":{"type":"string","title":"Theme","oneOf":[{"const":"light","title":"Light theme"},{"const":"dark","title":"Dark theme"}]},"name":{"type":"string"}},"required":["theme"]}}`},
		// Before 2025-11-25: no mode, and a titled enum is enum with enumNames, fields in order.
		{"2025-06-18", `{"message":"Pick","requestedSchema":{"type":"object","properties":{"theme":{"type":"string","title":"Theme","enum":["light","dark"],"enumNames":["Light theme","Dark theme"]},"name":{"type":"string"}},"required":["theme"]}}`},
	} {
		srv := quietServer(nil)
		addForm(srv, themeFormSchema, decodeThemeForm)
		srv.AddTool(elicitTool())
		h := start(t, srv)
		result(t, h.roundTrip(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+tc.version+`","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`))
		h.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask"}}`)
		req := h.recv()
		params, _ := json.Marshal(req["params"])
		var want any
		json.Unmarshal([]byte(tc.want), &want)
		wantJSON, _ := json.Marshal(want)
		if string(params) != string(wantJSON) {
			t.Errorf("%s: elicitation/create params\n got %s\nwant %s", tc.version, params, wantJSON)
		}
		id, _ := json.Marshal(req["id"])
		h.send(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"action":"accept","content":{"theme":"dark"}}}`)
		if got := toolText(t, h.recv()); got != "accept dark" {
			t.Errorf("%s: tool saw %q", tc.version, got)
		}
	}
}

func TestForm20250618KeepsFieldOrder(t *testing.T) {
	got, err := form20250618([]byte(`{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"integer"},"m":{"type":"boolean"}}}`))
	if err != nil || string(got) != `{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"integer"},"m":{"type":"boolean"}}}` {
		t.Errorf("form20250618: %s %v", got, err)
	}
	if _, err := form20250618([]byte(`{"type":"object","properties":{"tags":{"type":"array","items":{"enum":["a"]}}}}`)); err == nil || !strings.Contains(err.Error(), "tags is a multi-select") {
		t.Errorf("multi-select: %v", err)
	}
}

func TestElicitCapabilityErrorSaysFormMode(t *testing.T) {
	srv := quietServer(nil)
	addForm(srv, themeFormSchema, decodeThemeForm)
	srv.AddTool(elicitTool())
	h := start(t, srv)
	initializeWith(h, `{"elicitation":{"url":{}}}`)
	if got := toolText(t, h.roundTrip(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask"}}`)); !strings.Contains(got, "elicitation capability for form mode") {
		t.Errorf("url-only client: %q", got)
	}
}

func sampleTool(req *CreateMessageRequest) Tool {
	return Tool{
		Name: "ask", Description: "Samples.", InputSchema: `{"type":"object"}`,
		Handler: func(ctx context.Context, c *ToolCall) {
			res, err := Sample(ctx, req)
			if err != nil {
				c.ReturnError(err)
				return
			}
			var texts []string
			for _, b := range res.Contents {
				texts = append(texts, b.(Text).Text)
			}
			c.ReturnText(string(res.Role) + ": " + strings.Join(texts, "+") + " first=" + res.Content.(Text).Text)
		},
	}
}

func TestSampleArrayContentAndDefaultRole(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(sampleTool(&CreateMessageRequest{Messages: []SamplingMessage{{Content: Text{Text: "hi"}}}, MaxTokens: 5}))
	h := start(t, srv)
	initializeWith(h, `{"sampling":{}}`)
	h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask"}}`)
	req := h.recv()
	msg := req["params"].(map[string]any)["messages"].([]any)[0].(map[string]any)
	if msg["role"] != "user" {
		t.Errorf("a message without a role went out as %v", msg)
	}
	id, _ := json.Marshal(req["id"])
	h.send(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"model":"m"}}`)
	if got := toolText(t, h.recv()); got != "assistant: a+b first=a" {
		t.Errorf("tool saw %q", got)
	}
}

func TestSampleChecksItsRequest(t *testing.T) {
	for _, tc := range []struct {
		name string
		caps string
		req  *CreateMessageRequest
		want string
	}{
		{"no content", `{"sampling":{}}`, &CreateMessageRequest{Messages: []SamplingMessage{{Role: RoleUser}}, MaxTokens: 5}, "message 0 has no content"},
		{"no messages", `{"sampling":{}}`, &CreateMessageRequest{MaxTokens: 5}, "at least one message"},
		{"context without capability", `{"sampling":{}}`, &CreateMessageRequest{Messages: []SamplingMessage{{Content: Text{Text: "hi"}}}, IncludeContext: "thisServer", MaxTokens: 5}, "sampling.context capability"},
	} {
		srv := quietServer(nil)
		srv.AddTool(sampleTool(tc.req))
		h := start(t, srv)
		initializeWith(h, tc.caps)
		if got := toolText(t, h.roundTrip(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask"}}`)); !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q", tc.name, got)
		}
	}
}
