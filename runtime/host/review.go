package host

import (
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Review is what a project's configuration would start and send, as its file has it
// (variables not expanded): for a person to approve.
type Review struct {
	File    string // absolute path
	SHA256  string // of the content to approve, in hex
	Servers []ServerConfig
	// Variables are the environment variables the urls and headers would send to their
	// servers, in order of appearance.
	Variables []string
	// Changed says the user approved the file before, with other content (Consent sets it).
	Changed bool
	// Before is what each server was when the user approved the file, as the review shows a
	// server (its lines, by name): String then shows what changed. nil when it is not
	// known (an approval recorded before approvals kept it).
	Before map[string][]string
	// Remembered says a yes is recorded, and not asked for again until the file changes
	// (Consent sets it when it keeps Approvals).
	Remembered bool
}

// Review is what the configuration's file would start and send, for its user to approve;
// nil for a configuration built in code.
func (c *Config) Review() *Review {
	if c.from == nil {
		return nil
	}
	r := &configReader{file: c.File, lookup: c.from.lookup, asWritten: true}
	written, err := r.read(c.from.data)
	if err != nil { // the same data parsed once already, with values expanded
		panic("host: a configuration read once does not read again: " + err.Error())
	}
	return &Review{File: c.from.path, SHA256: hex.EncodeToString(c.from.sum[:]), Servers: written.Servers, Variables: r.sent}
}

// String is the review as a person reads it: every command with its arguments, environment
// and directory, every url and header, the variables each sends, and the OAuth client each
// names; for a file that changed since it was approved, only what changed, each line marked
// + (new) or - (gone). Every string is shown so that no control character or escape
// sequence in the file can hide another.
func (r *Review) String() string {
	var b strings.Builder
	changes := r.Changed && r.Before != nil
	switch {
	case changes:
		fmt.Fprintf(&b, "%s changed since you approved it; it now asks to start %d MCP server%s. What changed:\n", shown(r.File), len(r.Servers), plural(len(r.Servers)))
	case r.Changed:
		fmt.Fprintf(&b, "%s changed since you approved it; it now asks to start %d MCP server%s:\n", shown(r.File), len(r.Servers), plural(len(r.Servers)))
	default:
		fmt.Fprintf(&b, "%s asks to start %d MCP server%s:\n", shown(r.File), len(r.Servers), plural(len(r.Servers)))
	}
	var same []string
	other := changes // only other content of the file changed: no server did
	for _, s := range r.Servers {
		lines := serverLines(s)
		before, known := r.Before[s.Name]
		switch {
		case !changes:
			fmt.Fprintf(&b, "\n%s", strings.Join(lines, ""))
		case !known:
			fmt.Fprintf(&b, "\n%s", marked(lines, nil))
			other = false
		case slices.Equal(lines, before):
			same = append(same, s.Name)
		default:
			fmt.Fprintf(&b, "\n%s", marked(lines, before))
			other = false
		}
	}
	if changes {
		for _, name := range slices.Sorted(maps.Keys(r.Before)) {
			if !slices.ContainsFunc(r.Servers, func(s ServerConfig) bool { return s.Name == name }) {
				fmt.Fprintf(&b, "\n- %s, removed\n", strings.TrimSpace(r.Before[name][0]))
				other = false
			}
		}
		if other {
			fmt.Fprintf(&b, "\n  its servers are as you approved them (%s): only the rest of the file changed\n", strings.Join(same, ", "))
		} else if len(same) > 0 {
			fmt.Fprintf(&b, "\n  unchanged: %s\n", strings.Join(same, ", "))
		}
	}
	fmt.Fprintf(&b, "\nThe file is a project's: approve it only if you trust where the project came from.\n")
	if r.Remembered {
		fmt.Fprintf(&b, "A yes is remembered until the file changes.\n")
	}
	return b.String()
}

// marked is a server's lines, its header first, with each line that is new marked + and
// each line of before that is gone marked -, in place: a server that is new has every line
// marked.
func marked(lines, before []string) string {
	var b strings.Builder
	mark := func(m byte, line string) { b.WriteString(string(m) + line[1:]) } // the indent's first blank
	if before == nil {
		for _, l := range lines {
			mark('+', l)
		}
		return b.String()
	}
	b.WriteString(lines[0]) // the server's name and transport: what the lines are of
	for _, l := range before[1:] {
		if !slices.Contains(lines[1:], l) {
			mark('-', l)
		}
	}
	for _, l := range lines[1:] {
		if slices.Contains(before[1:], l) {
			b.WriteString(l)
		} else {
			mark('+', l)
		}
	}
	return b.String()
}

// serverLines are a server as the review shows it, each line ending in a newline: its name
// and transport, then what it runs or where it is reached.
func serverLines(s ServerConfig) []string {
	lines := []string{fmt.Sprintf("  %s (%s)\n", s.Name, s.Transport)}
	add := func(format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)) }
	if s.Transport == Stdio {
		words := []string{shellWord(s.Command)}
		for _, a := range s.Args {
			words = append(words, shellWord(a))
		}
		add("    runs    %s\n", strings.Join(words, " "))
		for _, kv := range s.Env {
			k, v, _ := strings.Cut(kv, "=")
			add("    env     %s=%s\n", shown(k), shellWord(v))
		}
		if s.Dir != "" {
			add("    in      %s\n", shellWord(s.Dir))
		}
		return lines
	}
	add("    url     %s\n", shown(s.URL))
	var sends []string
	for _, m := range variable.FindAllStringSubmatch(s.URL, -1) {
		sends = append(sends, m[1])
	}
	for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
		add("    header  %s: %s\n", shown(k), shown(s.Headers[k]))
		for _, m := range variable.FindAllStringSubmatch(s.Headers[k], -1) {
			sends = append(sends, m[1])
		}
	}
	slices.Sort(sends)
	if sends = slices.Compact(sends); len(sends) > 0 {
		add("    sends   the values of %s to this server\n", strings.Join(sends, ", "))
	}
	if o := s.OAuth; o != nil {
		// The issuer is trusted for this server's tokens (it may be on the user's
		// network), and gets the client's id, and a secret given on the command line.
		add("    oauth   client %s at %s, for this server's tokens\n", shown(o.ClientID), shown(o.Issuer))
	}
	return lines
}

// reviewed is what each server of a review shows, by name: what an approval keeps, for
// the review of the file's next content to show what changed.
func (r *Review) reviewed() map[string][]string {
	m := map[string][]string{}
	for _, s := range r.Servers {
		m[s.Name] = serverLines(s)
	}
	return m
}

// shown is s as it may be printed: quoted, with escapes, if it holds anything but
// printable characters and spaces.
func shown(s string) string {
	for _, c := range s {
		if !unicode.IsGraphic(c) || (unicode.IsSpace(c) && c != ' ') {
			return strconv.QuoteToGraphic(s)
		}
	}
	return s
}

// shellWord is a word of a command as a shell would need it written; ${VAR} is left as it
// is, for the host expands it, not a shell.
func shellWord(s string) string {
	if q := shown(s); q != s {
		return q
	}
	if s != "" && !strings.ContainsAny(s, " '\"\\`;&|<>()*?[]#~!") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
