// Package mcpfunc adds a tool to an mcp.Server from a Go function, with no go generate and
// no schema written by hand: the quick path to a tool, whose static, faster twin is one
// //mcp:tool line away.
//
// It is a package of its own because it derives schemas and checks arguments at run time,
// with invopop/jsonschema and a JSON Schema validator: only programs that take the quick
// path link them, and the runtime (package mcp) stays light for the generated code.
package mcpfunc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/mcp/mcpgen"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// AddTool adds a tool that calls fn.
//
//	type GreetInput struct {
//		Name string `json:"name" jsonschema:"minLength=1,description=Who to greet"`
//	}
//
//	func Greet(ctx context.Context, in GreetInput) (string, error) {
//		return "Hello, " + in.Name + "!", nil
//	}
//
//	mcpfunc.AddTool(s, mcp.Tool{Name: "greet", Description: "Greets someone by name."}, Greet)
//
// t names the tool and may describe it (Title, Description, Annotations, Task, Scopes);
// AddTool fills in its InputSchema, OutputSchema and Handler, which must be empty. The
// input schema is derived from In, a struct (or a pointer to one; struct{} for no
// arguments), when AddTool is called: with invopop/jsonschema's reflector, in the tag
// dialect the generator reads (json names and omitempty, jsonschema:"minimum=1,enum=a,
// description=..."). Each call's arguments are checked against it with a JSON Schema
// validator (required properties, types, enums, bounds, patterns...) and decoded with
// encoding/json; arguments that break it get an error result naming each property, as
// generated code gives. Out is what the tool returns, as for a //mcp:tool function: a
// struct or a pointer to one (structured content, with an output schema derived from it and
// checked; its text block is its JSON, or what its AppendMCPText or MCPText method writes;
// an MCPIsError method returning true makes it an error result that keeps its data),
// a string (one text block), an mcp.Content or []mcp.Content, or an mcp.CallToolResult. A
// non-nil error is an error result with its text; a panic is an error result too, and the
// server goes on serving.
//
// The same function with //mcp:tool in its doc comment, and go generate, is the static,
// faster twin: its schemas are written at generation time, with its doc comments as
// descriptions, and generated code decodes and validates its arguments with no reflection
// and no schema interpretation on each call. The schemas agree but where a running program
// cannot know what the source says: descriptions come only from jsonschema tags, enums only
// from enum= (not from a type's constants), and a time.Duration is an integer of
// nanoseconds, as encoding/json has it.
//
// AddTool panics if In or Out is not a type a tool takes or returns (two fields of one struct
// with one JSON name, which encoding/json would leave out without a word, among them), or if
// t already has a schema or a handler: mistakes in the program, found when it starts.
func AddTool[In, Out any](s *mcp.Server, t mcp.Tool, fn func(context.Context, In) (Out, error)) {
	if t.InputSchema != "" || t.OutputSchema != "" || t.Handler != nil {
		panic(fmt.Sprintf("mcpfunc: AddTool: tool %q: AddTool derives the schemas and makes the handler: leave InputSchema, OutputSchema and Handler empty (mcp.Server.AddTool takes them written out)", t.Name))
	}
	f, err := newFuncTool(t.Name, fn)
	if err != nil {
		panic(fmt.Sprintf("mcpfunc: AddTool: tool %q: %v", t.Name, err))
	}
	t.InputSchema, t.OutputSchema, t.Handler = f.inputSchema, f.outputSchema, f.serve
	s.AddTool(t)
}

// resultKind is how a tool's result becomes a CallToolResult.
type resultKind uint8

const (
	structuredResult resultKind = iota // structured content, checked by the output schema
	textResult                         // one text block
	contentResult                      // a Content
	contentsResult                     // a []Content
	toolResult                         // a CallToolResult or *CallToolResult, as it is
)

// funcTool is a tool of AddTool's: its function, with the schemas derived from its types
// and compiled to check each call's arguments and result.
type funcTool[In, Out any] struct {
	name                      string
	fn                        func(context.Context, In) (Out, error)
	inputSchema, outputSchema string
	input, output             *jsonschema.Schema // output: nil but for structured results
	result                    resultKind
	ownText                   bool // Out, or a pointer to it, writes its own text block or says it is a failure
}

