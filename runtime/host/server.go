package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
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
	Transport string // Stdio, HTTP or SSE
	State     State
	// Err is why the server failed (State Failed), or why it last did.
	Err error
	// Stderr is the last lines a stdio server wrote to stderr (at most 20).
	Stderr []string
	// Info is what the server said of itself: name, version, revision, capabilities. It is
	// the zero value until the server was first ready.
	Info                      mcp.ServerInfo
	Tools, Prompts, Resources int
	// ConnectTime is how long the last successful connection took, lists included.
	ConnectTime time.Duration
	Since       time.Time // when State began
	Retry       time.Time // State Failed: when the host tries again
	Restarts    int       // connections after the first
	PID         int       // a stdio server's process, while it runs
}

// lists is what a ready server offers.
type lists struct {
	tools     []*mcp.Tool
	prompts   []*mcp.Prompt
	resources []*mcp.Resource
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
	offered     lists
	connectTime time.Duration
	since       time.Time
	retry       time.Time
	restarts    int
	pid         int
	stderr      []string
}

func newServer(h *Host, cfg ServerConfig) *server {
	return &server{h: h, cfg: cfg, state: Connecting, since: time.Now(),
		changed: make(chan struct{}, 1), suspect: make(chan struct{}, 1)}
}

func (s *server) status() ServerStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	return ServerStatus{
		Name: s.cfg.Name, Transport: s.cfg.Transport, State: s.state, Err: s.err,
		Stderr: append([]string(nil), s.stderr...), Info: s.info,
		Tools: len(s.offered.tools), Prompts: len(s.offered.prompts), Resources: len(s.offered.resources),
		ConnectTime: s.connectTime, Since: s.since, Retry: s.retry, Restarts: s.restarts, PID: s.pid,
	}
}

func (s *server) lists() lists {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.offered
}

func (s *server) setState(state State, err error, detail string) {
	s.mu.Lock()
	s.state, s.since = state, time.Now()
	if err != nil || state == Ready {
		s.err = err
	}
	if state != Failed {
		s.retry = time.Time{}
	}
	if state != Ready {
		s.client = nil
		s.offered = lists{}
	}
	s.mu.Unlock()
	s.h.emit(Event{Kind: EventState, Server: s.cfg.Name, State: state, Err: err, Detail: detail})
}

