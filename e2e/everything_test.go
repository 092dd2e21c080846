package e2e

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestEverything walks every feature of examples/everything as a client would, over stdio
// and over Streamable HTTP: the two transports must offer the same. Every message the
// server sends is checked against the 2025-11-25 schema.
func TestEverything(t *testing.T) {
	for _, tc := range transportsOf(everythingBin) {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := &walker{t: t}
			w.c = newClient(t, tc.start(t), "2025-11-25", w.handlers())
			w.run()
		})
	}
}

// walker holds what the client's handlers saw and say.
type walker struct {
	t *testing.T
	c *mcpClient

	mu          sync.Mutex
	sampled     []map[string]any // sampling/createMessage params
	elicited    []map[string]any // elicitation/create params
	elicitReply map[string]any   // the next elicitation answer
}

func (w *walker) handlers() map[string]func(map[string]any) (any, error) {
	return map[string]func(map[string]any) (any, error){
		"sampling/createMessage": func(p map[string]any) (any, error) {
			w.mu.Lock()
			w.sampled = append(w.sampled, p)
			w.mu.Unlock()
			return map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": "four"}, "model": "test-model", "stopReason": "endTurn"}, nil
		},
		"elicitation/create": func(p map[string]any) (any, error) {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.elicited = append(w.elicited, p)
			if w.elicitReply == nil {
				return nil, errors.New("no answer prepared")
			}
			return w.elicitReply, nil
		},
		"roots/list": func(map[string]any) (any, error) {
			return map[string]any{"roots": []any{
				map[string]any{"uri": "file:///home/user/project", "name": "project"},
				map[string]any{"uri": "file:///tmp"},
			}}, nil
		},
	}
}

func (w *walker) run() {
	for _, step := range []struct {
		name string
		fn   func()
	}{
		{"initialize", w.initialize},
		{"lists", w.lists},
		{"content", w.content},
		{"logging", w.logging},
		{"progress", w.progress},
		{"sampling", w.sampling},
		{"elicitation", w.elicitation},
		{"roots", w.roots},
		{"resources", w.resources},
		{"subscriptions", w.subscriptions},
		{"prompts", w.prompts},
		{"completions", w.completions},
		{"declared schema", w.declaredSchema},
		{"cancellation", w.cancellation},
	} {
		if w.t.Failed() {
			return
		}
		w.t.Logf("step %s", step.name)
		step.fn()
	}
}

func (w *walker) initialize() {
	res := w.c.initialize(map[string]any{"sampling": map[string]any{}, "elicitation": map[string]any{"form": map[string]any{}}, "roots": map[string]any{"listChanged": true}})
	caps, _ := json.Marshal(res["capabilities"])
	for _, want := range []string{`"tools":{"listChanged":true}`, `"resources":{"listChanged":true,"subscribe":true}`, `"prompts":{"listChanged":true}`, `"completions":{}`, `"logging":{}`} {
		if !strings.Contains(string(caps), want) {
			w.t.Errorf("capabilities %s lack %s", caps, want)
		}
	}
	if res["protocolVersion"] != "2025-11-25" {
		w.t.Errorf("protocolVersion %v", res["protocolVersion"])
	}
	if ping := w.c.must("ping", nil); len(ping) != 0 {
		w.t.Errorf("ping result %v, want {}", ping)
	}
}

func names(list []any, key string) []string {
	var out []string
	for _, x := range list {
		out = append(out, x.(map[string]any)[key].(string))
	}
	return out
}

