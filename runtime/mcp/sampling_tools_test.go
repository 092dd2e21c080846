package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// weather is what the tool the model is offered, get_weather, says of a city.
var weather = map[string]string{"Paris": "18°C, partly cloudy", "London": "15°C, rainy"}

var getWeather = SamplingTool{Name: "get_weather", Description: "Get current weather for a city",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)}

// forecastTool asks the client's model about the weather in two cities and runs the tool
// loop: while the model uses get_weather, the server runs it and asks again with the
// results. Its text is the model's last answer; a refusal is reported as the error's
// capability and revision.
func forecastTool() Tool {
	return Tool{Name: "forecast", Description: "Asks the model, which uses a tool.", InputSchema: `{"type":"object"}`,
		Handler: func(ctx context.Context, c *ToolCall) {
			text, err := forecast(ctx)
			var capErr *ErrCapability
			switch {
			case errors.As(err, &capErr):
				c.ReturnError(fmt.Errorf("refused: %s@%s: %w", capErr.Capability, capErr.Revision, err))
			case err != nil:
				c.ReturnError(err)
			default:
				c.ReturnText(text)
			}
		}}
}

func forecast(ctx context.Context) (string, error) {
	req := &CreateMessageRequest{
		Messages:   []SamplingMessage{{Role: RoleUser, Content: Text{Text: "What's the weather like in Paris and London?"}}},
		Tools:      []SamplingTool{getWeather},
		ToolChoice: ToolChoiceAuto,
		MaxTokens:  1000,
	}
	for range 4 {
		res, err := Sample(ctx, req)
		if err != nil {
			return "", err
		}
		if res.StopReason != StopToolUse {
			return TextOf(res.Contents), nil
		}
		var results []Content
		for _, b := range res.Contents {
			if use, ok := b.(ToolUse); ok {
				var in struct{ City string }
				if err := json.Unmarshal(use.Input, &in); err != nil {
					return "", err
				}
				results = append(results, ToolResult{ToolUseID: use.ID, Content: []Content{Text{Text: in.City + ": " + weather[in.City]}}})
			}
		}
		req.Messages = append(req.Messages, SamplingMessage{Role: RoleAssistant, Contents: res.Contents}, SamplingMessage{Role: RoleUser, Contents: results})
	}
	return "", errors.New("the model kept using tools")
}

// weatherModel is a client's model that uses get_weather for both cities, then answers with
// what the results say; it keeps the requests it is given.
type weatherModel struct {
	mu   sync.Mutex
	seen []*CreateMessageRequest
}

func (m *weatherModel) sample(_ context.Context, req *CreateMessageRequest) (*CreateMessageResult, error) {
	m.mu.Lock()
	m.seen = append(m.seen, req)
	m.mu.Unlock()
	var results []string
	for _, b := range req.Messages[len(req.Messages)-1].Contents {
		if r, ok := b.(ToolResult); ok {
			results = append(results, TextOf(r.Content))
		}
	}
	if results == nil {
		return &CreateMessageResult{Contents: []Content{
			ToolUse{ID: "call_1", Name: "get_weather", Input: json.RawMessage(`{"city":"Paris"}`), Meta: json.RawMessage(`{"cache":"p1"}`)},
			ToolUse{ID: "call_2", Name: "get_weather", Input: json.RawMessage(`{"city":"London"}`)},
		}, Model: "m", StopReason: StopToolUse}, nil
	}
	return &CreateMessageResult{Content: Text{Text: strings.Join(results, "; ")}, Model: "m", StopReason: "endTurn"}, nil
}

