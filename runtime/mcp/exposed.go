package mcp

import (
	"net"
	"net/http"
)

// The Host and Origin checks (guard.hostAllowed, guard.originAllowed) keep a web page from
// reaching a server on this machine through a name it controls (DNS rebinding). They do
// not keep the network out: on a listener other machines reach, any client may send
// "Host: localhost". A server that listens there without protection (HTTPOptions.Auth, or
// a verified caller from a guard in front) serves everyone who can reach it. That may be
// meant (a container behind a proxy that checks its callers), so it is said once, as a
// warning, rather than refused: by ServeHTTPListener for its listener as it starts, and by
// the guard (HTTPHandler's, GuardHTTP's) for the first request that arrives on such an
// address.

// exposed reports whether addr is one other machines may reach: a TCP address that is not
// loopback, the unspecified one (every interface) among them.
func exposed(addr net.Addr) bool {
	tcp, ok := addr.(*net.TCPAddr)
	return ok && !tcp.IP.IsLoopback()
}

// warnIfExposed warns, once per guard, when addr is exposed and nothing protects what the
// guard guards.
func (g *guard) warnIfExposed(addr net.Addr, r *http.Request) {
	if g.opts.Auth != nil || addr == nil || !exposed(addr) || r != nil && AuthInfoFrom(r.Context()) != nil {
		return
	}
	g.exposed.Do(func() {
		g.logger.Warn("mcp: serving on " + addr.String() + " without HTTPOptions.Auth: any client that can reach this address can use the server. " +
			"The Host and Origin checks keep web pages out (DNS rebinding), not the network: a client anywhere may send Host: localhost. " +
			"Listen on 127.0.0.1, or protect the server")
	})
}

// localAddr is the address a request arrived on, as its server says.
func localAddr(r *http.Request) net.Addr {
	a, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	return a
}
