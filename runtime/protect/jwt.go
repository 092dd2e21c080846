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
	"net/http"
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
// for Audience, and not expired.
type JWT struct {
	Issuer string // the iss the tokens must carry
	// JWKSURL is where the issuer publishes its signing keys; empty, it is the jwks_uri of
	// the issuer's metadata (RFC 8414, else OpenID Connect discovery).
	JWKSURL  string
	Audience string // the aud the tokens must name: this server's canonical URI
	// Algorithms are the signature algorithms taken; the default is RS256, ES256 and EdDSA
	// (never "none", never HMAC with a public key).
	Algorithms []jose.SignatureAlgorithm
	// HTTPClient fetches the JWKS; the default is http.DefaultClient.
	HTTPClient *http.Client
	// Leeway is the clock skew allowed on exp, nbf and iat; the default is one minute.
	Leeway time.Duration

	mu         sync.Mutex
	discovered string // the jwks_uri of the issuer's metadata, when JWKSURL is empty
	keys       *jose.JSONWebKeySet
	fetched    time.Time
}

// How long fetched keys are trusted, and how soon a token with an unknown key may make the
// verifier fetch them again (the issuer rotated its keys).
const (
	keysFor      = time.Hour
	refetchAfter = 30 * time.Second
)

var _ mcp.TokenVerifier = (*JWT)(nil)

// VerifyToken checks a JWT access token and returns what it says of its bearer.
func (v *JWT) VerifyToken(ctx context.Context, token string) (*mcp.AuthInfo, error) {
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
	key, err := v.key(ctx, tok.Headers[0].KeyID)
	if err != nil {
		return nil, err
	}
	var std jwt.Claims
	all := map[string]any{}
	if err := tok.Claims(key, &std, &all); err != nil {
		return nil, fmt.Errorf("the signature does not verify: %w", err)
	}
	leeway := v.Leeway
	if leeway == 0 {
		leeway = time.Minute
	}
	if err := std.ValidateWithLeeway(jwt.Expected{Issuer: v.Issuer, AnyAudience: jwt.Audience{v.Audience}, Time: time.Now()}, leeway); err != nil {
		return nil, err
	}
	if std.Expiry == nil {
		return nil, errors.New("the token has no expiry")
	}
	info := &mcp.AuthInfo{Subject: std.Subject, Claims: all, Expiry: std.Expiry.Time()}
	info.Scopes = scopesOf(all)
	if id, ok := all["client_id"].(string); ok {
		info.ClientID = id
	} else if azp, ok := all["azp"].(string); ok {
		info.ClientID = azp
	}
	return info, nil
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

// key returns the public key with the id from the issuer's JWKS, fetching the set when it
// is old, or when the id is new to it (at most every refetchAfter).
func (v *JWT) key(ctx context.Context, kid string) (any, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	find := func() any {
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
	stale := time.Since(v.fetched) > keysFor
	if k := find(); k != nil && !stale {
		return k, nil
	}
	if !stale && time.Since(v.fetched) < refetchAfter {
		return nil, fmt.Errorf("no key %q in the issuer's key set", kid)
	}
	if err := v.fetch(ctx); err != nil {
		return nil, err
	}
	if k := find(); k != nil {
		return k, nil
	}
	return nil, fmt.Errorf("no key %q in the issuer's key set", kid)
}

func (v *JWT) fetch(ctx context.Context) error {
	hc := v.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	jwks := v.JWKSURL
	if jwks == "" {
		if v.discovered == "" { // once: the field the user set is left as it is
			u, err := discoverJWKS(ctx, hc, v.Issuer)
			if err != nil {
				return err
			}
			v.discovered = u
		}
		jwks = v.discovered
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, jwks, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("fetching the issuer's keys: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("fetching the issuer's keys: GET %s: HTTP %d", jwks, resp.StatusCode)
	}
	var set jose.JSONWebKeySet
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&set); err != nil {
		return fmt.Errorf("the issuer's keys: %w", err)
	}
	set.Keys = slices.DeleteFunc(set.Keys, func(k jose.JSONWebKey) bool { return !k.IsPublic() })
	v.keys, v.fetched = &set, time.Now()
	return nil
}

// discoverJWKS finds the jwks_uri in an issuer's metadata (oauth.DiscoverServer).
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
