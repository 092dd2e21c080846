package mcpfunc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

type weatherInput struct {
	City  string   `json:"city" jsonschema:"minLength=1,description=The city"`
	Units string   `json:"units,omitempty" jsonschema:"enum=metric,enum=imperial"`
	Days  int8     `json:"days,omitempty" jsonschema:"minimum=1,maximum=7"`
	Hour  *uint8   `json:"hour"` // a pointer: optional; the type bounds it
	Tags  []string `json:"tags,omitempty"`
}

type weatherReport struct {
	City    string   `json:"city"`
	Celsius float64  `json:"celsius" jsonschema:"minimum=-90,maximum=60"`
	Notes   []string `json:"notes"` // nil is null, which the output schema allows
}

func weather(ctx context.Context, in weatherInput) (weatherReport, error) {
	switch in.City {
	case "Atlantis":
		return weatherReport{}, errors.New("no weather under the sea")
	case "Venus":
		return weatherReport{City: in.City, Celsius: 464}, nil // breaks the output schema
	case "Panic":
		panic("the forecast panicked")
	}
	return weatherReport{City: in.City, Celsius: 21.5}, nil
}

// callFunc calls a tool in process and returns its result.
func callFunc(t *testing.T, s *mcp.Server, ctx context.Context, name, args string) (res struct {
	Content []struct {
		Type, Text string
	}
	StructuredContent json.RawMessage
	IsError           bool
}) {
	t.Helper()
	var raw []byte
	var err error
	if args == "" {
		raw, err = s.CallTool(ctx, name, nil) // no arguments
	} else {
		raw, err = s.CallTool(ctx, name, []byte(args))
	}
	if err != nil {
		t.Fatalf("%s %s: %v", name, args, err)
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("%s: %v\n%s", name, err, raw)
	}
	return res
}

func text(res struct {
	Content []struct {
		Type, Text string
	}
	StructuredContent json.RawMessage
	IsError           bool
}) string {
	var parts []string
	for _, c := range res.Content {
		parts = append(parts, c.Text)
	}
	return strings.Join(parts, "|")
}

func TestAddToolCalls(t *testing.T) {
	s := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"}, &mcp.ServerOptions{Logger: quietLogger()})
	AddTool(s, mcp.Tool{Name: "weather", Description: "The weather in a city.", Annotations: mcp.ToolAnnotations{ReadOnlyHint: mcp.Ptr(true)}}, weather)

	// Structured output: structuredContent, and the same JSON as text.
	res := callFunc(t, s, context.Background(), "weather", `{"city":"Lisbon","units":"metric","hour":23}`)
	if res.IsError || string(res.StructuredContent) != `{"city":"Lisbon","celsius":21.5,"notes":null}` || text(res) != string(res.StructuredContent) {
		t.Errorf("a good call: %+v", res)
	}

	// Bad arguments: an error result naming every property at fault, in generated code's
	// words.
	for args, want := range map[string][]string{
		`{}`:                              {"/city: missing required property"},
		`{"city":""}`:                     {"/city: must be at least 1 character long"},
		`{"city":"x","units":"kelvin"}`:   {`/units: must be one of "metric", "imperial"`},
		`{"city":"x","days":8,"hour":-1}`: {"/days: must be <= 7", "/hour: must be >= 0"},
		`{"city":"x","hour":256}`:         {"/hour: must be <= 255"},
		`{"city":"x","extra":1}`:          {`/extra: unknown property; expected one of "city", "units", "days", "hour", "tags"`},
		`{"city":"x","tags":[1]}`:         {"/tags/0: expected string, got number"},
		`{"city":1}`:                      {"/city: expected string, got number"},
		`{"city":"x","hour":1.5}`:         {"/hour: expected integer, got 1.5"},
		`{"city":"x","units":null}`:       {"/units: must not be null; leave the property out instead"},
	} {
		res := callFunc(t, s, context.Background(), "weather", args)
		got := text(res)
		if !res.IsError || !strings.HasPrefix(got, "invalid arguments for tool weather:\n") {
			t.Errorf("%s: %+v", args, res)
			continue
		}
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: the error lacks %q:\n%s", args, w, got)
			}
		}
	}

	// The function's error is the result's; a result that breaks the output schema is
	// refused; a panic is contained.
	for city, want := range map[string]string{
		"Atlantis": "no weather under the sea",
		"Venus":    "tool weather returned a result that breaks its output schema:\n/celsius: must be <= 60",
		"Panic":    "internal error: tool weather failed unexpectedly",
	} {
		res := callFunc(t, s, context.Background(), "weather", `{"city":"`+city+`"}`)
		if !res.IsError || text(res) != want || res.StructuredContent != nil {
			t.Errorf("%s: %+v, want the error %q", city, res, want)
		}
	}
	if res := callFunc(t, s, context.Background(), "weather", `{"city":"Oslo"}`); res.IsError {
		t.Errorf("the server did not serve on after the panic: %+v", res)
	}
}

