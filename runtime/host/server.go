package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// ErrNotReady is wrapped by the error of a call to a server that is not ready: connecting,
// failed or stopped. The call fails at once rather than wait.
var ErrNotReady = errors.New("the server is not ready")

// ErrLost is wrapped by the error of a call the connection dropped under: the server's
// process exited, or its HTTP session or stream ended. The host reconnects.
var ErrLost = errors.New("the connection to the server was lost")

// stderrLines is how many of a server's last stderr lines its status keeps.
const stderrLines = 20

// ServerStatus is what the host knows of one server.
type ServerStatus struct {
	Name      string
	Transport string // Stdio, HTTP, SSE or WS (or another of Options.Transports)
	State     State
	// Err is why the server failed (State Failed), or why it last did.
	Err error
	// Stderr is the last lines a stdio server wrote to stderr (at most 20).
	Stderr []string
	// Info is what the server said of itself: name, version, revision (and how it was
	// chosen), capabilities. It is the zero value until the server was first ready.
	Info                      mcp.ServerInfo
	Tools, Prompts, Resources int
	Templates                 int // resource templates
	// ListErrors are the lists a ready server could not give (tools/list, prompts/list,
	// resources/list, resources/templates/list), each with why. The server is ready all the same, with what it did
	// list: a database server with no database may list its tools but not its resources.
	ListErrors []*ListError
	// ConnectTime is how long the last successful connection took, lists included.
	ConnectTime time.Duration
	Since       time.Time // when State began
	Retry       time.Time // State Failed: when the host tries again
	Restarts    int       // connections after the first
	PID         int       // a stdio server's process, while it runs
}

// ListError is a list a server could not give, and why.
type ListError struct {
	Method string // tools/list, prompts/list, resources/list or resources/templates/list
	Err    error
}

func (e *ListError) Error() string { return e.Method + ": " + e.Err.Error() }
func (e *ListError) Unwrap() error { return e.Err }

// lists is what a server offers.
type lists struct {
	tools     []*mcp.Tool
	prompts   []*mcp.Prompt
	resources []*mcp.Resource
	templates []*mcp.ResourceTemplate
	errs      []*ListError // the lists it could not give, in the order of the fields
}

// server keeps one configured server connected: it is the supervisor of its process or
// connection.
type server struct {
	h   *Host
	cfg ServerConfig

	changed chan struct{} // a list changed: reload (buffered 1)
	suspect chan struct{} // a call failed in transport: is the connection still there? (buffered 1)
	settled sync.Once     // the first attempt ended, ready or failed

	mu          sync.Mutex
	state       State
	err         error
	client      *mcp.Client // while ready
	info        mcp.ServerInfo
	offered     lists // what it listed when it was last ready
	listed      bool  // it has been ready: offered is what it has
	connectTime time.Duration
	since       time.Time
	retry       time.Time
	restarts    int
	pid         int
	command     *mcp.CommandTransport // a stdio server's transport, of its last connection (the supervisor's)
	stderr      []string
}

func newServer(h *Host, cfg ServerConfig) *server {
	return &server{h: h, cfg: cfg, state: Connecting, since: time.Now(),
		changed: make(chan struct{}, 1), suspect: make(chan struct{}, 1)}
}

func (s *server) status() ServerStatus {
	s.h.rmu.Lock()
	defer s.h.rmu.Unlock()
	return s.statusLocked()
}

// statusLocked is status, for a caller that holds the host's rmu.
func (s *server) statusLocked() ServerStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	return ServerStatus{
		Name: s.cfg.Name, Transport: s.cfg.Transport, State: s.state, Err: s.err,
		Stderr: append([]string(nil), s.stderr...), Info: s.info,
		Tools: len(s.offered.tools), Prompts: len(s.offered.prompts), Resources: len(s.offered.resources),
		Templates:   len(s.offered.templates),
		ListErrors:  slices.Clone(s.offered.errs),
		ConnectTime: s.connectTime, Since: s.since, Retry: s.retry, Restarts: s.restarts, PID: s.pid,
	}
}

