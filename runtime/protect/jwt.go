// Package protect verifies the access tokens of protected MCP servers (mcp.HTTPOptions.Auth):
// JWTs signed by an authorization server whose keys it fetches from a JWKS URL, and opaque
// tokens through OAuth 2.0 token introspection (RFC 7662).
//
//	verifier := &protect.JWT{
//		Issuer:   "https://auth.example.com",
//		JWKSURL:  "https://auth.example.com/keys",
//		Audience: "https://mcp.example.com/mcp",
//	}
//	h := srv.HTTPHandler(&mcp.HTTPOptions{Auth: &mcp.AuthOptions{Verifier: verifier, ...}})
package protect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/oauth"
)

// JWT verifies JWT access tokens: signed by a key of the issuer's JWKS, issued by Issuer,
// for Audience, not expired, and an access token (RFC 9068's at+jwt, or an untyped JWT
// that is not an ID token). Issuer and Audience are required: without them it would take
// the tokens of any issuer, or tokens meant for any service.
type JWT struct {
	Issuer string // the iss the tokens must carry
	// JWKSURL is where the issuer publishes its signing keys; empty, it is the jwks_uri of
	// the issuer's metadata (RFC 8414, else OpenID Connect discovery). https, or http on
	// loopback.
	JWKSURL  string
	Audience string // the aud the tokens must name: this server's canonical URI
	// Algorithms are the signature algorithms taken; the default is RS256, ES256 and EdDSA
	// (never "none", never HMAC with a public key).
	Algorithms []jose.SignatureAlgorithm
	// HTTPClient fetches the JWKS; the default is http.DefaultClient. Its redirects are
	// followed only to https, or http on loopback, as JWKSURL.
	HTTPClient *http.Client
	// Leeway is the clock skew allowed on exp, nbf and iat; the default is one minute.
	Leeway time.Duration
	// FetchTimeout bounds a fetch of the issuer's keys (with its metadata, when JWKSURL is
	// empty); the default is 10 seconds. The fetch is shared by the requests that wait for
	// it, and runs to its end when they give up.
	FetchTimeout time.Duration
	// RequireATJWT refuses every token whose header does not type it at+jwt (RFC 9068),
	// for issuers that type all their access tokens so. Without it, an untyped token, or
	// one typed JWT, is taken unless it carries what only ID tokens carry (nonce, at_hash,
	// c_hash); a token of any other type (dpop+jwt, logout+jwt...) is refused.
	RequireATJWT bool

	checked  sync.Once
	checkErr error // Validate's, found once

	mu         sync.Mutex
	discovered string // the jwks_uri of the issuer's metadata, when JWKSURL is empty
	keys       *jose.JSONWebKeySet
	fetched    time.Time            // when keys came
	tried      time.Time            // when the last fetch started, whatever came of it
	lastErr    error                // of the last fetch, nil once one succeeded
	fetch      *keyFetch            // the fetch under way, if one is
	unknown    map[string]time.Time // key ids the set lacked, and until when that stands
}

// keyFetch is a fetch of the issuer's keys, which the requests that need it wait for.
type keyFetch struct {
	done chan struct{}
	err  error // set before done closes
}

// How long fetched keys are trusted; how soon a token with a key id the set lacks may make
// the verifier fetch them again (the issuer rotated its keys); how long such an id is
// taken as unknown without a fetch; and the default time a fetch may take.
const (
	keysFor      = time.Hour
	refetchAfter = 30 * time.Second
	unknownFor   = 5 * time.Minute
	maxUnknown   = 1024
	fetchTimeout = 10 * time.Second
	atJWT        = "at+jwt"
	atJWTMedia   = "application/at+jwt"
)

var _ mcp.TokenVerifier = (*JWT)(nil)

// Validate returns what is wrong with the verifier's configuration: it needs an Issuer and
// an Audience, and https (or loopback http) for its keys. VerifyToken refuses every token
// of a verifier that is not valid (with mcp.ErrVerifierUnavailable: the server answers
// 503); call it at startup to stop there instead.
func (v *JWT) Validate() error {
	var errs []error
	if v.Issuer == "" {
		errs = append(errs, errors.New("protect.JWT: Issuer is empty: set it to the issuer identifier of the authorization server whose tokens are taken (its metadata's issuer); without it a token of any issuer would do"))
	}
	if v.Audience == "" {
		errs = append(errs, errors.New("protect.JWT: Audience is empty: set it to this server's canonical URI (AuthOptions.Resource), which its tokens name as their audience; without it a token for any service would do"))
	}
	switch {
	case v.JWKSURL != "":
		if err := oauth.CheckEndpoint(v.JWKSURL); err != nil {
			errs = append(errs, fmt.Errorf("protect.JWT: JWKSURL: %v", err))
		}
	case v.Issuer != "":
		if err := oauth.CheckEndpoint(v.Issuer); err != nil {
			errs = append(errs, fmt.Errorf("protect.JWT: the keys are found through the Issuer's metadata (JWKSURL is empty), and Issuer: %v", err))
		}
	}
	return errors.Join(errs...)
}

