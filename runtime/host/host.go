// Package host connects to many MCP servers at once, as an agent, an IDE or a chat app
// does: it reads their configuration (.mcp.json), starts or reaches every server, gathers
// their tools into one registry under names that cannot collide (mcp_{server}_{tool}), and
// keeps that registry right while servers come, go, crash and change their lists.
//
//	cfg, err := host.LoadConfig(".mcp.json")
//	if err != nil { ... } // every mistake, as file:line:col: message
//	approvals, err := host.DefaultApprovals()
//	consent := &host.Consent{Approvals: approvals, Ask: host.AskAt(os.Stdin, os.Stderr)}
//	if err := consent.Approve(ctx, cfg); err != nil { ... } // a project's file runs once approved
//	h := host.Start(cfg, nil)
//	defer h.Close()
//	h.Ready(ctx) // every server ready or failed once
//	for _, t := range h.Tools() {
//		fmt.Println(t.Name, t.Description()) // mcp_weather_get_weather ...
//	}
//	res, err := h.CallTool(ctx, "mcp_weather_get_weather", map[string]any{"city": "Lisbon"})
//
// Each server has a supervisor goroutine: it connects (within ConnectTimeout; stdio servers
// StartConcurrency at a time, the timeout counted from each one's turn), lists what the
// server offers, each list on its own, and waits; when the process exits or the connection
// drops its tools stay known but unavailable (calls fail with ErrNotReady) and it connects
// again after a pause that doubles up to RestartMax. One slow or broken server never delays
// the others, and a list a server cannot give does not make it fail.
//
// A project's .mcp.json is code: a configuration read from any file but the user's own
// (UserConfigPath) starts only once the user approved that file's content (Consent, or
// Config.Approve), and its urls and headers send only the environment variables the user
// allowed. A Config built in code is the program's own and starts as it is.
package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// Options configure a Host. The zero value is the defaults.
type Options struct {
	// Client is the options of every server's client: who the host is (Info), how it
	// answers sampling and elicitation, and callbacks for notifications (which the host
	// also turns into events and registry updates).
	Client mcp.ClientOptions
	// HTTPClient sends the requests of HTTP servers (and WebSocket handshakes); the
	// default is net/http's.
	HTTPClient *http.Client
	// Transports reach the servers of the types beyond stdio, http and sse, by type: "ws"
	// (a configuration's "type": "ws"), for one. The host imports no such transport itself:
	// a program that wants WebSocket servers sets
	//
	//	Transports: map[string]host.TransportFunc{host.WS: func(cfg host.ServerConfig, hc *http.Client) (mcp.Transport, error) {
	//		return &ws.Transport{URL: cfg.URL, Header: cfg.Header(), HTTPClient: hc}, nil
	//	}}
	//
	// A server of a type without one fails to connect, saying so.
	Transports map[string]TransportFunc
	// ConnectTimeout bounds a connection to one server, counted from its turn to start
	// (StartConcurrency), and then each of its lists: 30 s by default.
	ConnectTimeout time.Duration
	// StartConcurrency bounds how many stdio servers start at once: a runtime that loads
	// (node, python) takes a CPU, and many at once on a small machine all time out. The
	// default is the number of CPUs, and at least 4. Servers reached over HTTP need no turn.
	StartConcurrency int
	// Skip names lists the host does not fetch, for a program that does not use them:
	// they save requests, and a server that cannot give them does not say so.
	Skip Lists
	// CallTimeout bounds a call whose context has no deadline, for servers whose
	// configuration sets no timeout: 30 s by default.
	CallTimeout time.Duration
	// RestartMin and RestartMax bound the pause before connecting again to a server that
	// failed or dropped: it starts at RestartMin (1 s) and doubles up to RestartMax (30 s),
	// and starts again at RestartMin once a connection stayed up for Healthy (1 min).
	RestartMin, RestartMax, Healthy time.Duration
	// GiveUpAfter is how many attempts in a row a server that has never been ready gets
	// before the host gives up on it (State GaveUp): 8 by default, about a minute and a
	// half of pauses with the default RestartMin and RestartMax; negative for never. A
	// server that was ready once (its configuration works) is tried again for as long as
	// the host runs: it may be down for a while.
	GiveUpAfter int
	// ShutdownGrace bounds each step of stopping a stdio server (close its stdin, SIGTERM,
	// SIGKILL): 2 s by default.
	ShutdownGrace time.Duration
	// Events, if set, is told everything that happens: state changes, stderr lines, log
	// messages, calls. It is called one event at a time and should return quickly; it must
	// not call into the host.
	Events func(Event)
	// Logger receives the host's own diagnostics; the default writes warnings to stderr.
	Logger *slog.Logger
	// Trace, if set, sees every message between the host and each server, as raw JSON, as
	// ClientOptions.Trace does, with the server's name: what mcpgen call --trace prints. It
	// is called from the goroutines that send and read, at once: it must be safe for
	// concurrent use, and must not keep msg.
	Trace func(server string, fromServer bool, msg []byte)
}