// A server's tool runs a two-turn tool loop through Sample against mcpgen's client: in
// memory, over stdio and over Streamable HTTP, in a session of 2025-11-25 and in the
// stateless revision, where each question travels in an InputRequiredResult.
func TestSamplingWithTools(t *testing.T) {
	transports := map[string]func(t *testing.T, srv *Server) Transport{
		"memory": func(t *testing.T, srv *Server) Transport { return &MemoryTransport{Server: srv} },
		"stdio":  servePipes,
		"http": func(t *testing.T, srv *Server) Transport {
			return &StreamableHTTPTransport{URL: serveForClient(t, srv) + "/mcp", HTTPClient: &http.Client{Transport: &http.Transport{}}}
		},
	}
	for tname, transport := range transports {
		for _, version := range []string{"2025-11-25", StatelessProtocolVersion} {
			t.Run(tname+"/"+version, func(t *testing.T) {
				srv := quietServer(nil)
				srv.AddTool(forecastTool())
				model := &weatherModel{}
				pin := version
				if version == StatelessProtocolVersion {
					pin = "" // negotiated
				}
				c, err := Connect(t.Context(), transport(t, srv), &ClientOptions{ProtocolVersion: pin, Logger: quietLogger(),
					Sampling: model.sample, SamplingTools: true})
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				if got := c.Server().ProtocolVersion; got != version {
					t.Fatalf("speaking %s, want %s", got, version)
				}
				res, err := c.CallTool(t.Context(), "forecast", nil)
				if err != nil || res.IsError {
					t.Fatalf("forecast: %+v %v", res, err)
				}
				if got, want := TextOf(res.Content), "Paris: 18°C, partly cloudy; London: 15°C, rainy"; got != want {
					t.Errorf("forecast says %q, want %q", got, want)
				}
				checkWeatherTurns(t, model.seen)
			})
		}
	}
}

// checkWeatherTurns checks what the model was asked: the tool and the tool choice, then the
// history with its tool uses (their _meta as the model gave it) and their results.
func checkWeatherTurns(t *testing.T, seen []*CreateMessageRequest) {
	t.Helper()
	if len(seen) != 2 {
		t.Fatalf("the model was asked %d times, want 2", len(seen))
	}
	for i, req := range seen {
		if len(req.Tools) != 1 || req.Tools[0].Name != "get_weather" || req.Tools[0].Description != getWeather.Description ||
			string(req.Tools[0].InputSchema) != string(getWeather.InputSchema) || req.ToolChoice != ToolChoiceAuto {
			t.Errorf("request %d offers %+v, choice %q", i, req.Tools, req.ToolChoice)
		}
	}
	h := seen[1].Messages
	if len(h) != 3 || h[1].Role != RoleAssistant || h[2].Role != RoleUser || len(h[1].Contents) != 2 || len(h[2].Contents) != 2 {
		t.Fatalf("the second request's history: %+v", h)
	}
	use, _ := h[1].Contents[0].(ToolUse)
	if use.ID != "call_1" || use.Name != "get_weather" || string(use.Input) != `{"city":"Paris"}` || string(use.Meta) != `{"cache":"p1"}` {
		t.Errorf("the tool use came back as %#v", h[1].Contents[0])
	}
	if string(mustJSON(h[1].Content)) != string(mustJSON(h[1].Contents[0])) {
		t.Errorf("Content is not the first of Contents: %v", h[1].Content)
	}
	for i, id := range []string{"call_1", "call_2"} {
		if r, ok := h[2].Contents[i].(ToolResult); !ok || r.ToolUseID != id || r.IsError || len(r.Content) != 1 {
			t.Errorf("tool result %d: %#v", i, h[2].Contents[i])
		}
	}
}

// A client that did not declare sampling.tools is not sent tools: in a session the tool's
// Sample gets ErrCapability; in the stateless revision the request fails with
// MissingRequiredClientCapability, which names sampling.tools. A client of a revision
// before 2025-11-25 gets ErrCapability with its revision, whatever it declared.
func TestSamplingToolsNeedTheCapability(t *testing.T) {
	model := &weatherModel{}
	for _, tc := range []struct {
		version string
		tools   bool
		want    string
	}{
		{"2025-11-25", false, "refused: sampling.tools@: mcp: the client did not declare the sampling.tools capability"},
		{"2025-06-18", true, "refused: sampling.tools@2025-06-18: mcp: the client speaks protocol 2025-06-18, which has no sampling.tools capability"},
		{"2024-11-05", true, "refused: sampling.tools@2024-11-05: "},
	} {
		t.Run(tc.version, func(t *testing.T) {
			srv := quietServer(nil)
			srv.AddTool(forecastTool())
			c, err := Connect(t.Context(), &MemoryTransport{Server: srv}, &ClientOptions{ProtocolVersion: tc.version, Logger: quietLogger(),
				Sampling: model.sample, SamplingTools: tc.tools})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			res, err := c.CallTool(t.Context(), "forecast", nil)
			if err != nil || !res.IsError || !strings.HasPrefix(TextOf(res.Content), tc.want) {
				t.Errorf("forecast: %q %v, want %q", TextOf(res.Content), err, tc.want)
			}
		})
	}
	t.Run("stateless", func(t *testing.T) {
		srv := quietServer(nil)
		srv.AddTool(forecastTool())
		c, err := Connect(t.Context(), &MemoryTransport{Server: srv}, &ClientOptions{Logger: quietLogger(), Sampling: model.sample})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_, err = c.CallTool(t.Context(), "forecast", nil)
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != CodeMissingRequiredClientCapability || string(rpcErr.Data) != `{"requiredCapabilities":{"sampling":{"tools":{}}}}` {
			t.Errorf("forecast without sampling.tools: %#v", err)
		}
	})
	if len(model.seen) != 0 {
		t.Errorf("the model was asked %d times", len(model.seen))
	}
}