// VerifyToken checks a JWT access token and returns what it says of its bearer. A token
// bound to a key of its client's (cnf) is refused: it comes with the DPoP scheme
// (VerifyDPoP).
func (v *JWT) VerifyToken(ctx context.Context, token string) (*mcp.AuthInfo, error) {
	return notBound(v.verify(ctx, token))
}

// verify checks a JWT access token, bound or not.
func (v *JWT) verify(ctx context.Context, token string) (*mcp.AuthInfo, error) {
	v.checked.Do(func() { v.checkErr = v.Validate() })
	if v.checkErr != nil {
		return nil, fmt.Errorf("%w: %v", mcp.ErrVerifierUnavailable, v.checkErr)
	}
	algs := v.Algorithms
	if len(algs) == 0 {
		algs = []jose.SignatureAlgorithm{jose.RS256, jose.ES256, jose.EdDSA}
	}
	tok, err := jwt.ParseSigned(token, algs)
	if err != nil {
		return nil, fmt.Errorf("not a signed JWT: %w", err)
	}
	if len(tok.Headers) != 1 {
		return nil, errors.New("a JWT with more than one signature")
	}
	typ, _ := tok.Headers[0].ExtraHeaders[jose.HeaderType].(string)
	typed := strings.EqualFold(typ, atJWT) || strings.EqualFold(typ, atJWTMedia)
	switch {
	case typed:
	case v.RequireATJWT:
		return nil, fmt.Errorf("the token's type is %q, not at+jwt (RFC 9068)", typ)
	case typ != "" && !strings.EqualFold(typ, "JWT") && !strings.EqualFold(typ, "application/jwt"):
		return nil, fmt.Errorf("the token's type is %q: not an access token", typ)
	}
	key, err := v.key(ctx, tok.Headers[0].KeyID)
	if err != nil {
		return nil, err
	}
	var std jwt.Claims
	all := map[string]any{}
	if err := tok.Claims(key, &std, &all); err != nil {
		return nil, fmt.Errorf("the signature does not verify: %w", err)
	}
	if err := std.ValidateWithLeeway(jwt.Expected{Issuer: v.Issuer, AnyAudience: jwt.Audience{v.Audience}, Time: time.Now()}, v.leeway()); err != nil {
		return nil, err
	}
	if std.Expiry == nil {
		return nil, errors.New("the token has no expiry")
	}
	if !typed {
		// An ID token is for the client, not for a resource server: refused where it says
		// it is one (its audience, the client, refuses it elsewhere).
		for _, c := range []string{"nonce", "at_hash", "c_hash"} {
			if _, ok := all[c]; ok {
				return nil, fmt.Errorf("an ID token (it has %s), not an access token", c)
			}
		}
	}
	info := &mcp.AuthInfo{Issuer: std.Issuer, Subject: std.Subject, Claims: all, Expiry: std.Expiry.Time()}
	info.Scopes = scopesOf(all)
	info.ClientID = clientOf(all)
	return info, nil
}

func (v *JWT) leeway() time.Duration {
	if v.Leeway == 0 {
		return time.Minute
	}
	return v.Leeway
}

// clientOf is the client a token was issued to: client_id (RFC 9068, RFC 7662), else azp
// (OpenID Connect's authorized party).
func clientOf(claims map[string]any) string {
	if id, ok := claims["client_id"].(string); ok && id != "" {
		return id
	}
	azp, _ := claims["azp"].(string)
	return azp
}

// scopesOf reads the scopes of a token's claims: scope (space-separated, RFC 9068) or scp (a
// list or a string, as some issuers write it).
func scopesOf(claims map[string]any) []string {
	switch s := claims["scope"].(type) {
	case string:
		return strings.Fields(s)
	}
	switch s := claims["scp"].(type) {
	case string:
		return strings.Fields(s)
	case []any:
		var out []string
		for _, v := range s {
			if str, ok := v.(string); ok {
				out = append(out, str)
			}
		}
		return out
	}
	return nil
}

// find is the public signing key with the id in the fetched set, or nil. v.mu is held.
func (v *JWT) find(kid string) any {
	if v.keys == nil {
		return nil
	}
	for _, k := range v.keys.Keys {
		if (kid == "" || k.KeyID == kid) && k.Use != "enc" {
			return k.Key
		}
	}
	return nil
}

