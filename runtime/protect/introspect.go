package protect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/oauth"
)

// Introspection verifies opaque access tokens by asking the authorization server (OAuth 2.0
// Token Introspection, RFC 7662): the token must be active, for Audience, and not expired.
// Audience is required: without it a token for any service of the authorization server
// would do.
type Introspection struct {
	Endpoint     string // the authorization server's introspection endpoint: https, or http on loopback
	ClientID     string // this server's credentials at the authorization server
	ClientSecret string
	Audience     string // the aud the tokens must name: this server's canonical URI
	// Issuer, when set, is the authorization server's issuer identifier: an answer that
	// names another iss is refused, and one that names none is taken as Issuer's.
	Issuer string
	// HTTPClient asks; the default is http.DefaultClient. A redirect is followed only on
	// the Endpoint's origin: the question carries the token and this server's credentials.
	HTTPClient *http.Client
	// Timeout bounds one question to the endpoint; the default is 10 seconds.
	Timeout time.Duration
}

var _ mcp.TokenVerifier = (*Introspection)(nil)

// Validate returns what is wrong with the verifier's configuration: it needs an Endpoint
// (https, or http on loopback) and an Audience. VerifyToken refuses every token of a
// verifier that is not valid (with mcp.ErrVerifierUnavailable: the server answers 503);
// call it at startup to stop there instead.
func (v *Introspection) Validate() error {
	var errs []error
	if err := oauth.CheckEndpoint(v.Endpoint); err != nil {
		errs = append(errs, fmt.Errorf("protect.Introspection: Endpoint: %v", err))
	}
	if v.Audience == "" {
		errs = append(errs, errors.New("protect.Introspection: Audience is empty: set it to this server's canonical URI (AuthOptions.Resource), which its tokens name as their audience; without it a token for any service would do"))
	}
	return errors.Join(errs...)
}

// VerifyToken asks the authorization server about a token. An endpoint that cannot be
// reached, or does not answer 200 with JSON, is an outage (mcp.ErrVerifierUnavailable). A
// token bound to a key of its client's (cnf in the answer) is refused: it comes with the
// DPoP scheme (VerifyDPoP).
func (v *Introspection) VerifyToken(ctx context.Context, token string) (*mcp.AuthInfo, error) {
	return notBound(v.verify(ctx, token))
}

// verify asks about a token, bound or not.
func (v *Introspection) verify(ctx context.Context, token string) (*mcp.AuthInfo, error) {
	if err := v.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", mcp.ErrVerifierUnavailable, err)
	}
	timeout := v.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, v.Endpoint,
		strings.NewReader(url.Values{"token": {token}, "token_type_hint": {"access_token"}}.Encode()))
	if err != nil {
		return nil, fmt.Errorf("%w: introspection: %v", mcp.ErrVerifierUnavailable, err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if v.ClientID != "" {
		req.SetBasicAuth(url.QueryEscape(v.ClientID), url.QueryEscape(v.ClientSecret))
	}
	resp, err := redirectsTo(v.HTTPClient, toSameOrigin).Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: introspection: %v", mcp.ErrVerifierUnavailable, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		// The endpoint did not judge the token (down, or refusing this server's own
		// credentials): the token may well be good.
		return nil, fmt.Errorf("%w: introspection: POST %s: HTTP %d", mcp.ErrVerifierUnavailable, v.Endpoint, resp.StatusCode)
	}
	claims := map[string]any{}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&claims); err != nil {
		return nil, fmt.Errorf("%w: introspection: POST %s: %v", mcp.ErrVerifierUnavailable, v.Endpoint, err)
	}
	if active, _ := claims["active"].(bool); !active {
		return nil, errors.New("the token is not active")
	}
	var aud []string
	switch a := claims["aud"].(type) {
	case string:
		aud = []string{a}
	case []any:
		for _, v := range a {
			if s, ok := v.(string); ok {
				aud = append(aud, s)
			}
		}
	}
	if !slices.Contains(aud, v.Audience) {
		return nil, fmt.Errorf("the token is for %v, not for %s", aud, v.Audience)
	}
	info := &mcp.AuthInfo{Claims: claims, Scopes: scopesOf(claims), ClientID: clientOf(claims)}
	info.Subject, _ = claims["sub"].(string)
	info.Issuer, _ = claims["iss"].(string)
	switch {
	case info.Issuer == "":
		info.Issuer = v.Issuer
	case v.Issuer != "" && info.Issuer != v.Issuer:
		return nil, fmt.Errorf("the token was issued by %s, not %s", info.Issuer, v.Issuer)
	}
	if exp, ok := claims["exp"].(float64); ok {
		info.Expiry = time.Unix(int64(exp), 0)
		if time.Now().After(info.Expiry) {
			return nil, errors.New("the token has expired")
		}
	}
	return info, nil
}

// toSameOrigin lets a redirect of the introspection request go only to the endpoint's own
// origin (scheme, host and port): it carries the token, and this server's credentials,
// which net/http sends again to the same host whatever the scheme, so that a redirect from
// https to http would put them on the wire in the clear.
func toSameOrigin(to *url.URL, first *http.Request) error {
	if err := oauth.CheckEndpoint(to.String()); err != nil {
		return err
	}
	from := first.URL
	if !strings.EqualFold(to.Scheme, from.Scheme) || !strings.EqualFold(to.Host, from.Host) {
		return fmt.Errorf("to %s, another origin than the introspection endpoint's (%s://%s), which the token and this server's credentials go to only", to.Redacted(), from.Scheme, from.Host)
	}
	return nil
}