// known is what the server offered when it was last ready, whether it is ready now, and
// whether it has ever been.
func (s *server) known() (l lists, ready, listed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.offered, s.state == Ready && s.client != nil, s.listed
}

// setState changes the server's state, and the registry with it, in one step (under the
// host's rmu, which status takes too): no one sees the server failed while its tools are
// still offered, nor its tools offered while it is not ready.
func (s *server) setState(state State, err error, detail string) {
	s.h.rmu.Lock()
	s.mu.Lock()
	s.state, s.since = state, time.Now()
	if err != nil || state == Ready {
		s.err = err
	}
	if state != Failed {
		s.retry = time.Time{}
	}
	if state != Ready {
		// What it offered stays known, for the names of its tools and for the calls to
		// them, which fail with ErrNotReady until it is back.
		s.client = nil
	}
	s.mu.Unlock()
	registry := s.h.rebuildLocked(s)
	s.h.rmu.Unlock()
	s.h.emit(Event{Kind: EventState, Server: s.cfg.Name, State: state, Err: err, Detail: detail})
	if registry != nil {
		s.h.emit(*registry)
	}
}

// close closes a connection of the server's. Under CloseNow a stdio server is given
// nowGrace, not ShutdownGrace, to exit (the supervisor's goroutine, which alone uses the
// transport, sets it before the client closes the connection).
func (s *server) close(c *mcp.Client) {
	if t := s.command; t != nil && s.h.now.Load() {
		t.ShutdownGrace = nowGrace
	}
	c.Close()
}

// run is the server's supervisor: connect, serve until the connection is lost, and connect
// again after a pause that doubles from RestartMin to RestartMax, and starts again at
// RestartMin once a connection stayed up for Healthy. It returns when ctx ends, or when it
// gives up on a server that was never ready (GiveUpAfter failed attempts in a row).
func (s *server) run(ctx context.Context) {
	pause := s.h.opts.RestartMin
	failures := 0 // attempts in a row that did not connect
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			s.mu.Lock()
			s.restarts++
			s.mu.Unlock()
		}
		s.setState(Connecting, nil, "")
		c, err := s.connect(ctx)
		if c != nil {
			s.settled.Do(s.h.settle)
			up := time.Now()
			err = s.serve(ctx, c)
			// Out of the registry before the connection closes, so that no new call
			// reaches it; the calls in flight fail with ErrLost.
			s.leave(ctx, err, pause)
			s.close(c)
			if time.Since(up) >= s.h.opts.Healthy {
				pause = s.h.opts.RestartMin
			}
			failures = 0
		} else {
			failures++
			if limit := s.h.opts.GiveUpAfter; limit > 0 && failures >= limit && !s.wasReady() && ctx.Err() == nil {
				s.giveUp(err, failures)
				s.settled.Do(s.h.settle)
				return
			}
			s.leave(ctx, err, pause)
		}
		s.settled.Do(s.h.settle)
		t := time.NewTimer(pause)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			if s.status().State != Stopped {
				s.setState(Stopped, nil, "")
			}
			return
		}
		pause = min(2*pause, s.h.opts.RestartMax)
	}
}

// wasReady reports whether the server has been ready since the host started.
func (s *server) wasReady() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.listed
}

// giveUp ends the attempts on a server that was never ready: its configuration, or the
// program it runs, does not work, and trying for ever would only fill the log.
func (s *server) giveUp(err error, attempts int) {
	s.mu.Lock()
	s.pid = 0
	s.mu.Unlock()
	s.setState(GaveUp, err, fmt.Sprintf("gave up after %d attempts in a row; it was never ready", attempts))
}