func (w *walker) lists() {
	tools := w.c.must("tools/list", nil)["tools"].([]any)
	got := names(tools, "name")
	for _, want := range []string{"json_schema_2020_12_tool", "test_audio_content", "test_elicitation", "test_elicitation_sep1034_defaults",
		"test_elicitation_sep1330_enums", "test_embedded_resource", "test_error_handling", "test_image_content", "test_multiple_content_types",
		"test_reconnection", "test_roots", "test_sampling", "test_simple_text", "test_slow", "test_tool_with_logging", "test_tool_with_progress", "update_watched_resource"} {
		if !slices.Contains(got, want) {
			w.t.Errorf("tools/list lacks %s: %v", want, got)
		}
	}
	if !slices.IsSorted(got) {
		w.t.Errorf("tools/list is not in a stable (sorted) order: %v", got)
	}
	for _, tool := range tools {
		if tool.(map[string]any)["description"] == "" {
			w.t.Errorf("tool without a description: %v", tool)
		}
	}
	if got := names(w.c.must("resources/list", nil)["resources"].([]any), "uri"); !slices.Equal(got, []string{"test://static-binary", "test://static-text", "test://watched-resource"}) {
		w.t.Errorf("resources/list: %v", got)
	}
	templates := w.c.must("resources/templates/list", nil)["resourceTemplates"].([]any)
	if got := names(templates, "uriTemplate"); !slices.Equal(got, []string{"test://template/{id}/data"}) {
		w.t.Errorf("resources/templates/list: %v", got)
	}
	if got := names(w.c.must("prompts/list", nil)["prompts"].([]any), "name"); !slices.Equal(got, []string{"test_input_required_result_prompt", "test_prompt_with_arguments", "test_prompt_with_embedded_resource", "test_prompt_with_image", "test_simple_prompt"}) {
		w.t.Errorf("prompts/list: %v", got)
	}
	if _, err := w.c.call("tools/list", map[string]any{"cursor": "not a cursor"}); err == nil || err["code"] != float64(-32602) {
		w.t.Errorf("a bad cursor gave %v, want -32602", err)
	}
}

// callTool calls a tool and returns its result.
func (w *walker) callTool(name string, args map[string]any) map[string]any {
	w.t.Helper()
	params := map[string]any{"name": name}
	if args != nil {
		params["arguments"] = args
	}
	return w.c.must("tools/call", params)
}

func blocks(res map[string]any) []map[string]any {
	var out []map[string]any
	for _, b := range res["content"].([]any) {
		out = append(out, b.(map[string]any))
	}
	return out
}

func text(t *testing.T, res map[string]any) string {
	t.Helper()
	b := blocks(res)
	if len(b) == 0 || b[0]["type"] != "text" {
		t.Fatalf("want a text block, got %v", res)
	}
	return b[0]["text"].(string)
}

func decodeBase64(t *testing.T, s any) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s.(string))
	if err != nil {
		t.Fatalf("not base64: %v", err)
	}
	return b
}

func (w *walker) content() {
	t := w.t
	if got := text(t, w.callTool("test_simple_text", nil)); got != "This is a simple text response for testing." {
		t.Errorf("simple text: %q", got)
	}
	img := blocks(w.callTool("test_image_content", map[string]any{}))[0]
	if img["type"] != "image" || img["mimeType"] != "image/png" || !bytes.HasPrefix(decodeBase64(t, img["data"]), []byte("\x89PNG")) {
		t.Errorf("image: %v", img)
	}
	audio := blocks(w.callTool("test_audio_content", map[string]any{}))[0]
	if audio["type"] != "audio" || audio["mimeType"] != "audio/wav" || !bytes.HasPrefix(decodeBase64(t, audio["data"]), []byte("RIFF")) {
		t.Errorf("audio: %v", audio)
	}
	emb := blocks(w.callTool("test_embedded_resource", map[string]any{}))[0]
	if r, _ := emb["resource"].(map[string]any); emb["type"] != "resource" || r["uri"] != "test://embedded-resource" || r["text"] != "This is an embedded resource content." {
		t.Errorf("embedded resource: %v", emb)
	}
	var types []string
	for _, b := range blocks(w.callTool("test_multiple_content_types", map[string]any{})) {
		types = append(types, b["type"].(string))
	}
	if strings.Join(types, ",") != "text,image,resource" {
		t.Errorf("mixed content types: %v", types)
	}
	res := w.callTool("test_error_handling", map[string]any{})
	if res["isError"] != true || text(t, res) != "This tool intentionally returns an error for testing" {
		t.Errorf("error tool: %v", res)
	}
	// Arguments that break the schema are a tool error naming the field, not a protocol error.
	res = w.callTool("test_sampling", map[string]any{"prompt": 42})
	if res["isError"] != true || !strings.Contains(text(t, res), "/prompt") {
		t.Errorf("bad arguments: %v", res)
	}
	if _, err := w.c.call("tools/call", map[string]any{"name": "no_such_tool"}); err == nil || err["code"] != float64(-32602) {
		t.Errorf("unknown tool gave %v, want -32602", err)
	}
}