func newFuncTool[In, Out any](name string, fn func(context.Context, In) (Out, error)) (*funcTool[In, Out], error) {
	if fn == nil {
		return nil, errors.New("the function is nil")
	}
	f := &funcTool[In, Out]{name: name, fn: fn}
	in := reflect.TypeFor[In]()
	if deref(in).Kind() != reflect.Struct {
		return nil, fmt.Errorf("its argument type %s is not a struct, nor a pointer to one: the arguments of a tool are a JSON object (use struct{} for none)", in)
	}
	pkg := funcPackage(fn)
	if err := sameJSONNames(in, pkg); err != nil {
		return nil, fmt.Errorf("its argument type %s: %v", in, err)
	}
	var err error
	if f.inputSchema, err = funcSchema(in, false); err != nil {
		return nil, fmt.Errorf("the schema of its argument type %s: %v", in, err)
	}
	if f.input, err = compileSchema(name, json.RawMessage(f.inputSchema)); err != nil {
		return nil, fmt.Errorf("the schema of its argument type %s does not compile: %v", in, err)
	}
	out := reflect.TypeFor[Out]()
	switch {
	case out == reflect.TypeFor[mcp.CallToolResult]() || out == reflect.TypeFor[*mcp.CallToolResult]():
		f.result = toolResult
	case out == reflect.TypeFor[[]mcp.Content]():
		f.result = contentsResult
	case out.Implements(reflect.TypeFor[mcp.Content]()):
		f.result = contentResult
	case out.Kind() == reflect.String:
		f.result = textResult
	case deref(out).Kind() == reflect.Struct:
		f.result = structuredResult
		if err := sameJSONNames(out, pkg); err != nil {
			return nil, fmt.Errorf("its result type %s: %v", out, err)
		}
		if f.outputSchema, err = funcSchema(out, true); err != nil {
			return nil, fmt.Errorf("the schema of its result type %s: %v", out, err)
		}
		if f.output, err = compileSchema(name, json.RawMessage(f.outputSchema)); err != nil {
			return nil, fmt.Errorf("the schema of its result type %s does not compile: %v", out, err)
		}
		p := out
		if p.Kind() != reflect.Pointer {
			p = reflect.PointerTo(out) // which has the methods of out too
		}
		f.ownText = p.Implements(reflect.TypeFor[appendTexter]()) || p.Implements(reflect.TypeFor[texter]()) ||
			p.Implements(reflect.TypeFor[failure]())
	default:
		return nil, fmt.Errorf("its result type %s is not one a tool returns: a struct or a pointer to one (structured content), a string, mcp.Content, []mcp.Content or mcp.CallToolResult", out)
	}
	return f, nil
}

// compileSchema compiles a schema derived for the tool name. Nothing is loaded by URL: the
// schema is sent to clients, which must find everything it refers to inside it (a type's
// own JSONSchema method could refer elsewhere).
func compileSchema(name string, schema json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, err
	}
	comp := jsonschema.NewCompiler()
	comp.UseLoader(noLoader{})
	url := "mem://tools/" + strings.ReplaceAll(name, "/", "_") + ".json"
	if err := comp.AddResource(url, doc); err != nil {
		return nil, err
	}
	return comp.Compile(url)
}

