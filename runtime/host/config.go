package host

import (
	"cmp"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/internal/userfile"
)

// Config is the servers a host connects to: what .mcp.json describes.
type Config struct {
	File    string         // where it was read from, if from a file
	Servers []ServerConfig // by name
	// from is the file LoadConfig or ParseConfig read, which decides whether the servers
	// may start unasked (see Approve); nil for a Config built in code, which is the
	// program's own and starts as it is.
	from *source
}

// ServerConfig is one server of a configuration.
type ServerConfig struct {
	Name string
	// Transport is "stdio" (a command the host runs), "http" (Streamable HTTP, falling back
	// to HTTP+SSE), "sse" (the HTTP+SSE transport of revision 2024-11-05) or "ws"
	// (WebSocket, which Options.Transports reaches).
	Transport string
	Command   string
	Args      []string
	Env       []string // KEY=value, added to the host's environment
	Dir       string   // the command's working directory
	URL       string
	Headers   map[string]string
	// Timeout bounds each call to the server (the host's CallTimeout when 0).
	Timeout time.Duration
	// OAuth is the client registered beforehand with the server's authorization server,
	// if the entry names one ("oauth": {"clientId": ..., "issuer": ...}).
	OAuth *OAuthClient
}

// Transports.
const (
	Stdio = "stdio"
	HTTP  = "http"
	SSE   = "sse"
	WS    = "ws"
)

// ConfigError is every problem of a configuration, each at its line and column. A host
// starts nothing from a configuration with problems.
type ConfigError struct {
	Problems []Problem
}

func (e *ConfigError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// Problem is one mistake in a configuration file.
type Problem struct {
	File      string
	Line, Col int
	Message   string
	Hint      string
}

// String writes the problem as file:line:col: message, with its hint on the next line.
func (p Problem) String() string {
	s := fmt.Sprintf("%s:%d:%d: %s", p.File, p.Line, p.Col, p.Message)
	if p.Hint != "" {
		s += "\n\thint: " + p.Hint
	}
	return s
}

// LoadConfig reads a configuration file: .mcp.json as Claude Code and Claude Desktop write it
// ({"mcpServers": {...}}), or VS Code's mcp.json ({"servers": {...}}). ${VAR} and
// ${VAR:-default} in commands, arguments, environment values and the working directory
// expand from the environment; in URLs and headers, which go to remote servers, only once
// the file is approved, and only the variables the user allowed (see Approve). Problems
// come back together, as a *ConfigError. Only a regular file of at most 4 MiB is read.
//
// The user's own configuration (UserConfigPath) starts as it is, with every variable. Any
// other file is a project's, which its servers do not start from until the user approved it
// (Config.Approve, or Consent for the whole procedure): cloning a repository must not be
// enough to run its commands.
func LoadConfig(path string) (*Config, error) {
	// Before anything is approved, the path is the repository's to choose: a FIFO or a
	// link to /dev/zero is refused, and a file larger than userfile.MaxSize.
	f, err := userfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := userfile.Read(f)
	if err != nil {
		return nil, err
	}
	// The file read is the one compared: no other can be swapped in between.
	return parseConfig(path, data, os.LookupEnv, isUserConfig(f))
}

// ParseConfig reads a configuration from data (named file in problems), expanding variables
// with lookup. It is a project's configuration: its servers start once approved.
func ParseConfig(file string, data []byte, lookup func(string) (string, bool)) (*Config, error) {
	return parseConfig(file, data, lookup, false)
}

func parseConfig(file string, data []byte, lookup func(string) (string, bool), user bool) (*Config, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		abs = file
	}
	src := &source{path: abs, data: data, sum: sha256.Sum256(data), lookup: lookup, user: user}
	r := &configReader{file: file, lookup: lookup, approved: user}
	cfg, err := r.read(data)
	if err != nil {
		return nil, err
	}
	cfg.from = src
	return cfg, nil
}

