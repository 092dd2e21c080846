// Package oauth is MCP authorization for clients (basic/authorization of revisions 2025-06-18
// on): an http.RoundTripper that answers a protected server's 401 and 403 challenges by
// getting a token, and sends it with every request.
//
//	l, err := oauth.NewLoopback(os.Stderr) // the user's browser, back to a loopback port
//	rt := &oauth.Transport{Config: &oauth.Config{
//		RedirectURL: l.RedirectURL(),
//		Authorize:   l.Authorize, // or your own: send the user to the URL, return the redirect
//		// A client registered beforehand, for its authorization server and the servers
//		// named only (optional):
//		Clients: []oauth.Client{{Issuer: "https://auth.example.com", ID: "my-app",
//			Resources: []string{"https://mcp.example.com/mcp"}}},
//	}}
//	c, err := mcp.Connect(ctx, &mcp.StreamableHTTPTransport{URL: url, HTTPClient: &http.Client{Transport: rt}}, nil)
//
// On a 401 with a Bearer challenge it finds the server's protected resource metadata (RFC
// 9728), then its authorization server's metadata (RFC 8414, OpenID Connect discovery),
// settles the client (the one configured for that authorization server's issuer and this
// server, else a Client ID Metadata Document URL, else dynamic registration), and runs the
// authorization code flow with PKCE (S256), the resource indicator of RFC 8707 and the
// issuer check of RFC 9207. On a 403 insufficient_scope it asks again for the union of the scopes it had
// and those the challenge names, a bounded number of times. Tokens are kept per server
// (TokenStore) and refreshed when they expire.
//
// What a server can make it do is bounded: a configured client's credentials go to their
// own authorization server only (Client.Issuer), for the servers they are meant for only
// (Client.Resources); endpoints are used, and opened in the browser, only when https (or
// http on loopback, CheckEndpoint); and a server on the public internet cannot have it
// connect to the user's machine or network.
package oauth

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Config says how a client gets tokens.
type Config struct {
	// Clients are clients registered beforehand, each with one authorization server and
	// for the MCP servers it names. A client's id, secret, key and assertions go to its own
	// authorization server only, and only to get tokens for its servers; for any other
	// server, or with any other authorization server, the client uses ClientMetadataURL
	// where the authorization server supports Client ID Metadata Documents, else dynamic
	// registration (and a grant without a person fails): a server cannot have them sent to
	// an authorization server of its choosing by naming it in its metadata, nor have a
	// token got with them by naming the client's own.
	Clients []Client
	// ClientMetadataURL is the https URL of the client's metadata document, which is its
	// client_id with servers that support Client ID Metadata Documents.
	ClientMetadataURL string
	// ClientName names the client in dynamic registration; the default is "mcpgen".
	ClientName string
	// RedirectURL is where the authorization server sends the user back with the code.
	RedirectURL string
	// Authorize sends the user to authURL and returns the URL the authorization server
	// redirected back to, with the code (or the error) in its query.
	Authorize func(ctx context.Context, authURL string) (*url.URL, error)
	// Store keeps tokens between requests (and runs); the default keeps them in memory.
	Store TokenStore
	// HTTPClient sends the discovery, registration and token requests; the default is
	// http.DefaultClient.
	HTTPClient *http.Client
	// MaxAuthorizations bounds the authorizations one request may start (a server that
	// keeps asking for more scopes); the default is 3.
	MaxAuthorizations int

	// Grant is how the client gets tokens: "" for the authorization code flow, a person
	// authorizing; GrantClientCredentials for a client acting on its own behalf (with the
	// Secret or PrivateKey of its Client); GrantJWTBearer to trade its Client's Assertion,
	// a JWT from another issuer (workload identity), for a token. Both need a Client for
	// the server's authorization server.
	Grant string
}

// Client is a client registered beforehand with one authorization server, for the MCP
// servers it names, and what it authenticates with there.
type Client struct {
	// Issuer is the authorization server's issuer identifier, exactly as its metadata names
	// it ("https://auth.example.com"): the client is used with the server whose metadata,
	// fetched from Issuer's well-known address, names Issuer, compared as strings (RFC 8414
	// section 3.3).
	Issuer string
	// Resources are the MCP servers the client is for, required: each a server's URL
	// ("https://mcp.example.com/mcp"), which also covers the URLs below its path, or an
	// origin ("https://mcp.example.com"), which covers every server there. A server
	// elsewhere whose metadata names Issuer does not get tokens obtained with this client:
	// for it the client registers as for any other authorization server (a token of the
	// user's, or the client's own, at an authorization server that ignores the resource
	// indicator would be good at the user's other servers too).
	Resources []string
	// ID and Secret (for a confidential client) of the client at that server.
	ID     string
	Secret string
	// PrivateKey signs the client's assertions (private_key_jwt, RFC 7523) with
	// SigningAlgorithm (default ES256), when set instead of Secret.
	PrivateKey       crypto.Signer
	SigningAlgorithm string
	// Assertion returns the JWT of GrantJWTBearer, for the authorization server issuer and
	// the resource (the server's indicator): a workload's identity token, or one an
	// enterprise identity provider issued for them (IDJAG).
	Assertion func(ctx context.Context, issuer, resource string) (string, error)
}