func (w *walker) logging() {
	t := w.t
	w.c.must("logging/setLevel", map[string]any{"level": "warning"})
	w.callTool("test_tool_with_logging", map[string]any{})
	time.Sleep(100 * time.Millisecond)
	if n := w.c.takeNotifications("notifications/message"); len(n) != 0 {
		t.Errorf("info messages sent at level warning: %v", n)
	}
	if res := w.c.must("logging/setLevel", map[string]any{"level": "debug"}); len(res) != 0 {
		t.Errorf("setLevel result %v, want {}", res)
	}
	if got := text(t, w.callTool("test_tool_with_logging", map[string]any{})); got != "Tool with logging executed successfully" {
		t.Errorf("logging tool: %q", got)
	}
	// Messages about a request arrive before its response.
	var data []string
	for _, n := range w.c.takeNotifications("notifications/message") {
		p := n["params"].(map[string]any)
		if p["level"] != "info" {
			t.Errorf("level %v", p["level"])
		}
		data = append(data, p["data"].(string))
	}
	if strings.Join(data, "|") != "Tool execution started|Tool processing data|Tool execution completed" {
		t.Errorf("log messages %q", data)
	}
	if _, err := w.c.call("logging/setLevel", map[string]any{"level": "loud"}); err == nil || err["code"] != float64(-32602) {
		t.Errorf("bad level gave %v, want -32602", err)
	}
}

func (w *walker) progress() {
	t := w.t
	w.c.must("tools/call", map[string]any{"name": "test_tool_with_progress", "arguments": map[string]any{}, "_meta": map[string]any{"progressToken": "progress-test-1"}})
	ns := w.c.takeNotifications("notifications/progress")
	if len(ns) != 3 {
		t.Fatalf("%d progress notifications before the response, want 3", len(ns))
	}
	last := -1.0
	for _, n := range ns {
		p := n["params"].(map[string]any)
		if p["progressToken"] != "progress-test-1" || p["total"] != 100.0 || p["progress"].(float64) <= last {
			t.Errorf("progress %v", p)
		}
		last = p["progress"].(float64)
	}
	// Without a token, no progress is reported.
	w.callTool("test_tool_with_progress", map[string]any{})
	if ns := w.c.takeNotifications("notifications/progress"); len(ns) != 0 {
		t.Errorf("progress without a token: %v", ns)
	}
}

func (w *walker) sampling() {
	t := w.t
	if got := text(t, w.callTool("test_sampling", map[string]any{"prompt": "What is 2+2?"})); got != "LLM response: four" {
		t.Errorf("sampling result %q", got)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.sampled) != 1 {
		t.Fatalf("%d sampling requests, want 1", len(w.sampled))
	}
	p := w.sampled[0]
	msg := p["messages"].([]any)[0].(map[string]any)
	if msg["role"] != "user" || msg["content"].(map[string]any)["text"] != "What is 2+2?" || p["maxTokens"] != 100.0 {
		t.Errorf("sampling request %v", p)
	}
}

func (w *walker) elicit(tool string, args map[string]any, reply map[string]any) (string, map[string]any) {
	w.t.Helper()
	w.mu.Lock()
	w.elicitReply = reply
	w.elicited = nil
	w.mu.Unlock()
	res := w.callTool(tool, args)
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.elicited) != 1 {
		w.t.Fatalf("%s: %d elicitation requests, want 1", tool, len(w.elicited))
	}
	out := text(w.t, res)
	if res["isError"] == true {
		out = "error: " + out
	}
	return out, w.elicited[0]
}

