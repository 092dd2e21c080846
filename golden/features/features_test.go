package features

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/mcptest"
)

func connect(t *testing.T, handlers map[string]mcptest.Handler) *mcptest.Client {
	srv := mcp.NewServer(mcp.Implementation{Name: "features", Version: "0"}, nil)
	RegisterMCP(srv, &Store{Files: map[string]string{"a/b.txt": "bee", "a/c.txt": "sea"}})
	return mcptest.ConnectWith(t, srv, mcptest.Options{Handlers: handlers})
}

func TestResources(t *testing.T) {
	c := connect(t, nil)
	for uri, want := range map[string]string{
		"docs://readme":          `[{"mimeType":"text/markdown","text":"# Features\n","uri":"docs://readme"}]`,
		"docs://logo.png":        `[{"blob":"iVBORw==","mimeType":"image/png","uri":"docs://logo.png"}]`,
		"search://all?sort=name": `[{"mimeType":"text/plain","text":"everything, by name","uri":"search://all?sort=name"}]`,
		"files://tree":           `[{"text":"a","uri":"files://tree/a"},{"text":"b","uri":"files://tree/b"}]`,
		"files://a/b.txt":        `[{"mimeType":"text/plain","text":"bee","uri":"files://a/b.txt"}]`,
		"items://book/7/true":    `[{"mimeType":"application/json","text":"{\"kind\":\"book\",\"id\":7,\"details\":true}","uri":"items://book/7/true"}]`,
		"stats://catalogue":      `[{"mimeType":"application/json","text":"{\"books\":2,\"movies\":1,\"newest\":{\"kind\":\"movie\",\"id\":3,\"details\":false},\"note\":\"say \\\"hi\\\"\"}","uri":"stats://catalogue"}]`,
		"stats://vendor":         `[{"mimeType":"application/vnd.features+json","text":"{\"books\":2,\"movies\":0}","uri":"stats://vendor"}]`,
		"shelf://books":          `[{"mimeType":"application/json","text":"[\"Dune\",\"Emma\"]","uri":"shelf://books"}]`,
	} {
		contents, rpcErr := c.ReadResource(uri)
		if rpcErr != nil {
			t.Errorf("%s: %v", uri, rpcErr)
			continue
		}
		if got, _ := json.Marshal(contents); string(got) != want {
			t.Errorf("%s:\n got %s\nwant %s", uri, got, want)
		}
	}
	for uri, want := range map[string]string{
		"items://song/7/true":   "/kind: must be one of",
		"items://book/0/true":   "/id: must be >= 1",
		"items://book/x/true":   "/id: expected integer, got string",
		"items://book/7/maybe":  "/details: expected boolean, got string",
		"items://book/2000/yes": "/details",
	} {
		_, rpcErr := c.ReadResource(uri)
		if rpcErr == nil || rpcErr.Code != -32602 || !strings.Contains(rpcErr.Message, want) {
			t.Errorf("%s: %v, want invalid params with %q", uri, rpcErr, want)
		}
	}
	if _, rpcErr := c.ReadResource("stats://missing"); rpcErr == nil || !strings.Contains(rpcErr.Message, "resource stats://missing returned a nil pointer") {
		t.Errorf("stats://missing: %v, want an error saying the pointer is nil", rpcErr)
	}
	if _, rpcErr := c.ReadResource("shelf://torn"); rpcErr == nil || !strings.Contains(rpcErr.Message, "resource shelf://torn: its MarshalJSON wrote invalid JSON") {
		t.Errorf("shelf://torn: %v, want an error saying its MarshalJSON wrote invalid JSON", rpcErr)
	}
	for _, uri := range []string{"items://book/2000/true", "files://nope", "docs://nothing"} {
		if _, rpcErr := c.ReadResource(uri); rpcErr == nil || rpcErr.Code != mcp.CodeResourceNotFound {
			t.Errorf("%s: %v, want resource not found", uri, rpcErr)
		}
	}
}

