package host

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// Reaching a server: its transport, connecting through it, and the client options the
// host gives it.

// connect connects to the server and learns what it offers. A stdio server starts when
// its turn comes (StartConcurrency of them at a time), and ConnectTimeout counts from then:
// on a busy machine a server waits for its turn rather than time out behind the others.
// The server is ready once it answered: each of its lists is fetched on its own, within a
// ConnectTimeout of its own, and one that fails is reported, not held against the server.
func (s *server) connect(ctx context.Context) (*mcp.Client, error) {
	if s.cfg.Transport == Stdio {
		release, err := s.h.turn(ctx, s)
		if err != nil {
			return nil, err
		}
		defer release()
	}
	start := time.Now()
	cctx, cancel := context.WithTimeout(ctx, s.h.opts.ConnectTimeout)
	defer cancel()
	t, err := s.transport()
	if err != nil {
		return nil, &connectError{s.cfg.Name, err}
	}
	s.command, _ = t.(*mcp.CommandTransport)
	c, err := mcp.Connect(cctx, t, s.clientOptions())
	if err != nil {
		if cctx.Err() == context.DeadlineExceeded && ctx.Err() == nil {
			return nil, &connectTimeout{s.h.opts.ConnectTimeout, err}
		}
		return nil, &connectError{s.cfg.Name, err}
	}
	l := s.load(ctx, c, lists{})
	if err := cmp.Or(ctx.Err(), s.broken(c, l)); err != nil {
		s.close(c)
		return nil, err
	}
	info := c.Server()
	s.mu.Lock()
	s.client, s.info, s.offered, s.listed, s.connectTime = c, info, l, true, time.Since(start)
	s.mu.Unlock()
	detail := fmt.Sprintf("%s %s, revision %s, %d tools, in %s", info.Name, info.Version, info.ProtocolVersion, len(l.tools), time.Since(start).Round(time.Millisecond))
	for _, e := range l.errs {
		detail += "; " + e.Method + " failed"
	}
	s.setState(Ready, nil, detail)
	return c, nil
}

// ErrConnectTimeout is wrapped by the error of a server that did not answer within
// ConnectTimeout (counted from its turn to start).
var ErrConnectTimeout = errors.New("no answer within the connect timeout")

// connectTimeout is the error of a server that did not answer in time.
type connectTimeout struct {
	d   time.Duration
	err error
}

func (e *connectTimeout) Error() string {
	return fmt.Sprintf("no answer within %s (the connect timeout)", e.d)
}

func (e *connectTimeout) Unwrap() error        { return e.err }
func (e *connectTimeout) Is(target error) bool { return target == ErrConnectTimeout }

// childEnv is what a stdio server's process gets added to the host's environment: the
// configuration's env, and OTEL_SERVICE_NAME emptied (OpenTelemetry's SDKs take an empty
// variable as unset) when the host has one and the configuration does not set it: it
// names the host's service, and the server's spans would carry the host's name.
func childEnv(env []string, getenv func(string) string) []string {
	if getenv("OTEL_SERVICE_NAME") == "" || slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "OTEL_SERVICE_NAME=") }) {
		return env
	}
	return append(slices.Clip(env), "OTEL_SERVICE_NAME=")
}

// transport is the transport to the server, by its type.
func (s *server) transport() (mcp.Transport, error) {
	switch s.cfg.Transport {
	case HTTP:
		return &mcp.StreamableHTTPTransport{URL: s.cfg.URL, Header: s.cfg.Header(), HTTPClient: s.h.opts.HTTPClient}, nil
	case SSE:
		return &mcp.SSETransport{URL: s.cfg.URL, Header: s.cfg.Header(), HTTPClient: s.h.opts.HTTPClient}, nil
	case Stdio:
		return &mcp.CommandTransport{
			Command: s.cfg.Command, Args: s.cfg.Args, Env: childEnv(s.cfg.Env, os.Getenv), Dir: s.cfg.Dir, Name: s.cfg.Name,
			ShutdownGrace: s.h.opts.ShutdownGrace,
			Stderr:        s.stderrLine,
			Started: func(pid int) {
				s.mu.Lock()
				s.pid = pid
				s.mu.Unlock()
			},
		}, nil
	}
	newTransport := s.h.opts.Transports[s.cfg.Transport]
	if newTransport == nil {
		return nil, fmt.Errorf("the server is of type %s, which this program cannot reach: it sets no host.Options.Transports[%q]", s.cfg.Transport, s.cfg.Transport)
	}
	hc := s.h.opts.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	return newTransport(s.cfg, hc)
}

// Header is the server's headers (Headers) as an http.Header.
func (sc ServerConfig) Header() http.Header {
	header := http.Header{}
	for k, v := range sc.Headers {
		header.Set(k, v)
	}
	return header
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
	o.Logger = o.Logger.With("server", s.cfg.Name) // the client's diagnostics say which server
	// A call whose context has no deadline gets the server's timeout (ServerConfig.Timeout,
	// else Client.Timeout, else Options.CallTimeout), applied by the client, the one place
	// it is.
	if s.cfg.Timeout != 0 {
		o.Timeout = s.cfg.Timeout
	} else if o.Timeout == 0 {
		o.Timeout = s.h.opts.CallTimeout
	}
	if trace, all := o.Trace, s.h.opts.Trace; all != nil {
		o.Trace = func(fromServer bool, msg []byte) {
			all(s.cfg.Name, fromServer, msg)
			if trace != nil {
				trace(fromServer, msg)
			}
		}
	}
	return &o
}

func call(f func()) {
	if f != nil {
		f()
	}
}