// read reads a whole configuration.
func (r *configReader) read(data []byte) (*Config, error) {
	r.lines = newLineIndex(data)
	root, err := parseJSON(data)
	if err != nil {
		off := 0
		if se, ok := err.(*syntaxError); ok {
			off = se.off
		}
		r.problem(off, "check the JSON: a missing comma or quote, or a comma before a closing brace", "not valid JSON: %v", err)
		return nil, &ConfigError{r.problems}
	}
	cfg := &Config{File: r.file}
	if root.kind != kindObject {
		r.problem(root.off, `write {"mcpServers": {"name": {"command": "..."}}}`, "the configuration is %s, not an object", root.kindName())
		return nil, &ConfigError{r.problems}
	}
	found := false
	for _, key := range []string{"mcpServers", "servers"} {
		m := root.field(key)
		if m == nil {
			continue
		}
		found = true
		if m.val.kind != kindObject {
			r.problem(m.val.off, "", "%s is %s, not an object of servers by name", key, m.val.kindName())
			continue
		}
		for _, s := range m.val.keys {
			if i := slices.IndexFunc(cfg.Servers, func(c ServerConfig) bool { return c.Name == s.key }); i >= 0 {
				r.problem(s.keyOff, "give one of them another name", "server %q is configured twice", s.key)
				continue
			}
			if sc, ok := r.server(s); ok {
				cfg.Servers = append(cfg.Servers, sc)
			}
		}
	}
	if !found {
		r.problem(root.off, `write {"mcpServers": {"name": {"command": "..."}}}`, "the configuration has no mcpServers (or servers) object")
	}
	if len(r.problems) > 0 {
		slices.SortStableFunc(r.problems, func(a, b Problem) int { return cmp.Or(a.Line-b.Line, a.Col-b.Col) })
		return nil, &ConfigError{r.problems}
	}
	slices.SortFunc(cfg.Servers, func(a, b ServerConfig) int { return strings.Compare(a.Name, b.Name) })
	return cfg, nil
}

type configReader struct {
	file     string
	lines    lineIndex
	lookup   func(string) (string, bool)
	problems []Problem

	// How variables expand: asWritten leaves every string as the file has it (for a
	// review); otherwise local values (command, args, env, cwd) expand, and what goes to a
	// remote server (url, headers) expands only when approved, with the allowed variables
	// (nil: all of them, the user's own file).
	asWritten bool
	approved  bool
	allowed   map[string]bool
	only      map[string]bool // if set, the servers to start: the others send nothing
	sent      []string        // the variables of urls and headers, in order of appearance
}

func (r *configReader) problem(off int, hint, format string, args ...any) {
	line, col := r.lines.position(off)
	r.problems = append(r.problems, Problem{File: r.file, Line: line, Col: col, Message: fmt.Sprintf(format, args...), Hint: hint})
}