func (w *walker) elicitation() {
	t := w.t
	got, req := w.elicit("test_elicitation", map[string]any{"message": "Who are you?"},
		map[string]any{"action": "accept", "content": map[string]any{"username": "ada", "email": "ada@example.com"}})
	if got != `User response: action=accept, content={"username":"ada","email":"ada@example.com"}` {
		t.Errorf("accepted elicitation: %q", got)
	}
	schema, _ := json.Marshal(req["requestedSchema"])
	if req["message"] != "Who are you?" || req["mode"] != "form" ||
		string(schema) != `{"properties":{"email":{"description":"User's email address","format":"email","type":"string"},"username":{"description":"User's response","type":"string"}},"required":["username","email"],"type":"object"}` {
		t.Errorf("elicitation request %v %s", req, schema)
	}
	if got, _ := w.elicit("test_elicitation", map[string]any{"message": "?"}, map[string]any{"action": "decline"}); got != "User response: action=decline" {
		t.Errorf("declined elicitation: %q", got)
	}
	// An answer that does not fit the form is the tool's error, naming the field.
	got, _ = w.elicit("test_elicitation", map[string]any{"message": "?"}, map[string]any{"action": "accept", "content": map[string]any{"email": "x@y"}})
	if !strings.HasPrefix(got, "error: ") || !strings.Contains(got, "username") {
		t.Errorf("answer without username: %q", got)
	}

	_, req = w.elicit("test_elicitation_sep1034_defaults", map[string]any{}, map[string]any{"action": "cancel"})
	props := req["requestedSchema"].(map[string]any)["properties"].(map[string]any)
	for name, want := range map[string]string{
		"name": `{"default":"John Doe","description":"User name","type":"string"}`, "age": `{"default":30,"description":"User age","maximum":150,"minimum":0,"type":"integer"}`,
		"score": `{"default":95.5,"description":"User score","maximum":100,"minimum":0,"type":"number"}`, "status": `{"default":"active","description":"User status","enum":["active","inactive","pending"],"type":"string"}`,
		"verified": `{"default":true,"description":"Verification status","type":"boolean"}`,
	} {
		if got, _ := json.Marshal(props[name]); string(got) != want {
			t.Errorf("defaults form, %s: %s, want %s", name, got, want)
		}
	}

	got, req = w.elicit("test_elicitation_sep1330_enums", map[string]any{}, map[string]any{"action": "accept", "content": map[string]any{
		"untitledSingle": "option1", "titledSingle": "value1", "legacyEnum": "opt1", "untitledMulti": []any{"option1", "option2"}, "titledMulti": []any{"value1", "value2"}}})
	if !strings.HasPrefix(got, "Elicitation completed: action=accept") {
		t.Errorf("enum form answer: %q", got)
	}
	props = req["requestedSchema"].(map[string]any)["properties"].(map[string]any)
	for name, want := range map[string]string{
		"untitledSingle": `"enum":["option1","option2","option3"]`,
		"titledSingle":   `"oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]`,
		"legacyEnum":     `"enumNames":["Option One","Option Two","Option Three"]`,
		"untitledMulti":  `"items":{"enum":["option1","option2","option3"],"type":"string"}`,
		"titledMulti":    `"items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}`,
	} {
		if got, _ := json.Marshal(props[name]); !strings.Contains(string(got), want) {
			t.Errorf("enum form, %s: %s lacks %s", name, got, want)
		}
	}
	// A value outside the enum is refused.
	got, _ = w.elicit("test_elicitation_sep1330_enums", map[string]any{}, map[string]any{"action": "accept", "content": map[string]any{"titledSingle": "value9"}})
	if !strings.HasPrefix(got, "error: ") || !strings.Contains(got, "/titledSingle") {
		t.Errorf("answer outside the enum: %q", got)
	}
}

func (w *walker) roots() {
	if got := text(w.t, w.callTool("test_roots", nil)); got != "2 roots\nfile:///home/user/project project\nfile:///tmp " {
		w.t.Errorf("roots: %q", got)
	}
}

func (w *walker) read(uri string) map[string]any {
	w.t.Helper()
	return w.c.must("resources/read", map[string]any{"uri": uri})["contents"].([]any)[0].(map[string]any)
}

