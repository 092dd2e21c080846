package mcp

import (
	"context"
	"strconv"
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
	id     []byte        // the request's id, raw JSON: the subscription id
	caller string        // the callerKey of its request: it hears of that caller's tasks only
	mu     sync.Mutex    // held while acknowledging: nothing of the subscription goes first
	w      messageWriter // its request's: the acknowledgement is written to it
	notes  *notifier     // its conversation's: its notifications go there, without waiting
	client clientSide    // of its request, for what middleware are told of its notifications
	// dropped is closed when the subscription is ended for its client not reading it;
	// unread is how many bytes it left unread then.
	dropped   chan struct{}
	unread    int
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
	// done is the request's context's: closed as soon as the client's notifications/cancelled
	// is read, from when the subscription hears nothing more, though it is let go of later.
	done <-chan struct{}
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
	l.id, l.done, l.w, l.notes, l.caller, l.client = append([]byte(nil), r.msg.ID...), ctx.Done(), r.w, r.notes, caller, r.client
	l.dropped = make(chan struct{})
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

	// The listener is registered before the acknowledgement goes out, so that a change the
	// client makes once it has the acknowledgement reaches it; its lock keeps such a
	// notification from going out before the acknowledgement. So is the watch of the
	// changes other replicas make, for a change made through another at once.
	if len(l.tasks) > 0 {
		s.tasks.watchOthers()
	}
	l.mu.Lock()
	s.register(l)
	var err error
	if s.mw != nil {
		err = s.notifyThroughMiddleware(ctx, l.client, notificationAcknowledged, l.acknowledgement(), func(msg []byte) error { return l.w.Write(ctx, msg) })
	} else {
		err = l.w.Write(ctx, jsonrpc.AppendNotification(nil, notificationAcknowledged, l.acknowledgement()))
	}
	l.mu.Unlock()
	begin(ctx) // the stream's next message may be read now: it finds the subscription
	dropped := false
	if err == nil {
		select {
		case <-ctx.Done():
		case <-l.dropped:
			dropped = true
		}
	}
	s.unregister(l)
	if err != nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "the subscription's stream has closed")
	}
	if dropped {
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "internal error: the subscription was ended: its client left "+strconv.Itoa(l.unread)+
			" bytes of messages unread, more than the server keeps for a subscription; read them, then listen again")
	}
	// The result that ends the subscription carries its id in _meta. (A subscription is of
	// the stateless revision: its client side is the request.)
	r.client.(*statelessRequest).resultMeta = append([]byte(`"`+metaSubscriptionID+`":`), l.id...)
	return []byte("{}"), nil
}

// acknowledgement is the params of notifications/subscriptions/acknowledged: what the server
// agreed to send.
func (l *listener) acknowledgement() []byte {
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
	return e.Bytes()
}

// register adds a subscription to those the server notifies. Of the tasks it was agreed,
// it keeps those that have fewer subscriptions than a task may have, if its caller (of a
// protected server) has fewer subscriptions to tasks than a caller may have (TaskOptions):
// the others are left out of the acknowledgement, and the client polls them.
func (s *Server) register(l *listener) {
	tr := s.tasks
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.listeners == nil {
		s.listeners = map[*listener]bool{}
		s.taskListeners = map[string]map[*listener]bool{}
		s.callerListeners = map[string]int{}
	}
	s.listeners[l] = true
	if l.dropped == nil {
		l.dropped = make(chan struct{})
	}
	if len(l.tasks) == 0 {
		return
	}
	if l.caller != "" && tr.maxCallerListeners >= 0 && s.callerListeners[l.caller] >= tr.maxCallerListeners {
		clear(l.tasks)
		l.taskOrder = l.taskOrder[:0]
		return
	}
	kept := l.taskOrder[:0]
	for _, id := range l.taskOrder {
		if tr.maxListeners >= 0 && len(s.taskListeners[id]) >= tr.maxListeners {
			delete(l.tasks, id)
			continue
		}
		if s.taskListeners[id] == nil {
			s.taskListeners[id] = map[*listener]bool{}
		}
		s.taskListeners[id][l] = true
		kept = append(kept, id)
	}
	l.taskOrder = kept
	if len(kept) > 0 {
		s.callerListeners[l.caller]++
	}
}

// unregister lets go of a subscription that has ended.
func (s *Server) unregister(l *listener) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.listeners, l)
	if len(l.taskOrder) == 0 {
		return
	}
	for _, id := range l.taskOrder {
		if delete(s.taskListeners[id], l); len(s.taskListeners[id]) == 0 {
			delete(s.taskListeners, id)
		}
	}
	if s.callerListeners[l.caller]--; s.callerListeners[l.caller] <= 0 {
		delete(s.callerListeners, l.caller)
	}
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

