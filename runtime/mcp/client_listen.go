package mcp

import (
	"context"
	"errors"
	"slices"
	"time"
)

// In the stateless revision a server tells a client of changes only on the stream of a
// subscriptions/listen request (basic/patterns/subscriptions.mdx). A client keeps one open
// while it wants change notifications (a list callback is set, or it subscribed to a
// resource), with the filter they make, and opens it again, after a pause, if it drops.

// subscriber is the client's open subscriptions/listen request.
type subscriber struct {
	cancel context.CancelFunc
	done   chan struct{}
}

func (l *subscriber) stop() {
	l.cancel()
	<-l.done
}

// startListening opens the client's subscriptions/listen request, if it speaks the
// stateless revision and wants change notifications; it replaces one already open.
func (c *Client) startListening() {
	c.mu.Lock()
	old := c.listening
	c.listening = nil
	stateless, uris := c.server.Stateless, slices.Clone(c.subscribed)
	c.mu.Unlock()
	if old != nil {
		old.stop()
	}
	o := &c.opts
	if !stateless || o.ToolsChanged == nil && o.PromptsChanged == nil && o.ResourcesChanged == nil && len(uris) == 0 {
		return
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
	l := &subscriber{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(l.done)
		pause := 100 * time.Millisecond
		for ctx.Err() == nil {
			start := time.Now()
			err := c.request(ctx, methodListen, map[string]any{"notifications": filter}, nil)
			if ctx.Err() != nil || errors.Is(err, ErrClientClosed) {
				return
			}
			if err != nil {
				c.logger.Warn("mcp: the subscription to the server's changes ended; opening it again", "error", err.Error())
			}
			if time.Since(start) > time.Minute {
				pause = 100 * time.Millisecond // it lasted: a new drop starts the backoff again
			}
			select {
			case <-time.After(pause):
			case <-ctx.Done():
				return
			}
			pause = min(2*pause, 30*time.Second)
		}
	}()
	c.mu.Lock()
	c.listening = l
	c.mu.Unlock()
}

// changeSubscriptions adds or removes a resource of the client's subscriptions/listen.
func (c *Client) changeSubscriptions(uri string, on bool) error {
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
	c.startListening()
	return nil
}