func (w *walker) resources() {
	t := w.t
	if c := w.read("test://static-text"); c["mimeType"] != "text/plain" || c["text"] != "This is the content of the static text resource." {
		t.Errorf("static text: %v", c)
	}
	if c := w.read("test://static-binary"); c["mimeType"] != "image/png" || !bytes.HasPrefix(decodeBase64(t, c["blob"]), []byte("\x89PNG")) {
		t.Errorf("static binary: %v", c)
	}
	if c := w.read("test://template/123/data"); c["uri"] != "test://template/123/data" || c["mimeType"] != "application/json" ||
		c["text"] != `{"id":"123","templateTest":true,"data":"Data for ID: 123"}` {
		t.Errorf("template: %v", c)
	}
	// The template's id is an integer of at least 1: other values are invalid params.
	for _, uri := range []string{"test://template/abc/data", "test://template/0/data"} {
		if _, err := w.c.call("resources/read", map[string]any{"uri": uri}); err == nil || err["code"] != float64(-32602) || !strings.Contains(err["message"].(string), "/id") {
			t.Errorf("%s gave %v, want -32602 naming /id", uri, err)
		}
	}
	_, err := w.c.call("resources/read", map[string]any{"uri": "test://nothing"})
	if err == nil || err["code"] != float64(-32002) || err["data"].(map[string]any)["uri"] != "test://nothing" {
		t.Errorf("unknown resource gave %v, want -32002 with data.uri", err)
	}
}

func (w *walker) subscriptions() {
	t := w.t
	w.c.must("resources/subscribe", map[string]any{"uri": "test://watched-resource"})
	w.callTool("update_watched_resource", map[string]any{"text": "changed"})
	if n := w.c.waitNotification("notifications/resources/updated"); n["params"].(map[string]any)["uri"] != "test://watched-resource" {
		t.Errorf("updated: %v", n)
	}
	if c := w.read("test://watched-resource"); c["text"] != "changed" {
		t.Errorf("watched resource after the update: %v", c)
	}
	w.c.must("resources/unsubscribe", map[string]any{"uri": "test://watched-resource"})
	w.callTool("update_watched_resource", map[string]any{"text": "again"})
	time.Sleep(200 * time.Millisecond)
	if n := w.c.takeNotifications("notifications/resources/updated"); len(n) != 0 {
		t.Errorf("notified after unsubscribing: %v", n)
	}
}

func (w *walker) prompts() {
	t := w.t
	msgs := func(res map[string]any) []map[string]any {
		var out []map[string]any
		for _, m := range res["messages"].([]any) {
			out = append(out, m.(map[string]any))
		}
		return out
	}
	m := msgs(w.c.must("prompts/get", map[string]any{"name": "test_simple_prompt"}))
	if len(m) != 1 || m[0]["role"] != "user" || m[0]["content"].(map[string]any)["text"] != "This is a simple prompt for testing." {
		t.Errorf("simple prompt: %v", m)
	}
	m = msgs(w.c.must("prompts/get", map[string]any{"name": "test_prompt_with_arguments", "arguments": map[string]any{"arg1": "hello", "arg2": "world"}}))
	if got := m[0]["content"].(map[string]any)["text"]; got != "Prompt with arguments: arg1='hello', arg2='world'" {
		t.Errorf("prompt with arguments: %q", got)
	}
	m = msgs(w.c.must("prompts/get", map[string]any{"name": "test_prompt_with_embedded_resource", "arguments": map[string]any{"resourceUri": "test://example-resource"}}))
	if c := m[0]["content"].(map[string]any); c["type"] != "resource" || c["resource"].(map[string]any)["uri"] != "test://example-resource" {
		t.Errorf("prompt with embedded resource: %v", m)
	}
	m = msgs(w.c.must("prompts/get", map[string]any{"name": "test_prompt_with_image"}))
	if c := m[0]["content"].(map[string]any); c["type"] != "image" || c["mimeType"] != "image/png" {
		t.Errorf("prompt with image: %v", m)
	}
	var args []any
	for _, p := range w.c.must("prompts/list", nil)["prompts"].([]any) {
		if p := p.(map[string]any); p["name"] == "test_prompt_with_arguments" {
			args, _ = p["arguments"].([]any)
		}
	}
	if len(args) == 0 {
		t.Fatalf("test_prompt_with_arguments lists no arguments")
	}
	if a := args[0].(map[string]any); a["name"] != "arg1" || a["required"] != true || a["description"] != "First test argument" {
		t.Errorf("prompt argument %v", a)
	}
	for _, bad := range []map[string]any{
		{"name": "test_prompt_with_arguments", "arguments": map[string]any{"arg1": "only one"}},
		{"name": "test_prompt_with_arguments", "arguments": map[string]any{"arg1": "a", "arg2": "b", "arg3": "c"}},
		{"name": "no_such_prompt"},
	} {
		if _, err := w.c.call("prompts/get", bad); err == nil || err["code"] != float64(-32602) {
			t.Errorf("prompts/get %v gave %v, want -32602", bad, err)
		}
	}
}

