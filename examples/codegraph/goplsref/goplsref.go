// Package goplsref asks gopls, the Go team's language server, the questions codegraph
// answers (references, implementation, call hierarchy), through its command line against a
// daemon it keeps warm, and defines what agreeing with it means. The codegraph tests and its
// benchmark use it as the reference.
package goplsref

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Version is the gopls release the comparisons use, from the Go module proxy.
const Version = "v0.23.0"

// Install builds gopls Version into dir/gopls-Version (once; later calls find it there) and
// returns the binary's path.
func Install(ctx context.Context, dir string) (string, error) {
	bindir, err := filepath.Abs(filepath.Join(dir, "gopls-"+Version))
	if err != nil {
		return "", err
	}
	bin := filepath.Join(bindir, "gopls")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	cmd := exec.CommandContext(ctx, "go", "install", "golang.org/x/tools/gopls@"+Version)
	cmd.Env = append(os.Environ(), "GOBIN="+bindir, "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go install golang.org/x/tools/gopls@%s: %v\n%s", Version, err, out)
	}
	return bin, nil
}

// Daemon is a gopls server that the command line's queries share, so that each finds the
// workspace loaded and type-checked already (what -remote=auto does, but owned by us: it is
// stopped by Close rather than left to time out).
type Daemon struct {
	bin, dir, remote string
	cmd              *exec.Cmd
	tmp              string
}

// Start starts a daemon for the workspace in dir.
func Start(ctx context.Context, bin, dir string) (*Daemon, error) {
	tmp, err := os.MkdirTemp("", "goplsref")
	if err != nil {
		return nil, err
	}
	sock := filepath.Join(tmp, "gopls.sock")
	d := &Daemon{bin: bin, dir: dir, remote: "unix;" + sock, tmp: tmp}
	d.cmd = exec.Command(bin, "serve", "-listen", d.remote, "-listen.timeout", "0")
	d.cmd.Dir = dir
	d.cmd.Stderr = &bytes.Buffer{}
	if err := d.cmd.Start(); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	for {
		if _, err := os.Stat(sock); err == nil {
			return d, nil
		}
		select {
		case <-ctx.Done():
			d.Close()
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Close stops the daemon.
func (d *Daemon) Close() error {
	d.cmd.Process.Kill()
	d.cmd.Wait()
	return os.RemoveAll(d.tmp)
}

func (d *Daemon) run(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, d.bin, append([]string{"-remote", d.remote}, args...)...)
	cmd.Dir = d.dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("gopls %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out), nil
}

// Pos is a place in a file: line and column (in bytes) from 1.
type Pos struct {
	File      string
	Line, Col int
}

func (p Pos) String() string { return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col) }

var span = regexp.MustCompile(`^(.+):(\d+):(\d+)(?:-[\d:]+)?$`)

func parsePos(s string) (Pos, error) {
	m := span.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return Pos{}, fmt.Errorf("not a position: %q", s)
	}
	line, _ := strconv.Atoi(m[2])
	col, _ := strconv.Atoi(m[3])
	return Pos{File: m[1], Line: line, Col: col}, nil
}

func parseLines(out string) ([]Pos, error) {
	var ps []Pos
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		p, err := parsePos(sc.Text())
		if err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// References are the uses of the identifier at at (without its declaration).
func (d *Daemon) References(ctx context.Context, at Pos) ([]Pos, error) {
	out, err := d.run(ctx, "references", at.String())
	if err != nil {
		return nil, err
	}
	return parseLines(out)
}

// Implementation are the declarations gopls's implementation query lists for at.
func (d *Daemon) Implementation(ctx context.Context, at Pos) ([]Pos, error) {
	out, err := d.run(ctx, "implementation", at.String())
	if err != nil {
		return nil, err
	}
	return parseLines(out)
}

// Call is one entry of a call hierarchy: a function (its name and where it is declared) and
// the places of the calls.
type Call struct {
	Name  string
	Decl  Pos
	Sites []Pos
}

var hierarchyLine = regexp.MustCompile(`^(caller|callee)\[\d+\]: ranges (.*) in (\S+) from/to \S+ (\S+) in (\S+)$`)

// CallHierarchy is the incoming and outgoing calls of the function at at.
func (d *Daemon) CallHierarchy(ctx context.Context, at Pos) (incoming, outgoing []Call, err error) {
	out, err := d.run(ctx, "call_hierarchy", at.String())
	if err != nil {
		return nil, nil, err
	}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		m := hierarchyLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue // the identifier line
		}
		decl, err := parsePos(m[5])
		if err != nil {
			return nil, nil, err
		}
		c := Call{Name: m[4], Decl: decl}
		for _, r := range strings.Split(m[2], ", ") {
			p, err := parsePos(m[3] + ":" + r)
			if err != nil {
				return nil, nil, err
			}
			c.Sites = append(c.Sites, p)
		}
		if m[1] == "caller" {
			incoming = append(incoming, c)
		} else {
			outgoing = append(outgoing, c)
		}
	}
	return incoming, outgoing, nil
}

// Set is a set of answers, each written as a line, for comparing two tools' answers to a
// question: they agree when their sets are equal.
type Set map[string]bool

// Add adds a line.
func (s Set) Add(format string, args ...any) { s[fmt.Sprintf(format, args...)] = true }

// Diff lists the lines only in s ("-") and only in t ("+"); none when they agree.
func (s Set) Diff(t Set) []string {
	var out []string
	for k := range s {
		if !t[k] {
			out = append(out, "- "+k)
		}
	}
	for k := range t {
		if !s[k] {
			out = append(out, "+ "+k)
		}
	}
	sort.Strings(out)
	return out
}

// Agreement is what each kind of answer is compared by, for files under root (given
// relative to it):
//
//   - references: the set of positions of the uses (file:line:col of each identifier);
//   - implementation: the set of declaration positions, of types in files under root (gopls
//     also lists types of the dependencies, which codegraph does not index);
//   - incoming calls: the set of (caller's declaration position, call-site position) pairs;
//   - outgoing calls: the set of (callee's name, call-site position) pairs.
//
// These functions turn gopls's answers into those sets.

// ReferenceSet is the set of reference positions.
func ReferenceSet(root string, refs []Pos) Set {
	s := Set{}
	for _, p := range refs {
		s.Add("%s", rel(root, p))
	}
	return s
}

// ImplementationSet is the set of declarations under root.
func ImplementationSet(root string, impls []Pos) Set {
	s := Set{}
	for _, p := range impls {
		if r, ok := under(root, p); ok {
			s.Add("%s", r)
		}
	}
	return s
}

// IncomingSet is the set of (caller, site) pairs.
func IncomingSet(root string, calls []Call) Set {
	s := Set{}
	for _, c := range calls {
		for _, site := range c.Sites {
			s.Add("%s <- %s", rel(root, c.Decl), rel(root, site))
		}
	}
	return s
}

// OutgoingSet is the set of (callee name, site) pairs.
func OutgoingSet(root string, calls []Call) Set {
	s := Set{}
	for _, c := range calls {
		for _, site := range c.Sites {
			s.Add("%s @ %s", c.Name, rel(root, site))
		}
	}
	return s
}

func under(root string, p Pos) (Pos, bool) {
	r, err := filepath.Rel(root, p.File)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return p, false
	}
	p.File = filepath.ToSlash(r)
	return p, true
}

func rel(root string, p Pos) Pos {
	r, _ := under(root, p)
	return r
}