// checkClients returns what is wrong with the configured clients: each needs an issuer
// (an https URL, or http on loopback), an id or an assertion, and the servers it is for
// (http or https URLs); a server has one client per issuer.
func (c *Config) checkClients() error {
	var errs []error
	for i, cl := range c.Clients {
		switch {
		case cl.Issuer == "":
			errs = append(errs, fmt.Errorf("Config.Clients[%d] (id %q) has no Issuer: a client's credentials go only to the authorization server it is registered with; set its issuer identifier", i, cl.ID))
		case CheckEndpoint(cl.Issuer) != nil:
			errs = append(errs, fmt.Errorf("Config.Clients[%d].Issuer: %v", i, CheckEndpoint(cl.Issuer)))
		}
		if cl.ID == "" && cl.Assertion == nil {
			errs = append(errs, fmt.Errorf("Config.Clients[%d] (issuer %s) has no ID", i, cl.Issuer))
		}
		if len(cl.Resources) == 0 {
			errs = append(errs, fmt.Errorf("Config.Clients[%d] (issuer %s, id %q) has no Resources: set the MCP servers the client is for (\"https://mcp.example.com/mcp\", or an origin); tokens got with it go to those servers only", i, cl.Issuer, cl.ID))
		}
		for j, r := range cl.Resources {
			if err := checkResource(r); err != nil {
				errs = append(errs, fmt.Errorf("Config.Clients[%d].Resources[%d]: %v", i, j, err))
				continue
			}
			for k, o := range c.Clients[:i] {
				if o.Issuer != cl.Issuer {
					continue
				}
				for _, or := range o.Resources {
					if checkResource(or) == nil && (covers(or, canonical(r)) || covers(r, canonical(or))) {
						errs = append(errs, fmt.Errorf("Config.Clients[%d] and Config.Clients[%d] are both for %s with the issuer %s: a server has one client per authorization server", k, i, r, cl.Issuer))
					}
				}
			}
		}
	}
	return errors.Join(errs...)
}

// checkResource returns what keeps r from naming MCP servers: it is an http or https URL
// with a host, without user information, query or fragment.
func checkResource(r string) error {
	u, err := url.Parse(r)
	switch {
	case err != nil:
		return fmt.Errorf("%q is not a URL: %v", r, err)
	case u.Scheme != "https" && u.Scheme != "http" || u.Host == "":
		return fmt.Errorf("%q is not an http or https URL of an MCP server (or its origin)", r)
	case u.User != nil || u.RawQuery != "" || u.Fragment != "" || strings.ContainsAny(r, "?#"):
		return fmt.Errorf("%q has user information, a query or a fragment: name the server's URL, or its origin", r)
	}
	return nil
}

// canonical is r (a checked resource) as CanonicalResource writes it.
func canonical(r string) string {
	u, _ := url.Parse(r)
	return CanonicalResource(u)
}

// covers reports whether the resource entry r covers the server whose canonical URI is
// resource: the same server, or one under its path (an origin covers its every server).
func covers(r, resource string) bool { return sameResource(canonical(r), resource) }

// For reports whether the client is for the MCP server at serverURL: one of its Resources
// names that server, or a path or origin above it.
func (cl *Client) For(serverURL string) bool {
	u, err := url.Parse(serverURL)
	if err != nil {
		return false
	}
	return cl.covers(CanonicalResource(u))
}

func (cl *Client) covers(resource string) bool {
	return slices.ContainsFunc(cl.Resources, func(r string) bool { return checkResource(r) == nil && covers(r, resource) })
}

// Validate returns what is wrong with the configured clients (the Transport refuses to
// authorize with such a Config): call it at startup to stop there instead.
func (c *Config) Validate() error { return c.checkClients() }

// client is the configured client for an authorization server and the server whose
// canonical URI is resource, or nil.
func (c *Config) client(issuer, resource string) *Client {
	for i := range c.Clients {
		if c.Clients[i].Issuer == issuer && c.Clients[i].covers(resource) {
			return &c.Clients[i]
		}
	}
	return nil
}

// configured lists the configured clients, for error messages.
func (c *Config) configured() string {
	var out []string
	for _, cl := range c.Clients {
		out = append(out, cl.Issuer+" for "+strings.Join(cl.Resources, " "))
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, "; ")
}

