package host

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/internal/userfile"
	"github.com/mcpgen/mcpgen/internal/waitread"
)

// A project's .mcp.json is code: its servers are commands the host runs and addresses it
// sends the user's variables to. Cloning a repository must not be enough to run them, so a
// configuration read from a file starts only once its user approved that file's content,
// as Claude Code asks before it uses a project's servers. The user's own configuration
// (UserConfigPath) and a Config built in code are the user's and the program's own words,
// and start as they are.

// source is the file a configuration was read from: what an approval is of.
type source struct {
	path     string // absolute
	data     []byte
	sum      [32]byte // SHA-256 of data
	lookup   func(string) (string, bool)
	user     bool // the user's own configuration: trusted as it is
	approved bool
}

// ErrNotApproved is wrapped by the error of a project's configuration its user has not
// approved, and by the error of each of its servers when Start is given it unapproved.
var ErrNotApproved = errors.New("not approved")

// NotApprovedError is a project's configuration whose servers may not start: nobody could
// be asked, the user declined, or the file changed since they approved it.
type NotApprovedError struct {
	File     string // absolute path
	Changed  bool   // the user approved the file with other content
	Declined bool   // the user was asked and said no
	// Variables are the environment variables the urls and headers of the servers to start
	// would send (Config.Sends), which approving without a review (mcpgen --trust) must
	// allow by name.
	Variables []string
}

func (e *NotApprovedError) Error() string {
	switch {
	case e.Declined:
		return e.File + " was not approved"
	case e.Changed:
		return e.File + " changed since it was approved; a project's servers start only once its configuration is approved"
	}
	return e.File + " is not approved; a project's servers start only once its configuration is approved"
}

func (e *NotApprovedError) Unwrap() error { return ErrNotApproved }

// UserConfigPath is the user's own configuration: mcp.json in mcpgen's directory of the
// user's configuration directory (on Linux, ~/.config/mcpgen/mcp.json). It is trusted as it
// is; no other file is, wherever it is and however it is named.
func UserConfigPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "mcpgen", "mcp.json"), nil
}

// isUserConfig says whether the open file f is the user's configuration. Comparing files,
// not names, sees through symbolic links and relative paths either way.
func isUserConfig(f *os.File) bool {
	path, err := UserConfigPath()
	if err != nil {
		return false
	}
	user, err := os.Stat(path)
	if err != nil {
		return false
	}
	fi, err := f.Stat()
	return err == nil && os.SameFile(fi, user)
}

// NeedsApproval says whether the configuration's servers wait for the user's approval: it
// was read from a project's file, and Approve was not called.
func (c *Config) NeedsApproval() bool {
	return c.from != nil && !c.from.user && !c.from.approved
}

// Approve says that the user approved this configuration as it is (a program asks with
// Review, or looks in Approvals): its servers may start. Variables in urls and headers then
// expand, if allowEnv names each: an environment variable sent to a remote server may be a
// secret, so an approval says which may go. A variable not allowed, or not set, is a
// *ConfigError listing every one at its line and column, and the configuration stays
// unapproved. Only the servers c still has count (a program may have chosen some); Approve
// changes their url and headers, and nothing else of them.
func (c *Config) Approve(allowEnv ...string) error {
	if c.from == nil || c.from.user {
		return nil
	}
	allowed := map[string]bool{}
	for _, name := range allowEnv {
		allowed[name] = true
	}
	r := &configReader{file: c.File, lookup: c.from.lookup, approved: true, allowed: allowed, only: c.names()}
	expanded, err := r.read(c.from.data)
	if err != nil {
		return err
	}
	for i, sc := range c.Servers {
		if j := slices.IndexFunc(expanded.Servers, func(e ServerConfig) bool { return e.Name == sc.Name }); j >= 0 {
			c.Servers[i].URL, c.Servers[i].Headers = expanded.Servers[j].URL, expanded.Servers[j].Headers
		}
	}
	c.from.approved = true
	return nil
}

// Sends is the environment variables the urls and headers of c's servers (those it still
// has, if a program chose some) would send, in order of appearance: what approving c must
// allow. nil for a Config built in code.
func (c *Config) Sends() []string {
	if c.from == nil {
		return nil
	}
	r := &configReader{file: c.File, lookup: c.from.lookup, asWritten: true, only: c.names()}
	r.read(c.from.data) // read once already
	return r.sent
}

