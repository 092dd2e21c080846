package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp/internal/sse"
)

// StreamableHTTPTransport reaches a server at its MCP endpoint over Streamable HTTP: every
// message a POST, answered with JSON or an SSE stream; in a session (2025-03-26 to
// 2025-11-25), the Mcp-Session-Id header, the GET stream for the server's own messages,
// resumption with Last-Event-ID, and DELETE on Close; in the stateless revision, the
// request's metadata mirrored into headers. A server that offers only the HTTP+SSE transport
// of 2024-11-05 is reached that way instead, as the 2025-03-26 revision's backwards
// compatibility section says clients do.
type StreamableHTTPTransport struct {
	URL string
	// HTTPClient sends the requests; the default has no timeout (streams last), and uses
	// the environment's proxy settings as net/http does. Redirects are followed as the
	// client's policy says, and with a Header never to another origin.
	HTTPClient *http.Client
	// Header is added to every request: an API key, say. It goes to the URL's origin only:
	// a redirect to another origin fails the request.
	Header http.Header
	// NoSSEFallback keeps the transport from trying the HTTP+SSE transport when the URL
	// answers initialize with 400, 404 or 405.
	NoSSEFallback bool
	// MaxMessageSize bounds one message from the server, in bytes; the default is 64 MiB.
	MaxMessageSize int
}

// HTTPError is an HTTP answer that is not MCP's: a status whose body holds no JSON-RPC
// response.
type HTTPError struct {
	Method string // of the MCP request, or "" for a notification
	URL    string
	Status int
	Body   string // the start of the body
}

func (e *HTTPError) Error() string {
	what := "POST " + e.URL
	if e.Method != "" {
		what += " (" + e.Method + ")"
	}
	msg := fmt.Sprintf("%s: HTTP %d %s", what, e.Status, http.StatusText(e.Status))
	if e.Body != "" {
		msg += ": " + e.Body
	}
	return msg
}

// ErrSessionExpired is returned by the requests of a client whose server ended its session
// (HTTP 404 for the session id): the client must connect again.
var ErrSessionExpired = errors.New("mcp: the server ended the session")

var defaultHTTPClient = &http.Client{Transport: http.DefaultTransport}

type httpConn struct {
	t    *StreamableHTTPTransport
	hc   *http.Client
	in   *inbox // what the server says, for Read
	max  int
	ctx  context.Context // ends with close: background reading stops
	stop context.CancelFunc
	wg   sync.WaitGroup // the goroutines that read streams

	mu        sync.Mutex
	session   string
	version   string
	stateless bool
	legacy    *legacyConn // once the server turned out to offer HTTP+SSE only
	expired   bool
}

// Connect returns a connection to the endpoint; it sends nothing yet.
func (t *StreamableHTTPTransport) Connect(ctx context.Context) (Connection, error) {
	if t.URL == "" {
		return nil, errors.New("mcp: StreamableHTTPTransport has no URL")
	}
	c := &httpConn{t: t, hc: t.HTTPClient, max: t.MaxMessageSize}
	if c.hc == nil {
		c.hc = defaultHTTPClient
	}
	c.hc = headersStayHome(c.hc, t.Header)
	if c.max <= 0 {
		c.max = 64 << 20
	}
	c.in = newInbox(inboxBytes)
	c.ctx, c.stop = context.WithCancel(context.Background())
	return c, nil
}

