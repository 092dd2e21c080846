package mcp

import (
	"context"
	"runtime/debug"

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

// method is one row of the method table: a request a server answers, and what the protocol
// says about it. Adding a method is adding a row.
type method struct {
	serve handler
	// revs are the revisions that have the method; 0 for all.
	revs revisions
	// offered reports whether the server declared the capability the method belongs to;
	// a method of a capability it did not declare is not found. nil: always offered.
	offered func(*Server) bool
	// cacheable: a stateless result carries a cache hint (ttlMs, cacheScope).
	cacheable bool
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
}

// handler answers one request: it returns the result object, or a JSON-RPC error. The
// result may live in a buffer of the request's (a tool call's): it is read before the
// request is released.
type handler func(ctx context.Context, r *Request, params []byte) ([]byte, *jsonrpc.Error)

// methods is the method table.
var methods map[string]*method

func init() {
	hasResources := func(s *Server) bool { return s.has(capResources) }
	hasPrompts := func(s *Server) bool { return s.has(capPrompts) }
	hasCompletions := func(s *Server) bool { return s.has(capCompletions) }
	hasTasks := (*Server).hasTasks
	methods = map[string]*method{
		methodInitialize:            {serve: initialize, revs: until(rev20260728), inline: true, anytime: true},
		methodPing:                  {serve: ping, revs: until(rev20260728), anytime: true},
		methodDiscover:              {serve: discover, revs: from(rev20260728), cacheable: true},
		methodToolsList:             {serve: listTools, cacheable: true},
		methodToolsCall:             {serve: callTool, nameParam: "name", asks: true},
		methodResourcesList:         {serve: listResources, offered: hasResources, cacheable: true},
		methodResourceTemplatesList: {serve: listResourceTemplates, offered: hasResources, cacheable: true},
		methodResourcesRead:         {serve: readResource, offered: hasResources, cacheable: true, nameParam: "uri", asks: true},
		methodResourcesSubscribe:    {serve: subscribe, offered: hasResources, revs: until(rev20260728), inline: true},
		methodResourcesUnsubscribe:  {serve: unsubscribe, offered: hasResources, revs: until(rev20260728), inline: true},
		methodPromptsList:           {serve: listPrompts, offered: hasPrompts, cacheable: true},
		methodPromptsGet:            {serve: getPrompt, offered: hasPrompts, nameParam: "name", asks: true},
		methodComplete:              {serve: complete, offered: hasCompletions},
		methodSetLevel:              {serve: setLevel, revs: until(rev20260728), inline: true},
		methodListen:                {serve: listen, revs: from(rev20260728), long: true},
		methodTasksGet:              {serve: getTask, revs: from(rev20260728), offered: hasTasks, nameParam: "taskId"},
		methodTasksUpdate:           {serve: updateTask, revs: from(rev20260728), offered: hasTasks, nameParam: "taskId"},
		methodTasksCancel:           {serve: cancelTask, revs: from(rev20260728), offered: hasTasks, nameParam: "taskId"},
	}
}

// methodNames are the names of every method and notification, which the parser knows.
func methodNames() []string {
	return []string{methodInitialize, methodPing, methodDiscover, methodToolsList, methodToolsCall,
		methodResourcesList, methodResourceTemplatesList, methodResourcesRead, methodResourcesSubscribe,
		methodResourcesUnsubscribe, methodPromptsList, methodPromptsGet, methodComplete, methodSetLevel,
		methodListen, methodTasksGet, methodTasksUpdate, methodTasksCancel, methodTasksResult, methodCreateMessage, methodElicit, methodListRoots,
		notificationInitialized, notificationCancelled, notificationProgress, notificationMessage,
		notificationRootsListChanged, notificationToolsListChanged, notificationPromptsListChanged,
		notificationResourcesListChanged, notificationResourceUpdated, notificationAcknowledged,
		notificationElicitationComplete, notificationTasks, notificationTaskStatus}
}

// in reports whether a revision has the method.
func (m *method) in(r revision) bool { return m.revs == 0 || m.revs.has(r) }

// lookup finds the row of a method a client of revision r may call on s, or nil.
func (s *Server) lookup(name string, r revision) *method {
	m := methods[name]
	if m == nil || !m.in(r) || m.offered != nil && !m.offered(s) {
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
			s.logger.Error("mcp: panic while serving request", "method", m.Method, "panic", v, "stack", string(debug.Stack()))
			resp = r.client.respond(r, m, nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "internal error"))
		}
	}()
	result, err := row.serve(ctx, r, m.Params)
	return r.client.respond(r, m, result, err)
}

// ping answers ping.
func ping(context.Context, *Request, []byte) ([]byte, *jsonrpc.Error) { return []byte("{}"), nil }
