package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/internal/spelling"
	"github.com/mcpgen/mcpgen/internal/termtext"

	"github.com/mcpgen/mcpgen/runtime/host"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

func runServers(ctx context.Context, r *reach) error {
	if r.oneServer() && r.cmd.Args().Len() > 0 {
		return fail(exitError, "--stdio, --url, --sse and --ws name the server: give no SERVER")
	}
	h, err := r.connect(ctx, r.cmd.Args().Slice(), nil, host.Lists{})
	if err != nil {
		return err
	}
	servers := h.Servers()
	if r.cmd.Bool("json") {
		if err := printJSON(r.stdout, servers); err != nil {
			return err
		}
	} else {
		tw := newTable(r.stdout)
		fmt.Fprintln(tw, "NAME\tTRANSPORT\tSTATE\tREVISION\tTOOLS\tPROMPTS\tRESOURCES\tTEMPLATES\tCONNECT")
		for _, st := range servers {
			if st.State != host.Ready {
				fmt.Fprintf(tw, "%s\t%s\t%s\t-\t-\t-\t-\t-\t-\n", termtext.Line(st.Name), st.Transport, st.State)
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", termtext.Line(st.Name), st.Transport, st.State, termtext.Line(st.Info.ProtocolVersion),
				listCount(st, "tools/list", st.Tools), listCount(st, "prompts/list", st.Prompts), listCount(st, "resources/list", st.Resources),
				listCount(st, "resources/templates/list", st.Templates), st.ConnectTime.Round(time.Millisecond))
		}
		tw.Flush()
		// A list a ready server could not give, and (-v) how each revision was chosen.
		var notes []string
		for _, st := range servers {
			for _, e := range st.ListErrors {
				notes = append(notes, termtext.Line(fmt.Sprintf("server %s: %s failed: %s", st.Name, e.Method, firstLine(e.Err.Error()))))
			}
		}
		for _, st := range servers {
			if r.cmd.Bool("verbose") && st.Info.Negotiation != "" {
				notes = append(notes, termtext.Line(fmt.Sprintf("server %s speaks %s: %s", st.Name, st.Info.ProtocolVersion, st.Info.Negotiation)))
			}
		}
		if len(notes) > 0 {
			fmt.Fprintf(r.stdout, "\n%s\n", strings.Join(notes, "\n"))
		}
	}
	failed := 0
	for _, st := range servers {
		if st.State != host.Ready {
			failed++
			if !r.cmd.Bool("json") {
				fmt.Fprintf(r.stdout, "\n%s\n", failedServer(st))
			}
		}
	}
	if failed > 0 {
		return fail(exitToolError, "%d of %d servers failed", failed, len(servers))
	}
	return nil
}

// listCount is how many items a ready server listed, or "failed" when the list did
// (ServerStatus.ListErrors says why).
func listCount(st host.ServerStatus, method string, n int) string {
	if listFailed(st, method) != nil {
		return "failed"
	}
	return strconv.Itoa(n)
}

// listFailed is why a ready server could not give the list of method, or nil.
func listFailed(st host.ServerStatus, method string) error {
	for _, e := range st.ListErrors {
		if e.Method == method {
			return e.Err
		}
	}
	return nil
}

