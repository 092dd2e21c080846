package host

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Config is the servers a host connects to: what .mcp.json describes.
type Config struct {
	File    string         // where it was read from, if from a file
	Servers []ServerConfig // by name
}

// ServerConfig is one server of a configuration.
type ServerConfig struct {
	Name string
	// Transport is "stdio" (a command the host runs), "http" (Streamable HTTP, falling back
	// to HTTP+SSE) or "sse" (the HTTP+SSE transport of revision 2024-11-05).
	Transport string
	Command   string
	Args      []string
	Env       []string // KEY=value, added to the host's environment
	Dir       string   // the command's working directory
	URL       string
	Headers   map[string]string
	// Timeout bounds each call to the server (the host's CallTimeout when 0).
	Timeout time.Duration
}

// Transports.
const (
	Stdio = "stdio"
	HTTP  = "http"
	SSE   = "sse"
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
// ${VAR:-default} in commands, arguments, environment values, URLs and headers expand from
// the environment. Problems come back together, as a *ConfigError.
func LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseConfig(path, data, os.LookupEnv)
}

// ParseConfig reads a configuration from data (named file in problems), expanding variables
// with lookup.
func ParseConfig(file string, data []byte, lookup func(string) (string, bool)) (*Config, error) {
	r := &configReader{file: file, lines: newLineIndex(data), lookup: lookup}
	root, err := parseJSON(data)
	if err != nil {
		off := 0
		if se, ok := err.(*syntaxError); ok {
			off = se.off
		}
		r.problem(off, "check the JSON: a missing comma or quote, or a comma before a closing brace", "not valid JSON: %v", err)
		return nil, &ConfigError{r.problems}
	}
	cfg := &Config{File: file}
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
	sc.URL = r.str(v, "url")
	sc.Headers = r.strMap(v, "headers")
	for _, kv := range r.strPairs(v, "env") {
		sc.Env = append(sc.Env, kv[0]+"="+kv[1])
	}
	if t := v.field("timeout"); t != nil {
		sc.Timeout = r.duration(t.val)
	}
	typ := v.field("type")
	switch {
	case typ == nil && sc.Command != "" && sc.URL != "":
		r.problem(v.off, `say which: "type": "stdio" runs the command, "type": "http" reaches the URL`, "server %q has both a command and a url", m.key)
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
		default:
			r.problem(typ.val.off, `use "stdio", "http" or "sse"`, "unknown type %q of server %q", typ.val.str, m.key)
		}
	}
	switch {
	case sc.Transport == Stdio && sc.Command == "":
		r.problem(v.off, `add "command": the program to run, with "args" for its arguments`, "server %q runs over stdio but has no command", m.key)
	case (sc.Transport == HTTP || sc.Transport == SSE) && sc.URL == "":
		r.problem(v.off, `add "url": the server's endpoint, such as "https://example.com/mcp"`, "server %q is reached over %s but has no url", m.key, sc.Transport)
	case (sc.Transport == HTTP || sc.Transport == SSE) && !strings.HasPrefix(sc.URL, "http://") && !strings.HasPrefix(sc.URL, "https://"):
		r.problem(v.field("url").val.off, "", "url %q of server %q is not an http:// or https:// URL", sc.URL, m.key)
	}
	return sc, len(r.problems) == before
}

// str reads a string member, expanding variables; "" when absent.
func (r *configReader) str(obj *value, key string) string {
	m := obj.field(key)
	if m == nil {
		return ""
	}
	if m.val.kind != kindString {
		r.problem(m.val.off, "", "%s is %s, not a string", key, m.val.kindName())
		return ""
	}
	return r.expand(m.val)
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
		out = append(out, [2]string{kv.key, r.expand(kv.val)})
	}
	return out
}

func (r *configReader) strMap(obj *value, key string) map[string]string {
	pairs := r.strPairs(obj, key)
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