// run is the server's supervisor: connect, serve until the connection is lost, and connect
// again after a pause that doubles from RestartMin to RestartMax, and starts again at
// RestartMin once a connection stayed up for Healthy. It returns when ctx ends.
func (s *server) run(ctx context.Context) {
	pause := s.h.opts.RestartMin
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
			c.Close()
			if time.Since(up) >= s.h.opts.Healthy {
				pause = s.h.opts.RestartMin
			}
		} else {
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

// leave takes the server out of the registry: stopped when the host closes, else failed
// until the next attempt.
func (s *server) leave(ctx context.Context, err error, pause time.Duration) {
	s.mu.Lock()
	s.pid = 0
	s.mu.Unlock()
	state := Stopped
	if ctx.Err() != nil {
		s.setState(Stopped, nil, "")
	} else {
		state = Failed
		s.mu.Lock()
		s.retry = time.Now().Add(pause)
		s.mu.Unlock()
		s.setState(Failed, err, fmt.Sprintf("trying again in %s", pause))
	}
	s.h.rebuild(s.cfg.Name + " " + string(state))
}

// connect connects to the server and learns what it offers, within ConnectTimeout.
func (s *server) connect(ctx context.Context) (*mcp.Client, error) {
	start := time.Now()
	cctx, cancel := context.WithTimeout(ctx, s.h.opts.ConnectTimeout)
	defer cancel()
	c, err := mcp.Connect(cctx, s.transport(), s.clientOptions())
	if err == nil {
		var l lists
		l, err = s.load(cctx, c)
		if err == nil {
			s.mu.Lock()
			s.client, s.info, s.offered, s.connectTime = c, c.Server(), l, time.Since(start)
			s.mu.Unlock()
			info := c.Server()
			s.setState(Ready, nil, fmt.Sprintf("%s %s, revision %s, %d tools, in %s",
				info.Name, info.Version, info.ProtocolVersion, len(l.tools), time.Since(start).Round(time.Millisecond)))
			s.h.rebuild(s.cfg.Name + " ready")
			return c, nil
		}
		c.Close()
	}
	if cctx.Err() == context.DeadlineExceeded && ctx.Err() == nil {
		err = &connectTimeout{s.h.opts.ConnectTimeout, err}
	}
	return nil, err
}

// connectTimeout is the error of a server that did not answer in time.
type connectTimeout struct {
	d   time.Duration
	err error
}

func (e *connectTimeout) Error() string {
	return fmt.Sprintf("no answer within %s (the connect timeout)", e.d)
}

func (e *connectTimeout) Unwrap() error { return e.err }

// load lists what the server offers, as its capabilities say it does.
func (s *server) load(ctx context.Context, c *mcp.Client) (lists, error) {
	var l lists
	var err error
	caps := c.Server().Capabilities
	if caps.Tools {
		if l.tools, err = c.ListTools(ctx); err != nil {
			return l, fmt.Errorf("tools/list: %w", err)
		}
	}
	if caps.Prompts {
		if l.prompts, err = c.ListPrompts(ctx); err != nil {
			return l, fmt.Errorf("prompts/list: %w", err)
		}
	}
	if caps.Resources {
		if l.resources, err = c.ListResources(ctx); err != nil {
			return l, fmt.Errorf("resources/list: %w", err)
		}
	}
	return l, nil
}

// serve waits while the connection lasts, reloading the lists the server says changed, and
// says why it ended.
func (s *server) serve(ctx context.Context, c *mcp.Client) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-c.Done():
			return fmt.Errorf("%w: %w", ErrLost, c.Err())
		case <-s.changed:
			lctx, cancel := context.WithTimeout(ctx, s.h.opts.ConnectTimeout)
			l, err := s.load(lctx, c)
			cancel()
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				if errors.Is(err, mcp.ErrTransport) || c.Err() != nil {
					return fmt.Errorf("%w: %w", ErrLost, err)
				}
				s.h.logger().Warn("host: cannot reload the lists of a server", "server", s.cfg.Name, "err", err)
				continue
			}
			s.mu.Lock()
			s.offered = l
			s.mu.Unlock()
			s.h.rebuild(s.cfg.Name + " changed its lists")
		case <-s.suspect:
			// A call failed in transport. A stateless HTTP server has no connection whose
			// end the client would see: ask it whether it is still there.
			pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			err := c.Ping(pctx)
			cancel()
			if err != nil && ctx.Err() == nil && (errors.Is(err, mcp.ErrTransport) || errors.Is(err, mcp.ErrSessionExpired) || errors.Is(err, context.DeadlineExceeded)) {
				return fmt.Errorf("%w: %w", ErrLost, err)
			}
		}
	}
}

func (s *server) transport() mcp.Transport {
	switch s.cfg.Transport {
	case HTTP, SSE:
		header := http.Header{}
		for k, v := range s.cfg.Headers {
			header.Set(k, v)
		}
		if s.cfg.Transport == SSE {
			return &mcp.SSETransport{URL: s.cfg.URL, Header: header, HTTPClient: s.h.opts.HTTPClient}
		}
		return &mcp.StreamableHTTPTransport{URL: s.cfg.URL, Header: header, HTTPClient: s.h.opts.HTTPClient}
	}
	return &mcp.CommandTransport{
		Command: s.cfg.Command, Args: s.cfg.Args, Env: s.cfg.Env, Dir: s.cfg.Dir, Name: s.cfg.Name,
		ShutdownGrace: s.h.opts.ShutdownGrace,
		Stderr:        s.stderrLine,
		Started: func(pid int) {
			s.mu.Lock()
			s.pid = pid
			s.mu.Unlock()
		},
	}
}