// headersStayHome is hc, or, when the transport sends headers of its own (an API key from
// .mcp.json or -H), a copy of hc that follows no redirect to another origin than the one
// redirected from: net/http sends every header but Authorization, Cookie and
// WWW-Authenticate on to wherever a redirect points, and these are meant for the server.
func headersStayHome(hc *http.Client, header http.Header) *http.Client {
	if len(header) == 0 {
		return hc
	}
	c := *hc
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if from := via[len(via)-1].URL; !sameOrigin(req.URL, from) {
			return fmt.Errorf("redirected from %s to %s, another origin: the client's headers go to the server's origin only", from.Redacted(), req.URL.Redacted())
		}
		if hc.CheckRedirect != nil {
			return hc.CheckRedirect(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &c
}

// Read returns the next message of the server's: from the answers to POSTs and from the
// streams, as they come.
func (c *httpConn) Read(ctx context.Context) ([]byte, error) { return c.in.Read(ctx) }

// Write POSTs a message (a notification, an answer of the client's; a request written
// with Write carries no headers of its own).
func (c *httpConn) Write(ctx context.Context, msg []byte) error { return c.send(ctx, msg, nil) }

// TransportName and String describe the connection to the client (Message.Transport, logs).
func (c *httpConn) TransportName() string { return TransportHTTP }
func (c *httpConn) String() string        { return c.t.URL }

// WriteRequest POSTs a request, with the headers that describe it (RequestConn).
func (c *httpConn) WriteRequest(ctx context.Context, msg []byte, rq *OutgoingRequest) error {
	return c.send(ctx, msg, rq)
}

// CarriesHeaders: until the server turned out to offer HTTP+SSE only.
func (c *httpConn) CarriesHeaders() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.legacy == nil
}

// Negotiated settles the headers of the messages that follow, and opens the session's GET
// stream.
func (c *httpConn) Negotiated(version string, stateless bool) {
	c.mu.Lock()
	c.version, c.stateless = version, stateless
	listen := !stateless && c.legacy == nil && c.session != ""
	c.mu.Unlock()
	if listen {
		c.wg.Add(1)
		go c.listen()
	}
}

// newRequest builds a request to the endpoint with the headers every request carries.
func (c *httpConn) newRequest(ctx context.Context, method string, body []byte, rq *OutgoingRequest) (*http.Request, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.t.URL, r)
	if err != nil {
		return nil, err
	}
	addHeader(req, c.t.Header)
	// A stateless request carries its own revision; any other message the session's,
	// once initialize settled it (initialize and a ping before it carry none).
	c.mu.Lock()
	session, version, stateless := c.session, c.version, c.stateless
	c.mu.Unlock()
	if rq != nil && rq.rev.stateless() {
		version, stateless = rq.rev.String(), true
	}
	if session != "" && !stateless {
		req.Header.Set("Mcp-Session-Id", session)
	}
	if version != "" {
		req.Header.Set("Mcp-Protocol-Version", version)
	}
	if rq != nil && stateless {
		req.Header.Set("Mcp-Method", rq.method)
		if row := methods[rq.method]; row != nil && row.nameParam != "" {
			req.Header.Set("Mcp-Name", encodeHeaderValue(rq.name))
		}
		for _, h := range rq.params {
			req.Header.Set(h[0], h[1])
		}
	}
	return req, nil
}

