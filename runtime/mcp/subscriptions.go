package mcp

import (
	"context"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// subscriptions/listen (basic/patterns/subscriptions.mdx) is how a client of revision
// 2026-07-28 hears of changes: one long-lived request whose stream carries the
// notifications it opted in to, each tagged with the request's id, until the client cancels
// it or the server stops.

// listener is one open subscriptions/listen request.
type listener struct {
	id        []byte     // the request's id, raw JSON: the subscription id
	caller    string     // the callerKey of its request: it hears of that caller's tasks only
	mu        sync.Mutex // held while acknowledging: nothing of the subscription goes first
	out       outbox
	tools     bool
	prompts   bool
	resources bool
	uris      map[string]bool
	uriOrder  []string // as the client listed them, for the acknowledgement
	tasks     map[string]bool
	taskOrder []string // the tasks whose status changes it hears of (notifications/tasks)
	// sent is, by task, the lastUpdatedAt of the last notifications/tasks sent, under mu: a
	// change heard of twice (made here, and echoed by the store) is sent once.
	sent map[string]time.Time
}

// listen serves subscriptions/listen: it acknowledges the filter, delivers notifications
// until ctx ends, then answers with the result that ends the subscription gracefully (which
// the transport drops if the client itself cancelled).
func listen(ctx context.Context, r *Request, params []byte) ([]byte, *jsonrpc.Error) {
	s := r.srv
	caller, kerr := callerKey(ctx)
	if kerr != nil {
		return nil, kerr
	}
	l, perr := readFilter(params)
	if perr != nil {
		return nil, perr
	}
	l.id, l.out, l.caller = append([]byte(nil), r.msg.ID...), r.out, caller
	if l.tasks != nil {
		if !r.ClientCapabilities().Tasks {
			return nil, missingTasksCapability
		}
		// The server agrees to the tasks it has of the caller's: another's is unknown here.
		agreed := l.taskOrder[:0]
		for _, id := range l.taskOrder {
			if t, err := s.tasks.store.Get(ctx, id); err == nil && t.Caller == l.caller {
				agreed = append(agreed, id)
			} else {
				delete(l.tasks, id)
			}
		}
		l.taskOrder = agreed
	}
	// The server agrees to what it has: a server without prompts sends no prompt changes.
	hasPrompts, hasResources := s.has(capPrompts), s.has(capResources)
	l.prompts = l.prompts && hasPrompts
	l.resources = l.resources && hasResources
	if !hasResources {
		l.uris, l.uriOrder = nil, nil
	}

	var e jsonwire.Encoder
	e.ObjectStart()
	l.writeMeta(&e)
	e.Key("notifications")
	e.ObjectStart()
	for _, f := range []struct {
		key string
		on  bool
	}{{"toolsListChanged", l.tools}, {"promptsListChanged", l.prompts}, {"resourcesListChanged", l.resources}} {
		if f.on {
			e.Key(f.key)
			e.Bool(true)
		}
	}
	if l.uris != nil {
		e.Key("resourceSubscriptions")
		e.ArrayStart()
		for _, uri := range l.uriOrder {
			e.Elem()
			e.String(uri)
		}
		e.ArrayEnd()
	}
	if l.tasks != nil {
		e.Key("taskIds")
		e.ArrayStart()
		for _, id := range l.taskOrder {
			e.Elem()
			e.String(id)
		}
		e.ArrayEnd()
	}
	e.ObjectEnd()
	e.ObjectEnd()
	// The listener is registered before the acknowledgement goes out, so that a change the
	// client makes once it has the acknowledgement reaches it; its lock keeps such a
	// notification from going out before the acknowledgement.
	l.mu.Lock()
	s.mu.Lock()
	if s.listeners == nil {
		s.listeners = map[*listener]bool{}
	}
	s.listeners[l] = true
	s.mu.Unlock()
	err := l.out.send(jsonrpc.AppendNotification(nil, notificationAcknowledged, e.Bytes()))
	l.mu.Unlock()
	if len(l.tasks) > 0 {
		s.tasks.watchOthers() // changes other replicas make reach this subscription too
	}
	if err == nil {
		<-ctx.Done()
	}
	s.mu.Lock()
	delete(s.listeners, l)
	s.mu.Unlock()
	if err != nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "the subscription's stream has closed")
	}
	// The result that ends the subscription carries its id in _meta. (A subscription is of
	// the stateless revision: its client side is the request.)
	r.client.(*statelessRequest).resultMeta = append([]byte(`"`+metaSubscriptionID+`":`), l.id...)
	return []byte("{}"), nil
}