// Both kinds missing at once are said in one sampling member.
func TestMissingSamplingCapabilitiesAreOneMember(t *testing.T) {
	var rd round
	rd.lacking("sampling.context", "x")
	rd.lacking("sampling.tools", "y")
	if got := string(rd.missingCapability().Data); got != `{"requiredCapabilities":{"sampling":{"context":{},"tools":{}}}}` {
		t.Errorf("requiredCapabilities: %s", got)
	}
}

// Sample refuses what breaks the rules of tool use before it asks anyone.
func TestSampleChecksToolUse(t *testing.T) {
	text := func(s string) Content { return Text{Text: s} }
	use := func(id string) Content {
		return ToolUse{ID: id, Name: "get_weather", Input: json.RawMessage(`{"city":"Paris"}`)}
	}
	result := func(id string) Content { return ToolResult{ToolUseID: id, Content: []Content{text("18°C")}} }
	user := func(c ...Content) SamplingMessage { return SamplingMessage{Role: RoleUser, Contents: c} }
	assistant := func(c ...Content) SamplingMessage { return SamplingMessage{Role: RoleAssistant, Contents: c} }
	q := user(text("weather?"))
	for _, tc := range []struct {
		name  string
		req   CreateMessageRequest
		wants []string
	}{
		{"mixed", CreateMessageRequest{Messages: []SamplingMessage{q, assistant(use("a")), user(text("here:"), result("a"))}},
			[]string{"message 2 holds tool results and other content: a message with tool results holds only tool results"}},
		{"missing result", CreateMessageRequest{Messages: []SamplingMessage{q, assistant(use("a"), use("b")), user(result("a"))}},
			[]string{`message 2 does not answer tool use "b" of message 1`}},
		{"unknown result", CreateMessageRequest{Messages: []SamplingMessage{q, assistant(use("a")), user(result("a"), result("z"))}},
			[]string{`message 2 answers tool use "z", which message 1 does not make`}},
		{"not answered", CreateMessageRequest{Messages: []SamplingMessage{q, assistant(use("a")), user(text("and?"))}},
			[]string{"message 1's tool uses are not answered: message 2 must hold their results"}},
		{"last", CreateMessageRequest{Messages: []SamplingMessage{q, assistant(use("a"))}},
			[]string{"message 1's tool uses are not answered: a user message with their results must follow it"}},
		{"result without use", CreateMessageRequest{Messages: []SamplingMessage{user(result("a"))}},
			[]string{"message 0 holds tool results, and the message before it uses no tool"}},
		{"roles", CreateMessageRequest{Messages: []SamplingMessage{{Contents: []Content{use("a")}}, {Role: RoleAssistant, Contents: []Content{result("a")}}}},
			[]string{"message 0 uses a tool: that is the assistant's, and its role is user", "message 1 holds a tool result: that is the user's, and its role is assistant"}},
		{"use", CreateMessageRequest{Messages: []SamplingMessage{q, assistant(use("a"), use("a"), ToolUse{ID: "b"}, ToolUse{ID: "c", Name: "n", Input: json.RawMessage(`[1]`)}), user(result("a"), result("b"), result("c"))}},
			[]string{`message 1 has two tool uses with id "a"`, "message 1 has a tool use without an id or a name", `message 1: the input of tool use "c" is not a JSON object`}},
		{"result holds a tool use", CreateMessageRequest{Messages: []SamplingMessage{q, assistant(use("a")), user(ToolResult{ToolUseID: "a", Content: []Content{use("x")}})}},
			[]string{`message 2: the result of "a" holds [tool use get_weather {"city":"Paris"}]`}},
		{"tools", CreateMessageRequest{Messages: []SamplingMessage{q}, ToolChoice: "any",
			Tools: []SamplingTool{{Name: "a"}, {Name: "a", InputSchema: json.RawMessage(`{"type":"string"}`)}, {InputSchema: json.RawMessage(`{}`)}}},
			[]string{`two tools are named "a"`, `tool "a"'s input schema is not an object's`, "tool 2 has no name", `tool choice "any": it is auto, required or none`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.req.MaxTokens = 10
			_, err := Sample(context.Background(), &tc.req)
			if err == nil || !strings.HasPrefix(err.Error(), "mcp: sampling with tools: ") {
				t.Fatalf("Sample: %v", err)
			}
			for _, want := range tc.wants {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("Sample: %v\nwant it to say %q", err, want)
				}
			}
		})
	}
	// What keeps the rules passes them (and fails only for want of a request to serve).
	ok := CreateMessageRequest{Messages: []SamplingMessage{q, assistant(text("let me see"), use("a"), use("b")), user(result("b"), result("a"))},
		Tools: []SamplingTool{getWeather, {Name: "other"}}, ToolChoice: ToolChoiceNone, MaxTokens: 10}
	if _, err := Sample(context.Background(), &ok); err == nil || !strings.Contains(err.Error(), "needs the context of a request being served") {
		t.Errorf("a conversation that keeps the rules: %v", err)
	}
}

