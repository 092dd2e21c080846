package oauth

import (
	"fmt"
	"net/netip"
	"net/url"
	"strings"
)

// Endpoints a server names are used only over https, or over http to this machine's
// loopback (development, and the loopback redirect of RFC 8252): the MCP authorization page
// has every authorization server endpoint served over HTTPS, and anything else (file:,
// javascript:, a custom scheme) handed to the system's URL opener is the class of
// CVE-2025-6514.

// CheckEndpoint returns an error unless raw is an absolute https URL, or an http URL whose
// host is a loopback address (127.0.0.0/8, ::1) or exactly localhost, with a host, without user
// information or a fragment, and written only with the characters RFC 3986 lets a URL
// have (so that no URL opener, shell or argument parser reads it as anything but one URL).
// The client checks every endpoint a resource's or an authorization server's metadata
// names with it before using it, and every URL before it goes to the browser; protect
// checks its JWKS and introspection URLs with it.
func CheckEndpoint(raw string) error {
	for i := 0; i < len(raw); i++ {
		if !uriChar(raw[i]) {
			return fmt.Errorf("%q holds %q, which a URL writes percent-encoded", raw, raw[i])
		}
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return fmt.Errorf("%q is not a URL: %v", raw, err)
	case u.Scheme != "https" && u.Scheme != "http":
		return fmt.Errorf("%q is not an https URL", raw)
	case u.Host == "" || u.Hostname() == "":
		return fmt.Errorf("%q has no host", raw)
	case u.User != nil:
		return fmt.Errorf("%q carries user information", raw)
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return fmt.Errorf("%q has a fragment", raw)
	case u.Scheme == "http" && !loopbackHost(u.Hostname()):
		return fmt.Errorf("%q is plain http to another machine: only https, or http to this machine's loopback, is used", raw)
	}
	return nil
}

// loopbackHost reports whether a URL's host is this machine's loopback for certain: an
// address of 127.0.0.0/8 or ::1, or exactly localhost, which the system's hosts file
// names. Other names under localhost (RFC 6761) are not: Go's resolver asks the network's
// DNS server for "localhost." and "app.localhost", and whoever answers it would decide
// where a plain http request goes.
func loopbackHost(h string) bool {
	if a, err := netip.ParseAddr(h); err == nil {
		return a.Unmap().IsLoopback()
	}
	return strings.EqualFold(h, "localhost")
}

// localName reports whether a host name says this machine (localhost, and the names under
// it), however it resolves: what a server on the internet may not name.
func localName(h string) bool {
	h = strings.ToLower(strings.TrimSuffix(h, "."))
	return h == "localhost" || strings.HasSuffix(h, ".localhost")
}

// uriChar reports whether c may appear as itself in a URI (RFC 3986 section 2: unreserved,
// reserved and the % of percent-encoding).
func uriChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~:/?#[]@!$&'()*+,;=%", c) >= 0
}
