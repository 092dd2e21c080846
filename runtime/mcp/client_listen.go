package mcp

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// In the stateless revision a server tells a client of changes only on the stream of a
// subscriptions/listen request (basic/patterns/subscriptions.mdx). A client keeps one open
// while it wants change notifications (a list callback is set, or it subscribed to a
// resource), with the filter they make, and opens it again, after a pause, if it drops.
//
// A server may refuse the request ("Subscription limit reached", or no subscriptions at
// all): that is an answer, and asking again gets the same one. The client then lists what
// its callbacks watch every PollInterval and calls a callback when its list changed.

// listenAttempts bounds how often in a row the client opens a subscription that keeps
// failing (about 25 s of pauses that double from 100 ms); then it gives up, once, in the
// log and in ListenErr.
const listenAttempts = 8

// listenPause is the first pause before a subscription is opened again (a variable for the
// tests).
var listenPause = 100 * time.Millisecond

// subscriber is the client's open subscriptions/listen request.
type subscriber struct {
	cancel context.CancelFunc
	done   chan struct{}
	// begun is closed once the server acknowledged the subscription, or its first attempt
	// failed: what the client sends after that finds it in place.
	begun     chan struct{}
	beginOnce sync.Once
}

func (l *subscriber) begin() { l.beginOnce.Do(func() { close(l.begun) }) }

func (l *subscriber) stop() {
	l.cancel()
	<-l.done
}

// startListening opens the client's subscriptions/listen request, if it speaks the
// stateless revision and wants change notifications; it replaces one already open. The
// channel it returns is closed once the server has acknowledged the request (or refused
// it): then a call the client makes finds the subscription in place (nil when there is
// none to wait for).
func (c *Client) startListening() <-chan struct{} {
	c.mu.Lock()
	old := c.listening
	c.listening, c.listenErr = nil, nil
	stateless, uris := c.rev.stateless(), slices.Clone(c.subscribed)
	c.mu.Unlock()
	if old != nil {
		old.stop()
	}
	o := &c.opts
	if !stateless || o.ToolsChanged == nil && o.PromptsChanged == nil && o.ResourcesChanged == nil && len(uris) == 0 {
		return nil
	}
	filter := map[string]any{}
	if o.ToolsChanged != nil {
		filter["toolsListChanged"] = true
	}
	if o.PromptsChanged != nil {
		filter["promptsListChanged"] = true
	}
	if o.ResourcesChanged != nil {
		filter["resourcesListChanged"] = true
	}
	if len(uris) > 0 {
		filter["resourceSubscriptions"] = uris
	}
	ctx, cancel := context.WithCancel(context.Background())
	l := &subscriber{cancel: cancel, done: make(chan struct{}), begun: make(chan struct{})}
	go func() {
		defer close(l.done)
		defer l.begin()
		c.listen(ctx, filter, l)
	}()
	c.mu.Lock()
	c.listening = l
	c.mu.Unlock()
	return l.begun
}

// listen keeps a subscriptions/listen request open with filter until ctx ends, the
// connection is gone, the server refuses it (then it polls), or it failed listenAttempts
// times in a row.
func (c *Client) listen(ctx context.Context, filter map[string]any, l *subscriber) {
	pause, failures := listenPause, 0
	for {
		start := time.Now()
		err := c.listenRequest(ctx, filter, func([]byte) { l.begin() })
		l.begin() // the first attempt is over: whatever waited for it goes on
		var rpcErr *jsonrpc.Error
		switch {
		case ctx.Err() != nil || errors.Is(err, ErrClientClosed):
			return
		case errors.As(err, &rpcErr):
			_, resources := filter["resourceSubscriptions"]
			c.refused(ctx, err, resources)
			return
		}
		if time.Since(start) > time.Minute {
			failures, pause = 0, listenPause // it lasted: a new drop starts again
		}
		failures++
		if err == nil {
			err = errors.New("the server ended it")
		}
		if failures == listenAttempts {
			c.setListenErr(fmt.Errorf("mcp: subscriptions/listen failed %d times in a row; the client no longer hears of the server's changes: %w", failures, err))
			c.logger.Warn("mcp: the subscription to the server's changes failed too often; the client gave up on it", "attempts", failures, "error", err.Error())
			return
		}
		t := time.NewTimer(pause)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return
		case <-c.done:
			// The connection is gone (a process that exited): whoever keeps the server
			// connects again, and its new client listens anew.
			t.Stop()
			return
		}
		c.logger.Debug("mcp: the subscription to the server's changes ended; opening it again", "after", pause, "error", err.Error())
		pause = min(2*pause, 30*time.Second)
	}
}