// TransportFunc makes the transport to a server of a configuration (Options.Transports);
// hc is Options.HTTPClient, or net/http's default client.
type TransportFunc func(cfg ServerConfig, hc *http.Client) (mcp.Transport, error)

// Lists names some of the lists a host fetches from each server (Options.Skip). Resources
// are resources/list and resources/templates/list.
type Lists struct {
	Tools, Prompts, Resources bool
}

// Host is a set of servers, connected and supervised, and the registry of what they offer.
// It is safe for concurrent use.
type Host struct {
	opts    Options
	servers []*server // by name
	byName  map[string]*server

	cancel   context.CancelFunc
	wg       sync.WaitGroup
	emu      sync.Mutex // one event at a time
	reg      atomic.Pointer[registry]
	rmu      sync.Mutex // one rebuild at a time; a state changes with its rebuild (setState)
	pending  atomic.Int32
	settled  chan struct{} // closed when every server's first attempt has ended
	starting chan struct{} // a token per stdio server starting (StartConcurrency)
	closed   sync.Once
	refused  bool        // the configuration was not approved: no server ran
	now      atomic.Bool // closing without waiting for the servers (CloseNow)
}

// Start starts every server of cfg at once and returns; Ready waits for them. A project's
// configuration the user has not approved (cfg.NeedsApproval) starts nothing: each of its
// servers is failed, with an error that wraps ErrNotApproved.
func Start(cfg *Config, opts *Options) *Host {
	h := &Host{byName: map[string]*server{}, settled: make(chan struct{})}
	if opts != nil {
		h.opts = *opts
	}
	o := &h.opts
	o.ConnectTimeout = or(o.ConnectTimeout, 30*time.Second)
	o.CallTimeout = or(o.CallTimeout, 30*time.Second)
	o.RestartMin = or(o.RestartMin, time.Second)
	o.RestartMax = max(or(o.RestartMax, 30*time.Second), o.RestartMin)
	o.Healthy = or(o.Healthy, time.Minute)
	if o.GiveUpAfter == 0 {
		o.GiveUpAfter = 8
	}
	o.ShutdownGrace = or(o.ShutdownGrace, 2*time.Second)
	if o.StartConcurrency <= 0 {
		o.StartConcurrency = max(4, runtime.NumCPU())
	}
	h.starting = make(chan struct{}, o.StartConcurrency)
	h.reg.Store(buildRegistry(nil))
	var ctx context.Context
	ctx, h.cancel = context.WithCancel(context.Background())
	for _, sc := range cfg.Servers {
		s := newServer(h, sc)
		h.servers = append(h.servers, s)
		h.byName[sc.Name] = s
	}
	slices.SortFunc(h.servers, func(a, b *server) int { return strings.Compare(a.cfg.Name, b.cfg.Name) })
	if cfg.NeedsApproval() {
		// A project's file nobody approved: nothing of it runs, and each server says why.
		h.refused = true
		refused := &NotApprovedError{File: cfg.from.path}
		for _, s := range h.servers {
			s.setState(Failed, fmt.Errorf("server %s: %w", s.cfg.Name, refused), "not approved")
		}
		close(h.settled)
		return h
	}
	h.pending.Store(int32(len(h.servers)))
	if len(h.servers) == 0 {
		close(h.settled)
	}
	for _, s := range h.servers {
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			s.run(ctx)
		}()
	}
	return h
}

