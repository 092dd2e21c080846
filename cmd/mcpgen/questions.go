package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/internal/termtext"
	"github.com/mcpgen/mcpgen/internal/waitread"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// terminal asks the person at the terminal what a server asks of its client: to fill in a
// form or open a URL (elicitation), or to write what a model would answer (sampling), as
// the MCP Inspector does in a browser. When there is nobody to ask (stdin or stderr is not
// a terminal) it declines, and says so.
type terminal struct {
	in   *bufio.Reader
	wait *waitread.Reader // under in: waits for input as long as the question may
	out  *console
	tty  bool
	turn chan struct{} // one question at a time
	// server names the server that asks, when one is called; "" is "the server".
	server string
}

func newTerminal(stdin *os.File, stderr *console) *terminal {
	w := &waitread.Reader{R: stdin}
	return &terminal{in: bufio.NewReader(w), wait: w, out: stderr, tty: isTerminal(stdin) && stderr.tty, turn: make(chan struct{}, 1)}
}

// errSamplingDeclined is the answer to a sampling request the person declined, or that
// nobody was there to answer: the error the spec names for a user's rejection.
var errSamplingDeclined = jsonrpc.NewError(-1, "User rejected sampling request")

// ask runs a question in its turn, with the progress bar off the screen, reading the
// answer for as long as ctx lets it.
func (t *terminal) ask(ctx context.Context, question func() error) error {
	select {
	case t.turn <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-t.turn }()
	t.out.hold()
	defer t.out.release()
	if t.wait != nil {
		t.wait.Ctx = ctx
		defer func() { t.wait.Ctx = nil }()
	}
	err := question()
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		fmt.Fprintf(t.out, "\n(%s no longer waits for the answer)\n", t.who())
	}
	return err
}

// readLine reads a line the person typed, without its end; io.EOF when the input ended
// first.
func (t *terminal) readLine() (string, error) {
	line, err := t.in.ReadString('\n')
	if err != nil && line == "" {
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
}

// choose reads one of the keys offered (or the word it stands for), asking again until it
// gets one; io.EOF when the input ended first.
func (t *terminal) choose(keys ...string) (string, error) {
	words := map[string]string{"y": "yes", "n": "no", "c": "cancel", "e": "edit"}
	for {
		line, err := t.readLine()
		if err != nil {
			fmt.Fprintln(t.out)
			return "", err
		}
		answer := strings.ToLower(strings.TrimSpace(line))
		for _, k := range keys {
			if answer == k || answer == words[k] {
				return k, nil
			}
		}
		fmt.Fprintf(t.out, "%s? ", strings.Join(keys, ", "))
	}
}

func (t *terminal) who() string {
	if t.server == "" {
		return "the server"
	}
	return "server " + t.server
}

// elicit asks the person to fill in a form or to open a URL.
func (t *terminal) elicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	var res *mcp.ElicitResult
	err := t.ask(ctx, func() (err error) {
		if req.Mode == "url" {
			fmt.Fprintf(t.out, "\n%s asks you to open this URL:\n  %s\n%s\nDone? [y = accept, n = decline, c = cancel] ", upperFirst(t.who()), termtext.Text(req.URL), termtext.Text(req.Message))
			res, err = t.action()
			return err
		}
		res, err = t.form(req)
		return err
	})
	return res, err
}

// action reads accept, decline or cancel; the end of the input cancels.
func (t *terminal) action() (*mcp.ElicitResult, error) {
	choice, err := t.choose("y", "n", "c")
	switch {
	case errors.Is(err, io.EOF):
		return &mcp.ElicitResult{Action: mcp.Cancel}, nil
	case err != nil:
		return nil, err
	}
	return &mcp.ElicitResult{Action: map[string]mcp.ElicitAction{"y": mcp.Accept, "n": mcp.Decline, "c": mcp.Cancel}[choice]}, nil
}

// form asks for each field of a form, then whether to send it.
func (t *terminal) form(req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	var form struct {
		Properties map[string]struct {
			Type        string `json:"type"`
			Title       string `json:"title"`
			Description string `json:"description"`
			Enum        []any  `json:"enum"`
			Default     any    `json:"default"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(req.RequestedSchema, &form); err != nil {
		return nil, fmt.Errorf("the form's schema: %w", err)
	}
	fmt.Fprintf(t.out, "\n%s asks: %s\n", upperFirst(t.who()), termtext.Text(req.Message))
	names := slices.Clone(form.Required) // required fields first, in the form's order
	for _, n := range slices.Sorted(maps.Keys(form.Properties)) {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	content := map[string]any{}
	for _, name := range names {
		p := form.Properties[name]
		label := name
		if p.Title != "" {
			label = p.Title
		}
		hint := p.Type
		if len(p.Enum) > 0 {
			hint = fmt.Sprint(p.Enum)
		}
		if p.Default != nil {
			hint += fmt.Sprintf(", default %v", p.Default)
		}
		if !slices.Contains(form.Required, name) {
			hint += ", optional"
		}
		if p.Description != "" {
			fmt.Fprintf(t.out, "  %s\n", termtext.Text(p.Description))
		}
		for {
			fmt.Fprintf(t.out, "  %s (%s): ", termtext.Text(label), termtext.Text(hint))
			line, err := t.readLine()
			if errors.Is(err, io.EOF) {
				fmt.Fprintln(t.out)
				return &mcp.ElicitResult{Action: mcp.Cancel}, nil
			}
			if err != nil {
				return nil, err
			}
			line = strings.TrimSpace(line)
			if line == "" {
				if slices.Contains(form.Required, name) && p.Default == nil {
					fmt.Fprintln(t.out, "  (required)")
					continue
				}
				break
			}
			v, err := typed(line, []string{p.Type})
			if err != nil {
				fmt.Fprintf(t.out, "  %v\n", err)
				continue
			}
			if n, ok := v.(json.Number); ok {
				f, _ := n.Float64()
				v = f
			}
			content[name] = v
			break
		}
	}
	fmt.Fprint(t.out, "Send? [y = accept, n = decline, c = cancel] ")
	res, err := t.action()
	if err == nil && res.Action == mcp.Accept {
		res.Content = content
	}
	return res, err
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
