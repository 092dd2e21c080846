package mcp

import (
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// The checks every request to the MCP endpoint passes first: the Host and Origin headers
// against DNS rebinding, and the CORS headers a browser on an allowed origin needs.

// cors gives a browser on an allowed origin what it needs to talk to the endpoint and to
// read the session id.
func (h *HTTPHandler) cors(w http.ResponseWriter, r *http.Request) {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return
	}
	hd := w.Header()
	hd.Set("Access-Control-Allow-Origin", origin)
	hd.Add("Vary", "Origin")
	hd.Set("Access-Control-Expose-Headers", "Mcp-Session-Id")
	if r.Method == http.MethodOptions {
		hd.Set("Access-Control-Allow-Methods", "GET, POST, DELETE")
		// Mcp-Param-* headers are named by the tools: a preflight's list is echoed.
		allowed := "Content-Type, Accept, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID, Mcp-Method, Mcp-Name"
		if asked := r.Header.Get("Access-Control-Request-Headers"); asked != "" {
			allowed += ", " + asked
		}
		hd.Set("Access-Control-Allow-Headers", allowed)
		hd.Set("Access-Control-Max-Age", "86400")
	}
}

// hostForbidden checks the Host header, first thing for every request: a web page must not
// reach a server on the local machine through a name it controls (DNS rebinding), and a
// protected server without AuthOptions.Resource names itself after the Host header.
func (h *HTTPHandler) hostForbidden(r *http.Request) string {
	if !h.hostAllowed(r.Host) {
		return "forbidden: host " + r.Host + " is not allowed (see HTTPOptions.AllowedHosts)"
	}
	return ""
}

// forbidden checks the Origin header of a request to the MCP endpoint, against DNS
// rebinding too (its Host passed hostForbidden).
func (h *HTTPHandler) forbidden(r *http.Request) string {
	if origin := r.Header.Get("Origin"); origin != "" && !h.originAllowed(origin) {
		return "forbidden: origin " + origin + " is not allowed (see HTTPOptions.AllowedOrigins)"
	}
	return ""
}

func isLoopbackName(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback() // 127.0.0.0/8 and ::1
}

func (h *HTTPHandler) hostAllowed(host string) bool {
	if slices.Contains(h.opts.AllowedHosts, "*") || slices.Contains(h.opts.AllowedHosts, host) {
		return true
	}
	name := host
	if n, _, err := net.SplitHostPort(host); err == nil {
		name = n
	}
	return isLoopbackName(strings.Trim(name, "[]")) || slices.Contains(h.opts.AllowedHosts, name)
}

func (h *HTTPHandler) originAllowed(origin string) bool {
	if slices.Contains(h.opts.AllowedOrigins, "*") || slices.Contains(h.opts.AllowedOrigins, origin) {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && isLoopbackName(u.Hostname())
}
