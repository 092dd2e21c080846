package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// Protected servers (basic/authorization): over HTTP, a server with HTTPOptions.Auth takes
// only requests with a bearer token its verifier accepts, answers the others with 401 and a
// challenge that points to its protected resource metadata (RFC 9728), and refuses a call
// of a tool, prompt or resource whose scopes the token lacks with 403 insufficient_scope.
// The verified caller reaches the body through the context (AuthInfoFrom). stdio servers
// are not protected: the spec has them take credentials from the environment.

// AuthInfo is what a verified access token says of its bearer.
type AuthInfo struct {
	Issuer   string         // the authorization server that issued the token (iss), if the token says
	Subject  string         // the user (sub)
	ClientID string         // the client the token was issued to, if the token says
	Scopes   []string       // granted scopes
	Expiry   time.Time      // zero when the token does not say
	Claims   map[string]any // every claim, for what the fields above leave out
}

// HasScopes reports whether the token grants every scope of need.
func (a *AuthInfo) HasScopes(need []string) bool {
	for _, s := range need {
		if !slices.Contains(a.Scopes, s) {
			return false
		}
	}
	return true
}

// TokenVerifier checks an access token: signature or introspection, expiry, issuer, and
// that this server is its audience. The protect package has verifiers for JWTs against a
// JWKS and for RFC 7662 introspection; any function will do (TokenVerifierFunc).
type TokenVerifier interface {
	VerifyToken(ctx context.Context, token string) (*AuthInfo, error)
}

// ErrVerifierUnavailable is wrapped by a TokenVerifier's error when it could not decide
// whether a token is good (the issuer's keys or its introspection endpoint did not answer):
// the server then answers 503, not 401, since the token may well be valid.
var ErrVerifierUnavailable = errors.New("mcp: the token verifier is unavailable")

// TokenVerifierFunc is a function that is a TokenVerifier.
type TokenVerifierFunc func(ctx context.Context, token string) (*AuthInfo, error)

func (f TokenVerifierFunc) VerifyToken(ctx context.Context, token string) (*AuthInfo, error) {
	return f(ctx, token)
}

// AuthOptions protect an HTTP server.
type AuthOptions struct {
	// Verifier checks the bearer tokens. Required. A verifier with a method Validate() error
	// (protect.JWT and protect.Introspection have one) is validated when the server starts:
	// an error stops it there (HTTPHandler panics, ServeHTTPListener returns the error).
	Verifier TokenVerifier
	// Resource is the server's canonical URI, which tokens must name as their audience and
	// the protected resource metadata publishes ("https://mcp.example.com/mcp"): the URL
	// clients use, which behind a proxy is the proxy's. Required when the server takes
	// hosts other than the local machine's (HTTPOptions.AllowedHosts); without it the server
	// names itself after the Host header of each request (http://localhost:8080/mcp), which
	// the host check lets through for the local machine's names only.
	Resource string
	// AuthorizationServers are the issuers clients get tokens from.
	AuthorizationServers []string
	// ScopesSupported are the scopes a client asks for to use the server at all; they are
	// published and named in the 401 challenge.
	ScopesSupported []string
	// ResourceName is a name for people, published in the metadata.
	ResourceName string
	// RequireDPoP takes DPoP-bound tokens only (RFC 9449): a token sent with the Bearer
	// scheme is refused (401), the challenge names the DPoP scheme alone, and the metadata
	// says dpop_bound_access_tokens_required. The Verifier must be a DPoPVerifier. Without
	// it, a server whose Verifier is one takes both schemes (a bound token only as DPoP).
	RequireDPoP bool
}

type authInfoKey struct{}

// WithAuthInfo returns a context that carries a verified caller.
func WithAuthInfo(ctx context.Context, a *AuthInfo) context.Context {
	return context.WithValue(ctx, authInfoKey{}, a)
}

// AuthInfoFrom returns the verified caller of the request ctx belongs to, or nil on a server
// that is not protected (or over stdio).
func AuthInfoFrom(ctx context.Context) *AuthInfo {
	a, _ := ctx.Value(authInfoKey{}).(*AuthInfo)
	return a
}

