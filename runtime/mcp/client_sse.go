package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp/internal/sse"
)

// The client's side of the HTTP+SSE transport of revision 2024-11-05: for servers that offer
// only that, reached directly (SSETransport) or when a Streamable HTTP URL turns out to be
// one (httpConn.fallBack).

// SSETransport reaches a server over the HTTP+SSE transport of revision 2024-11-05: a GET of
// URL opens the stream on which every message of the server's comes; its first event names
// the endpoint the client POSTs its own messages to.
type SSETransport struct {
	URL            string
	HTTPClient     *http.Client
	Header         http.Header
	MaxMessageSize int
}

// Connect opens the stream and waits (as long as ctx lets it) for the endpoint event.
func (t *SSETransport) Connect(ctx context.Context) (Connection, error) {
	if t.URL == "" {
		return nil, errors.New("mcp: SSETransport has no URL")
	}
	hc := t.HTTPClient
	if hc == nil {
		hc = defaultHTTPClient
	}
	hc = headersStayHome(hc, t.Header)
	max := t.MaxMessageSize
	if max <= 0 {
		max = 64 << 20
	}
	in := newInbox(inboxBytes)
	l, err := openLegacy(ctx, t.URL, hc, t.Header, in, max)
	if err != nil {
		return nil, err
	}
	return legacyClientConn{l, in}, nil
}

// legacyClientConn is a legacyConn as a client's connection.
type legacyClientConn struct {
	*legacyConn
	in *inbox
}

func (l legacyClientConn) TransportName() string { return TransportSSE }
func (l legacyClientConn) String() string        { return l.url }

func (l legacyClientConn) Read(ctx context.Context) ([]byte, error)    { return l.in.Read(ctx) }
func (l legacyClientConn) Write(ctx context.Context, msg []byte) error { return l.send(ctx, msg) }

func (l legacyClientConn) Close() error {
	l.in.close()
	return l.close()
}

// legacyConn is a connection of the HTTP+SSE transport.
type legacyConn struct {
	url      string
	endpoint string
	hc       *http.Client
	header   http.Header
	cancel   context.CancelFunc
	done     chan struct{} // closed when the stream has been read to its end
}

// openLegacy opens the stream of the HTTP+SSE transport and waits (as long as ctx lets it)
// for its endpoint event; then it reads the stream until close.
func openLegacy(ctx context.Context, url string, hc *http.Client, header http.Header, sink *inbox, max int) (*legacyConn, error) {
	sctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(sctx, http.MethodGet, url, nil)
	if err != nil {
		cancel()
		return nil, err
	}
	addHeader(req, header)
	req.Header.Set("Accept", "text/event-stream")
	stopWaiting := context.AfterFunc(ctx, cancel) // until the endpoint event, Connect's context rules
	resp, err := hc.Do(req)
	if err != nil {
		stopWaiting()
		cancel()
		return nil, transportFailure(fmt.Errorf("GET %s: %w", url, httpFailure(err)))
	}
	mt := mediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode != http.StatusOK || mt != "text/event-stream" {
		body, _ := readBody(resp.Body, 4<<10)
		resp.Body.Close()
		stopWaiting()
		cancel()
		return nil, &HTTPError{URL: url, Status: resp.StatusCode, Body: string(clip(bytes.TrimSpace(body), 300))}
	}
	r := sse.NewReader(resp.Body, max)
	ev, err := r.Next()
	stopped := stopWaiting()
	if err != nil || ev.Name != "endpoint" || !stopped {
		resp.Body.Close()
		cancel()
		if err == nil {
			err = fmt.Errorf("the first event is %q, not the endpoint", ev.Name)
		}
		return nil, transportFailure(fmt.Errorf("GET %s: not an HTTP+SSE stream: %w", url, err))
	}
	endpoint, err := resp.Request.URL.Parse(strings.TrimSpace(string(ev.Data)))
	if given, perr := neturl.Parse(url); err == nil && (perr != nil || !sameOrigin(endpoint, given)) {
		// Every message would go to the endpoint with the client's headers (a token, say),
		// which are meant for the server the client was given.
		err = errors.New("it is on another origin than the server's; the client posts its messages, and its headers, to the origin of its URL only")
	}
	if err != nil {
		resp.Body.Close()
		cancel()
		return nil, fmt.Errorf("GET %s: the endpoint %q: %w", url, ev.Data, err)
	}
	l := &legacyConn{url: url, endpoint: endpoint.String(), hc: hc, header: header, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(l.done)
		defer resp.Body.Close()
		for {
			ev, err := r.Next()
			if err != nil {
				if sctx.Err() == nil {
					sink.broken(transportFailure(fmt.Errorf("the server closed its HTTP+SSE stream (%s): %w", url, err)))
				}
				return
			}
			if (ev.Name == "" || ev.Name == "message") && len(bytes.TrimSpace(ev.Data)) > 0 {
				sink.deliver(bytes.TrimSpace(ev.Data))
			}
		}
	}()
	return l, nil
}

// send posts a message to the endpoint. Its answer says only whether the server took it
// (the response to a request comes on the stream): the wait for its status is the caller's,
// and its body is read only as far as a short one goes (drainTimeout), so that a server that
// never ends it holds no caller, nor the response the stream has already brought.
func (l *legacyConn) send(ctx context.Context, msg []byte) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.endpoint, bytes.NewReader(msg))
	if err != nil {
		return err
	}
	addHeader(req, l.header)
	req.Header.Set("Content-Type", "application/json")
	resp, err := l.hc.Do(req)
	if err != nil {
		return transportFailure(fmt.Errorf("POST %s: %w", l.endpoint, httpFailure(err)))
	}
	defer resp.Body.Close()
	t := time.AfterFunc(drainTimeout, cancel)
	defer t.Stop()
	if resp.StatusCode/100 != 2 {
		body, _ := readBody(resp.Body, 4<<10)
		return &HTTPError{URL: l.endpoint, Status: resp.StatusCode, Body: string(clip(bytes.TrimSpace(body), 300))}
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return nil
}

func (l *legacyConn) close() error {
	l.cancel()
	<-l.done
	return nil
}

// addHeader adds the transport's own headers (Header) to a request, copied.
func addHeader(req *http.Request, h http.Header) {
	for k, vs := range h {
		req.Header[k] = append([]string(nil), vs...)
	}
}

// sameOrigin reports whether two URLs have the same origin: scheme, host and port (an
// omitted port being the scheme's).
func sameOrigin(a, b *neturl.URL) bool {
	port := func(u *neturl.URL) string {
		if p := u.Port(); p != "" {
			return p
		}
		if strings.EqualFold(u.Scheme, "https") {
			return "443"
		}
		return "80"
	}
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}
