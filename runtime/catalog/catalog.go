// Package catalog serves the tools of one server as three tools of another, for an API of
// more operations than a model can be shown at once (GitHub's REST API has 1,223):
// list_operations finds them by words and tags, describe_operation gives one's description
// and schemas, and call_operation calls it. The calls go to the inner server's tools as they
// are, so its generated code still decodes and validates every call's arguments.
package catalog

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/jsonwire"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// The tools a catalog adds.
const (
	ListTool     = "list_operations"
	DescribeTool = "describe_operation"
	CallTool     = "call_operation"
)

// PageSize is how many operations list_operations returns at a time.
const PageSize = 50

// Options say more of the operations.
type Options struct {
	Tags map[string][]string // by tool name: what list_operations' tag argument matches
}

// Catalog is a server's tools, served by three.
type Catalog struct {
	client *mcp.Client
	tools  []*mcp.Tool
	byName map[string]*mcp.Tool
	tags   map[string][]string
}

// Register adds the three tools to outer, serving the tools of inner, which it connects to in
// memory. Close the Catalog when the server stops.
func Register(ctx context.Context, outer, inner *mcp.Server, opts Options) (*Catalog, error) {
	client, err := mcp.Connect(ctx, &mcp.MemoryTransport{Server: inner}, nil)
	if err != nil {
		return nil, err
	}
	tools, err := client.ListTools(ctx)
	if err != nil {
		client.Close()
		return nil, err
	}
	slices.SortFunc(tools, func(a, b *mcp.Tool) int { return strings.Compare(a.Name, b.Name) })
	c := &Catalog{client: client, tools: tools, byName: map[string]*mcp.Tool{}, tags: opts.Tags}
	var names []string
	for _, t := range tools {
		c.byName[t.Name] = t
		names = append(names, t.Name)
	}
	yes := true
	outer.AddTool(mcp.Tool{
		Name:  ListTool,
		Title: "List the API's operations",
		Description: fmt.Sprintf("Lists the API's %d operations, %d at a time: name and summary. Give words to find those whose "+
			"name or description has them all, or a tag. Then describe_operation gives one's arguments, and call_operation calls it.", len(tools), PageSize),
		InputSchema: `{"type":"object","properties":{` +
			`"query":{"type":"string","description":"Words the operation's name or description has, all of them (case does not matter)."},` +
			`"tag":{"type":"string","description":"Only operations of this tag of the API's description."},` +
			`"cursor":{"type":"string","description":"next_cursor of the previous page."}},"additionalProperties":false}`,
		Annotations: mcp.ToolAnnotations{ReadOnlyHint: &yes, OpenWorldHint: new(bool)},
		Handler:     c.list,
	})
	outer.AddTool(mcp.Tool{
		Name:        DescribeTool,
		Title:       "Describe an operation",
		Description: "Gives an operation's description, its arguments (input schema) and its result (output schema), for call_operation.",
		InputSchema: `{"type":"object","properties":{"name":{"type":"string","description":"The operation, as list_operations names it."}},"required":["name"],"additionalProperties":false}`,
		Annotations: mcp.ToolAnnotations{ReadOnlyHint: &yes, OpenWorldHint: new(bool)},
		Handler:     c.describe,
	})
	outer.AddTool(mcp.Tool{
		Name:        CallTool,
		Title:       "Call an operation",
		Description: "Calls an operation with its arguments, which must be what describe_operation's input schema says. The result is the operation's.",
		InputSchema: `{"type":"object","properties":{"name":{"type":"string","description":"The operation, as list_operations names it."},` +
			`"arguments":{"type":"object","description":"Its arguments, as its input schema says."}},"required":["name"],"additionalProperties":false}`,
		Handler: c.call,
	})
	return c, nil
}

// Close ends the connection to the inner server.
func (c *Catalog) Close() error { return c.client.Close() }

// args reads the members of a meta-tool's arguments: strings, and one raw object.
func args(call *mcp.ToolCall) (map[string]string, json.RawMessage, error) {
	strs := map[string]string{}
	var raw json.RawMessage
	data := call.RawArguments()
	if len(strings.TrimSpace(string(data))) == 0 {
		return strs, nil, nil
	}
	d := jsonwire.NewDecoder(data)
	if d.Peek() == jsonwire.Null {
		return strs, nil, nil
	}
	if d.Expect(jsonwire.Object) {
		for key := range d.Members {
			switch k := string(key); k {
			case "arguments":
				raw = d.RawCopy()
			default:
				if s, ok := d.String(); ok {
					strs[k] = s
				}
			}
		}
	}
	d.Finish()
	if d.Failed() {
		return nil, nil, fmt.Errorf("invalid arguments: %s", d.Summary())
	}
	return strs, raw, nil
}