// The client refuses, with -32602, a request with tools it did not declare sampling.tools
// for and a conversation that breaks the rules of tool use, before its handler sees them;
// and a handler's answer that uses a tool the request did not offer is not sent.
func TestClientAnswersOfSamplingWithTools(t *testing.T) {
	model := &weatherModel{}
	client := func(tools bool) *Client {
		return &Client{opts: ClientOptions{Sampling: model.sample, SamplingTools: tools}, rev: rev20251125, server: ServerInfo{ProtocolVersion: "2025-11-25"}}
	}
	encode := func(req *CreateMessageRequest) []byte {
		var e jsonwire.Encoder
		req.encode(&e, dialect20251125)
		return e.Bytes()
	}
	q := SamplingMessage{Role: RoleUser, Content: Text{Text: "weather?"}}
	withTools := &CreateMessageRequest{Messages: []SamplingMessage{q}, Tools: []SamplingTool{getWeather}, MaxTokens: 10}

	var rpcErr *jsonrpc.Error
	if _, err := client(false).answerSampling(t.Context(), encode(withTools)); !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams ||
		!strings.Contains(rpcErr.Message, "did not declare sampling.tools") {
		t.Errorf("tools to a client without sampling.tools: %v", err)
	}
	// A conversation sent as the wire has it, tool results mixed with text.
	mixed := `{"messages":[{"role":"user","content":{"type":"text","text":"q"}},{"role":"assistant","content":{"type":"tool_use","id":"a","name":"get_weather","input":{}}},` +
		`{"role":"user","content":[{"type":"text","text":"here"},{"type":"tool_result","toolUseId":"a","content":[]}]}],"tools":[{"name":"get_weather","inputSchema":{"type":"object"}}],"maxTokens":10}`
	if _, err := client(true).answerSampling(t.Context(), []byte(mixed)); !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams ||
		!strings.Contains(rpcErr.Message, "a message with tool results holds only tool results") {
		t.Errorf("tool results mixed with text: %v", err)
	}
	if len(model.seen) != 0 {
		t.Fatalf("the handler saw %d refused requests", len(model.seen))
	}

	raw, err := client(true).answerSampling(t.Context(), encode(withTools))
	if err != nil || !strings.Contains(string(raw), `"content":[{"type":"tool_use","id":"call_1","name":"get_weather","input":{"city":"Paris"},"_meta":{"cache":"p1"}},`) ||
		!strings.Contains(string(raw), `"stopReason":"toolUse"`) {
		t.Errorf("the model's tool uses: %s %v", raw, err)
	}
	for _, req := range []*CreateMessageRequest{
		{Messages: []SamplingMessage{q}, MaxTokens: 10}, // no tools offered
		{Messages: []SamplingMessage{q}, Tools: []SamplingTool{{Name: "other"}}, MaxTokens: 10},
		{Messages: []SamplingMessage{q}, Tools: []SamplingTool{getWeather}, ToolChoice: ToolChoiceNone, MaxTokens: 10},
	} {
		if _, err := client(true).answerSampling(t.Context(), encode(req)); err == nil || !strings.HasPrefix(err.Error(), `mcp: the sampling handler's result: it uses tool "get_weather"`) ||
			strings.Count(err.Error(), "get_weather") != 1 {
			t.Errorf("a tool use the request does not allow (%+v): %v", req, err)
		}
	}
}