// leave takes the server out of the registry: stopped when the host closes, else failed
// until the next attempt. What it offered stays known: calls to its tools fail with
// ErrNotReady until it is back.
func (s *server) leave(ctx context.Context, err error, pause time.Duration) {
	s.mu.Lock()
	s.pid = 0
	s.mu.Unlock()
	if ctx.Err() != nil {
		s.setState(Stopped, nil, "")
	} else {
		s.mu.Lock()
		s.retry = time.Now().Add(pause)
		s.mu.Unlock()
		s.setState(Failed, err, fmt.Sprintf("trying again in %s", pause))
	}
}

// load lists what the server offers, as its capabilities say it does and the host wants
// (Options.Skip), each list at once and within a ConnectTimeout of its own. A list that
// fails is in lists.errs and stays as it was in old; the others are not held up.
func (s *server) load(ctx context.Context, c *mcp.Client, old lists) lists {
	ctx, cancel := context.WithTimeout(ctx, s.h.opts.ConnectTimeout)
	defer cancel()
	caps, skip := c.Server().Capabilities, s.h.opts.Skip
	var l lists
	var errs [4]*ListError
	var wg sync.WaitGroup
	fetch := func(i int, method string, list func() error) {
		wg.Go(func() {
			if err := list(); err != nil {
				if ctx.Err() == context.DeadlineExceeded {
					err = &connectTimeout{s.h.opts.ConnectTimeout, err}
				}
				errs[i] = &ListError{Method: method, Err: err}
			}
		})
	}
	if caps.Tools && !skip.Tools {
		fetch(0, "tools/list", func() (err error) { l.tools, err = c.ListTools(ctx); return })
	}
	if caps.Prompts && !skip.Prompts {
		fetch(1, "prompts/list", func() (err error) { l.prompts, err = c.ListPrompts(ctx); return })
	}
	if caps.Resources && !skip.Resources {
		fetch(2, "resources/list", func() (err error) { l.resources, err = c.ListResources(ctx); return })
		fetch(3, "resources/templates/list", func() (err error) { l.templates, err = c.ListResourceTemplates(ctx); return })
	}
	wg.Wait()
	for i, e := range errs {
		if e == nil {
			continue
		}
		l.errs = append(l.errs, e)
		switch i {
		case 0:
			l.tools = old.tools
		case 1:
			l.prompts = old.prompts
		case 2:
			l.resources = old.resources
		case 3:
			l.templates = old.templates
		}
	}
	return l
}

// broken is the error of a connection that was lost while the lists were fetched, if it
// was: then the lists failed for that, not for themselves.
func (s *server) broken(c *mcp.Client, l lists) error {
	if err := c.Err(); err != nil {
		return lost(s.cfg.Name, err)
	}
	for _, e := range l.errs {
		if errors.Is(e, mcp.ErrTransport) || errors.Is(e, mcp.ErrSessionExpired) {
			return lost(s.cfg.Name, e)
		}
	}
	return nil
}

// lostError is the error of a connection to a server that was lost: it wraps ErrLost and
// why.
type lostError struct {
	server string
	err    error
}

func lost(server string, err error) error { return &lostError{server, err} }

func (e *lostError) Error() string   { return ErrLost.Error() + ": " + plain(e.server, e.err.Error()) }
func (e *lostError) Unwrap() []error { return []error{ErrLost, e.err} }

// serve waits while the connection lasts, reloading the lists the server says changed, and
// says why it ended.
func (s *server) serve(ctx context.Context, c *mcp.Client) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-c.Done():
			return lost(s.cfg.Name, c.Err())
		case <-s.changed:
			s.mu.Lock()
			old := s.offered
			s.mu.Unlock()
			l := s.load(ctx, c, old)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if err := s.broken(c, l); err != nil {
				return err
			}
			for _, e := range l.errs {
				s.h.logger().Warn("host: cannot reload a list of a server; it keeps what it listed before", "server", s.cfg.Name, "err", e)
			}
			s.mu.Lock()
			s.offered = l
			s.mu.Unlock()
			s.h.rebuild(s)
		case <-s.suspect:
			// A call failed in transport. A stateless HTTP server has no connection whose
			// end the client would see: ask it whether it is still there.
			pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			err := c.Ping(pctx)
			cancel()
			if err != nil && ctx.Err() == nil && (errors.Is(err, mcp.ErrTransport) || errors.Is(err, mcp.ErrSessionExpired) || errors.Is(err, context.DeadlineExceeded)) {
				return lost(s.cfg.Name, err)
			}
		}
	}
}