// noLoader refuses to load any schema by URL.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("the schema refers to %s, outside itself", url)
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// serve runs one call: the arguments checked against the input schema and decoded, the
// function called, its result checked and set.
func (f *funcTool[In, Out]) serve(ctx context.Context, c *mcp.ToolCall) {
	args := c.RawArguments()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err == nil {
		err = f.input.Validate(doc)
	}
	var in In
	if err == nil {
		err = decodeArguments(args, doc, &in)
	}
	if err != nil {
		// Reported through the call's input as well, as generated code reports them, so
		// that middleware tell them from the tool's own errors (mcp.ErrorInvalidArguments).
		mcpgen.Decoder(c.Arguments()).ReportError(err)
		c.ReturnError(fmt.Errorf("invalid arguments for tool %s:\n%s", f.name, problems(err, f.inputSchema, doc)))
		return
	}
	out, err := f.fn(ctx, in)
	if err != nil {
		c.ReturnError(err)
		return
	}
	switch v := any(out).(type) {
	case nil: // a nil Content
		c.ReturnContent()
	case mcp.CallToolResult:
		c.ReturnResult(&v)
	case *mcp.CallToolResult:
		c.ReturnResult(v)
	case []mcp.Content:
		c.ReturnContent(v...)
	case mcp.Content:
		c.ReturnContent(v)
	default:
		rv := reflect.ValueOf(v)
		switch {
		case f.result == textResult:
			c.ReturnText(rv.String())
		case rv.Kind() == reflect.Pointer && rv.IsNil():
			c.ReturnError(mcpgen.ErrNilResult)
		default:
			if f.structured(c, v) && f.ownText {
				if rv.Kind() == reflect.Pointer {
					setOwnText(c, v)
				} else {
					setOwnText(c, &out)
				}
			}
		}
	}
}

// decodeArguments decodes arguments, valid by the schema, with encoding/json; but an
// integer written 1.0 or 1e2, which JSON Schema takes and encoding/json refuses, is written
// as an integer first. doc is the arguments as the validator read them.
func decodeArguments(args []byte, doc any, v any) error {
	err := json.Unmarshal(args, v)
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || !strings.HasPrefix(te.Value, "number ") {
		return err
	}
	normal, err2 := json.Marshal(integers(doc))
	if err2 != nil {
		return err
	}
	return json.Unmarshal(normal, v)
}

// integers rewrites the numbers of a document read with json.Number that hold integers in
// the integer form: 1.0 as 1, 1e2 as 100, exactly.
func integers(doc any) any {
	switch v := doc.(type) {
	case json.Number:
		if r, ok := new(big.Rat).SetString(string(v)); ok && r.IsInt() && len(v) < 400 {
			return json.Number(r.Num().String())
		}
	case map[string]any:
		for k, x := range v {
			v[k] = integers(x)
		}
	case []any:
		for i, x := range v {
			v[i] = integers(x)
		}
	}
	return doc
}

// structured sets a structured result, if it fits the output schema, and reports whether it
// did.
func (f *funcTool[In, Out]) structured(c *mcp.ToolCall, v any) bool {
	b, err := json.Marshal(v)
	if err != nil {
		c.ReturnError(fmt.Errorf("tool %s returned a value that cannot be sent as JSON: %v", f.name, err))
		return false
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err == nil {
		err = f.output.Validate(doc)
	}
	if err != nil {
		mcpgen.Checker(c).Report(err.Error()) // as generated code does: mcp.ErrorInvalidResult
		c.ReturnError(fmt.Errorf("tool %s returned a result that breaks its output schema:\n%s", f.name, problems(err, f.outputSchema, doc)))
		return false
	}
	mcpgen.Structured(c).Raw(b)
	return true
}

// The methods by which a result type writes its own text block, as generated code finds them
// (see mcpgen.SetText).
type (
	appendTexter interface{ AppendMCPText(b []byte) []byte }
	texter       interface{ MCPText() string }
)

// failure is the method by which a result type says a value reports a failure: the result
// is then an error result that keeps its structured content (see mcpgen.SetError).
type failure interface{ MCPIsError() bool }

// setOwnText sets the text block of a structured result whose type (v is a pointer to the
// value) writes its own, and marks it an error result if the type says it is one.
func setOwnText(c *mcp.ToolCall, v any) {
	switch t := v.(type) {
	case appendTexter:
		mcpgen.SetText(c, t.AppendMCPText(mcpgen.TextBuffer(c)))
	case texter:
		mcpgen.SetText(c, append(mcpgen.TextBuffer(c), t.MCPText()...))
	}
	if f, ok := v.(failure); ok && f.MCPIsError() {
		mcpgen.SetError(c)
	}
}

var english = message.NewPrinter(language.English)

// pointer is the JSON Pointer (RFC 6901) of a value's location.
func pointer(location []string) string {
	var b strings.Builder
	for _, token := range location {
		b.WriteString("/" + strings.ReplaceAll(strings.ReplaceAll(token, "~", "~0"), "/", "~1"))
	}
	return b.String()
}