func (c *httpConn) send(ctx context.Context, msg []byte, rq *OutgoingRequest) error {
	c.mu.Lock()
	legacy, stateless, expired := c.legacy, c.stateless, c.expired
	c.mu.Unlock()
	switch {
	case legacy != nil:
		return legacy.send(ctx, msg)
	case expired:
		return ErrSessionExpired
	case rq != nil && rq.method == notificationCancelled && stateless:
		// Closing a stateless request's stream cancels it; there is no notification.
		return nil
	}
	if rq != nil && rq.id == nil {
		rq = nil // a notification: no answer to wait for
	}
	// A request's stream is read until its response, or until its caller gives up (then
	// the stream is closed, which cancels a stateless request), or the client closes. The
	// POST of anything else (a notification, an answer of the client's) is waited for as
	// long as its caller waits; a stream it is answered with is read as long as the client
	// lasts.
	rctx, cancel := context.WithCancel(ctx)
	callerGone := func() bool { return false }
	if rq == nil {
		rctx, cancel = context.WithCancel(c.ctx)
		callerGone = context.AfterFunc(ctx, cancel)
	}
	unlink := context.AfterFunc(c.ctx, cancel)
	release := func() {
		unlink()
		callerGone()
		cancel()
	}
	req, err := c.newRequest(rctx, http.MethodPost, msg, rq)
	if err != nil {
		release()
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := c.hc.Do(req)
	if err != nil {
		release()
		return transportFailure(fmt.Errorf("POST %s: %w", c.t.URL, httpFailure(err)))
	}
	if rq != nil && rq.method == methodInitialize {
		if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
			c.mu.Lock()
			c.session = id
			c.mu.Unlock()
		}
	}
	done := func() {
		resp.Body.Close()
		release()
	}
	mt := mediaType(resp.Header.Get("Content-Type"))
	switch {
	case resp.StatusCode == http.StatusAccepted:
		done()
		if rq != nil {
			c.in.noResponse(rq, fmt.Errorf("mcp: %s: the server accepted the request (HTTP 202) without answering it", rq.method))
		}
		return nil
	case resp.StatusCode/100 == 2 && mt == "text/event-stream":
		callerGone()
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			defer done()
			c.readResponseStream(rctx, resp.Body, rq)
		}()
		return nil
	case resp.StatusCode/100 == 2:
		defer done()
		if rq == nil {
			// The server took the message, and owes no answer: its body, which a server
			// that never ends it would make the caller wait for, is read only as far as
			// a short one goes.
			t := time.AfterFunc(drainTimeout, cancel)
			body, err := readBody(resp.Body, c.max)
			t.Stop()
			if body = bytes.TrimSpace(body); err == nil && len(body) > 0 {
				c.in.deliver(body)
			}
			return nil
		}
		body, err := readBody(resp.Body, c.max)
		if err != nil {
			return transportFailure(fmt.Errorf("POST %s: reading the answer: %w", c.t.URL, err))
		}
		body = bytes.TrimSpace(body)
		if len(body) > 0 && c.in.idle() && rq.Answer(body) {
			// The common case: the caller has its answer without a hop through Read.
			// (Not while Read has messages queued: they were read first.)
			return nil
		}
		responds := answers(body, rq.id) // before Read has it, and the caller goes on
		if len(body) > 0 {
			c.in.deliver(body)
		}
		switch {
		case responds:
		case len(body) == 0:
			c.in.noResponse(rq, fmt.Errorf("mcp: %s: the server answered with an empty body", rq.method))
		default:
			// The body is all there is: the response is not coming.
			c.in.noResponse(rq, notTheResponse(rq, "a body", body))
		}
		return nil
	}
	defer done()
	body, _ := readBody(resp.Body, 64<<10)
	// A JSON-RPC error for the request is the server's answer, whatever the status (the
	// stateless revision's errors come with 400 and 404).
	if rq != nil && answers(body, rq.id) {
		c.in.deliver(body)
		return nil
	}
	c.mu.Lock()
	sessionGone := resp.StatusCode == http.StatusNotFound && c.session != "" && !c.stateless
	if sessionGone {
		c.expired = true
	}
	c.mu.Unlock()
	if sessionGone {
		c.in.broken(ErrSessionExpired)
		return ErrSessionExpired
	}
	herr := &HTTPError{URL: c.t.URL, Status: resp.StatusCode, Body: string(clip(bytes.TrimSpace(body), 300))}
	if rq != nil {
		herr.Method = rq.method
		if rq.method == methodInitialize && !c.t.NoSSEFallback && (resp.StatusCode == 400 || resp.StatusCode == 404 || resp.StatusCode == 405) {
			if legacy, err := c.fallBack(ctx); err == nil {
				return legacy.send(ctx, msg)
			}
		}
	}
	return herr
}

// mediaType is the media type of a Content-Type header, lower case, without parameters.
// The two a server answers with are taken as they are: mime.ParseMediaType allocates a map
// for every header.
func mediaType(contentType string) string {
	if contentType == "application/json" || contentType == "text/event-stream" {
		return contentType
	}
	mt, _, _ := mime.ParseMediaType(contentType)
	return mt
}