func or(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// settle counts a server whose first attempt ended.
func (h *Host) settle() {
	if h.pending.Add(-1) == 0 {
		close(h.settled)
	}
}

// turn waits until a stdio server may start (StartConcurrency at a time), and returns
// what ends its turn.
func (h *Host) turn(ctx context.Context, s *server) (release func(), err error) {
	select {
	case h.starting <- struct{}{}:
	default:
		s.setState(Connecting, nil, fmt.Sprintf("waiting for its turn to start: %d servers start at a time", cap(h.starting)))
		select {
		case h.starting <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return func() { <-h.starting }, nil
}

// Ready waits until every server has been ready or failed once (each within
// ConnectTimeout of its turn to start), or ctx ends.
func (h *Host) Ready(ctx context.Context) error {
	select {
	case <-h.settled:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops every server: processes are asked to exit and, if they linger, stopped
// (within about twice ShutdownGrace), connections closed and sessions ended. No goroutine
// or process of the host's outlives it.
// CloseNow is Close for a program that gives up on what its servers are doing, such as a
// command whose call the person cancelled or that ran past its timeout: a stdio server is
// not given ShutdownGrace to finish. It gets SIGTERM if it has not exited 100 ms after its
// stdin closed, and SIGKILL 100 ms after that. A server that ignores the cancellation of
// the call it is working on (npm's server-everything does) would otherwise hold the
// program for a ShutdownGrace or two after it gave up.
func (h *Host) CloseNow() error {
	h.now.Store(true)
	return h.Close()
}

// nowGrace is each step of stopping a stdio server under CloseNow.
const nowGrace = 100 * time.Millisecond

func (h *Host) Close() error {
	h.closed.Do(func() {
		h.cancel()
		h.wg.Wait()
		// The supervisors stopped their servers; those that never ran (not approved) or
		// that the host gave up on have none left to.
		for _, s := range h.servers {
			if s.status().State != Stopped {
				s.setState(Stopped, nil, "")
			}
		}
	})
	return nil
}

func (h *Host) logger() *slog.Logger {
	if h.opts.Logger != nil {
		return h.opts.Logger
	}
	return defaultLogger
}

var defaultLogger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))

// rebuild names the servers' tools again after what s offers changed, and tells of the
// change.
func (h *Host) rebuild(s *server) {
	h.rmu.Lock()
	ev := h.rebuildLocked(s)
	h.rmu.Unlock()
	if ev != nil {
		h.emit(*ev)
	}
}

// rebuildLocked names the servers' tools again after s changed, under rmu, and returns the
// event that tells of the change, if the names changed: what s itself offers, and what the
// host offers now.
func (h *Host) rebuildLocked(s *server) *Event {
	old := h.reg.Load()
	r := buildRegistry(h.servers)
	h.reg.Store(r)
	if slices.Equal(old.names(), r.names()) {
		return nil
	}
	st := s.statusLocked()
	own := counted(st.Tools, "tool") + ", " + counted(st.Prompts, "prompt") + ", " + counted(st.Resources, "resource")
	detail := string(st.State) + ": " + own
	switch st.State {
	case Stopped:
		detail = "stopped: its " + own + " are no longer offered"
	case Failed, Connecting:
		detail = string(st.State) + ": its " + own + " are unavailable until it is back"
	case GaveUp:
		detail = "gave up: its " + own + " are unavailable"
	}
	detail += "; the host has " + counted(len(r.tools), "tool") + ", " + counted(len(r.prompts), "prompt") + ", " + counted(len(r.resources), "resource")
	if n := r.renamed(); n > 0 {
		detail += fmt.Sprintf(", %d renamed", n)
	}
	return &Event{Kind: EventRegistry, Server: s.cfg.Name, Detail: detail}
}

// counted is n things: "1 tool", "2 tools".
func counted(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// Servers is the status of every server, by name.
func (h *Host) Servers() []ServerStatus {
	out := make([]ServerStatus, len(h.servers))
	for i, s := range h.servers {
		out[i] = s.status()
	}
	return out
}

// Server is the status of one server.
func (h *Host) Server(name string) (ServerStatus, bool) {
	s, ok := h.byName[name]
	if !ok {
		return ServerStatus{}, false
	}
	return s.status(), true
}

// Tools is every ready server's tools, by name.
func (h *Host) Tools() []*Tool { return slices.Clone(h.reg.Load().tools) }

// Tool finds a tool by its qualified name (mcp_{server}_{tool}): a ready server's, or one a
// server that is not ready now (restarting, say) offered when it last was, whose calls fail
// with ErrNotReady until it is back.
func (h *Host) Tool(name string) (*Tool, bool) {
	t, ok := h.reg.Load().byName[name]
	return t, ok
}

// ServerTool finds a tool by its server's name and its own, as Tool does.
func (h *Host) ServerTool(server, tool string) (*Tool, bool) {
	for _, t := range h.reg.Load().known {
		if t.Server == server && t.Tool.Name == tool {
			return t, true
		}
	}
	return nil, false
}

// Prompts is every ready server's prompts, by name.
func (h *Host) Prompts() []*Prompt { return slices.Clone(h.reg.Load().prompts) }

// Prompt finds a prompt by its qualified name, as Tool finds a tool.
func (h *Host) Prompt(name string) (*Prompt, bool) {
	p, ok := h.reg.Load().byPrompt[name]
	return p, ok
}

// Resources is every ready server's resources, by server and URI.
func (h *Host) Resources() []*Resource { return slices.Clone(h.reg.Load().resources) }

// ResourceTemplates is every ready server's resource templates, in the order each server
// listed them.
func (h *Host) ResourceTemplates() []*ResourceTemplate { return slices.Clone(h.reg.Load().templates) }

// Collisions is the names two tools or prompts would both have had, and what the second
// one is called instead.
func (h *Host) Collisions() []Collision { return slices.Clone(h.reg.Load().collisions) }

// ErrUnknown is wrapped by the error of a call to a tool, prompt or server the host does
// not have.
var ErrUnknown = errors.New("not known")

// CallTool calls a tool by its qualified name. A context without a deadline gets the
// server's timeout; progress comes through mcp.WithProgress on ctx. A tool the host does not
// know fails with ErrUnknown; one of a server that is not ready, with a *NotReadyError
// (ErrNotReady): the tools of a server that is restarting stay known, and so do the names
// of a server that has not listed its tools yet.
func (h *Host) CallTool(ctx context.Context, name string, arguments any) (*mcp.CallToolResult, error) {
	if t, ok := h.Tool(name); ok {
		return t.Call(ctx, arguments)
	}
	if err := h.unlisted(name); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return nil, fmt.Errorf("tool %s: %w", name, ErrUnknown)
}

// unlisted is the *NotReadyError of the server a qualified name would belong to, if that
// server has not listed its tools yet: the tool may well be there once it has.
func (h *Host) unlisted(name string) error {
	for _, s := range h.servers {
		if !strings.HasPrefix(name, "mcp_"+SafeName(s.cfg.Name)+"_") {
			continue
		}
		if _, _, listed := s.known(); !listed {
			if _, err := s.ready(); err != nil {
				return err
			}
		}
	}
	return nil
}

// GetPrompt gets a prompt of a server by the server's name and the prompt's own.
func (h *Host) GetPrompt(ctx context.Context, server, name string, arguments map[string]string) (*mcp.GetPromptResult, error) {
	s, err := h.server(server)
	if err != nil {
		return nil, err
	}
	return s.getPrompt(ctx, name, arguments)
}

// ReadResource reads a resource of a server (listed or not: a template's URI, say).
func (h *Host) ReadResource(ctx context.Context, server, uri string) ([]mcp.ResourceContents, error) {
	s, err := h.server(server)
	if err != nil {
		return nil, err
	}
	return s.readResource(ctx, uri)
}

// Client is a ready server's client, for what the registry does not cover (completions,
// subscriptions, resource templates). It is closed when the connection is lost.
func (h *Host) Client(server string) (*mcp.Client, error) {
	s, err := h.server(server)
	if err != nil {
		return nil, err
	}
	return s.ready()
}

func (h *Host) server(name string) (*server, error) {
	s, ok := h.byName[name]
	if !ok {
		names := make([]string, len(h.servers))
		for i, s := range h.servers {
			names[i] = s.cfg.Name
		}
		return nil, fmt.Errorf("server %q: %w (the servers are %s)", name, ErrUnknown, strings.Join(names, ", "))
	}
	return s, nil
}
