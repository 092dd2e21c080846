package main

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

func TestSplitCommand(t *testing.T) {
	for in, want := range map[string][]string{
		`./weather`:                             {"./weather"},
		`  node  'dir with space/index.js' `:    {"node", "dir with space/index.js"},
		`npx -y "@scope/pkg@1.0.0" --root=/tmp`: {"npx", "-y", "@scope/pkg@1.0.0", "--root=/tmp"},
		`sh -c "echo \"hi\" \\ there"`:          {"sh", "-c", `echo "hi" \ there`},
		`a\ b c''d`:                             {"a b", "cd"},
		``:                                      nil,
	} {
		got, err := splitCommand(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("splitCommand(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{`'open`, `"open`} {
		if _, err := splitCommand(bad); err == nil {
			t.Errorf("splitCommand(%q) has no error", bad)
		}
	}
}

func TestCommandName(t *testing.T) {
	for want, words := range map[string][]string{
		"weather":           {"./bin/weather"},
		"server-memory":     {"node", "/x/node_modules/@modelcontextprotocol/server-memory/dist/index.js"},
		"server-filesystem": {"npx", "-y", "@modelcontextprotocol/server-filesystem@2026.8.31", "-q"},
		"mcp-server-git":    {"uvx", "mcp-server-git"},
		"my_server":         {"./my server"},
	} {
		if got := commandName(words); got != want {
			t.Errorf("commandName(%q) = %q, want %q", words, got, want)
		}
	}
}

func TestToolArguments(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{
		"s":{"type":"string"},"n":{"type":"number"},"i":{"type":"integer"},"b":{"type":"boolean"},
		"a":{"type":"array"},"o":{"type":"object"},"maybe":{"type":["integer","null"]},"any":{}},
		"additionalProperties":false}`)
	got, err := toolArguments(`{"s":"from --args","keep":1}`, nil, schema,
		[]string{"s=42", "n=2.5", "i=-3", "b=true", `a=[1,"x"]`, `o={"k":null}`, "maybe=null", `any={"x":1}`})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	want := `{"a":[1,"x"],"any":{"x":1},"b":true,"i":-3,"keep":1,"maybe":null,"n":2.5,"o":{"k":null},"s":"42"}`
	if string(b) != want {
		t.Errorf("arguments %s\nwant      %s", b, want)
	}
	for _, c := range []struct{ args, flag, want string }{
		{"n=abc", "", `argument n: "abc" is not a number`},
		{"i=1.5", "", `argument i: "1.5" is not an integer`},
		{"b=yes", "", `argument b: "yes" is not true or false`},
		{"a=1,2", "", `argument a: "1,2" is not JSON; write the array as JSON: [...]`},
		{"nope=1", "", `the tool has no argument "nope"; its arguments are a, any, b, i, maybe, n, o, s`},
		{"novalue", "", `argument "novalue": write key=value`},
		{"", "[1]", "--args is not a JSON object of arguments"},
		{"", "null", "--args is not a JSON object of arguments: it is null"},
		{"", "@/no/such/file", "--args @/no/such/file: open /no/such/file"},
	} {
		var pairs []string
		if c.args != "" {
			pairs = []string{c.args}
		}
		_, err := toolArguments(c.flag, nil, schema, pairs)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q %q: error %v, want %q", c.args, c.flag, err, c.want)
		}
	}
	got, err = toolArguments("-", strings.NewReader(`{"x": 1}`), nil, []string{"y=[2]", "z=plain"})
	if b, _ := json.Marshal(got); err != nil || string(b) != `{"x":1,"y":[2],"z":"plain"}` {
		t.Errorf("untyped: %s, %v", b, err)
	}
}

func TestProgressBar(t *testing.T) {
	var b bytes.Buffer
	p := &progressBar{c: newConsole(&b)}
	p.update(mcp.ProgressNotice{Progress: 1, Total: 4, Message: "step one"})
	p.update(mcp.ProgressNotice{Progress: 4, Total: 4})
	p.finish()
	want := "\r\033[K[=======>                      ]  25% 1/4 step one" +
		"\r\033[K[==============================] 100% 4/4\n"
	if b.String() != want {
		t.Errorf("bar %q\nwant %q", b.String(), want)
	}
	b.Reset()
	p = &progressBar{c: newConsole(&b)}
	p.update(mcp.ProgressNotice{Progress: 7})
	p.finish()
	if b.String() != "\r\033[K[<=>                           ] 7\n" {
		t.Errorf("bar without a total %q", b.String())
	}
	b.Reset()
	p = &progressBar{c: newConsole(&b)} // a task's status messages: no numbers, no bar
	p.update(mcp.ProgressNotice{Message: "Gathering sources...", Status: mcp.TaskWorking})
	p.update(mcp.ProgressNotice{Status: mcp.TaskInputRequired})
	p.update(mcp.ProgressNotice{Message: "Analyzing content...", Status: mcp.TaskWorking})
	p.finish()
	if b.String() != "\r\033[KGathering sources...\r\033[KAnalyzing content...\n" {
		t.Errorf("a task's status messages %q", b.String())
	}
	b.Reset()
	(&progressBar{c: newConsole(&b)}).finish()
	if b.Len() != 0 {
		t.Errorf("a bar never drawn wrote %q", b.String())
	}
}

// A result is printed once: its text when it has some, else its structured content, as
// indented JSON.
func TestPrintResult(t *testing.T) {
	for _, c := range []struct {
		name string
		res  *mcp.CallToolResult
		want string
	}{
		{"text and structured", &mcp.CallToolResult{
			Content:           []mcp.Content{mcp.Text{Text: "main.go:3: func main()"}, mcp.Image{Data: []byte{1, 2}, MIMEType: "image/png"}},
			StructuredContent: []byte(`{"matches":[{"file":"main.go","line":3}]}`),
		}, "main.go:3: func main()\n[image: image/png, 2 bytes]\n"},
		{"text that repeats structured", &mcp.CallToolResult{
			Content:           []mcp.Content{mcp.Text{Text: `{"a": 1}`}},
			StructuredContent: []byte(`{"a":1}`),
		}, "{\n  \"a\": 1\n}\n"},
		{"structured alone", &mcp.CallToolResult{StructuredContent: []byte(`[1,2]`)}, "[\n  1,\n  2\n]\n"},
		{"text alone", &mcp.CallToolResult{Content: []mcp.Content{mcp.Text{Text: "a"}, mcp.Text{Text: "b\n"}}}, "a\nb\n"},
	} {
		var b bytes.Buffer
		printResult(&b, c.res)
		if b.String() != c.want {
			t.Errorf("%s: printed %q, want %q", c.name, b.String(), c.want)
		}
	}
}