func TestPrompts(t *testing.T) {
	c := connect(t, nil)
	msgs, rpcErr := c.GetPrompt("code_review", map[string]string{"code": "x := 1", "language": "go", "focus": "style"})
	if rpcErr != nil {
		t.Fatal(rpcErr)
	}
	if got := msgs[0]["content"].(map[string]any)["text"]; got != "Review this go code, looking for style:\nx := 1" || msgs[0]["role"] != "user" {
		t.Errorf("code_review: %v", msgs)
	}
	for args, want := range map[string]string{
		`{"language":"go"}`:               `/code: missing required property`,
		`{"code":""}`:                     `/code: must be at least 1 character long`,
		`{"code":"x","language":"cobol"}`: `/language: must be one of "go", "python"`,
		`{"code":"x","tone":"kind"}`:      `/tone: unknown property`,
	} {
		var a map[string]string
		json.Unmarshal([]byte(args), &a)
		if _, rpcErr := c.GetPrompt("code_review", a); rpcErr == nil || rpcErr.Code != -32602 || !strings.Contains(rpcErr.Message, want) {
			t.Errorf("code_review %s: %v, want %q", args, rpcErr, want)
		}
	}
	if msgs, _ := c.GetPrompt("greeting", nil); len(msgs) != 1 || msgs[0]["role"] != "assistant" {
		t.Errorf("greeting: %v", msgs)
	}
	if msgs, _ := c.GetPrompt("conversation", nil); len(msgs) != 2 {
		t.Errorf("conversation: %v", msgs)
	}
	if _, rpcErr := c.GetPrompt("full", nil); rpcErr == nil || rpcErr.Code != -32603 || !strings.Contains(rpcErr.Message, "not today") {
		t.Errorf("full: %v, want an internal error with the function's error", rpcErr)
	}
	if _, rpcErr := c.GetPrompt("greeting", map[string]string{"x": "y"}); rpcErr == nil || rpcErr.Code != -32602 {
		t.Errorf("greeting with arguments: %v", rpcErr)
	}
}

func TestCompletions(t *testing.T) {
	c := connect(t, nil)
	got, rpcErr := c.Complete("resource:files://{+path}", "path", "a/")
	slices.Sort(got)
	if rpcErr != nil || !slices.Equal(got, []string{"a/b.txt", "a/c.txt"}) {
		t.Errorf("path completion: %v %v", got, rpcErr)
	}
	if got, _ := c.Complete("prompt:code_review", "focus", "s"); !slices.Equal(got, []string{"security", "style"}) {
		t.Errorf("focus completions: %v", got)
	}
	if got, _ := c.Complete("prompt:code_review", "language", "g"); !slices.Equal(got, []string{"go"}) {
		t.Errorf("language completion: %v", got)
	}
}

func TestElicitationForm(t *testing.T) {
	var schema json.RawMessage
	c := connect(t, map[string]mcptest.Handler{
		"elicitation/create": func(params json.RawMessage) (any, error) {
			var p struct {
				RequestedSchema json.RawMessage `json:"requestedSchema"`
			}
			json.Unmarshal(params, &p)
			schema = p.RequestedSchema
			return map[string]any{"action": "accept", "content": map[string]any{"name": "Ada", "topics": []string{"go", "rust"}, "theme": "light"}}, nil
		},
	})
	if got := c.CallTool("onboard", nil).Text(); got != "Ada likes [go rust]" {
		t.Errorf("onboard: %q", got)
	}
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	json.Unmarshal(schema, &s)
	if !slices.Equal(s.Required, []string{"name"}) || !strings.Contains(string(s.Properties["theme"]), `"oneOf"`) ||
		!strings.Contains(string(s.Properties["topics"]), `"enum":["go","rust","haskell"]`) {
		t.Errorf("requested schema %s", schema)
	}
}

func TestFormOfTypeElicitedFromGenericCode(t *testing.T) {
	c := connect(t, map[string]mcptest.Handler{
		"elicitation/create": func(params json.RawMessage) (any, error) {
			if !strings.Contains(string(params), `"agree":{"type":"boolean","description":"Agree to the terms."}`) {
				t.Errorf("requested schema: %s", params)
			}
			return map[string]any{"action": "accept", "content": map[string]any{"agree": true}}, nil
		},
	})
	if got := c.CallTool("ask_consent", nil).Text(); got != "agree=true" {
		t.Errorf("ask_consent: %q", got)
	}
}