// The grants besides the authorization code flow.
const (
	GrantClientCredentials = "client_credentials"
	GrantJWTBearer         = "urn:ietf:params:oauth:grant-type:jwt-bearer"
)

// Token is an access token with what came with it.
type Token struct {
	AccessToken  string    `json:"access_token"`
	TokenType    string    `json:"token_type,omitempty"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	Scope        string    `json:"scope,omitempty"` // as requested, space-separated
	Expiry       time.Time `json:"expiry,omitzero"`
	// TokenEndpoint, ClientID and ClientSecret are what refreshing it takes.
	TokenEndpoint string `json:"token_endpoint,omitempty"`
	ClientID      string `json:"client_id,omitempty"`
	ClientSecret  string `json:"client_secret,omitempty"`
	AuthMethod    string `json:"auth_method,omitempty"`
	Resource      string `json:"resource,omitempty"`  // the server, as the store keys it
	Indicator     string `json:"indicator,omitempty"` // the resource indicator it was issued for
	Issuer        string `json:"issuer,omitempty"`    // the authorization server that issued it
	// Local says the server was on the user's machine or network when it challenged (the
	// address its connection went to): its refreshes may go there too.
	Local bool `json:"local,omitempty"`
}

// isDPoP reports whether the token is bound to the client's DPoP key (token_type is
// case-insensitive, RFC 6749 section 7.1).
func (t *Token) isDPoP() bool { return strings.EqualFold(t.TokenType, "DPoP") }

// expired reports whether the token is past its expiry, with a margin.
func (t *Token) expired() bool {
	return !t.Expiry.IsZero() && time.Now().Add(10*time.Second).After(t.Expiry)
}

// TokenStore keeps tokens by the canonical URI of the server they are for.
type TokenStore interface {
	Token(ctx context.Context, resource string) (*Token, error) // nil, nil when there is none
	SetToken(ctx context.Context, resource string, t *Token) error
}

// MemoryStore is a TokenStore in memory.
type MemoryStore struct {
	mu     sync.Mutex
	tokens map[string]*Token
}

func (m *MemoryStore) Token(_ context.Context, resource string) (*Token, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.tokens[resource], nil
}

func (m *MemoryStore) SetToken(_ context.Context, resource string, t *Token) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tokens == nil {
		m.tokens = map[string]*Token{}
	}
	m.tokens[resource] = t
	return nil
}

// Transport is an http.RoundTripper that authorizes the requests it sends to protected MCP
// servers. It is safe for concurrent use; one authorization runs at a time per server.
type Transport struct {
	Base   http.RoundTripper // the default is http.DefaultTransport
	Config *Config

	once    sync.Once
	cfgErr  error // what is wrong with Config, found once
	store   TokenStore
	dpop    dpopKey
	mu      sync.Mutex
	flows   map[string]*sync.Mutex // per resource: one authorization at a time
	clients clients                // of the authorizations' requests
}

func (t *Transport) init() {
	t.once.Do(func() {
		t.store = t.Config.Store
		if t.store == nil {
			t.store = &MemoryStore{}
		}
		t.flows = map[string]*sync.Mutex{}
		t.cfgErr = t.Config.checkClients()
	})
}

func (t *Transport) base() http.RoundTripper {
	if t.Base != nil {
		return t.Base
	}
	return http.DefaultTransport
}

// Error is an authorization that failed: what the client was doing, and why.
type Error struct {
	Step string // "configuration", "discovery", "registration", "authorization", "token"
	Err  error
}

func (e *Error) Error() string { return "oauth: " + e.Step + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// RoundTrip sends req with the server's token, and when the server challenges it, gets a
// token (or one with more scopes) and sends it again.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.init()
	ctx := req.Context()
	resource := CanonicalResource(req.URL)
	tok, err := t.store.Token(ctx, resource)
	if err != nil {
		return nil, &Error{"token store", err}
	}
	if tok != nil && tok.expired() && tok.RefreshToken != "" {
		if fresh, err := t.refresh(ctx, tok); err == nil {
			tok = fresh
		}
	}
	max := t.Config.MaxAuthorizations
	if max <= 0 {
		max = 3
	}
	var scopes []string
	if tok != nil {
		scopes = strings.Fields(tok.Scope)
	}
	retryable := req.Body == nil || req.GetBody != nil
	for attempt := 0; ; attempt++ {
		resp, local, err := t.send(req, tok)
		if err != nil {
			return nil, err
		}
		ch, isBearer := ParseChallenge(resp.Header)
		needsToken := resp.StatusCode == http.StatusUnauthorized && isBearer
		needsScope := resp.StatusCode == http.StatusForbidden && isBearer && ch.Error == "insufficient_scope"
		if !needsToken && !needsScope || attempt == max || !retryable {
			return resp, nil
		}
		resp.Body.Close()
		if ch.Error == "use_dpop_nonce" && tok != nil && tok.isDPoP() && resp.Header.Get("DPoP-Nonce") != "" {
			// The server wants its nonce in the proof (RFC 9449 section 9): send it again.
			t.dpop.setNonce(resource, resp.Header.Get("DPoP-Nonce"))
			continue
		}
		if needsToken && tok != nil && tok.RefreshToken != "" && ch.Error != "insufficient_scope" && attempt == 0 {
			if fresh, err := t.refresh(ctx, tok); err == nil {
				tok = fresh
				continue
			}
		}
		scopes = union(scopes, strings.Fields(ch.Scope))
		if tok, err = t.authorize(ctx, req.URL, resource, ch, scopes, tok, local); err != nil {
			return nil, err
		}
		scopes = strings.Fields(tok.Scope)
	}
}

// send sends a copy of req with the token, and reports whether it reached a server on the
// user's machine or network (reachedLocal).
func (t *Transport) send(req *http.Request, tok *Token) (*http.Response, bool, error) {
	var remote atomic.Pointer[string]
	trace := &httptrace.ClientTrace{GotConn: func(c httptrace.GotConnInfo) {
		addr := c.Conn.RemoteAddr().String()
		remote.Store(&addr)
	}}
	r := req.Clone(httptrace.WithClientTrace(req.Context(), trace))
	if req.Body != nil && req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return nil, false, err
		}
		r.Body = body
	}
	if tok != nil && tok.isDPoP() {
		// A token bound to the client's key goes with a fresh proof of it, per request.
		proof, err := t.dpop.proof(req.Method, req.URL, tok.AccessToken, CanonicalResource(req.URL))
		if err != nil {
			return nil, false, &Error{"dpop", err}
		}
		r.Header.Set("Authorization", "DPoP "+tok.AccessToken)
		r.Header.Set("DPoP", proof)
	} else if tok != nil {
		r.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	}
	base := t.base()
	resp, err := base.RoundTrip(r)
	if err != nil {
		return nil, false, err
	}
	proxied := false
	if ht, ok := base.(*http.Transport); ok && ht.Proxy != nil {
		p, err := ht.Proxy(r)
		proxied = p != nil || err != nil
	}
	addr := ""
	if a := remote.Load(); a != nil {
		addr = *a
	}
	return resp, reachedLocal(req.URL, addr, proxied), nil
}

// CanonicalResource is the canonical URI of the MCP server a URL reaches (RFC 8707 section 2,
// as the MCP authorization page defines it): scheme and host lower-case, no query, no
// fragment, no trailing slash.
func CanonicalResource(u *url.URL) string {
	c := url.URL{Scheme: strings.ToLower(u.Scheme), Host: strings.ToLower(u.Host), Path: u.Path, RawPath: u.RawPath}
	return strings.TrimSuffix(c.String(), "/")
}

// union is a's scopes followed by those of b it lacks.
func union(a, b []string) []string {
	out := append([]string(nil), a...)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

var errNoAuthorize = errors.New("the server needs authorization, and Config.Authorize is not set")

func (t *Transport) flowLock(resource string) *sync.Mutex {
	t.mu.Lock()
	defer t.mu.Unlock()
	m := t.flows[resource]
	if m == nil {
		m = &sync.Mutex{}
		t.flows[resource] = m
	}
	return m
}

func wrapf(step, format string, args ...any) error {
	return &Error{Step: step, Err: fmt.Errorf(format, args...)}
}

// FollowRedirect is an Authorize for a user who approves at once, or an authorization server
// that needs nobody (tests, machine clients): it GETs the authorization URL with hc (nil:
// http.DefaultClient's transport) and returns where the server redirects, without going
// there.
func FollowRedirect(hc *http.Client) func(ctx context.Context, authURL string) (*url.URL, error) {
	return func(ctx context.Context, authURL string) (*url.URL, error) {
		c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		if hc != nil {
			c.Transport, c.Jar, c.Timeout = hc.Transport, hc.Jar, hc.Timeout
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
		if err != nil {
			return nil, err
		}
		resp, err := c.Do(req)
		if err != nil {
			return nil, err
		}
		resp.Body.Close()
		loc := resp.Header.Get("Location")
		if resp.StatusCode/100 != 3 || loc == "" {
			return nil, fmt.Errorf("GET %s: HTTP %d, not a redirect back to the client", authURL, resp.StatusCode)
		}
		return resp.Request.URL.Parse(loc)
	}
}
