package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/scripted"
)

// scriptedServer is a stdio server of the configuration: the test binary, doing what s
// says.
func scriptedServer(s scripted.Script) map[string]any {
	return map[string]any{"command": os.Args[0], "env": map[string]string{scripted.EnvVar: strings.TrimPrefix(s.Env(), scripted.EnvVar+"=")}}
}

// servers, tools and import forgive what real servers do (issue 25): a list they do not
// implement or cannot give, a refused subscription; each command fetches only the lists it
// uses, and a server too slow to answer names the flag that gives it longer.
func TestCommandsForgiveServers(t *testing.T) {
	configHome(t)
	dir := t.TempDir()
	path := writeConfig(t, dir, map[string]any{
		"notemplates": scriptedServer(scripted.Script{Name: "notemplates", Tools: []string{"one"}, Resources: []string{"test://r"},
			NotFound: []string{"resources/templates/list"}}),
		"nodb": scriptedServer(scripted.Script{Name: "nodb", Tools: []string{"two"}, Resources: []string{"db://t"},
			Fail: map[string]string{"resources/list": "no database"}}),
		"stingy": scriptedServer(scripted.Script{Name: "stingy", Era: scripted.Modern, Tools: []string{"three"},
			RefuseListen: "Subscription limit reached"}),
	})

	code, out, errOut := mcpgen(t, "servers", "--trust", "--config", path)
	if code != 0 || errOut != "" {
		t.Fatalf("servers: exit %d, want 0 and nothing on stderr\n%s%s", code, out, errOut)
	}
	for _, re := range []string{
		`\nnodb +stdio +ready +2025-11-25 +1 +0 +failed +0 +[0-9.]+m?s\n`,
		`\nnotemplates +stdio +ready +2025-11-25 +1 +0 +1 +0 `,
		`\nstingy +stdio +ready +2026-07-28 +1 +0 +0 +0 `,
		`\n\nserver nodb: resources/list failed: jsonrpc error -32603: no database\n$`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("servers: output does not match %s:\n%s", re, out)
		}
	}
	code, out, _ = mcpgen(t, "servers", "--trust", "--config", path, "-v", "notemplates", "stingy")
	for _, want := range []string{
		"\nserver notemplates speaks 2025-11-25: initialize, after server/discover was refused (jsonrpc error -32601: Method not found)\n",
		"\nserver stingy speaks 2026-07-28: offered in server/discover\n",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("servers -v: exit %d, no %q in\n%s", code, want, out)
		}
	}

	// tools asks for no resources: nodb's failing resources/list is not its concern.
	code, out, errOut = mcpgen(t, "tools", "--trust", "--config", path)
	if code != 0 || errOut != "" || out != "SERVER       TOOL   DESCRIPTION\nnodb         two    The tool two.\nnotemplates  one    The tool one.\nstingy       three  The tool three.\n" {
		t.Errorf("tools: exit %d\n%s%s", code, out, errOut)
	}

	// import lists tools, prompts and templates: a server without templates has none, and
	// one without a database is not asked for its resources.
	for _, server := range []string{"notemplates", "nodb"} {
		code, out, errOut = mcpgen(t, "import", server, "--trust", "--config", path, "-o", filepath.Join(dir, server+"client"))
		if code != 0 || !strings.Contains(out, "1 tools, 0 prompts, 0 resource templates") {
			t.Errorf("import %s: exit %d\n%s%s", server, code, out, errOut)
		}
	}

	// A server that declares prompts but does not know prompts/list has none (issue 25,
	// item 1): import does not fail on it.
	noprompts := writeConfig(t, t.TempDir(), map[string]any{
		"noprompts": scriptedServer(scripted.Script{Name: "noprompts", Tools: []string{"four"}, Declare: []string{"prompts"},
			NotFound: []string{"prompts/list"}}),
	})
	code, out, errOut = mcpgen(t, "import", "noprompts", "--trust", "--config", noprompts, "-o", filepath.Join(dir, "nopromptsclient"))
	if code != 0 || !strings.Contains(out, "1 tools, 0 prompts, 0 resource templates") {
		t.Errorf("import of a server that declares prompts it cannot list: exit %d\n%s%s", code, out, errOut)
	}

	// A server that cannot list its tools is ready, but tools and call say what is missing.
	notools := writeConfig(t, t.TempDir(), map[string]any{
		"notools": scriptedServer(scripted.Script{Name: "notools", Tools: []string{"t"}, Fail: map[string]string{"tools/list": "no schema cache"}}),
	})
	code, out, errOut = mcpgen(t, "tools", "--trust", "--config", notools)
	if code != 1 || out != "" || errOut != "mcpgen tools: server notools: tools/list failed: jsonrpc error -32603: no schema cache\n" {
		t.Errorf("tools of a server that cannot list them: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = mcpgen(t, "call", "--trust", "--config", notools, "notools", "t")
	if code != 2 || errOut != "mcpgen call: server notools could not list its tools, so mcpgen does not know t: jsonrpc error -32603: no schema cache\n" {
		t.Errorf("call on a server that cannot list its tools: exit %d\n%s%s", code, out, errOut)
	}

	slow := writeConfig(t, t.TempDir(), map[string]any{
		"slow": scriptedServer(scripted.Script{Name: "slow", Tools: []string{"t"}, StartDelay: time.Minute}),
	})
	code, out, errOut = mcpgen(t, "servers", "--trust", "--config", slow, "--connect-timeout", "300ms")
	if code != 1 || !strings.Contains(out, "server slow failed: no answer within 300ms (the connect timeout); a server that starts slowly may need a longer --connect-timeout") {
		t.Errorf("slow server: exit %d\n%s%s", code, out, errOut)
	}
	// --schema of a tool of a server that failed, or could not list its tools, says so: it
	// said only "no tool t" (issue 36, item 11: a server slow to start looked like one
	// without the tool).
	code, out, errOut = mcpgen(t, "tools", "--schema", "t", "--trust", "--config", slow, "--connect-timeout", "300ms")
	if code != 2 || out != "" || !strings.HasPrefix(errOut, "mcpgen tools: no tool t is known, and server slow failed: no answer within 300ms (the connect timeout)") {
		t.Errorf("--schema of a slow server's tool: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = mcpgen(t, "tools", "--schema", "t", "--trust", "--config", notools)
	if code != 2 || out != "" || errOut != "mcpgen tools: no tool t is known, and server notools could not list its tools: jsonrpc error -32603: no schema cache\n" {
		t.Errorf("--schema of a tool of a server that cannot list them: exit %d\n%s%s", code, out, errOut)
	}
}
