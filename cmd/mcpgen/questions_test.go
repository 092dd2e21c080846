package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
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

// Without a terminal, sampling is declined with a note, not asked.
func TestSamplingWithoutATerminal(t *testing.T) {
	term, out := scriptedTerminal("Paris\n.\ny\n")
	term.tty = false
	_, err := term.sample(context.Background(), question)
	if !errors.Is(err, errSamplingDeclined) || out.String() != "mcpgen: server sampler asked for a message from a model (sampling); declined, as there is no terminal to write it at\n" {
		t.Errorf("%v\n%s", err, out)
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

// mcpgen call answers a server's sampling request: declined without a terminal. A server
// of the stateless revision asks in its result, which the client does not call again after
// a decline: the call ends without a result, exit 1, not 2: nothing failed. (A server of a
// revision with sessions gets the rejection and decides: e2e's TestHostCommands.)
func TestCallSamplingWithoutATerminal(t *testing.T) {
	configHome(t)
	dir := t.TempDir()
	path := writeConfig(t, dir, map[string]any{"sampler": testServer("sampler")})
	const note = "mcpgen: server sampler asked for a message from a model (sampling); declined, as there is no terminal to write it at\n"
	code, out, errOut := mcpgen(t, "call", "sampler", "ask", "question=Capital of France?", "--trust", "--config", path)
	if code != 1 || out != "" || errOut != note+"mcpgen call: sampler/ask ended without a result: its request for a model's message was declined\n" {
		t.Errorf("2026-07-28: exit %d\n%s%s", code, out, errOut)
	}
}