func TestDeclaredSchemaArgument(t *testing.T) {
	c := connect(t, nil)
	if got := c.CallTool("span", map[string]any{"from": 2, "to": 5}).Text(); got != "3" {
		t.Errorf("span: %q", got)
	}
	res := c.CallTool("span", map[string]any{"from": 5, "to": 2})
	if !res.IsError || !strings.Contains(res.Text(), "/to: must not be less than /from") {
		t.Errorf("span with from > to: %+v", res)
	}
	res = c.CallTool("span", map[string]any{"from": "x"})
	if !res.IsError {
		t.Errorf("span with a string: %+v", res)
	}
	if got := c.CallTool("midpoint", map[string]any{"from": 2, "to": 6}).Text(); got != "4" {
		t.Errorf("midpoint: %q", got)
	}
	if res := c.CallTool("midpoint", map[string]any{"from": 6, "to": 2}); !res.IsError || !strings.Contains(res.Text(), "/to: must not be less than /from") {
		t.Errorf("midpoint with from > to: %+v", res)
	}
}

// A body that asks the client is written once: in a session its questions are
// requests to the client; in revision 2026-07-28 they come back as an InputRequiredResult
// and the body runs again with the answers.
func TestBodiesServeBothEras(t *testing.T) {
	handlers := map[string]mcptest.Handler{
		"elicitation/create": func(params json.RawMessage) (any, error) {
			if strings.Contains(string(params), `"agree"`) {
				return map[string]any{"action": "accept", "content": map[string]any{"agree": true}}, nil
			}
			return map[string]any{"action": "accept", "content": map[string]any{"name": "Ada", "topics": []string{"go"}, "theme": "dark"}}, nil
		},
	}
	for _, version := range []string{"2025-11-25", mcp.StatelessProtocolVersion} {
		srv := mcp.NewServer(mcp.Implementation{Name: "features", Version: "0"}, nil)
		RegisterMCP(srv, &Store{Files: map[string]string{}})
		c := mcptest.ConnectWith(t, srv, mcptest.Options{ProtocolVersion: version, Handlers: handlers})
		if got := c.CallTool("onboard", nil).Text(); got != "Ada likes [go]" {
			t.Errorf("%s: onboard: %q", version, got)
		}
		if got := c.CallTool("ask_consent", nil).Text(); got != "agree=true" {
			t.Errorf("%s: ask_consent: %q", version, got)
		}
		if stateless := version == mcp.StatelessProtocolVersion; stateless != (c.InputRounds == 2) {
			t.Errorf("%s: %d input rounds", version, c.InputRounds)
		}
	}
}

// icon= options reach the client whole, on the tool, the resource and the prompt that have
// them.
func TestIcons(t *testing.T) {
	c := connect(t, nil)
	for _, tc := range []struct{ method, list, name, want string }{
		{"tools/list", "tools", "export", `[{"mimeType":"image/png","sizes":["48x48","96x96"],"src":"https://example.com/export.png","theme":"light"},{"sizes":["any"],"src":"https://example.com/export-dark.svg","theme":"dark"}]`},
		{"resources/list", "resources", "logo", `[{"sizes":["16x16"],"src":"data:image/png;base64,iVBORw0KGgo="}]`},
		{"prompts/list", "prompts", "code_review", `[{"src":"https://example.com/review.svg"}]`},
	} {
		raw, rpcErr := c.Request(tc.method, map[string]any{})
		if rpcErr != nil {
			t.Fatalf("%s: %v", tc.method, rpcErr)
		}
		var page map[string][]map[string]json.RawMessage
		if err := json.Unmarshal(raw, &page); err != nil {
			t.Fatal(err)
		}
		found := false
		for _, item := range page[tc.list] {
			if string(item["name"]) == `"`+tc.name+`"` {
				found = true
				var icons any
				json.Unmarshal(item["icons"], &icons)
				if got, _ := json.Marshal(icons); string(got) != tc.want {
					t.Errorf("%s %s icons:\n got %s\nwant %s", tc.list, tc.name, got, tc.want)
				}
			}
		}
		if !found {
			t.Errorf("%s lists no %s", tc.method, tc.name)
		}
	}
}