// resourceMetadataPath is where RFC 9728 puts the metadata of a resource at path.
func resourceMetadataPath(path string) string {
	return "/.well-known/oauth-protected-resource" + strings.TrimSuffix(path, "/")
}

// lacks returns the scopes a request of a protected conversation (ctx carries its caller)
// needs and its caller's token lacks, or nil. What a request needs is its row's
// (methods.go): the scopes of the tool, prompt, resource or template it names (to call,
// get, read or subscribe to it, or to have its arguments completed: a completer's values may
// tell what the body would), for subscriptions/listen those of every resource it
// subscribes to, and for the tasks/ methods those of the task's tool. A conversation
// without a caller is not protected (ServeConn refuses one on a protected server).
func (s *Server) lacks(ctx context.Context, m *jsonrpc.Message, row *method, tk ticket) []string {
	if row == nil || row.scopes == nil {
		return nil
	}
	auth := AuthInfoFrom(ctx)
	if auth == nil {
		return nil
	}
	if need := row.scopes(ctx, s, m.Params, tk); len(need) > 0 && !auth.HasScopes(need) {
		return need
	}
	return nil
}

// toolScopes are the scopes of the tool a tools/call names, which the door read.
func toolScopes(_ context.Context, _ *Server, _ []byte, tk ticket) []string {
	if tk.tool != nil {
		return tk.tool.Scopes
	}
	return nil
}

// promptScopes are the scopes of the prompt a prompts/get names.
func promptScopes(_ context.Context, s *Server, params []byte, _ ticket) []string {
	name, _ := stringParam(params, "name")
	if p := s.lookupPrompt(name); p != nil {
		return p.Scopes
	}
	return nil
}

// uriScopes are the scopes of the resource a resources/read or resources/subscribe names.
func uriScopes(_ context.Context, s *Server, params []byte, _ ticket) []string {
	uri, _ := stringParam(params, "uri")
	return s.resourceScopes(uri)
}

// resourceScopes are the scopes of the resource, or of the template, a URI names.
func (s *Server) resourceScopes(uri string) []string {
	switch r, t, _ := s.resolve(uri); {
	case r != nil:
		return r.Scopes
	case t != nil:
		return t.Scopes
	}
	return nil
}

// completionScopes are the scopes of the prompt or template whose argument a
// completion/complete asks values for.
func completionScopes(_ context.Context, s *Server, params []byte, _ ticket) []string {
	p, err := readCompleteParams(params)
	if err != nil {
		return nil // complete answers invalid params
	}
	switch p.refType {
	case "ref/prompt":
		if pr := s.lookupPrompt(p.refName); pr != nil {
			return pr.Scopes
		}
	case "ref/resource":
		s.mu.RLock()
		defer s.mu.RUnlock()
		if i := search(s.templates, []byte(p.refURI), templateURI); i >= 0 {
			return s.templates[i].Scopes
		}
	}
	return nil
}

// subscriptionScopes are the scopes of every resource a subscriptions/listen subscribes to
// (notifications.resourceSubscriptions), each once, read as listen reads them.
func subscriptionScopes(_ context.Context, s *Server, params []byte, _ ticket) []string {
	l, err := readFilter(params)
	if err != nil {
		return nil // listen answers invalid params
	}
	var need []string
	for _, uri := range l.uriOrder {
		for _, scope := range s.resourceScopes(uri) {
			if !slices.Contains(need, scope) {
				need = append(need, scope)
			}
		}
	}
	return need
}

// taskScopes are the scopes of the tool of the task a tasks/get, tasks/update or
// tasks/cancel names, if the task is the caller's: a task is answered only to a caller who
// may call its tool, as its tools/call was. Another's task needs nothing here, and is
// answered as an unknown one.
func taskScopes(ctx context.Context, s *Server, _ []byte, tk ticket) []string {
	rec := tk.task // read by the door (readTicket)
	if rec == nil || !callerOwns(ctx, rec.Caller) {
		return nil
	}
	if t := s.lookupTool([]byte(rec.Tool)); t != nil {
		return t.Scopes
	}
	return nil
}

