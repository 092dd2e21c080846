package oauth

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Where the client goes on a server's word. An authorization fetches and posts to URLs a
// server names (its resource metadata, its authorization server's metadata, registration
// and token endpoints): a hostile server on the internet could name the user's own machine
// or network (a router's admin page, a service on localhost, the cloud's metadata
// address), a request forgery from inside. So:
//
//   - the challenge's resource_metadata is on the MCP server's own origin, or https;
//   - every endpoint is https, or http on loopback (CheckEndpoint), redirects included;
//   - for an MCP server on the public internet, no request of its authorization connects to
//     a loopback, private, link-local or other non-public address, checked on the address
//     dialled, after the name is resolved (so a name that resolves there is caught too).
//     An MCP server that is itself on such an address (development, an intranet) may name
//     others there, and so may an authorization server the user configured a client for.
//     Where the MCP server is is the address the challenged request connected to, kept with
//     the token for its refreshes.
//
// The dial check needs Config.HTTPClient's transport to be an *http.Transport (the default
// is); with another RoundTripper the names are resolved and checked before each request,
// which a name that changes its address in between can get past. Through a proxy, the proxy
// resolves the name: then only addresses written as such, and localhost, are refused.

// isPublicAddr reports whether a is an address of the public internet: not loopback,
// private (RFC 1918, fc00::/7, the deprecated site-local fec0::/10), link-local
// (169.254.0.0/16, where clouds serve their metadata, fe80::/10), shared (100.64.0.0/10,
// carrier NAT and overlay networks), multicast or unspecified. An IPv6 address that
// carries an IPv4 address (NAT64, 6to4, Teredo, the IPv4-compatible and -translated forms)
// reaches that IPv4 address, and is judged as it.
func isPublicAddr(a netip.Addr) bool {
	a = a.Unmap()
	if a.Is6() {
		if v4, ok := embeddedIPv4(a); ok {
			return isPublicAddr(v4)
		}
		if siteLocal.Contains(a) || localNAT64.Contains(a) {
			return false
		}
	}
	return a.IsGlobalUnicast() && !a.IsPrivate() && !sharedSpace.Contains(a) && !thisNetwork.Contains(a)
}

// embeddedIPv4 is the IPv4 address an IPv6 address of a translation or tunnelling prefix
// leads to.
func embeddedIPv4(a netip.Addr) (netip.Addr, bool) {
	b := a.As16()
	switch {
	case wellKnownNAT64.Contains(a), ipv4Compatible.Contains(a), ipv4Translated.Contains(a):
		return netip.AddrFrom4([4]byte(b[12:16])), true
	case sixToFour.Contains(a):
		return netip.AddrFrom4([4]byte(b[2:6])), true
	case teredo.Contains(a): // the client's address, written inverted (RFC 4380 section 4)
		return netip.AddrFrom4([4]byte{^b[12], ^b[13], ^b[14], ^b[15]}), true
	}
	return netip.Addr{}, false
}

var (
	sharedSpace    = netip.MustParsePrefix("100.64.0.0/10")
	thisNetwork    = netip.MustParsePrefix("0.0.0.0/8")
	siteLocal      = netip.MustParsePrefix("fec0::/10")
	wellKnownNAT64 = netip.MustParsePrefix("64:ff9b::/96")    // RFC 6052
	localNAT64     = netip.MustParsePrefix("64:ff9b:1::/48")  // RFC 8215: a network's own translator
	ipv4Compatible = netip.MustParsePrefix("::/96")           // deprecated, RFC 4291
	ipv4Translated = netip.MustParsePrefix("::ffff:0:0:0/96") // SIIT, RFC 2765
	sixToFour      = netip.MustParsePrefix("2002::/16")       // RFC 3056
	teredo         = netip.MustParsePrefix("2001::/32")       // RFC 4380
)

// publicAddr is isPublicAddr; tests put another in its place.
var publicAddr = isPublicAddr

// reachedLocal reports whether a request to u went to a server on this machine or a
// non-public network, from the address its connection went to (remote, when the transport
// said): not from what u's name resolves to, which the server's owner decides and may
// answer differently to a second lookup. Through a proxy the server counts as public.
// Without an address (a RoundTripper that is not net/http's), only what u names as
// written counts: an address that is not public, or localhost.
func reachedLocal(u *url.URL, remote string, proxied bool) bool {
	if proxied {
		return false
	}
	if remote != "" {
		ap, err := netip.ParseAddrPort(remote)
		return err == nil && !publicAddr(ap.Addr())
	}
	if a, err := netip.ParseAddr(u.Hostname()); err == nil {
		return !publicAddr(a)
	}
	return loopbackHost(u.Hostname())
}