func (c *Catalog) list(ctx context.Context, call *mcp.ToolCall) {
	a, _, err := args(call)
	if err != nil {
		call.ReturnError(err)
		return
	}
	words := strings.Fields(strings.ToLower(a["query"]))
	start := 0
	if cur := a["cursor"]; cur != "" {
		if start, err = strconv.Atoi(cur); err != nil || start < 0 {
			call.ReturnError(fmt.Errorf("cursor %q is not one list_operations gave", cur))
			return
		}
	}
	var found []*mcp.Tool
	for _, t := range c.tools {
		if tag := a["tag"]; tag != "" && !slices.ContainsFunc(c.tags[t.Name], func(x string) bool { return strings.EqualFold(x, tag) }) {
			continue
		}
		text := strings.ToLower(t.Name + " " + t.Title + " " + t.Description)
		if !slices.ContainsFunc(words, func(w string) bool { return !strings.Contains(text, w) }) {
			found = append(found, t)
		}
	}
	var e jsonwire.Encoder
	var lines []string
	e.ObjectStart()
	e.Key("operations")
	e.ArrayStart()
	end := min(start+PageSize, len(found))
	for _, t := range found[min(start, end):end] {
		e.Elem()
		e.ObjectStart()
		e.Key("name")
		e.String(t.Name)
		summary := summaryOf(t)
		e.Key("summary")
		e.String(summary)
		e.ObjectEnd()
		lines = append(lines, t.Name+": "+summary)
	}
	e.ArrayEnd()
	e.Key("total")
	e.Int(int64(len(found)))
	if end < len(found) {
		e.Key("next_cursor")
		e.String(strconv.Itoa(end))
		lines = append(lines, fmt.Sprintf("(%d of %d; next_cursor %d for more)", end-min(start, end), len(found), end))
	}
	e.ObjectEnd()
	call.ReturnResult(&mcp.CallToolResult{Content: []mcp.Content{mcp.Text{Text: strings.Join(lines, "\n")}}, StructuredContent: e.Bytes()})
}

// summaryOf is a tool's title, else the first sentence of its description.
func summaryOf(t *mcp.Tool) string {
	if t.Title != "" {
		return t.Title
	}
	s, _, _ := strings.Cut(strings.TrimSpace(t.Description), "\n")
	if i := strings.Index(s, ". "); i > 0 {
		s = s[:i+1]
	}
	return s
}

func (c *Catalog) describe(ctx context.Context, call *mcp.ToolCall) {
	a, _, err := args(call)
	if err != nil {
		call.ReturnError(err)
		return
	}
	t, ok := c.byName[a["name"]]
	if !ok {
		call.ReturnError(fmt.Errorf("no operation %q: list_operations names them", a["name"]))
		return
	}
	var e jsonwire.Encoder
	e.ObjectStart()
	e.Key("name")
	e.String(t.Name)
	if t.Title != "" {
		e.Key("title")
		e.String(t.Title)
	}
	e.Key("description")
	e.String(t.Description)
	e.Key("inputSchema")
	e.RawJSON(json.RawMessage(t.InputSchema))
	if t.OutputSchema != "" {
		e.Key("outputSchema")
		e.RawJSON(json.RawMessage(t.OutputSchema))
	}
	e.ObjectEnd()
	if err := e.Err(); err != nil {
		call.ReturnError(err)
		return
	}
	call.ReturnResult(&mcp.CallToolResult{Content: []mcp.Content{mcp.Text{Text: string(e.Bytes())}}})
}

func (c *Catalog) call(ctx context.Context, call *mcp.ToolCall) {
	a, raw, err := args(call)
	if err != nil {
		call.ReturnError(err)
		return
	}
	if _, ok := c.byName[a["name"]]; !ok {
		call.ReturnError(fmt.Errorf("no operation %q: list_operations names them", a["name"]))
		return
	}
	if raw == nil {
		raw = json.RawMessage("{}")
	}
	res, err := c.client.CallTool(ctx, a["name"], raw)
	if err != nil {
		call.ReturnError(err)
		return
	}
	call.ReturnResult(res)
}
