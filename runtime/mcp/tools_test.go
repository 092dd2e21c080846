package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestToolsListDialectsAndPages(t *testing.T) {
	srv := quietServer(&ServerOptions{PageSize: 2})
	for _, name := range []string{"e", "c", "a", "d", "b"} {
		srv.AddTool(echoTool(name))
	}
	h := start(t, srv)
	h.initialize("2025-11-25")
	var names []string
	cursor := ""
	for page := 0; ; page++ {
		params := `{}`
		if cursor != "" {
			params = `{"cursor":"` + cursor + `"}`
		}
		r := result(t, h.roundTrip(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":%s}`, page+1, params)))
		for _, tool := range r["tools"].([]any) {
			tm := tool.(map[string]any)
			names = append(names, tm["name"].(string))
			if tm["title"] != "Echo "+tm["name"].(string) || tm["annotations"].(map[string]any)["readOnlyHint"] != true {
				t.Errorf("tool entry %v", tm)
			}
			if tm["inputSchema"].(map[string]any)["type"] != "object" {
				t.Errorf("inputSchema %v", tm["inputSchema"])
			}
		}
		next, ok := r["nextCursor"].(string)
		if !ok {
			break
		}
		cursor = next
	}
	if got := strings.Join(names, ","); got != "a,b,c,d,e" {
		t.Fatalf("pages listed %s", got)
	}

	old := start(t, srv)
	old.initialize("2024-11-05")
	tool := result(t, old.roundTrip(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))["tools"].([]any)[0].(map[string]any)
	for _, field := range []string{"title", "annotations"} {
		if _, ok := tool[field]; ok {
			t.Errorf("2024-11-05 client got %s: %v", field, tool)
		}
	}
	mid := start(t, srv)
	mid.initialize("2025-03-26")
	tool = result(t, mid.roundTrip(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))["tools"].([]any)[0].(map[string]any)
	if ann := tool["annotations"].(map[string]any); ann["title"] != "Echo a" || tool["title"] != nil {
		t.Errorf("2025-03-26 client should get the title in annotations: %v", tool)
	}
}

func TestToolCallResults(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(echoTool("echo"))
	srv.AddTool(Tool{Name: "fails", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *ToolCall) {
		c.ReturnError(errors.New("database is down"))
	}})
	srv.AddTool(Tool{Name: "panics", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *ToolCall) {
		panic("boom")
	}})
	srv.AddTool(Tool{Name: "structured", InputSchema: `{"type":"object"}`, OutputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *ToolCall) {
		e := c.structured()
		e.ObjectStart()
		e.Key("temp")
		e.Float(21.5, 64)
		e.Key("note")
		e.String("quote \" ok")
		e.ObjectEnd()
	}})
	srv.AddTool(Tool{Name: "media", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *ToolCall) {
		c.ReturnContent(Image{Data: []byte{1, 2}, MIMEType: "image/png"}, EmbeddedResource{Resource: ResourceContents{URI: "mem://x", Text: "hi"}})
	}})
	h := start(t, srv)
	h.initialize("2025-11-25")

	r := result(t, h.roundTrip(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`))
	if text := r["content"].([]any)[0].(map[string]any)["text"]; text != "hello" || r["isError"] != nil {
		t.Fatalf("echo: %v", r)
	}
	r = result(t, h.roundTrip(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"txt":1}}}`))
	text := r["content"].([]any)[0].(map[string]any)["text"].(string)
	if r["isError"] != true || !strings.Contains(text, "/txt: unknown property") || !strings.Contains(text, "/text: missing required property") {
		t.Fatalf("bad arguments: %v", r)
	}
	r = result(t, h.roundTrip(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fails","arguments":{}}}`))
	if r["isError"] != true || r["content"].([]any)[0].(map[string]any)["text"] != "database is down" {
		t.Fatalf("fails: %v", r)
	}
	r = result(t, h.roundTrip(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"panics"}}`))
	if r["isError"] != true || !strings.Contains(r["content"].([]any)[0].(map[string]any)["text"].(string), "failed unexpectedly") {
		t.Fatalf("panics: %v", r)
	}
	r = result(t, h.roundTrip(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"structured","arguments":null}}`))
	sc := r["structuredContent"].(map[string]any)
	if sc["temp"] != 21.5 || r["content"].([]any)[0].(map[string]any)["text"] != `{"temp":21.5,"note":"quote \" ok"}` {
		t.Fatalf("structured: %v", r)
	}
	r = result(t, h.roundTrip(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"media"}}`))
	blocks := r["content"].([]any)
	if blocks[0].(map[string]any)["data"] != "AQI=" || blocks[1].(map[string]any)["resource"].(map[string]any)["text"] != "hi" {
		t.Fatalf("media: %v", r)
	}

	old := start(t, srv)
	old.initialize("2025-03-26")
	r = result(t, old.roundTrip(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"structured"}}`))
	if _, ok := r["structuredContent"]; ok || !strings.Contains(r["content"].([]any)[0].(map[string]any)["text"].(string), "21.5") {
		t.Fatalf("2025-03-26 client should get the JSON as text only: %v", r)
	}
}