var errNotPublic = errors.New("not a public address")

// refusal is the error of a request refused because of where it would go.
func refusal(host string, err error) error {
	return fmt.Errorf("refused to connect to %s for a server on the public internet: %w", host, err)
}

// clients are the HTTP clients of authorizations: open, for a server on the user's machine
// or network (and the authorization servers the user configured), and guarded, for one on
// the public internet. Made once per Transport, from Config.HTTPClient.
type clients struct {
	once           sync.Once
	open, guarded  *http.Client
	proxyAddresses sync.Map // host:port of the proxies the guarded transport was told to use
}

// flowClient is the client of an authorization's requests.
func (t *Transport) flowClient(trusted bool) *http.Client {
	c := &t.clients
	c.once.Do(func() {
		base := t.Config.HTTPClient
		if base == nil {
			base = http.DefaultClient
		}
		redirect := func(req *http.Request, via []*http.Request) error {
			if err := CheckEndpoint(req.URL.String()); err != nil {
				return fmt.Errorf("redirected: %w", err)
			}
			if base.CheckRedirect != nil {
				return base.CheckRedirect(req, via)
			}
			if len(via) >= 10 {
				return errors.New("stopped after 10 redirects")
			}
			return nil
		}
		c.open = &http.Client{Transport: base.Transport, Jar: base.Jar, Timeout: base.Timeout, CheckRedirect: redirect}
		c.guarded = &http.Client{Transport: c.guard(base.Transport), Jar: base.Jar, Timeout: base.Timeout, CheckRedirect: redirect}
	})
	if trusted {
		return c.open
	}
	return c.guarded
}

// guard returns a RoundTripper like rt that connects to public addresses only.
func (c *clients) guard(rt http.RoundTripper) http.RoundTripper {
	if rt == nil {
		rt = http.DefaultTransport
	}
	ht, ok := rt.(*http.Transport)
	if !ok {
		return namesChecked{rt}
	}
	g := ht.Clone()
	g.DialTLSContext, g.DialTLS = nil, nil // TLS over the checked connection
	dial := g.DialContext
	if dial == nil {
		dial = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	}
	checked := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, Control: func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil || !publicAddr(ap.Addr()) {
			return refusal(address, errNotPublic)
		}
		return nil
	}}
	g.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if _, isProxy := c.proxyAddresses.Load(addr); isProxy {
			return dial(ctx, network, addr) // the user's proxy, which resolves the names
		}
		conn, err := checked.DialContext(ctx, network, addr)
		if err != nil && errors.Is(err, errNotPublic) {
			return nil, refusal(addr, errNotPublic)
		}
		return conn, err
	}
	if proxy := g.Proxy; proxy != nil {
		g.Proxy = func(req *http.Request) (*url.URL, error) {
			p, err := proxy(req)
			if p == nil || err != nil {
				return p, err
			}
			if h := req.URL.Hostname(); localName(h) || !namedPublic(h) {
				return nil, refusal(h, errNotPublic)
			}
			c.proxyAddresses.Store(canonicalAddr(p), true)
			return p, nil
		}
	}
	return g
}

// namedPublic reports whether a host, as written, is not an address outside the public
// internet.
func namedPublic(host string) bool {
	a, err := netip.ParseAddr(host)
	return err != nil || publicAddr(a)
}

// canonicalAddr is the host:port net/http dials for a proxy URL.
func canonicalAddr(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443", "socks5": "1080", "socks5h": "1080"}[strings.ToLower(u.Scheme)]
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// namesChecked is the guard of a RoundTripper whose dialling is its own: each request's
// host is resolved and checked first.
type namesChecked struct{ rt http.RoundTripper }

func (n namesChecked) RoundTrip(req *http.Request) (*http.Response, error) {
	h := req.URL.Hostname()
	if localName(h) || !namedPublic(h) {
		return nil, refusal(h, errNotPublic)
	}
	if _, err := netip.ParseAddr(h); err != nil {
		addrs, err := net.DefaultResolver.LookupNetIP(req.Context(), "ip", h)
		if err == nil {
			for _, a := range addrs {
				if !publicAddr(a) {
					return nil, refusal(h, errNotPublic)
				}
			}
		}
	}
	return n.rt.RoundTrip(req)
}