// ready is the server's client, if it is ready; else a *NotReadyError.
func (s *server) ready() (*mcp.Client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == Ready && s.client != nil {
		return s.client, nil
	}
	return nil, &NotReadyError{Server: s.cfg.Name, State: s.state, Err: s.err, Retry: s.retry}
}

// NotReadyError is the error of a request to a server that is not ready: connecting,
// failed or stopped. It wraps ErrNotReady and why the server last failed (Err), for
// errors.Is and errors.As.
type NotReadyError struct {
	Server string
	State  State
	Err    error     // why the server last failed, if it did
	Retry  time.Time // State Failed: when the host tries again
}

func (e *NotReadyError) Error() string {
	var s string
	switch e.State {
	case Connecting:
		s = "server " + e.Server + " is still connecting"
		if e.Err != nil {
			s = "server " + e.Server + " is connecting again after it failed: " + cause(e.Server, e.Err)
		}
	case Failed:
		s = "server " + e.Server + " failed"
		if e.Err != nil {
			s += ": " + cause(e.Server, e.Err)
		}
		if !e.Retry.IsZero() {
			if d := time.Until(e.Retry); d > 0 {
				s += fmt.Sprintf(" (the host tries again in %s)", d.Round(time.Second))
			}
		}
	case GaveUp:
		s = "server " + e.Server + " failed, and the host gave up on it"
		if e.Err != nil {
			s += ": " + cause(e.Server, e.Err)
		}
	default:
		s = "server " + e.Server + " is " + string(e.State)
	}
	return s
}

func (e *NotReadyError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrNotReady}
	}
	return []error{ErrNotReady, e.Err}
}

// request runs one request of a caller's against the server: at once an error if it is not
// ready; otherwise with the server's timeout when ctx has none (the client's Timeout, which
// clientOptions sets), reported as an event.
func (s *server) request(ctx context.Context, what string, do func(context.Context, *mcp.Client) (string, error)) error {
	c, err := s.ready()
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	start := time.Now()
	outcome, err := do(ctx, c)
	if err != nil {
		outcome = OutcomeError
		switch {
		case c.Err() != nil && !errors.Is(c.Err(), mcp.ErrClientClosed):
			err = fmt.Errorf("%s: %w", s.cfg.Name, lost(s.cfg.Name, c.Err()))
		case errors.Is(err, mcp.ErrClientClosed):
			err = fmt.Errorf("%s: %w", s.cfg.Name, lost(s.cfg.Name, errors.New("the host closed it")))
		default:
			err = fmt.Errorf("%s: %w", s.cfg.Name, err)
		}
		if errors.Is(err, mcp.ErrTransport) || errors.Is(err, mcp.ErrSessionExpired) {
			select {
			case s.suspect <- struct{}{}:
			default:
			}
		}
	}
	s.h.emit(Event{Kind: EventCall, Server: s.cfg.Name, Tool: what, Duration: time.Since(start), Outcome: outcome, Err: err})
	return err
}

func (s *server) callTool(ctx context.Context, qualified, name string, arguments any) (*mcp.CallToolResult, error) {
	var res *mcp.CallToolResult
	err := s.request(ctx, qualified, func(ctx context.Context, c *mcp.Client) (string, error) {
		var err error
		res, err = c.CallTool(ctx, name, arguments)
		if err == nil && res.IsError {
			return OutcomeToolError, nil
		}
		return OutcomeOK, err
	})
	return res, err
}