// validName is what a server name may hold: it becomes part of tool names, which model APIs
// restrict to letters, digits, _ and -.
var validName = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// server reads one server's entry.
func (r *configReader) server(m member) (ServerConfig, bool) {
	sc := ServerConfig{Name: m.key}
	before := len(r.problems)
	if !validName.MatchString(m.key) {
		hint := "use letters, digits, _ and -"
		if s := SafeName(m.key); s != "" && s != "_" {
			hint += fmt.Sprintf(", for example %q", strings.Trim(s, "_"))
		}
		r.problem(m.keyOff, hint, "server name %q cannot form tool names (mcp_%s_tool): model APIs take letters, digits, _ and - only", m.key, m.key)
	}
	v := m.val
	if v.kind != kindObject {
		r.problem(v.off, `write {"command": "...", "args": [...]} or {"type": "http", "url": "..."}`, "server %q is %s, not an object", m.key, v.kindName())
		return sc, false
	}
	if d := v.field("disabled"); d != nil && d.val.kind == kindBool && d.val.bool {
		return sc, false // switched off in the file: not a server of this host
	}
	sc.Command = r.str(v, "command")
	sc.Args = r.strs(v, "args")
	sc.Dir = r.str(v, "cwd")
	sc.URL = r.strWith(v, "url", func(s *value) string { return r.send(s, m.key, fmt.Sprintf("the url of server %q", m.key)) })
	sc.Headers = r.strMap(v, "headers", m.key)
	for _, kv := range r.strPairs(v, "env") {
		sc.Env = append(sc.Env, kv[0]+"="+kv[1])
	}
	if t := v.field("timeout"); t != nil {
		sc.Timeout = r.duration(t.val)
	}
	if o := v.field("oauth"); o != nil {
		sc.OAuth = r.oauth(m.key, o.val)
	}
	typ := v.field("type")
	switch {
	case typ == nil && sc.Command != "" && sc.URL != "":
		r.problem(v.off, `say which: "type": "stdio" runs the command, "type": "http" reaches the URL`, "server %q has both a command and a url", m.key)
	case typ == nil && (strings.HasPrefix(sc.URL, "ws://") || strings.HasPrefix(sc.URL, "wss://")):
		sc.Transport = WS
	case typ == nil && sc.URL != "":
		sc.Transport = HTTP
	case typ == nil:
		sc.Transport = Stdio
	case typ.val.kind != kindString:
		r.problem(typ.val.off, "", "type of server %q is %s, not a string", m.key, typ.val.kindName())
	default:
		switch typ.val.str {
		case "stdio":
			sc.Transport = Stdio
		case "http", "streamable-http", "streamableHttp":
			sc.Transport = HTTP
		case "sse":
			sc.Transport = SSE
		case "ws", "websocket":
			sc.Transport = WS
		default:
			r.problem(typ.val.off, `use "stdio", "http", "sse" or "ws"`, "unknown type %q of server %q", typ.val.str, m.key)
		}
	}
	switch {
	case sc.Transport == Stdio && sc.Command == "":
		r.problem(v.off, `add "command": the program to run, with "args" for its arguments`, "server %q runs over stdio but has no command", m.key)
	case (sc.Transport == HTTP || sc.Transport == SSE) && sc.URL == "":
		r.problem(v.off, `add "url": the server's endpoint, such as "https://example.com/mcp"`, "server %q is reached over %s but has no url", m.key, sc.Transport)
	// A url with variables is checked once they expand (the file approved).
	case (sc.Transport == HTTP || sc.Transport == SSE) && !strings.HasPrefix(sc.URL, "http://") && !strings.HasPrefix(sc.URL, "https://") && !variable.MatchString(sc.URL):
		r.problem(v.field("url").val.off, "", "url %q of server %q is not an http:// or https:// URL", sc.URL, m.key)
	case sc.Transport == WS && sc.URL == "":
		r.problem(v.off, `add "url": the server's WebSocket endpoint, such as "wss://example.com/mcp"`, "server %q is reached over ws but has no url", m.key)
	case sc.Transport == WS && !strings.HasPrefix(sc.URL, "ws://") && !strings.HasPrefix(sc.URL, "wss://") && !variable.MatchString(sc.URL):
		r.problem(v.field("url").val.off, `a WebSocket endpoint is ws:// or wss://, such as "wss://example.com/mcp"; an http:// or https:// endpoint is "type": "http"`, "url %q of server %q is not a ws:// or wss:// URL", sc.URL, m.key)
	}
	return sc, len(r.problems) == before
}

// str reads a string member, expanding variables; "" when absent.
func (r *configReader) str(obj *value, key string) string { return r.strWith(obj, key, r.expand) }

func (r *configReader) strWith(obj *value, key string, expand func(*value) string) string {
	m := obj.field(key)
	if m == nil {
		return ""
	}
	if m.val.kind != kindString {
		r.problem(m.val.off, "", "%s is %s, not a string", key, m.val.kindName())
		return ""
	}
	return expand(m.val)
}

func (r *configReader) strs(obj *value, key string) []string {
	m := obj.field(key)
	if m == nil {
		return nil
	}
	if m.val.kind != kindArray {
		r.problem(m.val.off, `write a list of strings: ["--flag", "value"]`, "%s is %s, not an array", key, m.val.kindName())
		return nil
	}
	var out []string
	for _, it := range m.val.items {
		if it.kind != kindString {
			r.problem(it.off, `quote it: every argument is a string`, "an item of %s is %s, not a string", key, it.kindName())
			continue
		}
		out = append(out, r.expand(it))
	}
	return out
}

