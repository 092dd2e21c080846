package mcp

import (
	"crypto/rand"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Implementation names a client or a server.
type Implementation struct {
	Name    string
	Title   string // for display; sent to clients of protocol 2025-06-18 and later
	Version string
	// Description, Icons and WebsiteURL are sent to clients of protocol 2025-11-25 and
	// later: what the implementation does, images to show beside it, and its home page.
	Description string
	Icons       []Icon
	WebsiteURL  string
}

// ServerOptions configure a Server. The zero value is a sensible default.
type ServerOptions struct {
	// Instructions tell clients how to use the server; they may show them to the model.
	Instructions string
	// Logger receives the server's own diagnostics: panics in handlers, transport failures.
	// The default writes warnings and errors to stderr, never to stdout, which belongs to
	// the stdio transport.
	Logger *slog.Logger
	// PageSize is how many items a list result holds before it continues on a next page.
	// The default, 1000, keeps the lists of most servers on one page, as many clients
	// never ask for a second.
	PageSize int
	// MaxMessageSize bounds one incoming message, in bytes, over every transport (over
	// Streamable HTTP a POST's body has HTTPOptions.MaxBodySize besides). The default is 64
	// MiB.
	MaxMessageSize int
	// MaxBytesInFlight bounds the bytes of the messages the server holds at once, across
	// every conversation and transport, from when they are read until they are answered:
	// request bodies, messages over stdio and WebSocket, and the arguments of tasks while
	// they run. A message past it is refused with error -32000, "server busy" (over HTTP,
	// 503 with Retry-After); a message alone in flight is always taken. The default is 256
	// MiB; a negative value sets no bound.
	MaxBytesInFlight int64
	// MaxConversations bounds the conversations served at once over the transports that
	// accept them (sessions of Streamable HTTP and HTTP+SSE, WebSocket and other Connections
	// served by ServeConn; not stdio). A new one past it sheds the conversation idle for
	// longest (one serving no request and holding no stream open); when every one is in
	// use, the new one is refused (over HTTP, 503 with Retry-After). The default is 10000.
	MaxConversations int
	// IdleTimeout ends conversations that have served no request and held no stream open
	// for this long. The default is 30 minutes; a negative value keeps them until they end.
	IdleTimeout time.Duration
	// MaxConcurrentRequests bounds the requests one session serves at once, over every
	// transport (stdio, in memory, Streamable HTTP, HTTP+SSE), counted until answered;
	// beyond it a request is answered at once with error -32000 ("server busy"; over
	// Streamable HTTP with 503 and Retry-After), so that a client that sends without waiting
	// for answers holds a bounded number of goroutines. The default is 1000; a negative
	// value sets no bound.
	MaxConcurrentRequests int
	// ShutdownTimeout bounds how long Serve and ServeStdio go on writing to a client that
	// does not read, once their context is cancelled: then the answers still unwritten are
	// abandoned, and they return. The default is 10 seconds.
	ShutdownTimeout time.Duration
	// MaxSubscriptionBacklog bounds what a subscription (subscriptions/listen) leaves
	// unread: when a notification is due and its client has more than this many bytes
	// still unread on the subscription's stream (over stdio, on the connection), the
	// subscription ends with error -32603 saying so, rather than notifications piling up
	// for a client that does not read them. The default is 1 MiB; a negative value sets no
	// bound.
	MaxSubscriptionBacklog int
	// RootsChanged, if set, is called when a client says its roots changed.
	RootsChanged func()

	// Cache is the caching hint of the cacheable results of revision 2026-07-28
	// (server/discover, the lists, resources/read): how long a client may keep them, and
	// whether shared caches may. The default is one minute, public, for server/discover and
	// the lists, and 0, private, for resources/read. CacheFor overrides it per method, such
	// as "tools/list".
	Cache    *CacheHint
	CacheFor map[string]CacheHint
	// StateKey seals the requestState of multi round-trip requests (revision 2026-07-28):
	// 16, 24 or 32 bytes for AES-128, -192 or -256. Servers behind a load balancer share
	// one key, so that any of them can continue a request another began. The default is a
	// random key, which is right for a single process.
	StateKey []byte
	// StateTTL is how long a requestState is honoured; the default is 30 minutes.
	StateTTL time.Duration
	// Tasks configure the tasks of tools that may run as one (Tool.Task): where they are
	// kept, for how long, and how often clients poll.
	Tasks TaskOptions

	// Middleware wraps the handling of every request and notification the server receives
	// and sends, the first outermost (see Middleware): to observe, time or reject them.
	// otelmcp's Telemetry.Server adds OpenTelemetry's.
	Middleware []Middleware
	// SessionEnded, if set, is told of each session (revisions 2024-11-05 to 2025-11-25)
	// when it ends, with how long it lasted.
	SessionEnded func(SessionEnd)
}

// CacheScope says who may cache a result: "public" (any cache, any user) or "private".
type CacheScope string

// The cache scopes.
const (
	CachePublic  CacheScope = "public"
	CachePrivate CacheScope = "private"
)

// CacheHint is the caching hint of a result: ttlMs and cacheScope.
type CacheHint struct {
	TTL   time.Duration // 0: stale at once
	Scope CacheScope
}

// checkCacheHint panics on a hint the spec does not allow: a negative TTL, or a scope other
// than public or private. Options are the program's, so this is a programming error.
func checkCacheHint(name string, h CacheHint) {
	if h.TTL < 0 || (h.Scope != CachePublic && h.Scope != CachePrivate) {
		panic(fmt.Sprintf("mcp: %s: a cache hint has a TTL of 0 or more and the scope %q or %q, not %v and %q", name, CachePublic, CachePrivate, h.TTL, h.Scope))
	}
}

// settleCacheHints works out, once, the hint of each cacheable method: its own in CacheFor,
// else Cache, else the default.
func (s *Server) settleCacheHints() {
	s.cacheHints = map[string]*CacheHint{}
	for name, m := range methods {
		if !m.cacheable {
			continue
		}
		h, ok := s.opts.CacheFor[name]
		switch {
		case ok:
		case s.opts.Cache != nil:
			h = *s.opts.Cache
		case name == methodResourcesRead:
			h = CacheHint{TTL: 0, Scope: CachePrivate}
		default:
			h = CacheHint{TTL: time.Minute, Scope: CachePublic}
		}
		s.cacheHints[name] = &h
	}
}

// Server holds what a server offers: tools, resources, resource templates, prompts and
// completions. It is safe for concurrent use and serves any number of sessions at once.
// What is added after sessions began is announced to them (list_changed).
type Server struct {
	info      Implementation
	infoJSON  []byte // info's identity, encoded once for the _meta of stateless results
	aboutJSON []byte // all of info, for the _meta of server/discover's
	opts      ServerOptions
	logger    *slog.Logger
	stateKey  []byte
	// cacheHints are the hints of the cacheable methods' results, settled from opts once
	// rather than on every request.
	cacheHints map[string]*CacheHint
	tasks      *taskRunner
	// mw is the middleware around the server's handling of its messages; nil without.
	mw Handler
	// The door's (door.go): the bytes in flight, the conversations open, and whether the
	// server is protected, so that every conversation must carry its caller.
	budget        budget
	conversations *conversations
	protected     atomic.Bool

	mu         sync.RWMutex
	tools      []*toolEntry // sorted by name, the order of tools/list
	resources  []*resourceEntry
	templates  []*templateEntry
	prompts    []*promptEntry
	completers map[completionKey]*Completion
	forms      map[any]*form // keyed by (*T)(nil), for Elicit[T]
	sessions   map[*session]bool
	listeners  map[*listener]bool // subscriptions/listen requests open (revision 2026-07-28)
	// taskListeners are the subscriptions that hear of each task, by task id, and
	// callerListeners how many subscriptions each caller has that hear of tasks.
	taskListeners   map[string]map[*listener]bool
	callerListeners map[string]int
}

// NewServer returns a server that introduces itself as info. opts may be nil.
func NewServer(info Implementation, opts *ServerOptions) *Server {
	s := &Server{info: info, completers: map[completionKey]*Completion{}, sessions: map[*session]bool{}}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.PageSize <= 0 {
		s.opts.PageSize = 1000
	}
	if s.opts.MaxConcurrentRequests == 0 {
		s.opts.MaxConcurrentRequests = 1000
	}
	if s.opts.MaxMessageSize <= 0 {
		s.opts.MaxMessageSize = 64 << 20
	}
	if s.opts.MaxBytesInFlight == 0 {
		s.opts.MaxBytesInFlight = 256 << 20
	}
	if s.opts.MaxConversations <= 0 {
		s.opts.MaxConversations = 10000
	}
	if s.opts.IdleTimeout == 0 {
		s.opts.IdleTimeout = 30 * time.Minute
	}
	s.budget.limit = s.opts.MaxBytesInFlight
	s.conversations = newConversations(s.opts.MaxConversations, s.opts.IdleTimeout)
	if s.opts.ShutdownTimeout <= 0 {
		s.opts.ShutdownTimeout = 10 * time.Second
	}
	if s.opts.MaxSubscriptionBacklog == 0 {
		s.opts.MaxSubscriptionBacklog = 1 << 20
	}
	for method, h := range s.opts.CacheFor {
		checkCacheHint("ServerOptions.CacheFor["+method+"]", h)
	}
	if s.opts.Cache != nil {
		checkCacheHint("ServerOptions.Cache", *s.opts.Cache)
	}
	s.settleCacheHints()
	s.tasks = newTaskRunner(s, s.opts.Tasks)
	s.infoJSON = encodeInfo(info)
	s.aboutJSON = encodeAbout(info)
	s.stateKey = s.opts.StateKey
	if n := len(s.stateKey); n != 0 && n != 16 && n != 24 && n != 32 {
		panic(fmt.Sprintf("mcp: ServerOptions.StateKey has %d bytes; an AES key has 16, 24 or 32", n))
	}
	if s.stateKey == nil {
		s.stateKey = make([]byte, 32)
		rand.Read(s.stateKey)
	}
	s.logger = s.opts.Logger
	if s.logger == nil {
		s.logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	s.mw = middlewareChain(s.opts.Middleware)
	return s
}

// AddTool registers a tool. It panics if the tool is malformed or its name is taken: both
// are programming errors, found the first time the server starts.
func (s *Server) AddTool(t Tool) {
	te, err := newToolEntry(t)
	if err != nil {
		panic(err)
	}
	s.add(func() bool {
		var ok bool
		s.tools, ok = insertSorted(s.tools, te, toolName)
		return ok
	}, fmt.Sprintf("mcp: tool %q registered twice", t.Name), notificationToolsListChanged)
}

// RemoveTool unregisters a tool, and tells clients the list changed. It reports whether
// there was such a tool.
func (s *Server) RemoveTool(name string) bool {
	return s.update(func() bool {
		var ok bool
		s.tools, ok = removeSorted(s.tools, name, toolName)
		return ok
	}, notificationToolsListChanged)
}

// RemovePrompt unregisters a prompt, and tells clients the list changed. It reports
// whether there was such a prompt.
func (s *Server) RemovePrompt(name string) bool {
	return s.update(func() bool {
		var ok bool
		s.prompts, ok = removeSorted(s.prompts, name, promptName)
		return ok
	}, notificationPromptsListChanged)
}

// add changes a registry with update, and panics with dup if change reports a duplicate.
func (s *Server) add(change func() bool, dup, notification string) {
	if !s.update(change, notification) {
		panic(dup)
	}
}

// update changes a registry under the lock and, if change reports that it changed it, tells
// the sessions that have begun and the subscriptions that the list changed (with
// notification; "" tells no one). It returns what change reported.
func (s *Server) update(change func() bool, notification string) bool {
	s.mu.Lock()
	changed := change()
	var sessions []*session
	for ss := range s.sessions {
		sessions = append(sessions, ss)
	}
	s.mu.Unlock()
	if !changed || notification == "" {
		return changed
	}
	for _, ss := range sessions {
		if ss.ready() {
			ss.notify(notification, nil)
		}
	}
	s.notifyListeners(notification, "")
	return true
}

// lookupTool finds a tool by name; the []byte form avoids converting on the hot path.
func (s *Server) lookupTool(name []byte) *toolEntry {
	s.mu.RLock()
	defer s.mu.RUnlock()
	i := search(s.tools, name, toolName)
	if i < 0 {
		return nil
	}
	return s.tools[i]
}

// search finds the index of key in a list sorted by keyOf, or -1.
func search[T any](list []T, key []byte, keyOf func(T) string) int {
	lo, hi := 0, len(list)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if keyOf(list[mid]) < string(key) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(list) && keyOf(list[lo]) == string(key) {
		return lo
	}
	return -1
}

// track and forget keep the set of sessions, to announce changes to them.
func (s *Server) track(ss *session) {
	s.mu.Lock()
	s.sessions[ss] = true
	s.mu.Unlock()
}

func (s *Server) forget(ss *session) {
	s.mu.Lock()
	delete(s.sessions, ss)
	s.mu.Unlock()
}

func (s *Server) rootsChanged() {
	if s.opts.RootsChanged != nil {
		s.opts.RootsChanged()
	}
}

// capability is a capability a server declares.
type capability uint8

const (
	capTools capability = iota
	capResources
	capPrompts
	capCompletions
	capLogging
)

// has reports whether the server declares a capability: what it has registered decides.
// Tools and logging it always declares, so that a client may learn of tools added later.
func (s *Server) has(c capability) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.hasLocked(c)
}

func (s *Server) hasLocked(c capability) bool {
	switch c {
	case capResources:
		return len(s.resources)+len(s.templates) > 0
	case capPrompts:
		return len(s.prompts) > 0
	case capCompletions:
		return len(s.prompts)+len(s.templates) > 0
	}
	return true
}

// capabilities are what the server declares: what it has registered; with extensions
// (revision 2026-07-28 on), the tasks extension if it runs tasks.
func (s *Server) capabilities(extensions bool) ServerCapabilities {
	tasks := extensions && s.hasTasks()
	s.mu.RLock()
	resources, prompts, completions := s.hasLocked(capResources), s.hasLocked(capPrompts), s.hasLocked(capCompletions)
	s.mu.RUnlock()
	return ServerCapabilities{
		Tools: true, ToolsListChanged: true,
		Resources: resources, ResourcesSubscribe: resources, ResourcesListChanged: resources,
		Prompts: prompts, PromptsListChanged: prompts,
		Completions: completions, Logging: true,
		Tasks: tasks, TasksCancel: tasks,
	}
}