// key returns the public key with the id from the issuer's JWKS. The set is fetched when
// it is old, or when a token names an id it lacks (at most every refetchAfter, and not
// again for an id the last fetch lacked): by one fetch at a time, outside the lock, with
// its own time limit, that the requests needing it wait for (each as long as its context
// lets it). A key of a set that is old is still used when a new one cannot be had.
func (v *JWT) key(ctx context.Context, kid string) (any, error) {
	v.mu.Lock()
	now := time.Now()
	k := v.find(kid)
	stale := now.Sub(v.fetched) > keysFor
	if k != nil && !stale {
		v.mu.Unlock()
		return k, nil
	}
	f := v.fetch
	mayFetch := v.tried.IsZero() || now.Sub(v.tried) >= refetchAfter
	wanted := stale || now.After(v.unknown[kid])
	if f == nil && mayFetch && wanted {
		f = &keyFetch{done: make(chan struct{})}
		v.fetch, v.tried = f, now
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), v.fetchTimeout())
		go v.fetchKeys(fctx, cancel, f)
	}
	if f == nil {
		err, none := v.lastErr, v.keys == nil
		v.mu.Unlock()
		switch {
		case k != nil:
			return k, nil
		case none && err != nil: // no keys at all: nothing can be decided
			return nil, fmt.Errorf("%w: %v", mcp.ErrVerifierUnavailable, err)
		}
		return nil, fmt.Errorf("no key %q in the issuer's key set", kid)
	}
	v.mu.Unlock()
	select {
	case <-f.done:
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for the issuer's keys: %w", ctx.Err())
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if k := v.find(kid); k != nil {
		return k, nil
	}
	if f.err != nil {
		return nil, fmt.Errorf("%w: %v", mcp.ErrVerifierUnavailable, f.err)
	}
	v.rememberUnknown(kid)
	return nil, fmt.Errorf("no key %q in the issuer's key set", kid)
}

// rememberUnknown notes that the set lacks a key id, for unknownFor. v.mu is held.
func (v *JWT) rememberUnknown(kid string) {
	now := time.Now()
	if v.unknown == nil {
		v.unknown = map[string]time.Time{}
	}
	if len(v.unknown) >= maxUnknown {
		maps.DeleteFunc(v.unknown, func(_ string, until time.Time) bool { return now.After(until) })
	}
	if len(v.unknown) < maxUnknown {
		v.unknown[kid] = now.Add(unknownFor)
	}
}

func (v *JWT) fetchTimeout() time.Duration {
	if v.FetchTimeout > 0 {
		return v.FetchTimeout
	}
	return fetchTimeout
}

// fetchKeys runs a fetch and hands its outcome to those waiting.
func (v *JWT) fetchKeys(ctx context.Context, cancel context.CancelFunc, f *keyFetch) {
	defer cancel()
	set, err := v.download(ctx)
	v.mu.Lock()
	if err == nil {
		v.keys, v.fetched = set, time.Now()
	}
	v.lastErr, v.fetch, f.err = err, nil, err
	v.mu.Unlock()
	close(f.done)
}

// download fetches the issuer's key set (finding its address in the issuer's metadata
// first, once, when JWKSURL is empty). Only one runs at a time.
func (v *JWT) download(ctx context.Context) (*jose.JSONWebKeySet, error) {
	hc := redirectsTo(v.HTTPClient, toEndpoint)
	jwks := v.JWKSURL
	if jwks == "" {
		v.mu.Lock()
		jwks = v.discovered
		v.mu.Unlock()
		if jwks == "" { // the field the user set is left as it is
			u, err := discoverJWKS(ctx, hc, v.Issuer)
			if err != nil {
				return nil, fmt.Errorf("finding the issuer's keys: %w", err)
			}
			v.mu.Lock()
			v.discovered, jwks = u, u
			v.mu.Unlock()
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, jwks, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetching the issuer's keys: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetching the issuer's keys: GET %s: HTTP %d", jwks, resp.StatusCode)
	}
	var set jose.JSONWebKeySet
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&set); err != nil {
		return nil, fmt.Errorf("the issuer's keys at %s: %w", jwks, err)
	}
	set.Keys = slices.DeleteFunc(set.Keys, func(k jose.JSONWebKey) bool { return !k.IsPublic() })
	return &set, nil
}

// discoverJWKS finds the jwks_uri in an issuer's metadata (oauth.DiscoverServer, which also
// checks that it is https, or http on loopback).
func discoverJWKS(ctx context.Context, hc *http.Client, issuer string) (string, error) {
	m, err := oauth.DiscoverServer(ctx, hc, issuer)
	if err != nil {
		return "", err
	}
	if m.JWKSURI == "" {
		return "", fmt.Errorf("no jwks_uri in the metadata of the issuer %s", issuer)
	}
	return m.JWKSURI, nil
}

// redirectsTo is a copy of hc (nil: http.DefaultClient) that follows a redirect only where
// check lets it, and then as hc's own policy says: the keys, or the introspection answer,
// come from whoever serves the place redirected to, and the request carries what it
// carries there.
func redirectsTo(hc *http.Client, check func(to *url.URL, first *http.Request) error) *http.Client {
	if hc == nil {
		hc = http.DefaultClient
	}
	c := *hc
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if err := check(req.URL, via[0]); err != nil {
			return fmt.Errorf("redirected: %w", err)
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

// toEndpoint lets a redirect go where an endpoint may be: https, or http on loopback
// (oauth.CheckEndpoint). A JWKS fetched over plain http from another machine is whatever
// someone on the path serves, and its keys sign the tokens the server takes.
func toEndpoint(to *url.URL, _ *http.Request) error { return oauth.CheckEndpoint(to.String()) }
