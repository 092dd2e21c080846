package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/internal/userfile"
)

// Loopback receives the authorization response of a person at this machine, as RFC 8252
// describes for native apps: it listens on a loopback port for the redirect, and sends the
// user's browser to the authorization URL (printing it too, for a machine without one).
// Any local process can reach that port: it takes only a response whose state is that of
// an authorization waiting, and answers any other with 400 (the authorization waits on).
type Loopback struct {
	ln      net.Listener
	out     io.Writer
	outMu   sync.Mutex // the authorizations of several servers run at once, and write to out
	srv     *http.Server
	done    chan struct{}
	mu      sync.Mutex
	pending map[string]chan *url.URL // by state: the authorizations waiting
}

// NewLoopback listens on 127.0.0.1 on a free port. out gets the authorization URL and what
// to do with it. Close it when the program is done with authorizing.
func NewLoopback(out io.Writer) (*Loopback, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	l := &Loopback{ln: ln, out: out, done: make(chan struct{}), pending: map[string]chan *url.URL{}}
	l.srv = &http.Server{Handler: http.HandlerFunc(l.serveCallback), ReadHeaderTimeout: 10 * time.Second}
	go func() { defer close(l.done); l.srv.Serve(ln) }()
	return l, nil
}

// serveCallback hands a redirect to the authorization waiting for its state.
func (l *Loopback) serveCallback(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/callback" {
		http.NotFound(w, r)
		return
	}
	state := r.URL.Query().Get("state")
	l.mu.Lock()
	ch := l.pending[state]
	delete(l.pending, state)
	l.mu.Unlock()
	if state == "" || ch == nil {
		http.Error(w, "No authorization is waiting for this response.", http.StatusBadRequest)
		return
	}
	u := *r.URL
	u.Scheme, u.Host = "http", r.Host
	ch <- &u // buffered, and taken out of pending: one send
	fmt.Fprintln(w, "Authorized. You can close this window and go back to the terminal.")
}

// RedirectURL is the loopback address the authorization server sends the user back to.
func (l *Loopback) RedirectURL() string { return "http://" + l.ln.Addr().String() + "/callback" }

// Authorize sends the user to authURL (the browser of $BROWSER, else the system's), and
// waits for the authorization server to send them back with authURL's state, or for ctx.
func (l *Loopback) Authorize(ctx context.Context, authURL string) (*url.URL, error) {
	if err := CheckEndpoint(authURL); err != nil {
		return nil, fmt.Errorf("not opening the authorization address: %w", err)
	}
	u, _ := url.Parse(authURL)
	state := u.Query().Get("state")
	if state == "" {
		return nil, errors.New("the authorization address has no state to know its response by")
	}
	ch := make(chan *url.URL, 1)
	l.mu.Lock()
	if _, dup := l.pending[state]; dup {
		l.mu.Unlock()
		return nil, errors.New("an authorization with this state is waiting already")
	}
	l.pending[state] = ch
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		delete(l.pending, state)
		l.mu.Unlock()
	}()
	l.say("To authorize, open this address in a browser:\n\n  %s\n\n", authURL)
	if err := openBrowser(authURL); err == nil {
		l.say("(A browser was opened there; waiting for you to come back.)\n")
	}
	select {
	case u := <-ch:
		return u, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for the authorization: %w", ctx.Err())
	}
}

// say writes to out, one authorization's words at a time.
func (l *Loopback) say(format string, args ...any) {
	l.outMu.Lock()
	defer l.outMu.Unlock()
	fmt.Fprintf(l.out, format, args...)
}

// Close stops listening.
func (l *Loopback) Close() error {
	err := l.srv.Close()
	<-l.done
	return err
}

// openBrowser opens a URL with $BROWSER if set, else the system's opener when there is a
// display to show it on.
func openBrowser(u string) error {
	var cmd *exec.Cmd
	switch b := os.Getenv("BROWSER"); {
	case b != "":
		cmd = exec.Command(b, u)
	case runtime.GOOS == "darwin":
		cmd = exec.Command("open", u)
	case runtime.GOOS == "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", u)
	case os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "":
		return errors.New("no display")
	default:
		cmd = exec.Command("xdg-open", u)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait() // reaped, not left a zombie
	return nil
}

// FileStore is a TokenStore in a JSON file that only its owner may read (0600, in a
// directory of mode 0700): what a command-line tool keeps between runs.
type FileStore struct {
	Path string
	mu   sync.Mutex
}

// DefaultFileStore is the store of mcpgen's command line: tokens.json in mcpgen's directory
// of the user's configuration directory (on Linux, ~/.config/mcpgen).
func DefaultFileStore() (*FileStore, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return nil, err
	}
	return &FileStore{Path: filepath.Join(dir, "mcpgen", "tokens.json")}, nil
}

func (f *FileStore) read() (map[string]*Token, error) {
	data, err := userfile.ReadFile(f.Path) // a regular file of at most userfile.MaxSize
	if errors.Is(err, os.ErrNotExist) {
		return map[string]*Token{}, nil
	}
	if err != nil {
		return nil, err
	}
	tokens := map[string]*Token{}
	if err := json.Unmarshal(data, &tokens); err != nil {
		return nil, fmt.Errorf("%s: %w", f.Path, err)
	}
	return tokens, nil
}

func (f *FileStore) Token(_ context.Context, resource string) (*Token, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	tokens, err := f.read()
	if err != nil {
		return nil, err
	}
	return tokens[resource], nil
}

func (f *FileStore) SetToken(_ context.Context, resource string, t *Token) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	tokens, err := f.read()
	if err != nil {
		return err
	}
	tokens[resource] = t
	data, err := json.MarshalIndent(tokens, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(f.Path), 0o700); err != nil {
		return err
	}
	// Written whole, then renamed over the old file: a crash leaves one or the other.
	tmp, err := os.CreateTemp(filepath.Dir(f.Path), ".tokens-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), f.Path)
}