func (s *server) getPrompt(ctx context.Context, name string, arguments map[string]string) (*mcp.GetPromptResult, error) {
	var res *mcp.GetPromptResult
	err := s.request(ctx, "prompts/get "+name, func(ctx context.Context, c *mcp.Client) (string, error) {
		var err error
		res, err = c.GetPrompt(ctx, name, arguments)
		return OutcomeOK, err
	})
	return res, err
}

func (s *server) readResource(ctx context.Context, uri string) ([]mcp.ResourceContents, error) {
	var res []mcp.ResourceContents
	err := s.request(ctx, "resources/read "+uri, func(ctx context.Context, c *mcp.Client) (string, error) {
		var err error
		res, err = c.ReadResource(ctx, uri)
		return OutcomeOK, err
	})
	return res, err
}

// cause is the first line of a server's error, as plain.
func cause(server string, err error) string { return firstLine(plain(server, err.Error())) }

// plain is the text of a server's error without the prefixes the client's errors begin
// with ("mcp: NAME: ", "mcp: sending METHOD: "), which the host's sentences already say.
func plain(server, text string) string {
	for {
		rest, ok := strings.CutPrefix(text, "mcp: "+server+": ")
		if !ok {
			if rest, ok = strings.CutPrefix(text, "mcp: sending "); ok {
				_, rest, ok = strings.Cut(rest, ": ")
			}
		}
		if !ok {
			return text
		}
		text = rest
	}
}

// connectError is why a connection to a server failed, as plain: the chain is kept.
type connectError struct {
	server string
	err    error
}

func (e *connectError) Error() string { return plain(e.server, e.err.Error()) }
func (e *connectError) Unwrap() error { return e.err }

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " ..."
	}
	return s
}

type listJSON struct {
	Method string `json:"method"`
	Error  string `json:"error"`
}

// MarshalJSON writes the status for a status page: its error as text, times in RFC 3339,
// the connect time in milliseconds.
func (st ServerStatus) MarshalJSON() ([]byte, error) {
	j := struct {
		Name            string     `json:"name"`
		Transport       string     `json:"transport"`
		State           State      `json:"state"`
		Error           string     `json:"error,omitempty"`
		Stderr          []string   `json:"stderr,omitempty"`
		ServerName      string     `json:"serverName,omitempty"`
		ServerVersion   string     `json:"serverVersion,omitempty"`
		ProtocolVersion string     `json:"protocolVersion,omitempty"`
		Negotiation     string     `json:"negotiation,omitempty"`
		Tools           int        `json:"tools"`
		Prompts         int        `json:"prompts"`
		Resources       int        `json:"resources"`
		Templates       int        `json:"resourceTemplates"`
		ListErrors      []listJSON `json:"listErrors,omitempty"`
		ConnectMillis   float64    `json:"connectMs,omitempty"`
		Since           time.Time  `json:"since"`
		Retry           *time.Time `json:"retry,omitempty"`
		Restarts        int        `json:"restarts"`
		PID             int        `json:"pid,omitempty"`
	}{
		Name: st.Name, Transport: st.Transport, State: st.State, Stderr: st.Stderr,
		ServerName: st.Info.Name, ServerVersion: st.Info.Version, ProtocolVersion: st.Info.ProtocolVersion, Negotiation: st.Info.Negotiation,
		Tools: st.Tools, Prompts: st.Prompts, Resources: st.Resources, Templates: st.Templates,
		ConnectMillis: float64(st.ConnectTime.Microseconds()) / 1000, Since: st.Since, Restarts: st.Restarts, PID: st.PID,
	}
	if st.Err != nil {
		j.Error = st.Err.Error()
	}
	for _, e := range st.ListErrors {
		j.ListErrors = append(j.ListErrors, listJSON{e.Method, e.Err.Error()})
	}
	if !st.Retry.IsZero() {
		j.Retry = &st.Retry
	}
	return json.Marshal(j)
}