// Tool blocks are read where sampling has them, with what they lack reported; a tool's
// result (tools/call) has none.
func TestReadToolBlocks(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"type":"tool_use","name":"n"}`, "/id: missing required property; /input: missing required property"},
		{`{"type":"tool_use","id":"a","name":"n","input":"x"}`, `: input: expected object, got string`},
		{`{"type":"tool_result","content":[{"type":"tool_use","id":"a","name":"n","input":{}}]}`, `/content/0: content of type "tool_use", which only sampling messages have; /toolUseId: missing required property`},
		{`{"type":"tool_result","toolUseId":"a","isError":"yes"}`, ": isError: expected boolean, got string"},
	} {
		d := jsonwire.NewDecoder([]byte(tc.in))
		readBlock(d, true)
		if d.Finish(); !d.Failed() {
			t.Errorf("%s: read without a problem", tc.in)
			continue
		}
		var got []string
		for _, p := range d.Problems() {
			got = append(got, p.Path+": "+p.Message)
		}
		if strings.Join(got, "; ") != tc.want && !slices.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.in, got, tc.want)
		}
	}
	// A result without content is an empty one, as peers that default it send it; a text
	// block's members of other blocks are ignored, as before.
	for in, want := range map[string]Content{
		`{"type":"tool_result","toolUseId":"a","structuredContent":[1],"_meta":{"k":1}}`: ToolResult{ToolUseID: "a", StructuredContent: json.RawMessage(`[1]`), Meta: json.RawMessage(`{"k":1}`)},
		`{"type":"text","text":"t","id":7,"isError":"x"}`:                                Text{Text: "t"},
	} {
		d := jsonwire.NewDecoder([]byte(in))
		got := readBlock(d, true)
		if d.Finish(); d.Failed() {
			t.Errorf("%s: %s", in, d.Summary())
		} else if mustJSON(got) == nil || string(mustJSON(got)) != string(mustJSON(want)) {
			t.Errorf("%s read as %#v", in, got)
		}
	}
	if _, err := decodeContent([]byte(`{"type":"tool_use","id":"a","name":"n","input":{}}`)); err == nil || !strings.Contains(err.Error(), "only sampling messages have") {
		t.Errorf("a tool use in a tool's result: %v", err)
	}
}

// In a task (the tasks extension, 2026-07-28) the body waits for each answer: the model's
// tool uses and the second turn travel as the task's inputRequests, answered by tasks/update.
func TestSamplingWithToolsInATask(t *testing.T) {
	srv := quietServer(nil)
	tool := forecastTool()
	tool.Task = TaskRequired
	srv.AddTool(tool)
	t.Cleanup(func() { srv.Shutdown(context.Background()) })
	model := &weatherModel{}
	var mu sync.Mutex
	updates := 0
	trace := func(fromServer bool, msg []byte) {
		if !fromServer && strings.Contains(string(msg), `"method":"tasks/update"`) {
			mu.Lock()
			updates++
			mu.Unlock()
		}
	}
	c, err := Connect(t.Context(), &MemoryTransport{Server: srv}, &ClientOptions{Logger: quietLogger(), Sampling: model.sample, SamplingTools: true, Trace: trace})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.CallTool(t.Context(), "forecast", nil)
	if err != nil || res.IsError || TextOf(res.Content) != "Paris: 18°C, partly cloudy; London: 15°C, rainy" {
		t.Fatalf("forecast as a task: %+v %v", res, err)
	}
	checkWeatherTurns(t, model.seen)
	mu.Lock()
	defer mu.Unlock()
	if updates != 2 {
		t.Errorf("the client answered with %d tasks/update, want 2", updates)
	}
}