// over reports whether the subscription's request has ended: cancelled, or the client gone.
func (l *listener) over() bool {
	select {
	case <-l.done:
		return true
	default:
		return false
	}
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

// notice is a notification to subscriptions, encoded once for all of them: each one's
// message is head, the subscription's id, and tail.
type notice struct {
	head, tail []byte
}

// newNotice encodes a notification whose params are the subscription's _meta and members,
// the encoded members of an object (without its braces; nil for none).
func newNotice(method string, members []byte) notice {
	head := jsonrpc.AppendNotification(nil, method, nil)
	head = append(head[:len(head)-1], `,"params":{"_meta":{"`+metaSubscriptionID+`":`...)
	tail := make([]byte, 0, len(members)+4)
	tail = append(tail, '}')
	if len(members) > 0 {
		tail = append(append(tail, ','), members...)
	}
	tail = append(tail, "}}"...)
	return notice{head: head, tail: tail}
}

// to returns the notice's message to l, a slice of its own (its writer may keep it).
func (n notice) to(l *listener) []byte {
	msg := make([]byte, 0, len(n.head)+len(l.id)+len(n.tail))
	return append(append(append(msg, n.head...), l.id...), n.tail...)
}

// encodeMembers encodes what write writes as the members of an object, without its braces.
func encodeMembers(write func(e *jsonwire.Encoder)) []byte {
	var e jsonwire.Encoder
	e.ObjectStart()
	write(&e)
	e.ObjectEnd()
	b := e.Bytes()
	return b[1 : len(b)-1]
}

// deliver queues msg on the subscription, unless its client leaves more than the server's
// MaxSubscriptionBacklog unread: then the subscription is ended instead (listen answers
// why), and the notifications stop piling up. l.mu is held.
func (s *Server) deliver(l *listener, msg []byte, kind noteKind) {
	select {
	case <-l.dropped:
		return
	default:
	}
	if s.opts.MaxSubscriptionBacklog >= 0 {
		if n := l.notes.unread(); n > s.opts.MaxSubscriptionBacklog {
			l.unread = n
			close(l.dropped)
			return
		}
	}
	if s.mw != nil {
		if m, err := parser.Parse(msg); err == nil {
			s.notifyThroughMiddleware(context.Background(), l.client, m.Method, m.Params, func(msg []byte) error {
				l.notes.add(msg, noteKindOf(m.Method))
				return nil
			})
			return
		}
	}
	l.notes.add(msg, kind)
}

// notifyThroughMiddleware sends a notification to the client of a request (a
// subscription's) inside the server's middleware: write writes it, with the params as the
// middleware leave them.
func (s *Server) notifyThroughMiddleware(ctx context.Context, client clientSide, method string, params []byte, write func([]byte) error) error {
	msg := &Message{Method: method, Params: params, Outgoing: true, Server: true}
	client.describe(msg)
	_, err := runMiddleware(ctx, s.mw, msg, func(ctx context.Context, msg *Message) ([]byte, error) {
		return nil, write(jsonrpc.AppendNotification(nil, method, msg.Params))
	}, s.logger)
	return err
}

// notifyListeners sends a notification to the subscriptions that opted in to it; uri is
// the resource of notifications/resources/updated.
func (s *Server) notifyListeners(method, uri string) {
	s.mu.RLock()
	var to []*listener
	for l := range s.listeners {
		if l.wants(method, uri) && !l.over() {
			to = append(to, l)
		}
	}
	s.mu.RUnlock()
	if len(to) == 0 {
		return
	}
	var rest []byte
	if uri != "" {
		rest = encodeMembers(func(e *jsonwire.Encoder) {
			e.Key("uri")
			e.String(uri)
		})
	}
	n := newNotice(method, rest)
	for _, l := range to {
		l.mu.Lock()
		s.deliver(l, n.to(l), noteKindOf(method))
		l.mu.Unlock()
	}
}

// notifyTask sends notifications/tasks, the task as tasks/get would give it now, to the
// subscriptions of its caller that listen to the task. (A subscription listens only to
// tasks it was agreed, its caller's; the caller is checked again here, where the changes
// other replicas make arrive too.) The task is encoded once, whatever the subscriptions.
func (s *Server) notifyTask(t *TaskRecord) {
	s.mu.RLock()
	var to []*listener
	for l := range s.taskListeners[t.ID] {
		if l.caller == t.Caller && !l.over() {
			to = append(to, l)
		}
	}
	s.mu.RUnlock()
	if len(to) == 0 {
		return
	}
	n := newNotice(notificationTasks, encodeMembers(func(e *jsonwire.Encoder) { writeTask(e, t, true) }))
	for _, l := range to {
		l.mu.Lock()
		if last, ok := l.sent[t.ID]; !ok || t.UpdatedAt.After(last) {
			if l.sent == nil {
				l.sent = map[string]time.Time{}
			}
			l.sent[t.ID] = t.UpdatedAt
			s.deliver(l, n.to(l), noteOther)
		}
		l.mu.Unlock()
	}
}

// listensTo reports whether a subscription of this process listens to the task.
func (s *Server) listensTo(id string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.taskListeners[id]) > 0
}