// readFilter reads what a subscriptions/listen opts in to. The scope check of a protected
// server reads it too (subscriptionScopes), so that both see the same resources.
func readFilter(params []byte) (*listener, *jsonrpc.Error) {
	l := &listener{}
	var d jsonwire.Decoder
	d.Reset(params)
	for key := range d.Members {
		if string(key) != "notifications" || d.Peek() != jsonwire.Object {
			d.Skip()
			continue
		}
		for key := range d.Members {
			switch string(key) {
			case "toolsListChanged":
				l.tools, _ = d.Bool()
			case "promptsListChanged":
				l.prompts, _ = d.Bool()
			case "resourcesListChanged":
				l.resources, _ = d.Bool()
			case "resourceSubscriptions":
				if !readSet(&d, &l.uris, &l.uriOrder) {
					return nil, invalidParams("subscriptions/listen: at most %d resources per subscription", maxSubscriptions)
				}
			case "taskIds":
				if !readSet(&d, &l.tasks, &l.taskOrder) {
					return nil, invalidParams("subscriptions/listen: at most %d tasks per subscription", maxSubscriptions)
				}
			default:
				d.Skip()
			}
		}
	}
	if d.Finish(); d.Failed() {
		return nil, invalidParams("subscriptions/listen: %s", d.Summary())
	}
	return l, nil
}

// readSet reads an array of strings into a set and the order they came in, each once; it
// reports false when there are more than maxSubscriptions.
func readSet(d *jsonwire.Decoder, set *map[string]bool, order *[]string) bool {
	if *set == nil {
		*set = map[string]bool{}
	}
	for range d.Elements {
		if v, ok := d.String(); ok && !(*set)[v] {
			if len(*set) == maxSubscriptions {
				return false
			}
			(*set)[v] = true
			*order = append(*order, v)
		}
	}
	return true
}

func (l *listener) writeMeta(e *jsonwire.Encoder) {
	e.Key("_meta")
	e.ObjectStart()
	e.Key(metaSubscriptionID)
	e.Raw(l.id)
	e.ObjectEnd()
}

// wants reports whether the listener opted in to a notification (uri for resource updates).
func (l *listener) wants(method, uri string) bool {
	switch method {
	case notificationToolsListChanged:
		return l.tools
	case notificationPromptsListChanged:
		return l.prompts
	case notificationResourcesListChanged:
		return l.resources
	case notificationResourceUpdated:
		return l.uris[uri]
	}
	return false
}

// notifyListeners sends a notification to the subscriptions that opted in to it; uri is
// the resource of notifications/resources/updated.
func (s *Server) notifyListeners(method, uri string) {
	s.mu.RLock()
	var to []*listener
	for l := range s.listeners {
		if l.wants(method, uri) {
			to = append(to, l)
		}
	}
	s.mu.RUnlock()
	for _, l := range to {
		var e jsonwire.Encoder
		e.ObjectStart()
		l.writeMeta(&e)
		if uri != "" {
			e.Key("uri")
			e.String(uri)
		}
		e.ObjectEnd()
		l.mu.Lock()
		l.out.queue(jsonrpc.AppendNotification(nil, method, e.Bytes()))
		l.mu.Unlock()
	}
}

// notifyTask sends notifications/tasks, the task as tasks/get would give it now, to the
// subscriptions of its caller that listen to the task. (A subscription listens only to
// tasks it was agreed, its caller's; the caller is checked again here, where the changes
// other replicas make arrive too.)
func (s *Server) notifyTask(t *TaskRecord) {
	s.mu.RLock()
	var to []*listener
	for l := range s.listeners {
		if l.tasks[t.ID] && l.caller == t.Caller {
			to = append(to, l)
		}
	}
	s.mu.RUnlock()
	for _, l := range to {
		var e jsonwire.Encoder
		e.ObjectStart()
		l.writeMeta(&e)
		writeTask(&e, t, true)
		e.ObjectEnd()
		l.mu.Lock()
		if last, ok := l.sent[t.ID]; !ok || t.UpdatedAt.After(last) {
			if l.sent == nil {
				l.sent = map[string]time.Time{}
			}
			l.sent[t.ID] = t.UpdatedAt
			l.out.queue(jsonrpc.AppendNotification(nil, notificationTasks, e.Bytes()))
		}
		l.mu.Unlock()
	}
}

// listensTo reports whether a subscription of this process listens to the task.
func (s *Server) listensTo(id string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for l := range s.listeners {
		if l.tasks[id] {
			return true
		}
	}
	return false
}