// The function has the call's context: its values and its end.
func TestAddToolContext(t *testing.T) {
	type key struct{}
	s := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"}, &mcp.ServerOptions{Logger: quietLogger()})
	AddTool(s, mcp.Tool{Name: "wait"}, func(ctx context.Context, _ struct{}) (string, error) {
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(10 * time.Second):
			return ctx.Value(key{}).(string), nil
		}
	})
	AddTool(s, mcp.Tool{Name: "value"}, func(ctx context.Context, _ *struct{}) (string, error) {
		return ctx.Value(key{}).(string), nil
	})
	ctx := context.WithValue(context.Background(), key{}, "from the caller")
	if res := callFunc(t, s, ctx, "value", `{}`); res.IsError || text(res) != "from the caller" {
		t.Errorf("value: %+v", res)
	}
	ctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if res := callFunc(t, s, ctx, "wait", ``); !res.IsError || text(res) != "context deadline exceeded" {
		t.Errorf("wait: %+v", res)
	}
}

// Every result type a //mcp:tool function may return.
func TestAddToolResults(t *testing.T) {
	type label string
	s := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"}, &mcp.ServerOptions{Logger: quietLogger()})
	AddTool(s, mcp.Tool{Name: "text"}, func(context.Context, struct{}) (label, error) { return "a label", nil })
	AddTool(s, mcp.Tool{Name: "image"}, func(context.Context, struct{}) (mcp.Image, error) {
		return mcp.Image{MIMEType: "image/png", Data: []byte{1}}, nil
	})
	AddTool(s, mcp.Tool{Name: "content"}, func(context.Context, struct{}) (mcp.Content, error) { return nil, nil })
	AddTool(s, mcp.Tool{Name: "contents"}, func(context.Context, struct{}) ([]mcp.Content, error) {
		return []mcp.Content{mcp.Text{Text: "one"}, mcp.Text{Text: "two"}}, nil
	})
	AddTool(s, mcp.Tool{Name: "result"}, func(context.Context, struct{}) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.Text{Text: "said so"}}, IsError: true}, nil
	})
	AddTool(s, mcp.Tool{Name: "nil"}, func(context.Context, struct{}) (*weatherReport, error) { return nil, nil })
	for name, want := range map[string]string{
		"text":     `{"content":[{"type":"text","text":"a label"}]}`,
		"image":    `{"content":[{"type":"image","data":"AQ==","mimeType":"image/png"}]}`,
		"content":  `{"content":[]}`,
		"contents": `{"content":[{"type":"text","text":"one"},{"type":"text","text":"two"}]}`,
		"result":   `{"content":[{"type":"text","text":"said so"}],"isError":true}`,
		"nil":      `{"content":[{"type":"text","text":"the tool returned no result"}],"isError":true}`,
	} {
		raw, err := s.CallTool(context.Background(), name, nil)
		if err != nil || string(raw) != want {
			t.Errorf("%s: %s, %v\nwant %s", name, raw, err, want)
		}
	}
}

