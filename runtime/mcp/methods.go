package mcp

import (
	"context"
	"maps"
	"slices"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// The requests and notifications of MCP, by name.
const (
	methodInitialize            = "initialize"
	methodPing                  = "ping"
	methodDiscover              = "server/discover"
	methodToolsList             = "tools/list"
	methodToolsCall             = "tools/call"
	methodResourcesList         = "resources/list"
	methodResourceTemplatesList = "resources/templates/list"
	methodResourcesRead         = "resources/read"
	methodResourcesSubscribe    = "resources/subscribe"
	methodResourcesUnsubscribe  = "resources/unsubscribe"
	methodPromptsList           = "prompts/list"
	methodPromptsGet            = "prompts/get"
	methodComplete              = "completion/complete"
	methodSetLevel              = "logging/setLevel"
	methodListen                = "subscriptions/listen"
	methodTasksGet              = "tasks/get"
	methodTasksUpdate           = "tasks/update"
	methodTasksCancel           = "tasks/cancel"
	methodTasksResult           = "tasks/result" // 2025-11-25's, which a client sends

	// Requests a server sends its client.
	methodCreateMessage = "sampling/createMessage"
	methodElicit        = "elicitation/create"
	methodListRoots     = "roots/list"

	notificationInitialized          = "notifications/initialized"
	notificationCancelled            = "notifications/cancelled"
	notificationProgress             = "notifications/progress"
	notificationMessage              = "notifications/message"
	notificationRootsListChanged     = "notifications/roots/list_changed"
	notificationToolsListChanged     = "notifications/tools/list_changed"
	notificationPromptsListChanged   = "notifications/prompts/list_changed"
	notificationResourcesListChanged = "notifications/resources/list_changed"
	notificationResourceUpdated      = "notifications/resources/updated"
	notificationAcknowledged         = "notifications/subscriptions/acknowledged"
	notificationElicitationComplete  = "notifications/elicitation/complete"
	notificationTasks                = "notifications/tasks"
	notificationTaskStatus           = "notifications/tasks/status" // 2025-11-25's
)

// method is one row of the method table: a request or a notification of MCP, whichever
// side sends it, and what the protocol and this runtime say about it. Every list of methods
// is derived from the table: the parser's names, what a server serves and what a client
// answers, the notifications each side handles, the scopes a protected server's caller
// needs, the capability a server checks before it asks its client. Adding a method is
// adding a row and its handler.
type method struct {
	// revs are the revisions whose schema has the method in the direction the row handles
	// it; 0 for all. A server serves a request only in these; a client answers whatever its
	// server sends (real servers send what their revision lacks), so for its part the set
	// says what the protocol has.
	revs revisions
	// peer: cancellation and progress, which the peer handles on both sides before the
	// side sees the message (peer.go).
	peer bool

	// Sent by a client: the server's part.

	// serve answers the request.
	serve handler
	// onServer handles the notification.
	onServer func(ss *session, m *jsonrpc.Message)
	// offered reports whether the server declared the capability the method belongs to;
	// a method of a capability it did not declare is not found. nil: always offered.
	offered func(*Server) bool
	// scopes are what a protected server's caller needs (its token's scopes) to be served:
	// those of the tool, prompt or resource the params name. nil: none.
	scopes func(ctx context.Context, s *Server, params []byte, tk ticket) []string
	// cacheable: a stateless result carries a cache hint (ttlMs, cacheScope).
	cacheable bool
	// introduces: a stateless result's _meta carries the server's whole Implementation
	// (description, icons, website), not only its identity (name, title, version).
	introduces bool
	// nameParam is the param a stateless HTTP request mirrors in its Mcp-Name header.
	nameParam string
	// asks: the handler may ask the client for input, which a stateless request turns into
	// an InputRequiredResult.
	asks bool
	// inline: served before the next message is read, since what follows depends on it
	// (a subscription or a log level that a call written right after it must find).
	inline bool
	// anytime: served before a session is initialized.
	anytime bool
	// long: a subscription, open until the client cancels it or goes away.
	long bool

	// Sent by a server: the client's part.

	// answer answers the request (in a session, or an input request of the stateless
	// revision) with its result.
	answer func(c *Client, ctx context.Context, params []byte) ([]byte, error)
	// declared reports whether the client's options declare the capability the request
	// needs; a client that did not declare it answers "method not found". nil: always.
	declared func(*ClientOptions) bool
	// capability and needs are what a server checks of its client's declared capabilities
	// before it asks (ErrCapability names the capability).
	capability string
	needs      func(ClientCapabilities) bool
	// onClient handles the notification.
	onClient func(c *Client, m *jsonrpc.Message)
}

// handler answers one request: it returns the result object, or a JSON-RPC error. The
// result may live in a buffer of the request's (a tool call's): it is read before the
// request is released.
type handler func(ctx context.Context, r *Request, params []byte) ([]byte, *jsonrpc.Error)

// methods is the method table. It is built in init: its handlers refer to it.
var methods map[string]*method

func init() {
	hasResources := func(s *Server) bool { return s.has(capResources) }
	hasPrompts := func(s *Server) bool { return s.has(capPrompts) }
	hasCompletions := func(s *Server) bool { return s.has(capCompletions) }
	hasTasks := (*Server).hasTasks
	sessions, stateless := until(rev20260728), from(rev20260728)
	only20251125 := from(rev20251125) & sessions
	methods = map[string]*method{
		// Requests a client sends, which a server serves.
		methodInitialize:            {serve: initialize, revs: sessions, inline: true, anytime: true},
		methodPing:                  {serve: ping, answer: answerPing, revs: sessions, anytime: true},
		methodDiscover:              {serve: discover, revs: stateless, cacheable: true, introduces: true},
		methodToolsList:             {serve: listTools, cacheable: true},
		methodToolsCall:             {serve: callTool, scopes: toolScopes, nameParam: "name", asks: true},
		methodResourcesList:         {serve: listResources, offered: hasResources, cacheable: true},
		methodResourceTemplatesList: {serve: listResourceTemplates, offered: hasResources, cacheable: true},
		methodResourcesRead:         {serve: readResource, offered: hasResources, scopes: uriScopes, cacheable: true, nameParam: "uri", asks: true},
		methodResourcesSubscribe:    {serve: subscribe, offered: hasResources, scopes: uriScopes, revs: sessions, inline: true},
		methodResourcesUnsubscribe:  {serve: unsubscribe, offered: hasResources, revs: sessions, inline: true},
		methodPromptsList:           {serve: listPrompts, offered: hasPrompts, cacheable: true},
		methodPromptsGet:            {serve: getPrompt, offered: hasPrompts, scopes: promptScopes, nameParam: "name", asks: true},
		methodComplete:              {serve: complete, offered: hasCompletions, scopes: completionScopes},
		methodSetLevel:              {serve: setLevel, revs: sessions, inline: true},
		methodListen:                {serve: listen, revs: stateless, scopes: subscriptionScopes, long: true},
		methodTasksGet:              {serve: getTask, revs: stateless, offered: hasTasks, scopes: taskScopes, nameParam: "taskId"},
		methodTasksUpdate:           {serve: updateTask, revs: stateless, offered: hasTasks, scopes: taskScopes, nameParam: "taskId"},
		methodTasksCancel:           {serve: cancelTask, revs: stateless, offered: hasTasks, scopes: taskScopes, nameParam: "taskId"},
		// Sent by mcpgen's client to a server of 2025-11-25's experimental tasks, which the
		// tasks extension replaced (client_tasks.go); no mcpgen server serves it.
		methodTasksResult: {revs: only20251125},

		// Requests a server sends (in the stateless revision, inside an InputRequiredResult),
		// which a client answers.
		methodCreateMessage: {answer: (*Client).answerSampling, declared: func(o *ClientOptions) bool { return o.Sampling != nil },
			capability: "sampling", needs: func(c ClientCapabilities) bool { return c.Sampling }},
		methodElicit: {answer: (*Client).answerElicitation, declared: func(o *ClientOptions) bool { return o.Elicitation != nil },
			revs: from(rev20250618), capability: "elicitation", needs: func(c ClientCapabilities) bool { return c.Elicitation }},
		methodListRoots: {answer: (*Client).answerRoots, declared: func(o *ClientOptions) bool { return o.Roots != nil },
			capability: "roots", needs: func(c ClientCapabilities) bool { return c.Roots }},

		// Notifications both sides send.
		notificationCancelled: {peer: true},
		notificationProgress:  {peer: true},

		// Notifications a client sends.
		notificationInitialized:      {onServer: func(*session, *jsonrpc.Message) {}, revs: sessions}, // requests are served once initialize is answered
		notificationRootsListChanged: {onServer: func(ss *session, _ *jsonrpc.Message) { ss.srv.rootsChanged() }, revs: sessions},

		// Notifications a server sends.
		notificationMessage:              {onClient: (*Client).logged},
		notificationToolsListChanged:     {onClient: (*Client).toolsChanged},
		notificationPromptsListChanged:   {onClient: (*Client).promptsChanged},
		notificationResourcesListChanged: {onClient: (*Client).resourcesChanged},
		notificationResourceUpdated:      {onClient: (*Client).resourceUpdated},
		notificationElicitationComplete:  {onClient: (*Client).elicitationDone, revs: only20251125},
		notificationAcknowledged:         {onClient: (*Client).acknowledgedNote, revs: stateless},
		notificationTasks:                {onClient: (*Client).taskChanged, revs: stateless},
		notificationTaskStatus:           {onClient: (*Client).taskChanged, revs: only20251125},
	}
	parser = jsonrpc.NewParser(slices.Sorted(maps.Keys(methods))...)
}

// in reports whether a revision has the method.
func (m *method) in(r revision) bool { return m.revs == 0 || m.revs.has(r) }

// lookup finds the row of a method a client of revision r may call on s, or nil.
func (s *Server) lookup(name string, r revision) *method {
	m := methods[name]
	if m == nil || m.serve == nil || !m.in(r) || m.offered != nil && !m.offered(s) {
		return nil
	}
	return m
}

// serve answers a request with its method's row and returns the complete response message,
// in the era's form (the client side of the request writes it). This is the one dispatch
// path, and its one recovery point: a panic anywhere in a handler becomes an internal error,
// and the server goes on serving.
func (s *Server) serve(ctx context.Context, r *Request, m *jsonrpc.Message) (resp []byte) {
	row := s.lookup(m.Method, r.client.revision())
	if row == nil {
		return r.client.respond(r, m, nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method not found: "+m.Method))
	}
	r.row = row
	defer r.release()
	defer func() {
		if v := recover(); v != nil {
			logPanic(ctx, s.logger, "mcp: panic while serving request", v, r.logAttrs()...)
			resp = r.client.respond(r, m, nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "internal error"))
		}
	}()
	if s.mw != nil {
		result, err := s.serveThroughMiddleware(ctx, r, m, row)
		return r.client.respond(r, m, result, rpcError(err))
	}
	result, err := row.serve(ctx, r, m.Params)
	return r.client.respond(r, m, result, err)
}

// serveThroughMiddleware serves a request with its row's handler inside the server's
// middleware.
func (s *Server) serveThroughMiddleware(ctx context.Context, r *Request, m *jsonrpc.Message, row *method) ([]byte, error) {
	msg := r.message()
	msg.Auth = AuthInfoFrom(ctx)
	return runMiddleware(ctx, s.mw, msg, func(ctx context.Context, msg *Message) ([]byte, error) {
		result, err := row.serve(ctx, r, msg.Params)
		if r.tool != nil {
			msg.setToolOutcome(r.tool)
		}
		return result, handlerError(err)
	}, s.logger)
}

// ping answers ping.
func ping(context.Context, *Request, []byte) ([]byte, *jsonrpc.Error) { return []byte("{}"), nil }