// answers reports whether body is a JSON-RPC response to the request with this id.
func answers(body, id []byte) bool {
	m, err := parser.Parse(bytes.TrimSpace(body))
	return err == nil && m.IsResponse() && bytes.Equal(m.ID, id)
}

// drainTimeout bounds the reading of a POST's answer whose content the client does not
// need: a well-behaved server's is short (202 Accepted), and read to the end so that the
// connection is reused; a server that never ends it holds no caller longer than this.
const drainTimeout = time.Second

// notTheResponse is the error of a request whose POST was answered with msg (what says
// what it was: a body, an event) where the response should have been.
func notTheResponse(rq *OutgoingRequest, what string, msg []byte) error {
	if m, err := parser.Parse(msg); err != nil && unanswerable(&m) {
		return fmt.Errorf("mcp: %s: the server answered POST with %s that is not JSON-RPC: %q", rq.method, what, clip(msg, 100))
	}
	return fmt.Errorf("mcp: %s: the server answered POST with %s that is not the response to the request: %q", rq.method, what, clip(msg, 100))
}

// readBody reads a body of at most max bytes into a slice of its own size. It reads into a
// buffer kept for the next body and copies once: io.ReadAll, growing its slice as it read,
// allocated twice a body's size and more in several slices, for every answer.
func readBody(r io.Reader, max int) ([]byte, error) {
	buf := bodyBuffers.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= maxKeptBodyBuffer {
			buf.Reset()
			bodyBuffers.Put(buf)
		}
	}()
	_, err := buf.ReadFrom(io.LimitReader(r, int64(max)+1))
	if err == nil && buf.Len() > max {
		err = fmt.Errorf("a message larger than %d bytes", max)
	}
	return bytes.Clone(buf.Bytes()), err
}

var bodyBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxKeptBodyBuffer is the largest buffer readBody keeps for the next body.
const maxKeptBodyBuffer = 1 << 20

// readResponseStream hands the messages of a request's SSE stream to the client. A stream
// that ends before the response is resumed (GET with Last-Event-ID) if the server gave an
// event id and the session allows it: at once if the connection broke, after the server's
// retry interval if the server closed it (to be polled). A server that cannot be reached
// any more fails the request at once.
func (c *httpConn) readResponseStream(ctx context.Context, body io.Reader, rq *OutgoingRequest) {
	r := sse.NewReader(body, c.max)
	answered, err := c.deliverStream(r, rq)
	for attempt := 0; rq != nil && !answered; attempt++ {
		if ctx.Err() != nil {
			return // the caller gave up, or the client closed
		}
		c.mu.Lock()
		resumable := r.HasID && c.session != "" && !c.stateless && c.legacy == nil
		c.mu.Unlock()
		if !resumable || attempt == 5 {
			c.in.noResponse(rq, transportFailure(fmt.Errorf("mcp: %s: the stream ended before the response: %v", rq.method, cause(err))))
			return
		}
		if err == io.EOF { // the server closed the stream: it asks to be polled
			pause := r.Retry
			if pause <= 0 {
				pause = time.Second
			}
			select {
			case <-time.After(pause):
			case <-ctx.Done():
				return
			}
		}
		resp, gerr := c.get(ctx, r.LastID)
		if gerr != nil {
			var herr *HTTPError
			if !errors.As(gerr, &herr) || herr.Status == http.StatusNotFound {
				c.in.noResponse(rq, transportFailure(fmt.Errorf("mcp: %s: resuming the stream: %w", rq.method, gerr)))
				return
			}
			err = io.EOF
			continue
		}
		next := sse.NewReader(resp.Body, c.max)
		next.LastID, next.HasID, next.Retry = r.LastID, r.HasID, r.Retry
		answered, err = c.deliverStream(next, rq)
		resp.Body.Close()
		r = next
	}
}

// cause says why a stream ended.
func cause(err error) string {
	if err == io.EOF {
		return "the server closed it"
	}
	return err.Error()
}

