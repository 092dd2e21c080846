package mcp

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// The checks every HTTP request passes before anything reads its body or looks at what it
// asks: the body's deadline, the Host and Origin headers against DNS rebinding, the bearer
// token of a protected server (and its protected resource metadata), and the CORS headers
// a browser on an allowed origin needs. HTTPHandler runs them first; GuardHTTP puts them in
// front of another transport's handler.

// guard holds what the checks need of the options.
type guard struct {
	opts     *HTTPOptions // with their defaults
	dpopAlgs []string     // the algorithms DPoP proofs may be signed with; none: DPoP is not taken
	logger   *slog.Logger
	exposed  sync.Once // warns of serving the network unprotected (exposed.go)
}

func newGuard(opts *HTTPOptions, logger *slog.Logger) *guard {
	g := &guard{opts: opts, logger: logger}
	if opts.Auth != nil {
		if v, ok := opts.Auth.Verifier.(DPoPVerifier); ok {
			g.dpopAlgs = slices.Clone(v.DPoPAlgorithms())
		}
	}
	return g
}

// GuardHTTP puts the checks HTTPHandler makes of every request in front of next, for a
// transport of its own served beside it (a WebSocket handler, say), with the same options:
// the body must arrive within BodyTimeout; the Host must be the local machine's or one of
// AllowedHosts, and the Origin, if any, the local machine's or one of AllowedOrigins (else
// 403); a browser on an allowed origin gets its CORS headers. With opts.Auth, every request
// but a CORS preflight needs an access token the verifier accepts (else 401 and a
// challenge, or 503 when the verifier cannot decide), next finds the caller in the
// request's context (AuthInfoFrom), and the protected resource metadata is served at
// /.well-known/oauth-protected-resource (a program mounts that path on GuardHTTP's handler
// too). Scopes are not checked here: they depend on the message, which the server's door
// checks per message (ServeConn), whatever the transport. opts may be nil; bad Auth options
// panic, as they do in HTTPHandler.
func GuardHTTP(opts *HTTPOptions, next http.Handler) http.Handler {
	if err := opts.authProblem(); err != nil {
		panic(err)
	}
	o := withHTTPDefaults(opts)
	g := newGuard(&o, slog.Default())
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r, ok := g.check(w, r); ok {
			next.ServeHTTP(w, r)
		}
	})
}

// check runs the checks, in the order in which they must come: the body's deadline before
// anything can answer, the Host before anything is told (a protected server names itself
// after it), the token before the Origin. It answers a request that fails one itself. The
// request it returns carries the verified caller.
func (g *guard) check(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	g.bodyDeadline(w, r)
	g.warnIfExposed(localAddr(r), r)
	if !g.hostAllowed(r.Host) {
		httpError(w, http.StatusForbidden, jsonrpc.CodeInvalidRequest, "forbidden: host "+r.Host+" is not allowed (see HTTPOptions.AllowedHosts)")
		return nil, false
	}
	if g.opts.Auth != nil {
		if strings.HasPrefix(r.URL.Path, "/.well-known/oauth-protected-resource") {
			g.serveResourceMetadata(w, r)
			return nil, false
		}
		if r.Method != http.MethodOptions {
			if r = g.authenticate(w, r); r == nil {
				return nil, false
			}
		}
	}
	if origin := r.Header.Get("Origin"); origin != "" && !g.originAllowed(origin) {
		httpError(w, http.StatusForbidden, jsonrpc.CodeInvalidRequest, "forbidden: origin "+origin+" is not allowed (see HTTPOptions.AllowedOrigins)")
		return nil, false
	}
	g.cors(w, r)
	return r, true
}

// bodyDeadline gives a request's body BodyTimeout to arrive. It is set before anything can
// answer: the body must come in time even when it is never read (net/http reads what remains
// of it after the answer, to reuse the connection). net/http clears the deadline itself once
// the body has been read to its end.
func (g *guard) bodyDeadline(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength != 0 && r.Body != http.NoBody {
		http.NewResponseController(w).SetReadDeadline(time.Now().Add(g.opts.BodyTimeout))
	}
}

