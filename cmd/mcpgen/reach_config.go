package main

// Where the reaching commands' servers come from: the configuration (.mcp.json, the user's
// own, or the one server of --stdio, --url, --sse or --ws), the approval a project's file
// needs before anything in it starts, and the OAuth clients its HTTP servers are reached with.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/host"
	"github.com/mcpgen/mcpgen/runtime/oauth"
)

// config is the configuration: the file, or the one server of --stdio, --url, --sse or --ws.
func (r *reach) config() (*host.Config, error) {
	stdio, u, sse, wsURL := r.cmd.String("stdio"), r.cmd.String("url"), r.cmd.String("sse"), r.cmd.String("ws")
	given := 0
	for _, s := range []string{stdio, u, sse, wsURL} {
		if s != "" {
			given++
		}
	}
	if given > 1 {
		return nil, fail(exitError, "give one of --stdio, --url, --sse and --ws")
	}
	if given == 1 && r.cmd.String("config") != "" {
		return nil, fail(exitError, "--config and --stdio, --url, --sse or --ws both name servers; give one")
	}
	if given == 0 {
		path := r.cmd.String("config")
		if path == "" {
			path = ".mcp.json"
			// Without a project's file, the user's own.
			if user, err := host.UserConfigPath(); err == nil && !exists(path) && exists(user) {
				path = user
			}
		}
		cfg, err := host.LoadConfig(path)
		var ce *host.ConfigError
		switch {
		case errors.As(err, &ce):
			for _, p := range ce.Problems {
				fmt.Fprintln(r.stderr, p)
			}
			return nil, fail(exitError, "%d problem%s in %s; nothing was started", len(ce.Problems), plural(len(ce.Problems)), path)
		case errors.Is(err, fs.ErrNotExist) && r.cmd.String("config") == "":
			return nil, fail(exitError, "no .mcp.json in the current directory, nor %s: give --config FILE, or one server with --stdio 'COMMAND ARGS', --url URL, --sse URL or --ws URL", userConfigName())
		case err != nil:
			return nil, fail(exitError, "%v", err)
		}
		return cfg, nil
	}
	sc := host.ServerConfig{Name: r.cmd.String("name")}
	switch {
	case stdio != "":
		words, err := splitCommand(stdio)
		if err != nil {
			return nil, fail(exitError, "--stdio: %v", err)
		}
		if len(words) == 0 {
			return nil, fail(exitError, "--stdio: give the command to run")
		}
		sc.Transport, sc.Command, sc.Args = host.Stdio, words[0], words[1:]
		if sc.Name == "" {
			sc.Name = commandName(words)
		}
	default:
		sc.Transport, sc.URL = host.HTTP, u
		schemes, want := []string{"http", "https"}, "an http:// or https:// URL"
		switch {
		case sse != "":
			sc.Transport, sc.URL = host.SSE, sse
		case wsURL != "":
			sc.Transport, sc.URL = host.WS, wsURL
			schemes, want = []string{"ws", "wss"}, "a ws:// or wss:// URL"
		}
		parsed, err := url.Parse(sc.URL)
		if err != nil || !slices.Contains(schemes, parsed.Scheme) || parsed.Host == "" {
			return nil, fail(exitError, "--%s: %q is not %s", sc.Transport, sc.URL, want)
		}
		if sc.Name == "" {
			sc.Name = host.SafeName(parsed.Hostname())
		}
		for _, h := range r.cmd.StringSlice("header") {
			k, v, ok := strings.Cut(h, ":")
			if !ok || strings.TrimSpace(k) == "" {
				return nil, fail(exitError, "--header %q: write 'Name: value'", h)
			}
			if sc.Headers == nil {
				sc.Headers = map[string]string{}
			}
			sc.Headers[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	if host.SafeName(sc.Name) != sc.Name {
		return nil, fail(exitError, "--name %q: a server name takes letters, digits, _ and - only", sc.Name)
	}
	r.single = sc.Name
	return &host.Config{File: "--" + sc.Transport, Servers: []host.ServerConfig{sc}}, nil
}

// commandName names the server of a command: the program's base name, or, for a runner of
// packages (npx, uvx, node, python...), its last argument's.
func commandName(words []string) string {
	base := func(s string) string {
		// A package's entry point (.../server-memory/dist/index.js) is named by its package.
		for dir := s; ; dir = filepath.Dir(dir) {
			b := filepath.Base(dir)
			b = strings.TrimSuffix(b, filepath.Ext(b))
			if !genericNames[b] || filepath.Dir(dir) == dir {
				s = filepath.Base(dir)
				break
			}
		}
		if at := strings.LastIndex(s, "@"); at > 0 { // pkg@1.2.3
			s = s[:at]
		}
		return strings.TrimSuffix(s, filepath.Ext(s))
	}
	name := base(words[0])
	switch name {
	case "npx", "uvx", "bunx", "pnpx", "node", "python", "python3", "deno", "bun", "go", "uv", "docker", "java":
		for i := len(words) - 1; i > 0; i-- {
			if !strings.HasPrefix(words[i], "-") {
				name = base(words[i])
				break
			}
		}
	}
	if name = host.SafeName(name); name == "" {
		name = "server"
	}
	return name
}

// genericNames are the names of entry points and build directories, which say nothing of
// the server.
var genericNames = map[string]bool{"index": true, "main": true, "cli": true, "server": true, "dist": true,
	"build": true, "lib": true, "bin": true, "src": true, "out": true, "__main__": true}

func serverNames(cfg *host.Config) string {
	names := make([]string, len(cfg.Servers))
	for i, s := range cfg.Servers {
		names[i] = s.Name
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// splitCommand splits a command line as a POSIX shell splits words: blanks separate them,
// single quotes keep everything, double quotes keep all but \" and \\, a backslash escapes
// the next character.
func splitCommand(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, errors.New("a single quote is not closed")
			}
			cur.WriteString(s[i+1 : i+1+end])
			i += end + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, errors.New("a double quote is not closed")
			}
			inWord = true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// oauthClient is the HTTP client of the servers reached over HTTP: it authorizes with OAuth
// when a server asks, with the user's browser and a loopback redirect (RFC 8252), and keeps
// the tokens in the user's configuration directory (0600) for the next run. nil when no
// server is reached over HTTP.
func (r *reach) oauthClient(cfg *host.Config) (*http.Client, error) {
	clients, err := r.oauthClients(cfg)
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(cfg.Servers, func(s host.ServerConfig) bool { return s.Transport != host.Stdio }) {
		return nil, nil
	}
	store, err := oauth.DefaultFileStore()
	if err != nil {
		return nil, fmt.Errorf("where to keep OAuth tokens: %w", err)
	}
	if r.loopback, err = oauth.NewLoopback(r.stderr); err != nil {
		return nil, fmt.Errorf("listening for the OAuth redirect: %w", err)
	}
	return &http.Client{Transport: &oauth.Transport{Config: &oauth.Config{
		Clients:     clients,
		RedirectURL: r.loopback.RedirectURL(),
		Authorize:   r.loopback.Authorize,
		Store:       store,
	}}}, nil
}

// userConfigName is where the user's own configuration is, as a person writes it.
func userConfigName() string {
	path, err := host.UserConfigPath()
	if err != nil {
		return "mcpgen/mcp.json in your configuration directory"
	}
	if home, err := os.UserHomeDir(); err == nil && strings.HasPrefix(path, home+string(filepath.Separator)) {
		path = "~" + path[len(home):]
	}
	return path
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// approve gets the user's approval of a project's configuration before anything of it
// starts (host.Consent): an approval recorded earlier in approvals.json, --trust, or the
// answer to the review asked at the terminal, which is recorded. Without one it fails, with
// how to approve, and nothing runs. The user's own configuration and servers given with
// --stdio, --url, --sse or --ws are the user's own words and need none.
func (r *reach) approve(ctx context.Context, cfg *host.Config) error {
	consent := &host.Consent{Trust: r.cmd.Bool("trust"), AllowEnv: r.cmd.StringSlice("allow-env")}
	if approvals, err := host.DefaultApprovals(); err == nil {
		consent.Approvals = approvals // else nothing is recorded; --trust still works
	}
	if isTerminal(r.stdin) && isTerminal(r.stderr) {
		consent.Ask = host.AskAt(r.stdin, r.stderr)
	}
	err := consent.Approve(ctx, cfg)
	var na *host.NotApprovedError
	var ce *host.ConfigError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &na) && na.Declined:
		return fail(exitError, "%s was not approved; nothing was started", cfg.File)
	case errors.As(err, &na):
		what := "is a project's configuration you have not approved"
		if na.Changed {
			what = "changed since you approved it"
		}
		trust := "--trust"
		if len(na.Variables) > 0 {
			trust += " --allow-env " + strings.Join(na.Variables, ",")
		}
		return fail(exitError, "%s %s; nothing was started.\n"+
			"Run mcpgen at a terminal to see what it would run and approve it, or add %s to start its servers this once without asking (as in CI)", cfg.File, what, trust)
	case errors.As(err, &ce):
		for _, p := range ce.Problems {
			fmt.Fprintln(r.stderr, p)
		}
		var refused []string
		for _, v := range cfg.Sends() {
			if !slices.Contains(consent.AllowEnv, v) {
				refused = append(refused, v)
			}
		}
		msg := fmt.Sprintf("%d problem%s in %s; nothing was started", len(ce.Problems), plural(len(ce.Problems)), cfg.File)
		if len(refused) > 0 {
			msg += fmt.Sprintf(" (to let its servers have %s, add --allow-env %s)", strings.Join(refused, ", "), strings.Join(refused, ","))
		}
		return fail(exitError, "%s", msg)
	}
	return fail(exitError, "%v", err)
}

// oauthClients are the OAuth clients registered beforehand, each bound to its
// authorization server and to the servers it is for: the one of --client-id,
// --client-secret and --client-issuer, for the server of --url, --sse or --ws and those of
// --client-resource; and those the configuration's servers name ("oauth": {"clientId",
// "issuer"}), each for its own server only. A server has one client per issuer. With a
// configuration file the flags' client is for the servers --client-resource names, never
// for all of them: a secret set once in the environment must not reach whatever server a
// project's .mcp.json adds, through an authorization server it names.
func (r *reach) oauthClients(cfg *host.Config) ([]oauth.Client, error) {
	id, secret, issuer := r.cmd.String("client-id"), r.cmd.String("client-secret"), r.cmd.String("client-issuer")
	resources := r.cmd.StringSlice("client-resource")
	const why = "the authorization server the client is registered with, the only one mcpgen sends its id and secret to"
	var clients []oauth.Client
	switch {
	case issuer == "" && secret != "":
		return nil, fmt.Errorf("--client-secret (or MCPGEN_CLIENT_SECRET) needs --client-issuer (or MCPGEN_CLIENT_ISSUER): %s", why)
	case issuer == "" && id != "":
		return nil, fmt.Errorf("--client-id (or MCPGEN_CLIENT_ID) needs --client-issuer (or MCPGEN_CLIENT_ISSUER): %s", why)
	case issuer == "" && len(resources) > 0:
		return nil, fmt.Errorf("--client-resource (or MCPGEN_CLIENT_RESOURCE) names the servers of --client-id, and there is none: give --client-id and --client-issuer too")
	case issuer != "" && id == "":
		return nil, fmt.Errorf("--client-issuer needs --client-id (or MCPGEN_CLIENT_ID): the client registered with %s", issuer)
	case issuer != "":
		if err := oauth.CheckEndpoint(issuer); err != nil {
			return nil, fmt.Errorf("--client-issuer: %v", err)
		}
		for _, res := range resources {
			if u, err := url.Parse(res); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
				return nil, fmt.Errorf("--client-resource %q: give a server's http:// or https:// URL (or its origin, such as https://mcp.example.com), without a query", res)
			}
		}
		if r.single != "" && cfg.Servers[0].Transport != host.Stdio {
			resources = append(resources, serverResource(cfg.Servers[0].URL)) // the server the command line names
		}
		remote := slices.ContainsFunc(cfg.Servers, func(s host.ServerConfig) bool { return s.Transport != host.Stdio })
		if len(resources) == 0 && remote {
			return nil, fmt.Errorf("--client-id (or MCPGEN_CLIENT_ID) is for the servers you name, and %s is a configuration file: say which of its servers the client is registered for with --client-resource URL (or MCPGEN_CLIENT_RESOURCE; repeated, or comma-separated), or reach one server with --url", cfg.File)
		}
		if len(resources) > 0 { // else nothing is reached over HTTP
			clients = append(clients, oauth.Client{Issuer: issuer, ID: id, Secret: secret, Resources: resources})
		}
	}
	for _, s := range cfg.Servers {
		if s.OAuth == nil || s.Transport == host.Stdio {
			continue
		}
		if err := oauth.CheckEndpoint(s.OAuth.Issuer); err != nil {
			return nil, fmt.Errorf("%s: server %s: oauth.issuer: %v", cfg.File, s.Name, err)
		}
		i := slices.IndexFunc(clients, func(c oauth.Client) bool { return c.Issuer == s.OAuth.Issuer && c.For(s.URL) })
		switch {
		case i < 0:
			// Its secret, if it has one, comes from --client-secret with --client-resource.
			clients = append(clients, oauth.Client{Issuer: s.OAuth.Issuer, ID: s.OAuth.ClientID, Resources: []string{serverResource(s.URL)}})
		case clients[i].ID != s.OAuth.ClientID:
			return nil, fmt.Errorf("%s: server %s: its oauth.clientId %q is not %q, the client --client-id configures for it with the issuer %s: a server has one client per authorization server", cfg.File, s.Name, s.OAuth.ClientID, clients[i].ID, s.OAuth.Issuer)
		}
	}
	if err := (&oauth.Config{Clients: clients}).Validate(); err != nil {
		return nil, fmt.Errorf("the OAuth clients: %v", err)
	}
	return clients, nil
}

// serverResource is the canonical URI of the server at a URL (no query, no fragment), which
// its OAuth client is bound to.
func serverResource(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw // the client's check says what is wrong with it
	}
	return oauth.CanonicalResource(u)
}
