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
	"sync/atomic"

	"github.com/mcpgen/mcpgen/internal/termtext"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// sample shows the messages a server wants a model to continue, and sends back the reply
// the person writes, or declines. When the server offers the model tools, they are shown,
// and a line "use NAME {input}" of the reply is a use of one.
func (t *terminal) sample(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	var res *mcp.CreateMessageResult
	err := t.ask(ctx, func() error {
		fmt.Fprintf(t.out, "\n%s asks for a message from a model (sampling), in at most %d tokens:\n", upperFirst(t.who()), req.MaxTokens)
		if req.SystemPrompt != "" {
			t.message("system", req.SystemPrompt)
		}
		names := toolUseNames(req.Messages)
		for _, m := range req.Messages {
			role := string(m.Role)
			if role == "" {
				role = string(mcp.RoleUser)
			}
			for _, b := range blocks(m) {
				t.message(role, blockText(b, names))
			}
		}
		if details := samplingDetails(req); details != "" {
			fmt.Fprintf(t.out, "  (%s)\n", details)
		}
		tools := len(req.Tools) > 0 && req.ToolChoice != mcp.ToolChoiceNone
		if len(req.Tools) > 0 {
			t.offered(req)
		}
		for {
			how := `Write the model's reply, ending with a line of only "." (a "." at once declines)`
			if tools {
				how += `; a line "use NAME {input}" uses a tool`
			}
			fmt.Fprintln(t.out, how+":")
			var lines []string
			for {
				fmt.Fprint(t.out, "> ")
				line, err := t.readLine()
				if errors.Is(err, io.EOF) {
					fmt.Fprintln(t.out)
					break
				}
				if err != nil {
					return err
				}
				if line == "." {
					break
				}
				lines = append(lines, line)
			}
			if len(lines) == 0 {
				fmt.Fprintln(t.out, "Declined.")
				return errSamplingDeclined
			}
			reply, problem := t.reply(lines, req, tools)
			if problem != "" {
				fmt.Fprintf(t.out, "%s; write it again.\n", problem)
				continue
			}
			fmt.Fprint(t.out, "Send it? [y = send, e = write it again, n = decline] ")
			choice, err := t.choose("y", "e", "n")
			switch {
			case errors.Is(err, io.EOF) || choice == "n":
				fmt.Fprintln(t.out, "Declined.")
				return errSamplingDeclined
			case err != nil:
				return err
			case choice == "y":
				res = reply
				return nil
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// toolUses numbers the tool uses the person writes, so that each has an id of its own in
// every conversation of this run.
var toolUses atomic.Int64

// reply makes the model's answer of the lines the person wrote: text, and with tools, each
// line "use NAME {input}" that names a tool offered as a use of it. problem says what is
// wrong with the lines, if anything.
func (t *terminal) reply(lines []string, req *mcp.CreateMessageRequest, tools bool) (res *mcp.CreateMessageResult, problem string) {
	res = &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "human", StopReason: "endTurn"}
	var text []string
	for _, line := range lines {
		name, input, ok := toolLine(line, req.Tools)
		if !tools || !ok {
			text = append(text, line)
			continue
		}
		if input == "" {
			input = "{}"
		}
		var v any
		if err := json.Unmarshal([]byte(input), &v); err != nil {
			return nil, fmt.Sprintf("the input of %s is not JSON (%v)", name, err)
		}
		if _, ok := v.(map[string]any); !ok {
			return nil, fmt.Sprintf("the input of %s is not a JSON object", name)
		}
		var compact bytes.Buffer
		json.Compact(&compact, []byte(input))
		res.Contents = append(res.Contents, mcp.ToolUse{ID: "mcpgen_" + strconv.FormatInt(toolUses.Add(1), 10), Name: name, Input: compact.Bytes()})
	}
	uses := len(res.Contents) > 0
	if uses {
		res.StopReason = mcp.StopToolUse
	} else if req.ToolChoice == mcp.ToolChoiceRequired {
		return nil, "the server asks the model to use a tool (its tool choice is required): write a line \"use NAME {input}\""
	}
	if joined := strings.Join(text, "\n"); len(text) > 0 && (!uses || strings.TrimSpace(joined) != "") {
		res.Contents = slices.Insert(res.Contents, 0, mcp.Content(mcp.Text{Text: joined}))
	}
	res.Content = res.Contents[0]
	return res, ""
}

// toolLine reads a line "use NAME {input}" that names a tool of tools; the input may be
// left out.
func toolLine(line string, tools []mcp.SamplingTool) (name, input string, ok bool) {
	rest, found := strings.CutPrefix(strings.TrimSpace(line), "use ")
	if !found {
		return "", "", false
	}
	name, input, _ = strings.Cut(strings.TrimSpace(rest), " ")
	if !slices.ContainsFunc(tools, func(t mcp.SamplingTool) bool { return t.Name == name }) {
		return "", "", false
	}
	return name, strings.TrimSpace(input), true
}

// offered shows the tools the server offers the model, each with its input's properties.
func (t *terminal) offered(req *mcp.CreateMessageRequest) {
	switch req.ToolChoice {
	case mcp.ToolChoiceNone:
		fmt.Fprintln(t.out, "  tools (the model may use none of them now):")
	case mcp.ToolChoiceRequired:
		fmt.Fprintln(t.out, "  tools (the model must use one):")
	default:
		fmt.Fprintln(t.out, "  tools the model may use:")
	}
	for _, tool := range req.Tools {
		line := "    " + termtext.Text(tool.Name) + inputSummary(tool.InputSchema)
		if d := firstLine(tool.Description); d != "" {
			line += ": " + termtext.Text(d)
		}
		fmt.Fprintln(t.out, line)
	}
}

// inputSummary is a tool's input as a person reads it, its properties required first:
// {"city": string, "units"?: string}.
func inputSummary(schema json.RawMessage) string {
	var s struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if json.Unmarshal(schema, &s) != nil || len(s.Properties) == 0 {
		return " {}"
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int { // required first, then by name
		ra, rb := slices.Contains(s.Required, a), slices.Contains(s.Required, b)
		if ra != rb {
			if ra {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(names))
	for i, n := range names {
		p := strconv.Quote(n)
		if !slices.Contains(s.Required, n) {
			p += "?"
		}
		if typ, ok := s.Properties[n].Type.(string); ok {
			p += ": " + typ
		}
		parts[i] = p
	}
	return " {" + termtext.Text(strings.Join(parts, ", ")) + "}"
}

// blocks are a sampling message's content blocks.
func blocks(m mcp.SamplingMessage) []mcp.Content {
	if len(m.Contents) > 0 {
		return m.Contents
	}
	if m.Content != nil {
		return []mcp.Content{m.Content}
	}
	return nil
}

// toolUseNames maps the ids of a conversation's tool uses to their tools' names, for its
// tool results, which name only the id.
func toolUseNames(messages []mcp.SamplingMessage) map[string]string {
	names := map[string]string{}
	for _, m := range messages {
		for _, b := range blocks(m) {
			if u, ok := b.(mcp.ToolUse); ok {
				names[u.ID] = u.Name
			}
		}
	}
	return names
}

// blockText is a block of a sampling message as a person reads it: a tool's use and its
// result included.
func blockText(c mcp.Content, names map[string]string) string {
	switch c := c.(type) {
	case mcp.ToolUse:
		return "[use of " + c.Name + " " + string(c.Input) + "]"
	case mcp.ToolResult:
		what := "result of " + names[c.ToolUseID]
		if names[c.ToolUseID] == "" {
			what = "result of tool use " + c.ToolUseID
		}
		if c.IsError {
			what += ", an error"
		}
		return "[" + what + "] " + mcp.TextOf(c.Content)
	}
	return contentText(c)
}

// message shows one message of a conversation, each line of it indented under the role.
func (t *terminal) message(role, text string) {
	fmt.Fprintf(t.out, "  %s: %s\n", role, strings.ReplaceAll(termtext.Text(text), "\n", "\n"+strings.Repeat(" ", len(role)+4)))
}

// samplingDetails are the request's wishes other than the messages, as a person reads them.
func samplingDetails(req *mcp.CreateMessageRequest) string {
	var parts []string
	if req.Temperature != nil {
		parts = append(parts, "temperature "+number(*req.Temperature))
	}
	if len(req.StopSequences) > 0 {
		quoted := make([]string, len(req.StopSequences))
		for i, s := range req.StopSequences {
			quoted[i] = strconv.QuoteToGraphic(s)
		}
		parts = append(parts, "stop at "+strings.Join(quoted, " or "))
	}
	if p := req.ModelPreferences; p != nil && len(p.Hints) > 0 {
		parts = append(parts, "model like "+termtext.Text(strings.Join(p.Hints, " or ")))
	}
	if req.IncludeContext != "" && req.IncludeContext != "none" {
		parts = append(parts, "context of "+termtext.Text(req.IncludeContext)+" asked for, none given")
	}
	return strings.Join(parts, "; ")
}