func (r *configReader) strPairs(obj *value, key string) [][2]string {
	return r.strPairsWith(obj, key, func(_ string, v *value) string { return r.expand(v) })
}

func (r *configReader) strPairsWith(obj *value, key string, expand func(string, *value) string) [][2]string {
	m := obj.field(key)
	if m == nil {
		return nil
	}
	if m.val.kind != kindObject {
		r.problem(m.val.off, `write an object of strings: {"NAME": "value"}`, "%s is %s, not an object", key, m.val.kindName())
		return nil
	}
	var out [][2]string
	for _, kv := range m.val.keys {
		if kv.val.kind != kindString {
			r.problem(kv.val.off, "quote it: the values are strings", "%s %q is %s, not a string", key, kv.key, kv.val.kindName())
			continue
		}
		out = append(out, [2]string{kv.key, expand(kv.key, kv.val)})
	}
	return out
}

// strMap reads the headers of server: values sent to it.
func (r *configReader) strMap(obj *value, key, server string) map[string]string {
	pairs := r.strPairsWith(obj, key, func(name string, v *value) string {
		return r.send(v, server, fmt.Sprintf("header %q of server %q", name, server))
	})
	if pairs == nil {
		return nil
	}
	m := make(map[string]string, len(pairs))
	for _, kv := range pairs {
		m[kv[0]] = kv[1]
	}
	return m
}

// duration reads a timeout: seconds as a number, or a Go duration ("90s").
func (r *configReader) duration(v *value) time.Duration {
	switch v.kind {
	case kindNumber:
		if f, err := strconv.ParseFloat(string(v.num), 64); err == nil && f > 0 {
			return time.Duration(f * float64(time.Second))
		}
	case kindString:
		if d, err := time.ParseDuration(v.str); err == nil && d > 0 {
			return d
		}
	}
	r.problem(v.off, `write seconds (60) or a duration ("90s")`, "timeout is not a positive number of seconds or a duration")
	return 0
}

// variable matches ${NAME} and ${NAME:-default}.
var variable = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)

// expand replaces the variables of a string value, reporting those that are not set and
// have no default.
func (r *configReader) expand(v *value) string {
	if r.asWritten {
		return v.str
	}
	return variable.ReplaceAllStringFunc(v.str, func(m string) string {
		sub := variable.FindStringSubmatch(m)
		val, ok := r.lookup(sub[1])
		switch {
		case sub[2] != "" && (!ok || val == ""): // as the shell's ${NAME:-default}
			return sub[3]
		case ok:
			return val
		}
		r.problem(v.off, "set it, or give a default: ${"+sub[1]+":-value}", "environment variable %s is not set", sub[1])
		return ""
	})
}

// send expands the variables of a value the host sends to server (its url, a header), as
// what says: as written until the file is approved, and then only if the user allowed every
// variable it names, for an environment variable sent to a remote server may be a secret.
func (r *configReader) send(v *value, server, what string) string {
	if r.only != nil && !r.only[server] {
		return v.str // not started: nothing is sent
	}
	var refused []string
	for _, sub := range variable.FindAllStringSubmatch(v.str, -1) {
		if !slices.Contains(r.sent, sub[1]) {
			r.sent = append(r.sent, sub[1])
		}
		if r.expandsSent() && r.allowed != nil && !r.allowed[sub[1]] && !slices.Contains(refused, sub[1]) {
			refused = append(refused, sub[1])
			r.problem(v.off, "variables in url and headers go to the server, so only those the user allows are expanded: allow "+sub[1]+", or write the value in the file",
				"%s would send environment variable %s, which is not allowed", what, sub[1])
		}
	}
	if !r.expandsSent() || len(refused) > 0 {
		return v.str
	}
	return r.expand(v)
}

// expandsSent says whether urls and headers expand their variables: once approved.
func (r *configReader) expandsSent() bool { return r.approved && !r.asWritten }