func (w *walker) completions() {
	t := w.t
	complete := func(ref map[string]any, arg, value string) []string {
		res := w.c.must("completion/complete", map[string]any{"ref": ref, "argument": map[string]any{"name": arg, "value": value}})
		var out []string
		for _, v := range res["completion"].(map[string]any)["values"].([]any) {
			out = append(out, v.(string))
		}
		return out
	}
	if got := complete(map[string]any{"type": "ref/prompt", "name": "test_prompt_with_arguments"}, "arg1", "pa"); !slices.Equal(got, []string{"paris", "park", "party"}) {
		t.Errorf("prompt completion: %v", got)
	}
	if got := complete(map[string]any{"type": "ref/prompt", "name": "test_prompt_with_arguments"}, "arg2", "x"); len(got) != 0 {
		t.Errorf("argument without completions: %v", got)
	}
	if got := complete(map[string]any{"type": "ref/resource", "uri": "test://template/{id}/data"}, "id", "12"); !slices.Equal(got, []string{"12", "123", "1234"}) {
		t.Errorf("template completion: %v", got)
	}
	if _, err := w.c.call("completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "nope"}, "argument": map[string]any{"name": "a", "value": ""}}); err == nil || err["code"] != float64(-32602) {
		t.Errorf("completion of an unknown prompt gave %v", err)
	}
}

func (w *walker) declaredSchema() {
	t := w.t
	var schema map[string]any
	for _, tool := range w.c.must("tools/list", nil)["tools"].([]any) {
		if tool.(map[string]any)["name"] == "json_schema_2020_12_tool" {
			schema = tool.(map[string]any)["inputSchema"].(map[string]any)
		}
	}
	if schema["$schema"] != "https://json-schema.org/draft/2020-12/schema" || schema["if"] == nil || schema["$defs"].(map[string]any)["address"] == nil {
		t.Errorf("declared schema not served as declared: %v", schema)
	}
	if got := text(t, w.callTool("json_schema_2020_12_tool", map[string]any{"name": "Ada", "email": "ada@example.com"})); got != "Saved contact Ada" {
		t.Errorf("declared-schema tool: %q", got)
	}
	res := w.callTool("json_schema_2020_12_tool", map[string]any{"name": "Ada", "contactMethod": "phone", "email": "ada@example.com"})
	if res["isError"] != true || !strings.Contains(text(t, res), "/phone") {
		t.Errorf("the declared schema's if/then was not enforced: %v", res)
	}
}

func (w *walker) cancellation() {
	t := w.t
	c := w.c
	id, ch := c.register("tools/call")
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{
		"name": "test_slow", "arguments": map[string]any{"milliseconds": 60000}, "_meta": map[string]any{"progressToken": 9}}})
	sent := make(chan error, 1)
	go func() { sent <- c.tr.send(b) }() // over HTTP, the POST lasts as long as the call
	w.c.waitNotification("notifications/progress")
	c.notify("notifications/cancelled", map[string]any{"requestId": id, "reason": "test"})
	select {
	case m := <-ch:
		t.Errorf("a cancelled request was answered: %v", m)
	case <-time.After(500 * time.Millisecond):
	}
	select {
	case err := <-sent:
		if err != nil {
			t.Errorf("sending the cancelled request: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Error("the cancelled request's POST did not end")
	}
	// The server goes on serving.
	if res := c.must("ping", nil); len(res) != 0 {
		t.Errorf("ping after cancel: %v", res)
	}
}
