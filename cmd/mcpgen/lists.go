package main

// The listing commands of what servers offer besides tools: resources (and resource
// templates, with their variables) and prompts (with their arguments), each variable and
// argument with the first values its server completes it with.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/mcpgen/mcpgen/internal/termtext"
	"github.com/mcpgen/mcpgen/runtime/host"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// completionsShown is how many of a variable's completions a listing shows.
const completionsShown = 3

func runResources(ctx context.Context, r *reach) error {
	if r.oneServer() && r.cmd.Args().Len() > 0 {
		return fail(exitError, "--stdio, --url, --sse and --ws name the server: give no SERVER")
	}
	h, err := r.connect(ctx, r.cmd.Args().Slice(), nil, host.Lists{Tools: true, Prompts: true})
	if err != nil {
		return err
	}
	resources, templates := h.Resources(), h.ResourceTemplates()
	if r.cmd.Bool("json") {
		type templateJSON struct {
			Server      string                  `json:"server"`
			URITemplate string                  `json:"uriTemplate"`
			Name        string                  `json:"name"`
			Title       string                  `json:"title,omitempty"`
			Description string                  `json:"description,omitempty"`
			MIMEType    string                  `json:"mimeType,omitempty"`
			Variables   map[string]*completions `json:"variables"`
		}
		type resourceJSON struct {
			Server      string `json:"server"`
			URI         string `json:"uri"`
			Name        string `json:"name"`
			Title       string `json:"title,omitempty"`
			Description string `json:"description,omitempty"`
			MIMEType    string `json:"mimeType,omitempty"`
			Size        *int64 `json:"size,omitempty"`
		}
		out := struct {
			Resources []resourceJSON `json:"resources"`
			Templates []templateJSON `json:"resourceTemplates"`
		}{Resources: []resourceJSON{}, Templates: []templateJSON{}}
		for _, res := range resources {
			x := res.Resource
			out.Resources = append(out.Resources, resourceJSON{res.Server, x.URI, x.Name, x.Title, x.Description, x.MIMEType, x.Size})
		}
		for _, t := range templates {
			x := t.Template
			j := templateJSON{t.Server, x.URITemplate, x.Name, x.Title, x.Description, x.MIMEType, map[string]*completions{}}
			for _, v := range templateVariables(x.URITemplate) {
				j.Variables[v] = r.complete(ctx, h, t.Server, mcp.CompletionRef{ResourceTemplate: x.URITemplate}, v)
			}
			out.Templates = append(out.Templates, j)
		}
		if err := printJSON(r.stdout, out); err != nil {
			return err
		}
		return r.listFailures("resources", "resources/list", "resources/templates/list")
	}
	tw := newTable(r.stdout)
	if len(resources) > 0 {
		fmt.Fprintln(tw, "SERVER\tURI\tNAME\tDESCRIPTION")
		for _, res := range resources {
			x := res.Resource
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", res.Server, termtext.Line(x.URI), termtext.Line(orTitle(x.Title, x.Name)), describe(x.Description, x.MIMEType))
		}
	}
	if len(templates) > 0 {
		if len(resources) > 0 {
			fmt.Fprintln(tw)
		}
		fmt.Fprintln(tw, "SERVER\tTEMPLATE\tVARIABLES\tDESCRIPTION")
		for _, t := range templates {
			x := t.Template
			var vars []string
			for _, v := range templateVariables(x.URITemplate) {
				vars = append(vars, v+r.complete(ctx, h, t.Server, mcp.CompletionRef{ResourceTemplate: x.URITemplate}, v).String())
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", t.Server, termtext.Line(x.URITemplate), termtext.Line(strings.Join(vars, ", ")), describe(orTitle(x.Description, orTitle(x.Title, x.Name)), x.MIMEType))
		}
	}
	tw.Flush()
	return r.listFailures("resources", "resources/list", "resources/templates/list")
}

func runPrompts(ctx context.Context, r *reach) error {
	if r.oneServer() && r.cmd.Args().Len() > 0 {
		return fail(exitError, "--stdio, --url, --sse and --ws name the server: give no SERVER")
	}
	h, err := r.connect(ctx, r.cmd.Args().Slice(), nil, host.Lists{Tools: true, Resources: true})
	if err != nil {
		return err
	}
	prompts := h.Prompts()
	if r.cmd.Bool("json") {
		type argumentJSON struct {
			Name        string       `json:"name"`
			Title       string       `json:"title,omitempty"`
			Description string       `json:"description,omitempty"`
			Required    bool         `json:"required,omitempty"`
			Completions *completions `json:"completions,omitempty"`
		}
		type promptJSON struct {
			Server      string         `json:"server"`
			Name        string         `json:"name"`
			Title       string         `json:"title,omitempty"`
			Description string         `json:"description,omitempty"`
			Arguments   []argumentJSON `json:"arguments"`
		}
		out := []promptJSON{}
		for _, p := range prompts {
			x := p.Prompt
			j := promptJSON{p.Server, x.Name, x.Title, x.Description, []argumentJSON{}}
			for _, a := range x.Arguments {
				j.Arguments = append(j.Arguments, argumentJSON{a.Name, a.Title, a.Description, a.Required,
					r.complete(ctx, h, p.Server, mcp.CompletionRef{Prompt: x.Name}, a.Name)})
			}
			out = append(out, j)
		}
		if err := printJSON(r.stdout, out); err != nil {
			return err
		}
		return r.listFailures("prompts", "prompts/list")
	}
	if len(prompts) > 0 {
		tw := newTable(r.stdout)
		fmt.Fprintln(tw, "SERVER\tPROMPT\tARGUMENTS\tDESCRIPTION")
		for _, p := range prompts {
			x := p.Prompt
			var args []string
			for _, a := range x.Arguments {
				arg := a.Name
				if !a.Required {
					arg += "?"
				}
				args = append(args, arg+r.complete(ctx, h, p.Server, mcp.CompletionRef{Prompt: x.Name}, a.Name).String())
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", p.Server, termtext.Line(x.Name), termtext.Line(strings.Join(args, ", ")), describe(x.Description, ""))
		}
		tw.Flush()
	}
	return r.listFailures("prompts", "prompts/list")
}

// completions are the first values a server completes a variable or argument with.
type completions struct {
	Values []string `json:"values"`
	More   bool     `json:"more,omitempty"`
}

// String is the completions as a listing shows them after the variable's name:
// " (one, two, three…)", or "" for none.
func (c *completions) String() string {
	if c == nil || len(c.Values) == 0 {
		return ""
	}
	more := ""
	if c.More {
		more = "…"
	}
	return " (" + strings.Join(c.Values, ", ") + more + ")"
}

// complete asks the server for the completions of a variable or argument's empty value, if
// it offers completions; nil when it does not, or has none.
func (r *reach) complete(ctx context.Context, h *host.Host, server string, ref mcp.CompletionRef, argument string) *completions {
	st, ok := h.Server(server)
	if !ok || !st.Info.Capabilities.Completions {
		return nil
	}
	c, err := h.Client(server)
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, r.cmd.Duration("timeout"))
	defer cancel()
	res, err := c.Complete(ctx, ref, argument, "", nil)
	if err != nil || len(res.Values) == 0 {
		return nil
	}
	out := &completions{More: res.HasMore || res.Total > len(res.Values) || len(res.Values) > completionsShown}
	for _, v := range res.Values[:min(len(res.Values), completionsShown)] {
		out.Values = append(out.Values, termtext.Line(v))
	}
	return out
}

// templateVariables are the names of a URI template's variables (RFC 6570), in order:
// test://{+path}{?page,size} has path, page and size.
func templateVariables(tmpl string) []string {
	var names []string
	for {
		open := strings.IndexByte(tmpl, '{')
		if open < 0 {
			return names
		}
		end := strings.IndexByte(tmpl[open:], '}')
		if end < 0 {
			return names
		}
		expr := strings.TrimLeft(tmpl[open+1:open+end], "+#./;?&=,!@|")
		for _, v := range strings.Split(expr, ",") {
			v, _, _ = strings.Cut(v, ":") // a prefix's length
			if v = strings.TrimSuffix(strings.TrimSpace(v), "*"); v != "" {
				names = append(names, v)
			}
		}
		tmpl = tmpl[open+end+1:]
	}
}

// listFailures reports on stderr the servers that failed and the lists a ready one could
// not give (of methods), and fails with exit status 1 when there are any: what was listed
// is printed all the same.
func (r *reach) listFailures(command string, methods ...string) error {
	failed := false
	for _, st := range r.host.Servers() {
		if st.State != host.Ready {
			fmt.Fprintf(r.stderr, "mcpgen %s: %s\n", command, failedServer(st))
			failed = true
		}
		for _, e := range st.ListErrors {
			for _, m := range methods {
				if e.Method == m {
					fmt.Fprintf(r.stderr, "mcpgen %s: server %s: %s failed: %s\n", command, st.Name, e.Method, termtext.Line(firstLine(e.Err.Error())))
					failed = true
				}
			}
		}
	}
	if failed {
		return &failure{exitToolError, nil}
	}
	return nil
}

// describe is a description's first line, clipped, with the MIME type when there is one.
func describe(description, mime string) string {
	d := clip(firstLine(description), 100)
	if mime != "" {
		d = strings.TrimSpace(d + " (" + mime + ")")
	}
	return termtext.Line(d)
}

// orTitle is title, or name when there is no title.
func orTitle(title, name string) string {
	if title != "" {
		return title
	}
	return name
}

// table writes aligned columns, as text/tabwriter does, without the blanks it leaves at
// the end of a line whose last cells are empty.
type table struct {
	out io.Writer
	buf bytes.Buffer
	*tabwriter.Writer
}

func newTable(w io.Writer) *table {
	t := &table{out: w}
	t.Writer = tabwriter.NewWriter(&t.buf, 0, 4, 2, ' ', 0)
	return t
}

// Flush writes the table.
func (t *table) Flush() error {
	if err := t.Writer.Flush(); err != nil {
		return err
	}
	lines := strings.SplitAfter(t.buf.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \n")
		if strings.HasSuffix(l, "\n") {
			lines[i] += "\n"
		}
	}
	t.buf.Reset()
	_, err := io.WriteString(t.out, strings.Join(lines, ""))
	return err
}