// The schemas AddTool derives, as tools/list has them.
func TestAddToolSchemas(t *testing.T) {
	s := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"}, &mcp.ServerOptions{Logger: quietLogger()})
	AddTool(s, mcp.Tool{Name: "weather"}, weather)
	c := connect(t, s)
	tools, err := c.ListTools(context.Background())
	if err != nil || len(tools) != 1 {
		t.Fatal(tools, err)
	}
	const in = `{"properties":{"city":{"type":"string","minLength":1,"description":"The city"},` +
		`"units":{"type":"string","enum":["metric","imperial"]},"days":{"type":"integer","maximum":7,"minimum":1},` +
		`"hour":{"type":"integer","maximum":255,"minimum":0},"tags":{"items":{"type":"string"},"type":"array"}},` +
		`"additionalProperties":false,"type":"object","required":["city"]}`
	const out = `{"properties":{"city":{"type":"string"},"celsius":{"type":"number","maximum":60,"minimum":-90},` +
		`"notes":{"oneOf":[{"items":{"type":"string"},"type":"array"},{"type":"null"}]}},` +
		`"additionalProperties":false,"type":"object","required":["city","celsius","notes"]}`
	if got := compact(t, tools[0].InputSchema); got != in {
		t.Errorf("input schema\n%s\nwant\n%s", got, in)
	}
	if got := compact(t, tools[0].OutputSchema); got != out {
		t.Errorf("output schema\n%s\nwant\n%s", got, out)
	}
	res, err := c.CallTool(context.Background(), "weather", map[string]any{"city": "Paris"})
	if err != nil || res.IsError || string(res.StructuredContent) != `{"city":"Paris","celsius":21.5,"notes":null}` {
		t.Errorf("through a client (which checks the output schema): %+v, %v", res, err)
	}
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// connect is a client of s, in memory, closed when the test ends.
func connect(t *testing.T, s *mcp.Server) *mcp.Client {
	t.Helper()
	c, err := mcp.Connect(context.Background(), &mcp.MemoryTransport{Server: s}, &mcp.ClientOptions{ProtocolVersion: "2025-11-25", Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func compact(t *testing.T, s string) string {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// Recursive types keep a definition; every other type is inline.
func TestAddToolRecursiveSchema(t *testing.T) {
	type tree struct {
		Label    string  `json:"label"`
		Children []*tree `json:"children,omitempty"`
	}
	s := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"}, &mcp.ServerOptions{Logger: quietLogger()})
	AddTool(s, mcp.Tool{Name: "count"}, func(_ context.Context, in tree) (string, error) { return in.Label, nil })
	tools, err := connect(t, s).ListTools(context.Background())
	if err != nil || len(tools) != 1 {
		t.Fatal(tools, err)
	}
	schema := tools[0].InputSchema
	const want = `{"$defs":{"tree":{"properties":{"label":{"type":"string"},"children":{"items":{"$ref":"#/$defs/tree"},"type":"array"}},` +
		`"additionalProperties":false,"type":"object","required":["label"]}},"properties":{"label":{"type":"string"},` +
		`"children":{"items":{"$ref":"#/$defs/tree"},"type":"array"}},"additionalProperties":false,"type":"object","required":["label"]}`
	if got := compact(t, schema); got != want {
		t.Errorf("schema\n%s\nwant\n%s", got, want)
	}
	if res := callFunc(t, s, context.Background(), "count", `{"label":"a","children":[{"label":"b","children":[{}]}]}`); !res.IsError || !strings.Contains(text(res), "/children/0/children/0/label: missing required property") {
		t.Errorf("a deep problem: %+v", res)
	}
}

// hiddenTitle has two fields with one JSON name, which encoding/json resolves without a
// word. (Two tagged ones, which it leaves out both, are built with reflect.StructOf in
// TestSameJSONNames: go vet refuses them in source.)
type hiddenTitle struct {
	Title   string // left out: Heading's tag names it Title too
	Heading string `json:"Title"`
}

// listing shares a JSON name in an unnamed struct it reaches.
type listing struct {
	Items []struct {
		Title   string
		Heading string `json:"Title"`
	} `json:"items"`
}

// Two fields tagged with one JSON name are both left out by encoding/json: the message says
// so, for each such name, and a type of another package is not examined.
func TestSameJSONNames(t *testing.T) {
	field := func(name, tag string) reflect.StructField {
		return reflect.StructField{Name: name, Type: reflect.TypeFor[string](), Tag: reflect.StructTag(tag)}
	}
	copied := reflect.StructOf([]reflect.StructField{
		field("Query", `json:"query"`), field("Limit", `json:"query,omitempty"`), field("Extra", `json:"query"`),
		field("Skipped", `json:"-"`), field("Other", `json:"-"`),
	})
	err := sameJSONNames(reflect.PointerTo(copied), "")
	want := `fields struct.Query, struct.Limit and struct.Extra have JSON name "query", and encoding/json leaves out every one of them: none is a property (give one of them another name in its json tag, or leave one out with json:"-")`
	if err == nil || err.Error() != want {
		t.Errorf("sameJSONNames = %v\nwant %s", err, want)
	}
	// An unnamed argument struct reaches hiddenTitle, of the function's package.
	if err := sameJSONNames(reflect.TypeFor[struct{ T hiddenTitle }](), "github.com/mcpgen/mcpgen/runtime/mcpfunc"); err == nil {
		t.Errorf("a type of the function's package was not examined")
	}
	if err := sameJSONNames(reflect.TypeFor[struct{ T hiddenTitle }](), "example.com/other"); err != nil {
		t.Errorf("a type of another package was examined: %v", err)
	}
}

func (hiddenTitle) method() {}

// funcPackage finds the package of a function, a method and a function literal.
func TestFuncPackage(t *testing.T) {
	const want = "github.com/mcpgen/mcpgen/runtime/mcpfunc"
	for name, fn := range map[string]any{
		"function": TestFuncPackage, "method": hiddenTitle.method, "literal": func() {},
		"other package": strings.Cut,
	} {
		got := funcPackage(fn)
		if name == "other package" {
			if got != "strings" {
				t.Errorf("%s: %q, want strings", name, got)
			}
		} else if got != want {
			t.Errorf("%s: %q, want %s", name, got, want)
		}
	}
}

type inner struct {
	F string `json:"f"`
	G string `json:"g"`
}

// shadowing hides a field promoted from inner: encoding/json's rule for embedding, which is
// no mistake.
type shadowing struct {
	inner
	F string `json:"f,omitempty"`
}

// A field that hides a promoted one is no collision: AddTool takes it, and the property is
// the outer field.
func TestAddToolShadowing(t *testing.T) {
	s := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"}, &mcp.ServerOptions{Logger: quietLogger()})
	AddTool(s, mcp.Tool{Name: "shadow"}, func(ctx context.Context, in shadowing) (string, error) { return in.F + in.G, nil })
	if res := callFunc(t, s, context.Background(), "shadow", `{"f":"x","g":"y"}`); res.IsError || text(res) != "xy" {
		t.Errorf("shadow: %+v", res)
	}
}

// Types no tool takes or returns, and a tool with schemas or a handler of its own, are
// refused when the program starts.
func TestAddToolRefuses(t *testing.T) {
	s := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"}, nil)
	for name, add := range map[string]func(){
		`tool "a": its argument type int is not a struct`: func() {
			AddTool(s, mcp.Tool{Name: "a"}, func(context.Context, int) (string, error) { return "", nil })
		},
		`tool "b": its result type []string is not one a tool returns`: func() {
			AddTool(s, mcp.Tool{Name: "b"}, func(context.Context, struct{}) ([]string, error) { return nil, nil })
		},
		`tool "c": AddTool derives the schemas and makes the handler`: func() {
			AddTool(s, mcp.Tool{Name: "c", InputSchema: `{"type":"object"}`}, func(context.Context, struct{}) (string, error) { return "", nil })
		},
		`tool "d": the schema of its argument type struct { C chan int }`: func() {
			AddTool(s, mcp.Tool{Name: "d"}, func(context.Context, struct{ C chan int }) (string, error) { return "", nil })
		},
		`tool "e": the function is nil`: func() { AddTool[struct{}, string](s, mcp.Tool{Name: "e"}, nil) },
		`tool "f": its argument type mcpfunc.hiddenTitle: fields hiddenTitle.Title and hiddenTitle.Heading have JSON name "Title", and encoding/json keeps only hiddenTitle.Heading, the tagged one: the others are no properties (give one of them another name in its json tag, or leave one out with json:"-")`: func() {
			AddTool(s, mcp.Tool{Name: "f"}, func(context.Context, hiddenTitle) (string, error) { return "", nil })
		},
		`tool "g": its result type *mcpfunc.listing: fields listing.Items[].Title and listing.Items[].Heading have JSON name "Title"`: func() {
			AddTool(s, mcp.Tool{Name: "g"}, func(context.Context, struct{}) (*listing, error) { return nil, nil })
		},
		`tool "h": its argument type struct { Page mcpfunc.hiddenTitle "json:\"page\"" }: fields hiddenTitle.Title and hiddenTitle.Heading`: func() {
			AddTool(s, mcp.Tool{Name: "h"}, func(context.Context, struct {
				Page hiddenTitle `json:"page"`
			}) (string, error) {
				return "", nil
			})
		},
	} {
		func() {
			defer func() {
				if v := recover(); v == nil || !strings.Contains(v.(string), "mcpfunc: AddTool: "+name) {
					t.Errorf("panic %v, want %q", v, name)
				}
			}()
			add()
		}()
	}
}

type hitLines struct {
	Hits []string `json:"hits"`
}

func (h *hitLines) AppendMCPText(b []byte) []byte {
	for _, hit := range h.Hits {
		b = append(append(b, hit...), '\n')
	}
	return b
}

type fileCount struct {
	N int `json:"n"`
}

func (c fileCount) MCPText() string { return strconv.Itoa(c.N) + " files" }

// A result type that writes its own text block gives the text, as with //mcp:tool: through a
// pointer method of a value result, or a value method of a pointer result.
func TestAddToolOwnText(t *testing.T) {
	s := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"}, &mcp.ServerOptions{Logger: quietLogger()})
	AddTool(s, mcp.Tool{Name: "grep"}, func(ctx context.Context, in struct{}) (hitLines, error) {
		return hitLines{Hits: []string{"a.go:1:x", "b.go:2:y"}}, nil
	})
	AddTool(s, mcp.Tool{Name: "count"}, func(ctx context.Context, in struct{}) (*fileCount, error) { return &fileCount{N: 3}, nil })
	for _, tt := range []struct{ tool, text, structured string }{
		{"grep", "a.go:1:x\nb.go:2:y\n", `{"hits":["a.go:1:x","b.go:2:y"]}`},
		{"count", "3 files", `{"n":3}`},
	} {
		res := callFunc(t, s, context.Background(), tt.tool, `{}`)
		if res.IsError || text(res) != tt.text || string(res.StructuredContent) != tt.structured {
			t.Errorf("%s: %+v; want text %q and %s", tt.tool, res, tt.text, tt.structured)
		}
	}
}

type buildResult struct {
	Errors []string `json:"errors,omitempty"`
}

func (b buildResult) MCPIsError() bool { return len(b.Errors) > 0 }

// A result type whose MCPIsError says true gives an error result that keeps its structured
// content, as with //mcp:tool; one that says false does not.
func TestAddToolStructuredFailure(t *testing.T) {
	s := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"}, &mcp.ServerOptions{Logger: quietLogger()})
	AddTool(s, mcp.Tool{Name: "build"}, func(ctx context.Context, in struct {
		Broken bool `json:"broken,omitempty"`
	}) (*buildResult, error) {
		if in.Broken {
			return &buildResult{Errors: []string{"undefined: x"}}, nil
		}
		return &buildResult{}, nil
	})
	for _, tt := range []struct {
		args, structured string
		isError          bool
	}{
		{`{"broken":true}`, `{"errors":["undefined: x"]}`, true},
		{`{}`, `{}`, false},
	} {
		res := callFunc(t, s, context.Background(), "build", tt.args)
		if res.IsError != tt.isError || string(res.StructuredContent) != tt.structured || text(res) != tt.structured {
			t.Errorf("build(%s): %+v; want error %v and %s", tt.args, res, tt.isError, tt.structured)
		}
	}
}

// const, which invopop's dialect lacks, is read as the generator reads it: on scalars, and on
// the items of a list; a call whose arguments differ gets an error result.
func TestAddToolConst(t *testing.T) {
	type versioned struct {
		Version string   `json:"version" jsonschema:"const=2"`
		Level   uint8    `json:"level,omitempty" jsonschema:"const=3"`
		Strict  bool     `json:"strict,omitempty" jsonschema:"const=true"`
		Tags    []string `json:"tags,omitempty" jsonschema:"const=x"`
	}
	fn := func(ctx context.Context, in versioned) (string, error) { return in.Version, nil }
	s := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"}, &mcp.ServerOptions{Logger: quietLogger()})
	AddTool(s, mcp.Tool{Name: "v"}, fn)
	const schema = `{"properties":{"version":{"type":"string","const":"2"},"level":{"type":"integer","const":3,"maximum":255,"minimum":0},` +
		`"strict":{"type":"boolean","const":true},"tags":{"items":{"type":"string","const":"x"},"type":"array"}},` +
		`"additionalProperties":false,"type":"object","required":["version"]}`
	f, err := newFuncTool("v", fn)
	if err != nil {
		t.Fatal(err)
	}
	if got := compact(t, f.inputSchema); got != schema {
		t.Errorf("input schema\n%s\nwant\n%s", got, schema)
	}
	if res := callFunc(t, s, context.Background(), "v", `{"version":"2","level":3,"strict":true,"tags":["x"]}`); res.IsError {
		t.Errorf("the constants: %+v", res)
	}
	res := callFunc(t, s, context.Background(), "v", `{"version":"1","level":4,"strict":false,"tags":["y"]}`)
	for _, p := range []string{"/version", "/level", "/strict", "/tags/0"} {
		if !res.IsError || !strings.Contains(text(res), p+": ") {
			t.Errorf("other values: %q does not name %s", text(res), p)
		}
	}
}

// A middleware tells the classes of a function tool's error results apart, as it does a
// generated tool's: arguments that break the input schema, a result that breaks the output
// schema, the function's own error.
func TestAddToolErrorTypes(t *testing.T) {
	var mu sync.Mutex
	got := map[string]string{}
	s := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"}, &mcp.ServerOptions{Logger: quietLogger(),
		Middleware: []mcp.Middleware{func(next mcp.Handler) mcp.Handler {
			return func(ctx context.Context, m *mcp.Message) ([]byte, error) {
				res, err := next(ctx, m)
				if m.Method == "tools/call" {
					mu.Lock()
					got[m.ID] = m.ErrorType(res, err)
					mu.Unlock()
				}
				return res, err
			}
		}}})
	AddTool(s, mcp.Tool{Name: "weather"}, weather)
	ctx := context.Background()
	c, err := mcp.Connect(ctx, &mcp.MemoryTransport{Server: s}, &mcp.ClientOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, args := range []map[string]any{{"city": ""}, {"city": "Venus"}, {"city": "Atlantis"}, {"city": "Oslo"}} {
		c.CallTool(ctx, "weather", args)
	}
	mu.Lock()
	defer mu.Unlock()
	var classes []string
	for id := 2; id <= 5; id++ { // after initialize
		classes = append(classes, got[strconv.Itoa(id)])
	}
	if want := []string{mcp.ErrorInvalidArguments, mcp.ErrorInvalidResult, mcp.ErrorTool, ""}; !slices.Equal(classes, want) {
		t.Errorf("error types %q, want %q (all: %v)", classes, want, got)
	}
}
