package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// scripted is a terminal at which the person types script.
func scriptedTerminal(script string) (*terminal, *bytes.Buffer) {
	var out bytes.Buffer
	c := newConsole(&out)
	c.tty = true
	return &terminal{in: bufio.NewReader(strings.NewReader(script)), out: c, tty: true, turn: make(chan struct{}, 1), server: "sampler"}, &out
}

var question = &mcp.CreateMessageRequest{
	SystemPrompt: "Answer in one sentence.",
	Messages: []mcp.SamplingMessage{
		{Role: mcp.RoleUser, Content: mcp.Text{Text: "What is the capital\nof France?"}},
		{Role: mcp.RoleAssistant, Content: mcp.Text{Text: "Do you mean today?"}},
		{Content: mcp.Image{MIMEType: "image/png", Data: []byte{1, 2, 3}}},
	},
	MaxTokens:        50,
	Temperature:      mcp.Ptr(0.7),
	StopSequences:    []string{"\n\n"},
	ModelPreferences: &mcp.ModelPreferences{Hints: []string{"claude"}},
}

// At a terminal, sampling shows the conversation and sends the reply the person writes; a
// reply may be written again, or declined.
func TestSamplingAtTheTerminal(t *testing.T) {
	term, out := scriptedTerminal("Paris,\nsince 508.\n.\ny\n")
	res, err := term.sample(context.Background(), question)
	if err != nil {
		t.Fatal(err)
	}
	if text, _ := res.Content.(mcp.Text); text.Text != "Paris,\nsince 508." || res.Role != mcp.RoleAssistant || res.Model != "human" || res.StopReason != "endTurn" {
		t.Errorf("result %+v", res)
	}
	want := `
Server sampler asks for a message from a model (sampling), in at most 50 tokens:
  system: Answer in one sentence.
  user: What is the capital
        of France?
  assistant: Do you mean today?
  user: [image: image/png, 3 bytes]
  (temperature 0.7; stop at "\n\n"; model like claude)
Write the model's reply, ending with a line of only "." (a "." at once declines):
> > > Send it? [y = send, e = write it again, n = decline] `
	if out.String() != want {
		t.Errorf("the terminal shows\n%s\nwant\n%s", out, want)
	}

	for _, c := range []struct {
		script, reply string
	}{
		{"first\n.\ne\nsecond\n.\nyes\n", "second"},
		{"x\n.\nmaybe\ny\n", "x"}, // asked again
	} {
		term, out := scriptedTerminal(c.script)
		res, err := term.sample(context.Background(), question)
		if err != nil {
			t.Errorf("%q: %v\n%s", c.script, err, out)
			continue
		}
		if text, _ := res.Content.(mcp.Text); text.Text != c.reply {
			t.Errorf("%q: reply %q, want %q", c.script, text.Text, c.reply)
		}
	}

	for _, script := range []string{".\n", "no thanks\n.\nn\n", "", "x\n.\n"} {
		term, out := scriptedTerminal(script)
		res, err := term.sample(context.Background(), question)
		var rpc *jsonrpc.Error
		if !errors.As(err, &rpc) || rpc.Code != -1 || rpc.Message != "User rejected sampling request" || res != nil || !strings.HasSuffix(out.String(), "Declined.\n") {
			t.Errorf("%q: %+v, %v, want the rejection (-1)\n%s", script, res, err, out)
		}
	}
}

// weatherQuestion offers the model get_weather.
func weatherQuestion(choice mcp.ToolChoice) *mcp.CreateMessageRequest {
	return &mcp.CreateMessageRequest{
		Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.Text{Text: "Weather in Paris?"}}},
		Tools: []mcp.SamplingTool{{Name: "get_weather", Description: "Get current weather for a city\nMore.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"units":{"type":"string"},"city":{"type":"string"}},"required":["city"]}`)}},
		ToolChoice: choice,
		MaxTokens:  100,
	}
}