func (c *Config) names() map[string]bool {
	m := make(map[string]bool, len(c.Servers))
	for _, s := range c.Servers {
		m[s.Name] = true
	}
	return m
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Approvals are the project configurations a user approved, in a JSON file that only they
// may read and write (0600, in a directory of mode 0700): for each file's absolute path, the
// SHA-256 of the content approved and the variables allowed. A file whose content changed
// is no longer approved.
type Approvals struct {
	Path string
	mu   sync.Mutex
}

// DefaultApprovals are the approvals of mcpgen's command line: approvals.json in mcpgen's
// directory of the user's configuration directory (on Linux, ~/.config/mcpgen).
func DefaultApprovals() (*Approvals, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return nil, err
	}
	return &Approvals{Path: filepath.Join(dir, "mcpgen", "approvals.json")}, nil
}

// approval is what the user approved of one file.
type approval struct {
	SHA256   string    `json:"sha256"`
	AllowEnv []string  `json:"allowEnv,omitempty"`
	Time     time.Time `json:"approved"`
	// Servers are what the review showed of each server when the user approved the file,
	// for the review of its next content to show what changed (Review.Before).
	Servers map[string][]string `json:"servers,omitempty"`
}

func (a *Approvals) read() (map[string]approval, error) {
	data, err := userfile.ReadFile(a.Path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]approval{}, nil
	}
	if err != nil {
		return nil, err
	}
	m := map[string]approval{}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", a.Path, err)
	}
	return m, nil
}

// Lookup finds the user's approval of cfg's file: ok when they approved this content, with
// the variables they allowed; changed when they approved other content of the same file.
func (a *Approvals) Lookup(cfg *Config) (allowEnv []string, ok, changed bool, err error) {
	rec, found, err := a.lookup(cfg)
	if err != nil || !found {
		return nil, false, false, err
	}
	if rec.SHA256 != hex.EncodeToString(cfg.from.sum[:]) {
		return nil, false, true, nil
	}
	return rec.AllowEnv, true, false, nil
}