// Every handle a caller gets (a session, a sealed requestState, a task, a subscription)
// belongs to that caller: on a protected server, to the issuer, subject and client id of
// its token, all three, so that callers that differ in any (two service tokens without a
// sub, one user through two clients) share nothing. Anyone else finds no such handle: the
// answer is the one an unknown handle gets. On a server that is not protected the key is
// empty, and a handle is a bearer capability: whoever holds it may use it.

// callerKey is the key handles are bound to: "" on a server that is not protected (ctx
// carries no AuthInfo), else the token's issuer, subject and client id, each quoted so that
// no two callers share a key. It fails with errAnonymousCaller for a token that names none
// of the three: a protected server makes no handle it cannot tell apart from others'.
func callerKey(ctx context.Context) (string, *jsonrpc.Error) {
	a := AuthInfoFrom(ctx)
	if a == nil {
		return "", nil
	}
	if a.Issuer == "" && a.Subject == "" && a.ClientID == "" {
		return "", errAnonymousCaller
	}
	return strconv.Quote(a.Issuer) + strconv.Quote(a.Subject) + strconv.Quote(a.ClientID), nil
}

// callerOwns reports whether a handle bound to owner (a callerKey) is the caller's. A
// caller without a key owns nothing.
func callerOwns(ctx context.Context, owner string) bool {
	key, err := callerKey(ctx)
	return err == nil && key == owner
}

var errAnonymousCaller = jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
	"the access token names no issuer, subject or client (iss, sub, client_id): this protected server keeps sessions, tasks, subscriptions and request states only for callers it can tell apart; use a token that names its user or its client")

// authProblem is what makes the options' Auth unusable, or nil.
func (o *HTTPOptions) authProblem() error {
	if o == nil || o.Auth == nil {
		return nil
	}
	a := o.Auth
	if a.Verifier == nil {
		return errors.New("mcp: HTTPOptions.Auth needs a Verifier")
	}
	if v, ok := a.Verifier.(DPoPVerifier); ok && len(v.DPoPAlgorithms()) == 0 {
		return errors.New("mcp: HTTPOptions.Auth.Verifier is a DPoPVerifier whose DPoPAlgorithms are none: it would take no DPoP proof")
	}
	if _, ok := a.Verifier.(DPoPVerifier); a.RequireDPoP && !ok {
		return errors.New("mcp: AuthOptions.RequireDPoP needs a Verifier that takes DPoP-bound tokens (an mcp.DPoPVerifier, such as protect.JWT or protect.Introspection)")
	}
	if v, ok := a.Verifier.(interface{ Validate() error }); ok {
		// A verifier configured to take any issuer's tokens, or tokens for any service,
		// takes none (protect's answer 503 to each): the server stops here instead, where
		// the mistake is made, rather than refuse every client once it runs.
		if err := v.Validate(); err != nil {
			return fmt.Errorf("mcp: HTTPOptions.Auth.Verifier is not usable: %w", err)
		}
	}
	if a.Resource == "" {
		if len(o.AllowedHosts) > 0 {
			// Behind a proxy, or on a public name, the Host header is not the URL clients use
			// (and a client picks it): the server cannot tell its own URL from it.
			return errors.New("mcp: HTTPOptions.Auth needs a Resource, the server's public URL (such as https://mcp.example.com/mcp), when the server takes hosts other than the local machine's (HTTPOptions.AllowedHosts " + strings.Join(o.AllowedHosts, ", ") + ")")
		}
		return nil
	}
	u, err := url.Parse(a.Resource)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.Fragment != "" || u.RawQuery != "" {
		return fmt.Errorf("mcp: AuthOptions.Resource %q is not the server's URL: it must be an absolute http(s) URL without query or fragment, such as https://mcp.example.com/mcp", a.Resource)
	}
	return nil
}