func runTools(ctx context.Context, r *reach) error {
	if r.oneServer() && r.cmd.Args().Len() > 0 {
		return fail(exitError, "--stdio, --url, --sse and --ws name the server: give no SERVER")
	}
	h, err := r.connect(ctx, r.cmd.Args().Slice(), nil, host.Lists{Prompts: true, Resources: true})
	if err != nil {
		return err
	}
	tools := h.Tools()
	if name := r.cmd.String("schema"); name != "" {
		t, err := findTool(h, name)
		if err != nil {
			return err
		}
		return printJSON(r.stdout, t.InputSchema())
	}
	if r.cmd.Bool("json") {
		out := make([]toolJSON, len(tools))
		for i, t := range tools {
			out[i] = toToolJSON(t)
		}
		if err := printJSON(r.stdout, out); err != nil {
			return err
		}
	} else {
		// The names mcpgen call takes: the server's and the tool's own (a host gives a model
		// mcp_{server}_{tool}, which --json shows).
		if len(tools) > 0 {
			tw := newTable(r.stdout)
			fmt.Fprintln(tw, "SERVER\tTOOL\tDESCRIPTION")
			for _, t := range tools {
				// A tool's name and description are the server's: one line of text each.
				fmt.Fprintf(tw, "%s\t%s\t%s\n", termtext.Line(t.Server), termtext.Line(t.Tool.Name), termtext.Line(clip(firstLine(t.Description()), 100)))
			}
			tw.Flush()
		}
	}
	for _, c := range h.Collisions() {
		fmt.Fprintf(r.stderr, "mcpgen tools: note: %s\n", termtext.Line(c.String()))
	}
	var failed []string
	for _, st := range h.Servers() {
		if st.State != host.Ready {
			fmt.Fprintf(r.stderr, "mcpgen tools: %s\n", failedServer(st))
			failed = append(failed, st.Name)
		}
		for _, e := range st.ListErrors {
			fmt.Fprintf(r.stderr, "mcpgen tools: server %s: %s failed: %s\n", st.Name, e.Method, termtext.Line(firstLine(e.Err.Error())))
			failed = append(failed, st.Name)
		}
	}
	if len(failed) > 0 {
		return &failure{exitToolError, nil}
	}
	return nil
}