// lookup is the approval recorded of cfg's file, of whatever content.
func (a *Approvals) lookup(cfg *Config) (rec approval, found bool, err error) {
	if cfg.from == nil {
		return rec, false, errors.New("host: the configuration was not read from a file")
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	m, err := a.read()
	if err != nil {
		return rec, false, err
	}
	rec, found = m[cfg.from.path]
	return rec, found, nil
}

// Record keeps the user's approval of cfg's file as it is now, with the variables its urls
// and headers may send; it replaces an approval of the file's earlier content.
func (a *Approvals) Record(cfg *Config, allowEnv []string) error {
	if cfg.from == nil {
		return errors.New("host: the configuration was not read from a file")
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	m, err := a.read()
	if err != nil {
		return err
	}
	allow := slices.Sorted(slices.Values(allowEnv))
	m[cfg.from.path] = approval{SHA256: hex.EncodeToString(cfg.from.sum[:]), AllowEnv: slices.Compact(allow), Time: time.Now().UTC().Truncate(time.Second),
		Servers: cfg.Review().reviewed()}
	return a.write(m)
}

// Approval is a project configuration's approval, as Approvals keeps it.
type Approval struct {
	File     string    // absolute path
	SHA256   string    // of the content approved, in hex
	AllowEnv []string  // the variables its urls and headers may send
	Time     time.Time // when it was approved
}

// List returns the approvals recorded, by path.
func (a *Approvals) List() ([]Approval, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	m, err := a.read()
	if err != nil {
		return nil, err
	}
	list := make([]Approval, 0, len(m))
	for _, path := range slices.Sorted(maps.Keys(m)) {
		rec := m[path]
		list = append(list, Approval{File: path, SHA256: rec.SHA256, AllowEnv: rec.AllowEnv, Time: rec.Time})
	}
	return list, nil
}

// ForgetAll removes every approval: each project's configuration asks again.
func (a *Approvals) ForgetAll() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, err := a.read(); err != nil {
		return err // what the file is, is said rather than overwritten
	}
	return a.write(map[string]approval{})
}

// Forget removes the approval of the file at path (absolute), if there is one.
func (a *Approvals) Forget(path string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	m, err := a.read()
	if err != nil {
		return err
	}
	if _, ok := m[path]; !ok {
		return nil
	}
	delete(m, path)
	return a.write(m)
}

// write replaces the file: written whole, then renamed over the old one, so that a crash
// leaves one or the other. Two processes recording at once may lose one approval (the user
// is asked again), never make one.
func (a *Approvals) write(m map[string]approval) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(a.Path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".approvals-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), a.Path)
}

// Consent is how a program gets its user's approval of a project's configuration, as
// mcpgen's command line and examples/host do: an approval recorded earlier, the user's word
// given in advance (Trust), or their answer to a review (Ask).
type Consent struct {
	// Approvals are looked in first; an approval given at Ask is recorded there. nil: none
	// are looked up or kept.
	Approvals *Approvals
	// Trust approves the file as it is, for this run, without asking and without recording
	// it: the user said so beforehand (mcpgen --trust), as in CI. The variables its urls
	// and headers send must still be in AllowEnv.
	Trust bool
	// AllowEnv are environment variables the user allows urls and headers to send, besides
	// those allowed with a recorded approval or at Ask.
	AllowEnv []string
	// Ask shows the review to the user and returns their answer; approving allows the
	// variables the review lists. nil when there is nobody to ask (no terminal). AskAt
	// asks on a terminal.
	Ask func(ctx context.Context, r *Review) (bool, error)
}

// Approve approves cfg for Start, if its user does: nil when it may start (a Config built in
// code and the user's own configuration always may); a *NotApprovedError when there was
// nobody to ask or the user declined; a *ConfigError when its urls and headers name
// variables that are not allowed or not set.
func (c *Consent) Approve(ctx context.Context, cfg *Config) error {
	if !cfg.NeedsApproval() {
		return nil
	}
	var before approval
	changed := false
	if c.Approvals != nil {
		rec, found, err := c.Approvals.lookup(cfg)
		if err != nil {
			return fmt.Errorf("reading the approvals: %w", err)
		}
		if found && rec.SHA256 == hex.EncodeToString(cfg.from.sum[:]) {
			return cfg.Approve(append(rec.AllowEnv, c.AllowEnv...)...)
		}
		before, changed = rec, found
	}
	if c.Trust {
		return cfg.Approve(c.AllowEnv...)
	}
	review := cfg.Review()
	review.Changed, review.Before, review.Remembered = changed, before.Servers, c.Approvals != nil
	if c.Ask == nil {
		return &NotApprovedError{File: review.File, Changed: changed, Variables: cfg.Sends()}
	}
	yes, err := c.Ask(ctx, review)
	if err != nil {
		return err
	}
	if !yes {
		return &NotApprovedError{File: review.File, Changed: changed, Declined: true, Variables: cfg.Sends()}
	}
	allow := append(slices.Clone(review.Variables), c.AllowEnv...)
	if err := cfg.Approve(allow...); err != nil {
		return err
	}
	if c.Approvals != nil {
		if err := c.Approvals.Record(cfg, review.Variables); err != nil {
			return fmt.Errorf("recording the approval: %w", err)
		}
	}
	return nil
}

// AskAt asks at a terminal: it writes the review to out and asks y/N, reading the answer
// from in one byte at a time, so that nothing after the answer's line is taken from in.
// Anything but y or yes is no, and so is no answer. When ctx ends first, AskAt returns its
// error and has taken nothing from in: a file (a terminal, a pipe) is polled for input
// while ctx lasts, on Unix, rather than read in a goroutine that would outlive the question;
// another reader is looked at between bytes only.
func AskAt(in io.Reader, out io.Writer) func(ctx context.Context, r *Review) (bool, error) {
	return func(ctx context.Context, r *Review) (bool, error) {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		fmt.Fprintf(out, "%s\nStart %s? [y/N] ", r, map[bool]string{true: "it", false: "them"}[len(r.Servers) == 1])
		in := &waitread.Reader{R: in, Ctx: ctx}
		var line []byte
		var b [1]byte
		for len(line) < 1024 {
			n, err := in.Read(b[:])
			if n == 1 {
				if b[0] == '\n' {
					break
				}
				line = append(line, b[0])
				continue
			}
			if err == io.EOF {
				fmt.Fprintln(out)
				break // the answer is what came before the end
			}
			if err != nil {
				fmt.Fprintln(out)
				return false, err
			}
		}
		switch strings.ToLower(strings.TrimSpace(string(line))) {
		case "y", "yes":
			return true, nil
		}
		return false, nil
	}
}