// deliverStream hands the events of a stream to the client until it ends, and reports
// whether rq has its outcome (its response was among them, or an event that is not
// JSON-RPC, which fails it: the server is broken), or why the stream ended.
func (c *httpConn) deliverStream(r *sse.Reader, rq *OutgoingRequest) (bool, error) {
	for {
		ev, err := r.Next()
		if err != nil {
			return false, err
		}
		if ev.Name != "" && ev.Name != "message" {
			continue
		}
		data := bytes.TrimSpace(ev.Data)
		if len(data) == 0 {
			continue
		}
		var m jsonrpc.Message
		var perr *jsonrpc.Error
		if rq != nil {
			m, perr = parser.Parse(data)
		}
		responded := rq != nil && perr == nil && m.IsResponse() && bytes.Equal(m.ID, rq.id)
		broken := rq != nil && perr != nil && unanswerable(&m)
		c.in.deliver(data)
		switch {
		case responded:
			return true, nil
		case broken:
			// Whatever else the stream holds, it comes from a server that is broken:
			// the request fails now rather than wait for more (which may never end).
			c.in.noResponse(rq, notTheResponse(rq, "an event", data))
			return true, nil
		}
	}
}

// get opens the session's GET stream, from after lastID if set.
func (c *httpConn) get(ctx context.Context, lastID string) (*http.Response, error) {
	req, err := c.newRequest(ctx, http.MethodGet, nil, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	mt := mediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode != http.StatusOK || mt != "text/event-stream" {
		resp.Body.Close()
		return nil, &HTTPError{URL: c.t.URL, Status: resp.StatusCode}
	}
	return resp, nil
}

// listen keeps the session's GET stream open, for the messages of the server's that belong
// to no request: it reopens a stream that drops, after a pause that grows, resuming after
// the last event. A server without one (405) has nothing to say there.
func (c *httpConn) listen() {
	defer c.wg.Done()
	lastID := ""
	pause := 500 * time.Millisecond
	for c.ctx.Err() == nil {
		resp, err := c.get(c.ctx, lastID)
		var herr *HTTPError
		switch {
		case errors.As(err, &herr) && (herr.Status == http.StatusMethodNotAllowed || herr.Status == http.StatusNotFound):
			return
		case err == nil:
			r := sse.NewReader(resp.Body, c.max)
			r.LastID = lastID
			start := time.Now()
			c.deliverStream(r, nil)
			resp.Body.Close()
			lastID = r.LastID
			if r.Retry > 0 {
				pause = r.Retry
			}
			if time.Since(start) > time.Minute {
				pause = 500 * time.Millisecond
			}
		}
		select {
		case <-time.After(pause):
		case <-c.ctx.Done():
			return
		}
		pause = min(2*pause, 30*time.Second)
	}
}

// Close ends the session (DELETE), stops reading, and waits for the readers.
func (c *httpConn) Close() error {
	c.in.close()
	c.mu.Lock()
	session, legacy, stateless := c.session, c.legacy, c.stateless
	c.mu.Unlock()
	c.stop()
	if legacy != nil {
		legacy.close()
	}
	if session != "" && !stateless && legacy == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if req, err := c.newRequest(ctx, http.MethodDelete, nil, nil); err == nil {
			if resp, err := c.hc.Do(req); err == nil {
				resp.Body.Close()
			}
		}
		cancel()
	}
	c.wg.Wait()
	return nil
}

// fallBack opens the HTTP+SSE transport at the URL, for a server that offers only that.
func (c *httpConn) fallBack(ctx context.Context) (*legacyConn, error) {
	l, err := openLegacy(ctx, c.t.URL, c.hc, c.t.Header, c.in, c.max)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.legacy = l
	c.mu.Unlock()
	return l, nil
}

// SessionID is the session's id, once the server gave one (Message.SessionID).
func (c *httpConn) SessionID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stateless || c.legacy != nil {
		return ""
	}
	return c.session
}