// cors gives a browser on an allowed origin what it needs to talk to the endpoint and to
// read the session id.
func (g *guard) cors(w http.ResponseWriter, r *http.Request) {
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

func isLoopbackName(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback() // 127.0.0.0/8 and ::1
}

// hostAllowed checks the Host header: a web page must not reach a server on the local
// machine through a name it controls (DNS rebinding), and a protected server without
// AuthOptions.Resource names itself after the Host header.
func (g *guard) hostAllowed(host string) bool {
	if slices.Contains(g.opts.AllowedHosts, "*") || slices.Contains(g.opts.AllowedHosts, host) {
		return true
	}
	name := host
	if n, _, err := net.SplitHostPort(host); err == nil {
		name = n
	}
	return isLoopbackName(strings.Trim(name, "[]")) || slices.Contains(g.opts.AllowedHosts, name)
}

// originAllowed checks the Origin header, against DNS rebinding too.
func (g *guard) originAllowed(origin string) bool {
	if slices.Contains(g.opts.AllowedOrigins, "*") || slices.Contains(g.opts.AllowedOrigins, origin) {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && isLoopbackName(u.Hostname())
}

// resourceMetadataURL is the URL of the metadata of the resource the request reached.
func (g *guard) resourceMetadataURL(r *http.Request) string {
	a := g.opts.Auth
	if a.Resource != "" {
		if i := strings.Index(a.Resource, "://"); i >= 0 {
			rest := a.Resource[i+3:]
			host, path, _ := strings.Cut(rest, "/")
			return a.Resource[:i+3] + host + resourceMetadataPath("/"+path)
		}
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + resourceMetadataPath(r.URL.Path)
}

// authenticate checks the request's bearer token, or its DPoP-bound token and proof
// (verifyDPoP). It answers the request itself (401, or 503 when the verifier cannot decide)
// and returns nil when there is no valid token.
func (g *guard) authenticate(w http.ResponseWriter, r *http.Request) *http.Request {
	a := g.opts.Auth
	scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	token = strings.TrimSpace(token)
	dpop := strings.EqualFold(scheme, "DPoP")
	if !dpop && !strings.EqualFold(scheme, "Bearer") || token == "" {
		g.challenge(w, r, http.StatusUnauthorized, "", "the request carries no access token", a.ScopesSupported)
		return nil
	}
	if !dpop && a.RequireDPoP {
		g.challenge(w, r, http.StatusUnauthorized, "invalid_token", "this server takes DPoP-bound tokens only (Authorization: DPoP, with a DPoP proof)", a.ScopesSupported)
		return nil
	}
	var info *AuthInfo
	var err error
	if dpop {
		info, err = g.verifyDPoP(r, token)
	} else {
		info, err = a.Verifier.VerifyToken(r.Context(), token)
	}
	switch {
	case errors.Is(err, ErrVerifierUnavailable):
		// The token may well be good: the client is to try again, not to get a new one.
		g.logger.Error("mcp: cannot check a bearer token", "error", err)
		w.Header().Set("Retry-After", "5")
		httpError(w, http.StatusServiceUnavailable, jsonrpc.CodeInternalError, "the server cannot check access tokens right now; try again later")
		return nil
	case err != nil || info == nil:
		// Why is the server's to know: the verifier's error may name its issuer's
		// endpoints and their failures, which are nobody's business who has no valid token.
		if err == nil {
			err = errors.New("the verifier returned no AuthInfo")
		}
		g.logger.Info("mcp: refused a bearer token", "error", err)
		g.challenge(w, r, http.StatusUnauthorized, "invalid_token", "the bearer token is not valid", a.ScopesSupported)
		return nil
	}
	return r.WithContext(WithAuthInfo(r.Context(), info))
}

// challenge answers with the server's challenges (RFC 6750 section 3), each pointing to the
// resource metadata: Bearer, and beside it DPoP with the algorithms proofs may be signed
// with (RFC 9449 section 7.1) when the verifier takes DPoP-bound tokens, or DPoP alone
// (AuthOptions.RequireDPoP). Both carry the same error and scope: a client reads them from
// whichever challenge it picks.
func (g *guard) challenge(w http.ResponseWriter, r *http.Request, status int, code, msg string, scopes []string) {
	var b strings.Builder
	b.WriteString(`resource_metadata="` + g.resourceMetadataURL(r) + `"`)
	if code != "" {
		b.WriteString(`, error="` + code + `"`)
	}
	if len(scopes) > 0 {
		b.WriteString(`, scope="` + strings.Join(scopes, " ") + `"`)
	}
	if msg != "" {
		b.WriteString(`, error_description="` + strings.ReplaceAll(msg, `"`, `'`) + `"`)
	}
	params := b.String()
	w.Header().Del("WWW-Authenticate")
	if !g.opts.Auth.RequireDPoP {
		w.Header().Add("WWW-Authenticate", "Bearer "+params)
	}
	if len(g.dpopAlgs) > 0 {
		w.Header().Add("WWW-Authenticate", "DPoP "+params+`, algs="`+strings.Join(g.dpopAlgs, " ")+`"`)
	}
	httpError(w, status, jsonrpc.CodeInvalidRequest, msg)
}

// serveResourceMetadata answers GET of the protected resource metadata.
func (g *guard) serveResourceMetadata(w http.ResponseWriter, r *http.Request) {
	a := g.opts.Auth
	resource := a.Resource
	if resource == "" {
		scheme := "http"
		if r.TLS != nil {
			scheme = "https"
		}
		resource = scheme + "://" + r.Host + strings.TrimPrefix(r.URL.Path, "/.well-known/oauth-protected-resource")
	}
	doc := map[string]any{
		"resource":                 resource,
		"authorization_servers":    a.AuthorizationServers,
		"bearer_methods_supported": []string{"header"},
	}
	if len(a.ScopesSupported) > 0 {
		doc["scopes_supported"] = a.ScopesSupported
	}
	if a.ResourceName != "" {
		doc["resource_name"] = a.ResourceName
	}
	if len(g.dpopAlgs) > 0 {
		doc["dpop_signing_alg_values_supported"] = g.dpopAlgs
	}
	if a.RequireDPoP {
		doc["dpop_bound_access_tokens_required"] = true
	}
	body, _ := json.Marshal(doc)
	w.Header().Set("Access-Control-Allow-Origin", "*")
	writeJSON(w, http.StatusOK, body)
}