// Sampling with tools at the terminal: the tools offered are shown, and a line "use NAME
// {input}" of the reply is a use of one, with an id of its own; the conversation shows the
// uses and their results.
func TestSamplingWithToolsAtTheTerminal(t *testing.T) {
	term, out := scriptedTerminal("Let me look.\nuse get_weather {\"city\": \"Paris\"}\nuse get_weather\n.\ny\n")
	res, err := term.sample(context.Background(), weatherQuestion(""))
	if err != nil {
		t.Fatal(err)
	}
	want := `
Server sampler asks for a message from a model (sampling), in at most 100 tokens:
  user: Weather in Paris?
  tools the model may use:
    get_weather {"city": string, "units"?: string}: Get current weather for a city
Write the model's reply, ending with a line of only "." (a "." at once declines); a line "use NAME {input}" uses a tool:
> > > > Send it? [y = send, e = write it again, n = decline] `
	if out.String() != want {
		t.Errorf("the terminal shows\n%s\nwant\n%s", out, want)
	}
	if len(res.Contents) != 3 || res.StopReason != mcp.StopToolUse || res.Content != res.Contents[0] {
		t.Fatalf("result %+v", res)
	}
	first, second := res.Contents[1].(mcp.ToolUse), res.Contents[2].(mcp.ToolUse)
	if text := res.Contents[0].(mcp.Text).Text; text != "Let me look." || first.Name != "get_weather" || string(first.Input) != `{"city":"Paris"}` ||
		string(second.Input) != "{}" || first.ID == "" || first.ID == second.ID {
		t.Errorf("result %+v", res.Contents)
	}

	// The next turn shows the use and its result, and, told to use none, takes the same line
	// as words.
	req := weatherQuestion(mcp.ToolChoiceNone)
	req.Messages = append(req.Messages,
		mcp.SamplingMessage{Role: mcp.RoleAssistant, Contents: []mcp.Content{first}},
		mcp.SamplingMessage{Role: mcp.RoleUser, Contents: []mcp.Content{mcp.ToolResult{ToolUseID: first.ID, Content: []mcp.Content{mcp.Text{Text: "18°C"}}}}})
	term, out = scriptedTerminal("use get_weather {}\n.\ny\n")
	res, err = term.sample(context.Background(), req)
	if err != nil || res.StopReason != "endTurn" || res.Content.(mcp.Text).Text != "use get_weather {}" {
		t.Fatalf("%+v %v", res, err)
	}
	for _, want := range []string{"  assistant: [use of get_weather {\"city\":\"Paris\"}]\n  user: [result of get_weather] 18°C\n",
		"  tools (the model may use none of them now):\n", `(a "." at once declines):` + "\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the terminal lacks %q:\n%s", want, out)
		}
	}

	// Input that is not an object, or no use when one is required, is written again.
	term, out = scriptedTerminal("use get_weather [1]\n.\nuse get_weather {\"city\":\n.\nSunny.\n.\nuse get_weather {\"city\":\"Oslo\"}\n.\ny\n")
	res, err = term.sample(context.Background(), weatherQuestion(mcp.ToolChoiceRequired))
	if err != nil || len(res.Contents) != 1 || string(res.Contents[0].(mcp.ToolUse).Input) != `{"city":"Oslo"}` {
		t.Fatalf("%+v %v\n%s", res, err, out)
	}
	for _, want := range []string{"  tools (the model must use one):\n", "the input of get_weather is not a JSON object; write it again.\n",
		"the input of get_weather is not JSON (unexpected end of JSON input); write it again.\n",
		"the server asks the model to use a tool (its tool choice is required): write a line \"use NAME {input}\"; write it again.\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the terminal lacks %q:\n%s", want, out)
		}
	}
}

// --sampling decline and --elicitation decline decline, each with a note.
func TestDeclining(t *testing.T) {
	term, out := scriptedTerminal("Paris\n.\ny\n")
	_, err := term.declineSampling(context.Background(), question)
	if !errors.Is(err, errSamplingDeclined) || out.String() != "mcpgen: server sampler asked for a message from a model (sampling); declined (--sampling decline)\n" {
		t.Errorf("%v\n%s", err, out)
	}
	term, out = scriptedTerminal("y\n")
	res, err := term.declineElicitation(context.Background(), &mcp.ElicitRequest{Message: "Who\x1b[2J?"})
	if err != nil || res.Action != mcp.Decline || out.String() != "mcpgen: server sampler asked \"Who\\x1b[2J?\"; declined (--elicitation decline)\n" {
		t.Errorf("%+v, %v\n%s", res, err, out)
	}
}

// What a server sends is shown with its control characters escaped.
func TestQuestionsEscapeControlCharacters(t *testing.T) {
	term, out := scriptedTerminal(".\n")
	term.sample(context.Background(), &mcp.CreateMessageRequest{MaxTokens: 1, Messages: []mcp.SamplingMessage{{Content: mcp.Text{Text: "a\033[2Jb\rc\td"}}}})
	if !strings.Contains(out.String(), `  user: a\x1b[2Jb\rc`+"\td\n") {
		t.Errorf("shown: %q", out)
	}
	term, out = scriptedTerminal("c\n")
	term.elicit(context.Background(), &mcp.ElicitRequest{Mode: "url", URL: "https://x.example/\033]8;;", Message: "go\x07"})
	if strings.ContainsAny(out.String(), "\033\x07") {
		t.Errorf("shown: %q", out)
	}
}