// Whatever a tool sets as its result, the server writes valid JSON, in every revision: a
// result the client could not read would leave its call waiting for ever. Structured
// content written by hand that is empty is none; one that is not JSON is an error result.
func TestEveryToolResultIsJSON(t *testing.T) {
	priority := math.NaN()
	shapes := map[string]func(c *ToolCall){
		"nothing":    func(c *ToolCall) {},
		"text":       func(c *ToolCall) { c.ReturnText("a \"quote\", a\nnewline, \x00, invalid \xff UTF-8") },
		"error":      func(c *ToolCall) { c.ReturnError(errors.New("broken \xff")) },
		"no content": func(c *ToolCall) { c.ReturnContent() },
		"nil block":  func(c *ToolCall) { c.ReturnContent(nil, Text{Text: "after nil"}, nil) },
		"every block": func(c *ToolCall) {
			c.ReturnContent(Text{Text: "t", Annotations: &Annotations{Audience: []Role{RoleUser}, Priority: &priority}},
				Image{Data: []byte{0xff}, MIMEType: "image/png"}, Audio{Data: nil, MIMEType: "audio/wav"},
				ResourceLink{URI: "test://r", Name: "r", Size: Ptr(int64(-1))},
				EmbeddedResource{Resource: ResourceContents{URI: "test://t", Text: "\x01"}},
				EmbeddedResource{Resource: ResourceContents{URI: "test://b", Blob: []byte{}}})
		},
		"nil result":       func(c *ToolCall) { c.ReturnResult(nil) },
		"structured nil":   func(c *ToolCall) { c.ReturnResult(&CallToolResult{Content: []Content{Text{Text: "x"}}}) },
		"structured empty": func(c *ToolCall) { c.ReturnResult(&CallToolResult{StructuredContent: []byte{}}) },
		"structured blank": func(c *ToolCall) { c.ReturnResult(&CallToolResult{StructuredContent: []byte(" \n")}) },
		"structured object": func(c *ToolCall) {
			c.ReturnResult(&CallToolResult{StructuredContent: []byte(` {"a":1} `), IsError: true})
		},
		"structured cut":  func(c *ToolCall) { c.ReturnResult(&CallToolResult{StructuredContent: []byte(`{"a":`)}) },
		"structured text": func(c *ToolCall) { c.ReturnResult(&CallToolResult{StructuredContent: []byte(`not json`)}) },
		"structured two":  func(c *ToolCall) { c.ReturnResult(&CallToolResult{StructuredContent: []byte(`{} {}`)}) },
		"structured encoder": func(c *ToolCall) {
			e := c.structured()
			e.ObjectStart()
			e.Key("f")
			e.Float(math.Inf(1), 64)
			e.ObjectEnd()
		},
		"structured then text": func(c *ToolCall) { c.structured().Int(1); c.ReturnText("text wins") },
		"result check fails": func(c *ToolCall) {
			c.checker().Report("too big")
			if c.resultOK() {
				c.structured().Int(1)
			}
		},
		"panics": func(c *ToolCall) { panic("boom") },
	}
	srv := quietServer(nil)
	names := slices.Sorted(maps.Keys(shapes))
	for _, name := range names {
		srv.AddTool(Tool{Name: name, InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *ToolCall) { shapes[name](c) }})
	}
	for _, version := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"} {
		h := start(t, srv)
		h.initialize(version)
		for i, name := range names {
			h.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q}}`, i+1, name))
			line := []byte(h.recvLine())
			if !json.Valid(line) {
				t.Errorf("%s: the result of %q is not JSON: %s", version, name, line)
				continue
			}
			var m struct {
				ID     int
				Result struct {
					Content           []json.RawMessage
					StructuredContent json.RawMessage
					IsError           bool
				}
			}
			json.Unmarshal(line, &m)
			r := m.Result
			switch {
			case m.ID != i+1:
				t.Errorf("%s, %s: the answer to %d: %s", version, name, m.ID, line)
			case (name == "structured empty" || name == "structured blank") && r.StructuredContent != nil:
				t.Errorf("%s: empty structured content is sent: %s", version, line)
			case (name == "structured cut" || name == "structured text" || name == "structured two") &&
				(!r.IsError || !strings.Contains(string(line), "returned structured content that is not JSON")):
				t.Errorf("%s: structured content that is not JSON: %s", version, line)
			case name == "structured object" && version >= "2025-06-18" && string(r.StructuredContent) != `{"a":1}`:
				t.Errorf("%s: structured content: %s", version, line)
			}
		}
	}
	for _, sc := range []string{"", " ", "{\"a\":", "x"} {
		b, err := json.Marshal(&CallToolResult{StructuredContent: []byte(sc)})
		if err == nil && !json.Valid(b) {
			t.Errorf("MarshalJSON with structured content %q: %s", sc, b)
		}
		if want := strings.TrimSpace(sc) != ""; (err != nil) != want {
			t.Errorf("MarshalJSON with structured content %q: %s, %v", sc, b, err)
		}
	}
}
