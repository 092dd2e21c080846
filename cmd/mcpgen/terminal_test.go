package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonwire"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// screen is what a terminal shows after out: its lines, each as the cursor's writes left
// it, for the control sequences mcpgen writes (\r, \n, ESC [K).
func screen(out string) []string {
	lines := []string{""}
	col := 0
	for i := 0; i < len(out); i++ {
		cur := &lines[len(lines)-1]
		switch {
		case out[i] == '\r':
			col = 0
		case out[i] == '\n':
			lines = append(lines, "")
			col = 0
		case strings.HasPrefix(out[i:], "\033[K"):
			*cur = (*cur)[:col]
			i += 2
		case out[i] == '\033':
			panic(fmt.Sprintf("an escape sequence screen does not know at %d: %q", i, out[i:]))
		default:
			if col < len(*cur) {
				*cur = (*cur)[:col] + string(out[i]) + (*cur)[col+1:]
			} else {
				*cur += string(out[i])
			}
			col++
		}
	}
	return lines
}

func TestScreen(t *testing.T) {
	got := screen("abc\r\033[Kxy\nlong line\rLONG\n")
	if want := []string{"xy", "LONG line", ""}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("screen = %q, want %q", got, want)
	}
}

// A line written while the progress bar is drawn starts on a clean line, and the bar is
// drawn again below it: the two never share a line.
func TestLogLineNeverSharesTheBarsLine(t *testing.T) {
	var b bytes.Buffer
	c := newConsole(&b)
	bar := &progressBar{c: c}
	bar.update(mcp.ProgressNotice{Progress: 1, Total: 4})
	fmt.Fprintf(c, "[srv] info: first\n")
	bar.update(mcp.ProgressNotice{Progress: 2, Total: 4})
	fmt.Fprintf(c, "[srv] info: ")                        // a line written in two parts:
	bar.update(mcp.ProgressNotice{Progress: 3, Total: 4}) // the bar waits for its end
	fmt.Fprintf(c, "second\n")
	bar.finish()
	fmt.Fprintf(c, "after\n")
	got := screen(b.String())
	want := []string{
		"[srv] info: first",
		"[srv] info: second",
		"[======================>       ]  75% 3/4",
		"after",
		"",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the screen shows\n%s\nwant\n%s\n(written: %q)", strings.Join(got, "\n"), strings.Join(want, "\n"), b.String())
	}

	// A question takes the bar away until it is answered; the bar comes back below.
	b.Reset()
	c = newConsole(&b)
	bar = &progressBar{c: c}
	bar.update(mcp.ProgressNotice{Progress: 1, Total: 2})
	c.hold()
	fmt.Fprint(c, "Name? ")
	bar.update(mcp.ProgressNotice{Progress: 2, Total: 2})
	b.WriteString("Ada\n") // the person's answer, echoed by the terminal
	c.release()
	bar.finish()
	got = screen(b.String())
	want = []string{"Name? Ada", "[==============================] 100% 2/2", ""}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("around a question the screen shows\n%s\nwant\n%s\n(written: %q)", strings.Join(got, "\n"), strings.Join(want, "\n"), b.String())
	}
}

// mcpgen call draws the bar and prints the server's log messages, which arrive between
// progress notices, each on a line of its own.
func TestCallProgressAndLogLines(t *testing.T) {
	configHome(t)
	dir := t.TempDir()
	path := writeConfig(t, dir, map[string]any{"steps": testServer("steps")})
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"mcpgen", "call", "steps", "work", "--progress", "always", "--trust", "--config", path}, &out, &errOut)
	if code != 0 || out.String() != "done\n" {
		t.Fatalf("exit %d\n%s%q", code, out.String(), errOut.String())
	}
	lines := screen(errOut.String())
	logs := 0
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "[steps] info: step "):
			if !regexpStep.MatchString(l) {
				t.Errorf("a log line shares its line with something else: %q", l)
			}
			logs++
		case l == "", strings.HasPrefix(l, "[=") && regexpBar.MatchString(l):
		default:
			t.Errorf("a line that is neither a log message nor the bar: %q", l)
		}
	}
	if logs != 3 || lines[len(lines)-2] != "[==============================] 100% 3/3" {
		t.Errorf("want 3 log lines and the full bar last; stderr shows:\n%s\n(written: %q)", strings.Join(lines, "\n"), errOut.String())
	}
}

// testServer is a stdio server of a configuration: the test binary serving the test server
// name (testServers).
func testServer(name string) map[string]any {
	return map[string]any{"command": os.Args[0], "env": map[string]string{"MCPGEN_TEST_SERVER": name}}
}

