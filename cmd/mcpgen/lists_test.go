package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// mcpgen resources lists a server's resources and resource templates, each template's
// variables with the first values the server completes them with; mcpgen prompts its
// prompts, with their arguments likewise. servers counts the templates.
func TestResourcesAndPrompts(t *testing.T) {
	configHome(t)
	dir := t.TempDir()
	path := writeConfig(t, dir, map[string]any{"catalog": testServer("catalog"), "caps": testServer("caps")})

	code, out, errOut := mcpgen(t, "resources", "--trust", "--config", path)
	want := `SERVER   URI            NAME        DESCRIPTION
catalog  docs://readme  The README  What this is. (text/markdown)

SERVER   TEMPLATE               VARIABLES                 DESCRIPTION
catalog  docs://{lang}/{+path}  lang (en, fr, pt…), path  A page of the docs.
catalog  notes://{id}           id                        note
`
	if code != 0 || out != want || errOut != "" {
		t.Errorf("resources: exit %d\n%s\nwant\n%s%s", code, out, want, errOut)
	}
	code, out, errOut = mcpgen(t, "prompts", "catalog", "--trust", "--config", path)
	want = `SERVER   PROMPT  ARGUMENTS                       DESCRIPTION
catalog  hello
catalog  review  file, style? (brief, thorough)  Reviews code.
`
	if code != 0 || out != want || errOut != "" {
		t.Errorf("prompts: exit %d\n%s\nwant\n%s%s", code, out, want, errOut)
	}

	code, out, _ = mcpgen(t, "resources", "--json", "--trust", "--config", path)
	var res struct {
		Resources []struct{ Server, URI, MIMEType string }
		Templates []struct {
			URITemplate string
			Variables   map[string]*completions
		} `json:"resourceTemplates"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 || len(res.Resources) != 1 || res.Resources[0].MIMEType != "text/markdown" ||
		len(res.Templates) != 2 || len(res.Templates[0].Variables) != 2 || !slices.Equal(res.Templates[0].Variables["lang"].Values, []string{"en", "fr", "pt"}) ||
		!res.Templates[0].Variables["lang"].More || res.Templates[0].Variables["path"] != nil {
		t.Errorf("resources --json: exit %d %v\n%s", code, err, out)
	}
	code, out, _ = mcpgen(t, "prompts", "--json", "--trust", "--config", path)
	var prompts []struct {
		Name      string
		Arguments []struct {
			Name        string
			Required    bool
			Completions *completions
		}
	}
	if err := json.Unmarshal([]byte(out), &prompts); err != nil || code != 0 || len(prompts) != 2 || prompts[1].Name != "review" ||
		!prompts[1].Arguments[0].Required || prompts[1].Arguments[1].Completions == nil || prompts[1].Arguments[1].Completions.More {
		t.Errorf("prompts --json: exit %d %v\n%s", code, err, out)
	}

	code, out, _ = mcpgen(t, "servers", "--trust", "--config", path)
	if lines := strings.Split(out, "\n"); code != 0 || !strings.Contains(lines[0], "RESOURCES  TEMPLATES") || !strings.Contains(lines[2], "  1          2          ") {
		t.Errorf("servers: exit %d\n%s", code, out)
	}
}

func TestTemplateVariables(t *testing.T) {
	for tmpl, want := range map[string]string{
		"file:///{path}":                 "path",
		"docs://{lang}/{+path}{?rev,at}": "lang path rev at",
		"x://{#frag}{/a*}{;b:3}{&c}":     "frag a b c",
		"plain://nothing":                "",
		"broken://{open":                 "",
	} {
		if got := strings.Join(templateVariables(tmpl), " "); got != want {
			t.Errorf("templateVariables(%q) = %q, want %q", tmpl, got, want)
		}
	}
}

// The one server of --url (or --sse, --ws) is named by the name it gives itself, not by the
// URL's host; --name names it otherwise, and a server that cannot be reached keeps the
// host's. tools says which names call takes: the server's and the tool's own.
func TestOneServerNamedByItself(t *testing.T) {
	configHome(t)
	srv := mcp.NewServer(mcp.Implementation{Name: "typed tools", Version: "1"}, nil)
	srv.AddTool(mcp.Tool{Name: "greet", Description: "Says hello.", InputSchema: `{"type":"object"}`,
		Handler: func(ctx context.Context, c *mcp.ToolCall) { c.ReturnText("hello") }})
	h := srv.HTTPHandler(nil)
	s := httptest.NewServer(h)
	defer s.Close()
	defer h.Shutdown(context.Background())

	code, out, errOut := mcpgen(t, "tools", "--url", s.URL)
	if code != 0 || out != "SERVER       TOOL   DESCRIPTION\ntyped_tools  greet  Says hello.\n" {
		t.Errorf("tools --url: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = mcpgen(t, "tools", "--url", s.URL, "--json")
	var tools []struct{ Name, Server, Tool string }
	if err := json.Unmarshal([]byte(out), &tools); err != nil || code != 0 || len(tools) != 1 || tools[0].Name != "mcp_typed_tools_greet" || tools[0].Server != "typed_tools" {
		t.Errorf("tools --url --json: exit %d %v\n%s%s", code, err, out, errOut)
	}
	code, out, errOut = mcpgen(t, "servers", "--url", s.URL, "--name", "mine")
	if code != 0 || !strings.HasPrefix(strings.Split(out, "\n")[1], "mine  ") {
		t.Errorf("servers --name: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = mcpgen(t, "call", "--url", "http://127.0.0.1:1/mcp", "greet")
	if code != 2 || !strings.Contains(errOut, "server 127_0_0_1 failed: ") {
		t.Errorf("an unreachable server: exit %d\n%s%s", code, out, errOut)
	}
}
