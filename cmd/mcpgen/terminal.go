package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"golang.org/x/term"
)

// isTerminal says whether w is a terminal: not merely a character device, which /dev/null
// is too (a service's or a CI job's stdin), for there is nobody to ask there.
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progressBar draws a call's progress on one line of stderr, redrawn in place.
type progressBar struct {
	w     io.Writer
	mu    sync.Mutex
	drawn int
}

const barWidth = 30

func (p *progressBar) update(n mcp.ProgressNotice) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var line string
	if n.Total > 0 {
		frac := min(max(n.Progress/n.Total, 0), 1)
		full := int(frac * barWidth)
		bar := strings.Repeat("=", full)
		if full < barWidth {
			bar += ">" + strings.Repeat(" ", barWidth-full-1)
		}
		line = fmt.Sprintf("[%s] %3.0f%% %s/%s", bar, frac*100, number(n.Progress), number(n.Total))
	} else {
		pos := p.drawn % (barWidth - 3)
		line = fmt.Sprintf("[%s<=>%s] %s", strings.Repeat(" ", pos), strings.Repeat(" ", barWidth-3-pos), number(n.Progress))
	}
	if n.Message != "" {
		line += " " + n.Message
	}
	fmt.Fprintf(p.w, "\r\033[K%s", line)
	p.drawn++
}

// finish ends the bar's line, leaving its last state on the screen.
func (p *progressBar) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn > 0 {
		fmt.Fprintln(p.w)
	}
}

func number(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// terminal asks the person at the terminal what a server asks (elicitation), or declines
// when there is no one to ask: stdin or stderr is not a terminal.
type terminal struct {
	in  *bufio.Reader
	out io.Writer
	tty bool
	mu  sync.Mutex // one question at a time
}

func newTerminal(stdin *os.File, stderr io.Writer) *terminal {
	return &terminal{in: bufio.NewReader(stdin), out: stderr, tty: isTerminal(stdin) && isTerminal(stderr)}
}

func (t *terminal) elicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	if !t.tty {
		fmt.Fprintf(t.out, "mcpgen: the server asked %q; declined, as there is no terminal to ask at\n", req.Message)
		return &mcp.ElicitResult{Action: mcp.Decline}, nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if req.Mode == "url" {
		fmt.Fprintf(t.out, "\nThe server asks you to open this URL:\n  %s\n%s\nDone? [y = accept, n = decline, c = cancel] ", req.URL, req.Message)
		return &mcp.ElicitResult{Action: t.choice()}, nil
	}
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
	fmt.Fprintf(t.out, "\nThe server asks: %s\n", req.Message)
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
			fmt.Fprintf(t.out, "  %s\n", p.Description)
		}
		for {
			fmt.Fprintf(t.out, "  %s (%s): ", label, hint)
			line, err := t.in.ReadString('\n')
			if err != nil && line == "" {
				fmt.Fprintln(t.out)
				return &mcp.ElicitResult{Action: mcp.Cancel}, nil
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
	action := t.choice()
	if action != mcp.Accept {
		content = nil
	}
	return &mcp.ElicitResult{Action: action, Content: content}, nil
}

// choice reads y, n or c.
func (t *terminal) choice() mcp.ElicitAction {
	for {
		line, err := t.in.ReadString('\n')
		if err != nil && line == "" {
			fmt.Fprintln(t.out)
			return mcp.Cancel
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return mcp.Accept
		case "n", "no":
			return mcp.Decline
		case "c", "cancel":
			return mcp.Cancel
		}
		fmt.Fprint(t.out, "y, n or c? ")
	}
}