// testServers are the servers the test binary serves when MCPGEN_TEST_SERVER names one.
var testServers = map[string]func(s *mcp.Server){
	// steps: work reports three steps of progress, logging each.
	"steps": func(s *mcp.Server) {
		s.AddTool(mcp.Tool{Name: "work", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *mcp.ToolCall) {
			for i := 1; i <= 3; i++ {
				mcp.Progress(ctx, float64(i), 3, "")
				time.Sleep(20 * time.Millisecond)
				mcp.Log(ctx, mcp.LevelInfo, "", fmt.Sprintf("step %d", i))
				time.Sleep(20 * time.Millisecond)
			}
			c.ReturnText("done")
		}})
	},
	"caps":    capsServer,
	"catalog": catalogServer,
	// sampler: ask asks the client's model the question, and says what it answered.
	"sampler": func(s *mcp.Server) {
		s.AddTool(mcp.Tool{Name: "ask", InputSchema: `{"type":"object","properties":{"question":{"type":"string"}}}`, Handler: func(ctx context.Context, c *mcp.ToolCall) {
			res, err := mcp.Sample(ctx, &mcp.CreateMessageRequest{
				SystemPrompt: "Answer in one sentence.",
				Messages:     []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.Text{Text: stringArgument(c, "question")}}},
				MaxTokens:    50,
			})
			if err != nil {
				c.ReturnError(err)
				return
			}
			text, _ := res.Content.(mcp.Text)
			c.ReturnText(fmt.Sprintf("%s says: %s", res.Model, text.Text))
		}})
	},
}

// capsServer adds caps, which says what the client declared and the roots it lists:
// "sampling sampling.tools elicitation elicitation.url roots file:///a file:///b".
func capsServer(s *mcp.Server) {
	s.AddTool(mcp.Tool{Name: "caps", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *mcp.ToolCall) {
		caps := mcp.RequestFrom(ctx).ClientCapabilities()
		var words []string
		for _, w := range []struct {
			on   bool
			name string
		}{{caps.Sampling, "sampling"}, {caps.SamplingTools, "sampling.tools"}, {caps.Elicitation, "elicitation"}, {caps.ElicitationURL, "elicitation.url"}, {caps.Roots, "roots"}} {
			if w.on {
				words = append(words, w.name)
			}
		}
		if caps.Roots {
			roots, err := mcp.Roots(ctx)
			if err != nil {
				c.ReturnError(err)
				return
			}
			for _, r := range roots {
				words = append(words, r.URI)
			}
		}
		c.ReturnText(strings.Join(words, " "))
	}})
}

// catalogServer offers a resource, two templates and two prompts, completing a template's
// variable and a prompt's argument.
func catalogServer(s *mcp.Server) {
	text := func(ctx context.Context, uri string) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{{URI: uri, Text: "x"}}, nil
	}
	s.AddResource(mcp.Resource{URI: "docs://readme", Name: "readme", Title: "The README", Description: "What this is.\nMore.", MIMEType: "text/markdown", Read: text})
	s.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "docs://{lang}/{+path}", Name: "doc", Description: "A page of the docs.",
		Read: func(ctx context.Context, uri string, vars map[string]string) ([]mcp.ResourceContents, error) {
			return text(ctx, uri)
		}})
	s.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "notes://{id}", Name: "note",
		Read: func(ctx context.Context, uri string, vars map[string]string) ([]mcp.ResourceContents, error) {
			return text(ctx, uri)
		}})
	s.AddCompletion(mcp.Completion{ResourceTemplate: "docs://{lang}/{+path}", Argument: "lang",
		Complete: func(ctx context.Context, req mcp.CompletionRequest) ([]string, error) {
			return []string{"en", "fr", "pt", "de"}, nil
		}})
	get := func(ctx context.Context, args *mcp.Input) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	}
	s.AddPrompt(mcp.Prompt{Name: "review", Description: "Reviews code.", Arguments: []mcp.PromptArgument{{Name: "file", Required: true}, {Name: "style"}}, Get: get})
	s.AddPrompt(mcp.Prompt{Name: "hello", Get: get})
	s.AddCompletion(mcp.Completion{Prompt: "review", Argument: "style",
		Complete: func(ctx context.Context, req mcp.CompletionRequest) ([]string, error) {
			return []string{"brief", "thorough"}, nil
		}})
}

var (
	regexpStep = regexp.MustCompile(`^\[steps\] info: step [1-3]$`)
	regexpBar  = regexp.MustCompile(`^\[[=> ]{30}\] +[0-9]+% [0-3]/3$`)
)

// stringArgument is the tool's string argument name, or "" when it has none.
func stringArgument(c *mcp.ToolCall, name string) string {
	d := jsonwire.NewDecoder(c.RawArguments())
	var v string
	if d.Expect(jsonwire.Object) {
		for key := range d.Members {
			if s, ok := d.String(); ok && string(key) == name {
				v = s
			}
		}
	}
	return v
}