// findTool finds a tool by its qualified name, or by its own name when one server has it.
func findTool(h *host.Host, name string) (*host.Tool, error) {
	if t, ok := h.Tool(name); ok {
		return t, nil
	}
	var found []*host.Tool
	for _, t := range h.Tools() {
		if t.Tool.Name == name {
			found = append(found, t)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		// A server that failed, or could not list its tools, may well have it: say so, not
		// only that the tool is not known (a server slow to start, past the connect timeout,
		// looked like one without the tool).
		var why []string
		for _, st := range h.Servers() {
			if st.State != host.Ready {
				why = append(why, failedServer(st))
			} else if err := listFailed(st, "tools/list"); err != nil {
				why = append(why, termtext.Line(fmt.Sprintf("server %s could not list its tools: %v", st.Name, err)))
			}
		}
		if len(why) > 0 {
			return nil, fail(exitError, "no tool %s is known, and %s", name, strings.Join(why, "\n"))
		}
		return nil, fail(exitError, "no tool %s%s", name, suggest(name, h.Tools()))
	}
	names := make([]string, len(found))
	for i, t := range found {
		names[i] = t.Name
	}
	return nil, fail(exitError, "%d servers have a tool %s: give one of %s", len(found), name, strings.Join(names, ", "))
}

// suggest names the tools whose names are like name.
func suggest(name string, tools []*host.Tool) string {
	var like []string
	low := strings.ToLower(name)
	for _, t := range tools {
		own := strings.ToLower(t.Tool.Name)
		if strings.Contains(own, low) || strings.Contains(low, own) || strings.Contains(strings.ToLower(t.Name), low) ||
			spelling.Distance(own, low) <= max(1, len(low)/4) {
			like = append(like, t.Tool.Name)
		}
	}
	if len(like) == 0 || len(like) > 5 {
		return " (mcpgen tools lists them)"
	}
	return "; did you mean " + strings.Join(like, " or ") + "?"
}

type toolJSON struct {
	Name         string          `json:"name"`
	Server       string          `json:"server"`
	Tool         string          `json:"tool"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  map[string]bool `json:"annotations,omitempty"`
	Anthropic    json.RawMessage `json:"anthropic"`
	OpenAI       json.RawMessage `json:"openai"`
}

func toToolJSON(t *host.Tool) toolJSON {
	j := toolJSON{Name: t.Name, Server: t.Server, Tool: t.Tool.Name, Title: t.Tool.Title, Description: t.Description(),
		InputSchema: t.InputSchema(), Anthropic: t.Anthropic(), OpenAI: t.OpenAI()}
	if t.Tool.OutputSchema != "" {
		j.OutputSchema = json.RawMessage(t.Tool.OutputSchema)
	}
	a := t.Tool.Annotations
	for k, v := range map[string]*bool{"readOnlyHint": a.ReadOnlyHint, "destructiveHint": a.DestructiveHint, "idempotentHint": a.IdempotentHint, "openWorldHint": a.OpenWorldHint} {
		if v != nil {
			if j.Annotations == nil {
				j.Annotations = map[string]bool{}
			}
			j.Annotations[k] = *v
		}
	}
	return j
}

func runCall(ctx context.Context, r *reach) error {
	server, rest, err := r.serverAndRest("SERVER TOOL [key=value ...]")
	if err != nil {
		return err
	}
	if len(rest) == 0 {
		return fail(exitError, "give the tool: mcpgen call %sTOOL [key=value ...]", map[bool]string{true: "", false: "SERVER "}[r.oneServer()])
	}
	name, pairs := rest[0], rest[1:]
	progress := r.cmd.String("progress")
	if !slices.Contains([]string{"auto", "always", "never"}, progress) {
		return fail(exitError, "--progress %q: give auto, always or never", progress)
	}
	server, h, err := r.connectOne(ctx, server, nil, host.Lists{Prompts: true, Resources: true})
	if err != nil {
		return err
	}
	t, ok := h.ServerTool(server, name)
	if !ok {
		if st, _ := h.Server(server); listFailed(st, "tools/list") != nil {
			return fail(exitError, "server %s could not list its tools, so mcpgen does not know %s: %v", server, name, listFailed(st, "tools/list"))
		}
		if t, ok = h.Tool(name); !ok || t.Server != server {
			var own []*host.Tool
			for _, t := range h.Tools() {
				if t.Server == server {
					own = append(own, t)
				}
			}
			return fail(exitError, "server %s has no tool %s%s", server, name, suggest(name, own))
		}
	}
	arguments, err := toolArguments(r.cmd.String("args"), r.stdin, t.InputSchema(), pairs)
	if err != nil {
		return fail(exitError, "%v", err)
	}
	var bar *progressBar
	if progress == "always" || progress == "auto" && isTerminal(r.stderr) {
		bar = &progressBar{c: r.console}
		ctx = mcp.WithProgress(ctx, bar.update)
	}
	if d := r.cmd.Duration("timeout"); d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	res, err := t.Call(ctx, arguments)
	r.abandoned = ctx.Err() != nil
	r.lines.flush() // the call's log messages before the bar's last state and the result
	if bar != nil {
		bar.finish() // before the result, which may go to the same terminal
	}
	if errors.Is(err, errSamplingDeclined) {
		// A server of the stateless revision asks in its result; a client that declines
		// does not call again, and the call ends there.
		return fail(exitToolError, "%s/%s ended without a result: its request for a model's message was declined", server, t.Tool.Name)
	}
	if err != nil {
		return requestFailed(err)
	}
	if r.cmd.Bool("json") {
		if err := printJSON(r.stdout, res); err != nil {
			return err
		}
	} else if err := printResult(r.stdout, res); err != nil {
		return err
	}
	if res.IsError {
		return fail(exitToolError, "%s/%s returned an error (isError)", server, t.Tool.Name)
	}
	return nil
}

func runRead(ctx context.Context, r *reach) error {
	server, rest, err := r.serverAndRest("SERVER URI")
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return fail(exitError, "give one URI: mcpgen read %sURI", map[bool]string{true: "", false: "SERVER "}[r.oneServer()])
	}
	server, h, err := r.connectOne(ctx, server, nil, host.Lists{Tools: true, Prompts: true, Resources: true})
	if err != nil {
		return err
	}
	contents, err := h.ReadResource(ctx, server, rest[0])
	if err != nil {
		return requestFailed(err)
	}
	if r.cmd.Bool("json") {
		return printJSON(r.stdout, map[string]any{"contents": contents})
	}
	for _, c := range contents {
		switch {
		case c.Blob == nil:
			fmt.Fprint(r.stdout, withNewline(c.Text))
		case isTerminal(r.stdout):
			fmt.Fprintf(r.stdout, "[%s: %d bytes of %s; redirect stdout to save them, or use --json]\n", c.URI, len(c.Blob), orUnknown(c.MIMEType))
		default:
			if _, err := r.stdout.Write(c.Blob); err != nil {
				return err
			}
		}
	}
	return nil
}

func runPrompt(ctx context.Context, r *reach) error {
	server, rest, err := r.serverAndRest("SERVER NAME [key=value ...]")
	if err != nil {
		return err
	}
	if len(rest) == 0 {
		return fail(exitError, "give the prompt: mcpgen prompt %sNAME [key=value ...]", map[bool]string{true: "", false: "SERVER "}[r.oneServer()])
	}
	arguments := map[string]string{}
	for _, p := range rest[1:] {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return fail(exitError, "argument %q: write key=value", p)
		}
		arguments[k] = v
	}
	server, h, err := r.connectOne(ctx, server, nil, host.Lists{Tools: true, Prompts: true, Resources: true})
	if err != nil {
		return err
	}
	res, err := h.GetPrompt(ctx, server, rest[0], arguments)
	if err != nil {
		return requestFailed(err)
	}
	if r.cmd.Bool("json") {
		return printJSON(r.stdout, res)
	}
	if res.Description != "" {
		fmt.Fprintf(r.stdout, "# %s\n", res.Description)
	}
	for _, m := range res.Messages {
		fmt.Fprintf(r.stdout, "%s: %s", m.Role, withNewline(contentText(m.Content)))
	}
	return nil
}

// printResult prints a tool's result for a person, once: its content blocks (text as
// text, a line for each other block) or, when they hold nothing but the same JSON (or there
// are none), its structured content as indented JSON. A tool that gives both says the same
// thing twice, for a model and for a program; --json prints the whole result.
func printResult(w io.Writer, res *mcp.CallToolResult) error {
	var structured any
	if res.StructuredContent != nil {
		if err := json.Unmarshal(res.StructuredContent, &structured); err != nil {
			structured = nil
		}
	}
	var blocks []mcp.Content
	for _, c := range res.Content {
		if t, ok := c.(mcp.Text); ok && structured != nil && sameJSON(t.Text, structured) {
			continue
		}
		blocks = append(blocks, c)
	}
	if len(blocks) == 0 && res.StructuredContent != nil {
		return printJSON(w, json.RawMessage(res.StructuredContent))
	}
	for _, c := range blocks {
		fmt.Fprint(w, withNewline(contentText(c)))
	}
	return nil
}

func sameJSON(text string, v any) bool {
	var t any
	if json.Unmarshal([]byte(text), &t) != nil {
		return false
	}
	a, _ := json.Marshal(t)
	b, _ := json.Marshal(v)
	return bytes.Equal(a, b)
}

// contentText is a content block as a person reads it.
func contentText(c mcp.Content) string {
	switch c := c.(type) {
	case mcp.Text:
		return c.Text
	case mcp.Image:
		return fmt.Sprintf("[image: %s, %d bytes]", orUnknown(c.MIMEType), len(c.Data))
	case mcp.Audio:
		return fmt.Sprintf("[audio: %s, %d bytes]", orUnknown(c.MIMEType), len(c.Data))
	case mcp.ResourceLink:
		s := "[resource link: " + c.URI
		if c.Name != "" {
			s += " (" + c.Name + ")"
		}
		return s + "]"
	case mcp.EmbeddedResource:
		if c.Resource.Blob == nil {
			return fmt.Sprintf("[resource %s]\n%s", c.Resource.URI, c.Resource.Text)
		}
		return fmt.Sprintf("[resource %s: %s, %d bytes]", c.Resource.URI, orUnknown(c.Resource.MIMEType), len(c.Resource.Blob))
	}
	return fmt.Sprintf("[%T]", c)
}

func orUnknown(mime string) string {
	if mime == "" {
		return "unknown type"
	}
	return mime
}

func withNewline(s string) string {
	if !strings.HasSuffix(s, "\n") {
		return s + "\n"
	}
	return s
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(first)
}

// clip shortens s to n characters, marking the cut with an ellipsis.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

func printJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
