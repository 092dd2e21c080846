package main

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpgen/mcpgen/examples/codegraph/index"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// Policy is what the operator allows codegraph to touch: a client names paths, and only
// those the operator's flags cover are indexed, read or written.
type Policy struct {
	// Roots are the directories index_repository may index, with their subdirectories
	// (real paths): those given on the command line and with -root.
	Roots []string
	// IndexAny lets index_repository index any directory (-index-any). Writing stays
	// within Roots.
	IndexAny bool
	// Write lets surgical_replace_code write the source files of the indexed languages
	// inside Roots, outside hidden directories (-write).
	Write bool
	// WritePaths are files and directories any file of which may be written (-write-path),
	// hidden or not, source or not.
	WritePaths []string
}

// sourceExtensions are the files surgical_replace_code writes: those of the languages the
// graph indexes.
var sourceExtensions = index.SourceExtensions()

// NewPolicy makes a policy from the operator's paths, resolving them.
func NewPolicy(roots []string, indexAny, write bool, writePaths []string) (Policy, error) {
	p := Policy{IndexAny: indexAny, Write: write}
	for _, r := range roots {
		real, err := realPath(r)
		if err != nil {
			return Policy{}, fmt.Errorf("root %s: %w", r, err)
		}
		p.Roots = append(p.Roots, real)
	}
	for _, w := range writePaths {
		real, err := realPath(w)
		if err != nil {
			return Policy{}, fmt.Errorf("-write-path %s: %w", w, err)
		}
		p.WritePaths = append(p.WritePaths, real)
	}
	return p, nil
}

func realPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// inside reports whether path is dir or under it (both real paths).
func inside(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// writes says whether anything may be written.
func (p *Policy) writes() bool { return p.Write || len(p.WritePaths) > 0 }

// canIndex says whether index_repository may index dir.
func (p *Policy) canIndex(dir string) error {
	if p.IndexAny {
		return nil
	}
	real, err := realPath(dir)
	if err != nil {
		return err
	}
	for _, r := range p.Roots {
		if inside(real, r) {
			return nil
		}
	}
	if len(p.Roots) == 0 {
		return fmt.Errorf("%s may not be indexed: codegraph was started with no directory to index (give one on its command line, or -root DIR)", dir)
	}
	return fmt.Errorf("%s may not be indexed: codegraph indexes only inside the directories it was started with (%s); its operator may add others with -root DIR, or allow any with -index-any",
		dir, strings.Join(p.Roots, ", "))
}

// canWrite says whether surgical_replace_code may write the file at path (a real path).
func (p *Policy) canWrite(path string) error {
	for _, w := range p.WritePaths {
		if inside(path, w) {
			return nil
		}
	}
	if !p.Write {
		return errors.New("writing is off: codegraph writes source files only when its operator starts it with -write")
	}
	root := ""
	for _, r := range p.Roots {
		if inside(path, r) && len(r) > len(root) {
			root = r
		}
	}
	if root == "" {
		return fmt.Errorf("%s may not be written: codegraph writes only inside the directories it was started with (%s)", path, strings.Join(p.Roots, ", "))
	}
	rel, _ := filepath.Rel(root, path)
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		if strings.HasPrefix(part, ".") {
			return fmt.Errorf("%s may not be written: it is hidden (%s), as .git and its configuration are; its operator may allow it with -write-path", rel, part)
		}
	}
	for _, ext := range sourceExtensions {
		if strings.HasSuffix(path, ext) {
			return nil
		}
	}
	return fmt.Errorf("%s may not be written: only source files of the indexed languages (%s) are; its operator may allow other paths with -write-path",
		rel, strings.Join(sourceExtensions, ", "))
}

// httpOptions are the options of the HTTP listener at addr: a loopback address needs
// nothing more; any other needs a token, which every request must carry (a client on
// another machine can send any Host header, so the host check alone keeps nobody out).
func httpOptions(ln net.Listener, tokenFile, publicURL string) (*mcp.HTTPOptions, error) {
	addr, _ := ln.Addr().(*net.TCPAddr)
	loopback := addr != nil && addr.IP.IsLoopback()
	if tokenFile == "" {
		if !loopback {
			return nil, fmt.Errorf("refusing to serve on %s, which is not a loopback address, without protection: anyone who reaches it could index, read and (with -write) change files. "+
				"Give -token-file FILE (clients send its content as a bearer token) and -public-url URL (the address they use), or listen on 127.0.0.1", ln.Addr())
		}
		return nil, nil
	}
	b, err := os.ReadFile(tokenFile)
	if err != nil {
		return nil, err
	}
	token := strings.TrimSpace(string(b))
	if len(token) < 16 {
		return nil, fmt.Errorf("%s: the token must be at least 16 characters long", tokenFile)
	}
	opts := &mcp.HTTPOptions{Auth: &mcp.AuthOptions{Verifier: mcp.TokenVerifierFunc(func(_ context.Context, t string) (*mcp.AuthInfo, error) {
		if subtle.ConstantTimeCompare([]byte(t), []byte(token)) != 1 {
			return nil, errors.New("not the token codegraph was started with")
		}
		return &mcp.AuthInfo{Subject: "operator"}, nil
	})}}
	if !loopback {
		if publicURL == "" {
			return nil, fmt.Errorf("serving on %s, which is not a loopback address, needs -public-url URL: the address clients use (http://host:port/mcp), whose host the server accepts", ln.Addr())
		}
		u, err := url.Parse(publicURL)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("-public-url %q is not a URL such as http://codegraph.example.com:8080/mcp", publicURL)
		}
		opts.AllowedHosts = []string{u.Host}
		opts.Auth.Resource = publicURL
	}
	return opts, nil
}