// A question stops waiting for its answer when the server no longer waits for it.
func TestQuestionEndsWithItsContext(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	var out bytes.Buffer
	c := newConsole(&out)
	term := newTerminal(r, c)
	term.tty, term.server = true, "sampler"
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = term.sample(ctx, question)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Errorf("after %v: %v", time.Since(start), err)
	}
	if !strings.HasSuffix(out.String(), "> \n(server sampler no longer waits for the answer)\n") {
		t.Errorf("shown: %q", out.String())
	}
	// The next question reads on: nothing was lost or left waiting.
	w.WriteString("later\n.\ny\n")
	res, err := term.sample(context.Background(), question)
	if text, _ := res.Content.(mcp.Text); err != nil || text.Text != "later" {
		t.Errorf("the next question: %+v, %v", res, err)
	}
}

// Without a terminal mcpgen call declares no sampling: a server of the stateless revision
// refuses the call (-32021), and mcpgen says how to declare it. With --sampling decline it
// is declared and declined: the server asked in its result, which the client does not call
// again after a decline, so the call ends without a result, exit 1, not 2: nothing failed.
// (A server of a revision with sessions gets the rejection and decides: e2e's
// TestHostCommands.)
func TestCallSamplingWithoutATerminal(t *testing.T) {
	configHome(t)
	dir := t.TempDir()
	path := writeConfig(t, dir, map[string]any{"sampler": testServer("sampler")})
	code, out, errOut := mcpgen(t, "call", "sampler", "ask", "question=Capital of France?", "--trust", "--config", path)
	if code != 2 || out != "" || errOut != "mcpgen call: sampler: jsonrpc error -32021: Missing required client capability: sampling\n"+
		"  mcpgen declares sampling when it can ask you at a terminal, or with --sampling decline (to decline)\n" {
		t.Errorf("no terminal: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = mcpgen(t, "call", "sampler", "ask", "question=Capital of France?", "--sampling", "decline", "--trust", "--config", path)
	if code != 1 || out != "" || errOut != "mcpgen: server sampler asked for a message from a model (sampling); declined (--sampling decline)\n"+
		"mcpgen call: sampler/ask ended without a result: its request for a model's message was declined\n" {
		t.Errorf("--sampling decline: exit %d\n%s%s", code, out, errOut)
	}
}

// What the client declares follows the terminal and the flags: without a terminal no
// sampling or elicitation, with decline both (and sampling.tools, so that a request with
// tools reaches the decline), and the roots are the current directory or --root's.
func TestCapabilitiesWithoutATerminal(t *testing.T) {
	configHome(t)
	dir := t.TempDir()
	path := writeConfig(t, dir, map[string]any{"caps": testServer("caps")})
	a, b := t.TempDir(), t.TempDir()
	cwd, _ := os.Getwd()
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "roots " + fileRoot(cwd).URI},
		{[]string{"--sampling", "off", "--elicitation", "off"}, "roots " + fileRoot(cwd).URI},
		{[]string{"--sampling", "decline"}, "sampling sampling.tools roots " + fileRoot(cwd).URI},
		{[]string{"--elicitation", "decline"}, "elicitation elicitation.url roots " + fileRoot(cwd).URI},
		{[]string{"--root", a, "--root", b}, "roots " + fileRoot(a).URI + " " + fileRoot(b).URI},
	} {
		args := append([]string{"call", "caps", "caps", "--trust", "--config", path}, c.args...)
		code, out, errOut := mcpgen(t, args...)
		if code != 0 || out != c.want+"\n" {
			t.Errorf("mcpgen %s: exit %d %q, want %q\n%s", strings.Join(c.args, " "), code, out, c.want, errOut)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--sampling", "terminal"}, "mcpgen call: --sampling terminal: stdin and stderr are not a terminal, so there is nobody to ask; give decline or off\n"},
		{[]string{"--elicitation", "always"}, "mcpgen call: --elicitation \"always\": give terminal, decline, off or auto\n"},
		{[]string{"--root", filepath.Join(a, "nope")}, "mcpgen call: --root " + filepath.Join(a, "nope") + ": stat " + filepath.Join(a, "nope") + ": no such file or directory\n"},
		{[]string{"--root", path}, "mcpgen call: --root " + path + ": not a directory\n"},
	} {
		args := append([]string{"call", "caps", "caps", "--trust", "--config", path}, c.args...)
		if code, out, errOut := mcpgen(t, args...); code != 2 || errOut != c.want {
			t.Errorf("mcpgen %s: exit %d %q, want 2 and %q\n%s", strings.Join(c.args, " "), code, errOut, c.want, out)
		}
	}
}