func (s *server) stderrLine(line string) {
	s.mu.Lock()
	if len(s.stderr) == stderrLines {
		copy(s.stderr, s.stderr[1:])
		s.stderr = s.stderr[:stderrLines-1]
	}
	s.stderr = append(s.stderr, line)
	s.mu.Unlock()
	s.h.emit(Event{Kind: EventStderr, Server: s.cfg.Name, Line: line})
}

// clientOptions are the host's client options, with the server's notifications routed to
// the host.
func (s *server) clientOptions() *mcp.ClientOptions {
	o := s.h.opts.Client
	notice := func() {
		select {
		case s.changed <- struct{}{}:
		default:
		}
	}
	tools, prompts, resources, log := o.ToolsChanged, o.PromptsChanged, o.ResourcesChanged, o.Log
	o.ToolsChanged = func() { notice(); call(tools) }
	o.PromptsChanged = func() { notice(); call(prompts) }
	o.ResourcesChanged = func() { notice(); call(resources) }
	o.Log = func(m mcp.LogMessage) {
		s.h.emit(Event{Kind: EventLog, Server: s.cfg.Name, Log: &m})
		if log != nil {
			log(m)
		}
	}
	if o.Logger == nil {
		o.Logger = s.h.logger()
	}
	return &o
}

func call(f func()) {
	if f != nil {
		f()
	}
}

// ready is the server's client, if it is ready.
func (s *server) ready() (*mcp.Client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if why := s.notReadyLocked(); why != "" {
		return nil, fmt.Errorf("%s (%s): %w", s.cfg.Name, why, ErrNotReady)
	}
	return s.client, nil
}

// notReady says why the server is not ready (its state, and the first line of its error),
// or "" when it is.
func (s *server) notReady() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.notReadyLocked()
}

func (s *server) notReadyLocked() string {
	if s.state == Ready && s.client != nil {
		return ""
	}
	why := string(s.state)
	if s.err != nil {
		why += ": " + firstLine(s.err.Error())
	}
	return why
}

// request runs one request of a caller's against the server: at once an error if it is not
// ready; otherwise with the server's timeout when ctx has none, reported as an event.
func (s *server) request(ctx context.Context, what string, do func(context.Context, *mcp.Client) (string, error)) error {
	c, err := s.ready()
	if err != nil {
		return err
	}
	if _, ok := ctx.Deadline(); !ok {
		timeout := s.cfg.Timeout
		if timeout == 0 {
			timeout = s.h.opts.CallTimeout
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	start := time.Now()
	outcome, err := do(ctx, c)
	if err != nil {
		outcome = OutcomeError
		switch {
		case c.Err() != nil && !errors.Is(c.Err(), mcp.ErrClientClosed):
			err = fmt.Errorf("%s: %w: %w", s.cfg.Name, ErrLost, err)
		case errors.Is(err, mcp.ErrClientClosed):
			err = fmt.Errorf("%s: %w: the host closed the connection", s.cfg.Name, ErrLost)
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

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " ..."
	}
	return s
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
		Tools           int        `json:"tools"`
		Prompts         int        `json:"prompts"`
		Resources       int        `json:"resources"`
		ConnectMillis   float64    `json:"connectMs,omitempty"`
		Since           time.Time  `json:"since"`
		Retry           *time.Time `json:"retry,omitempty"`
		Restarts        int        `json:"restarts"`
		PID             int        `json:"pid,omitempty"`
	}{
		Name: st.Name, Transport: st.Transport, State: st.State, Stderr: st.Stderr,
		ServerName: st.Info.Name, ServerVersion: st.Info.Version, ProtocolVersion: st.Info.ProtocolVersion,
		Tools: st.Tools, Prompts: st.Prompts, Resources: st.Resources,
		ConnectMillis: float64(st.ConnectTime.Microseconds()) / 1000, Since: st.Since, Restarts: st.Restarts, PID: st.PID,
	}
	if st.Err != nil {
		j.Error = st.Err.Error()
	}
	if !st.Retry.IsZero() {
		j.Retry = &st.Retry
	}
	return json.Marshal(j)
}