// refused takes the server's refusal of subscriptions/listen as its answer: it is noted
// once, and the lists the client watches are polled instead (the resources it subscribed
// to cannot be).
func (c *Client) refused(ctx context.Context, refusal error, resources bool) {
	o := &c.opts
	caps := c.Server().Capabilities
	var watched []watchedList
	if o.ToolsChanged != nil && caps.Tools {
		watched = append(watched, watchedList{method: methodToolsList, changed: o.ToolsChanged})
	}
	if o.PromptsChanged != nil && caps.Prompts {
		watched = append(watched, watchedList{method: methodPromptsList, changed: o.PromptsChanged})
	}
	if o.ResourcesChanged != nil && caps.Resources {
		watched = append(watched, watchedList{method: methodResourcesList, changed: o.ResourcesChanged})
	}
	what := "the client does not hear of the server's changes"
	if len(watched) > 0 {
		what = fmt.Sprintf("the client lists what changed every %s instead", c.opts.PollInterval)
		if resources {
			what += ", and hears of no resource updates"
		}
	}
	c.setListenErr(fmt.Errorf("mcp: the server refused subscriptions/listen; %s: %w", what, refusal))
	// Once per client, at info: a host's operator should hear that the lists are polled.
	c.logger.Info("mcp: the server refused subscriptions/listen; "+what, "error", refusal.Error())
	if len(watched) > 0 {
		c.poll(ctx, watched)
	}
}

// watchedList is a list the client polls, and what it last was.
type watchedList struct {
	method  string
	changed func()
	digest  [sha256.Size]byte
	known   bool
}

// poll lists each of lists every PollInterval until ctx ends or the connection is gone,
// and calls a list's callback when it differs from the time before. A list that fails is
// left as it was known.
func (c *Client) poll(ctx context.Context, lists []watchedList) {
	check := func() {
		for i := range lists {
			l := &lists[i]
			digest, err := c.listDigest(ctx, l.method)
			if err != nil {
				if ctx.Err() == nil {
					c.logger.Debug("mcp: polling a list", "method", l.method, "error", err.Error())
				}
				continue
			}
			if l.known && digest != l.digest {
				l.changed()
			}
			l.digest, l.known = digest, true
		}
	}
	check() // what the lists are now, to compare with
	t := time.NewTicker(c.opts.PollInterval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			check()
		case <-ctx.Done():
			return
		case <-c.done:
			return
		}
	}
}

// listDigest is a digest of every page of a list, without what changes from one answer to
// the next though the list does not (_meta, and the cursors).
func (c *Client) listDigest(ctx context.Context, method string) ([sha256.Size]byte, error) {
	h := sha256.New()
	err := c.walkPages(ctx, method, func(page []byte) (string, error) { return digestPage(h, page), nil })
	return [sha256.Size]byte(h.Sum(nil)), err
}

// digestPage writes the members of a page of a list to h, in the order of their keys,
// each canonical, all but nextCursor and _meta; it returns the cursor of the next page.
func digestPage(h hash.Hash, page []byte) (next string) {
	type member struct {
		key   string
		value []byte
	}
	var members []member
	d := jsonwire.NewDecoder(page)
	for key := range d.Members {
		switch string(key) {
		case "nextCursor":
			next = readString(d)
		case "_meta":
			d.Skip()
		default:
			members = append(members, member{string(key), canonicalJSON(d.Raw())})
		}
	}
	slices.SortFunc(members, func(a, b member) int { return strings.Compare(a.key, b.key) })
	for _, m := range members {
		h.Write(jsonwire.AppendString(nil, m.key))
		h.Write(m.value)
	}
	return next
}

// setListenErr records why the client does not listen (ListenErr).
func (c *Client) setListenErr(err error) {
	c.mu.Lock()
	c.listenErr = err
	c.mu.Unlock()
}

// ListenErr says why a client of the stateless revision does not hear of the server's
// changes through subscriptions/listen: the server refused it (the error wraps the
// server's *jsonrpc.Error; the client polls the lists it watches every PollInterval
// instead), or it failed too often in a row. It is nil while the client listens, and when
// it has no need to.
func (c *Client) ListenErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.listenErr
}

// listenRequest sends a subscriptions/listen request with filter, and returns when the
// subscription ends; acknowledged is called with the params of the server's
// acknowledgement, on the goroutine that reads the connection.
func (c *Client) listenRequest(ctx context.Context, filter map[string]any, acknowledged func(params []byte)) error {
	return c.call(ctx, c.revision(), methodListen, map[string]any{"notifications": filter}, nil, &OutgoingRequest{acknowledged: acknowledged})
}

// acknowledged hands notifications/subscriptions/acknowledged to the request it
// acknowledges (named by the subscription id in its _meta).
func (c *Client) acknowledged(params []byte) {
	id := rawParam(rawParam(params, "_meta"), metaSubscriptionID)
	c.mu.Lock()
	f := c.acks[string(id)]
	c.mu.Unlock()
	if f != nil {
		f(append([]byte(nil), params...))
	}
}

// changeSubscriptions adds or removes a resource of the client's subscriptions/listen, and
// waits (within ctx) until the server has acknowledged the new subscription: a call made
// next, which may change the resource, finds it in place.
func (c *Client) changeSubscriptions(ctx context.Context, uri string, on bool) error {
	c.mu.Lock()
	i := slices.Index(c.subscribed, uri)
	switch {
	case on && i < 0:
		c.subscribed = append(c.subscribed, uri)
	case !on && i >= 0:
		c.subscribed = slices.Delete(c.subscribed, i, i+1)
	default:
		c.mu.Unlock()
		return nil
	}
	c.mu.Unlock()
	if begun := c.startListening(); begun != nil {
		select {
		case <-begun:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}
