package oauth

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// machineToken gets a token without a person: the client credentials grant, or a JWT
// bearer assertion traded for a token.
func (t *Transport) machineToken(ctx context.Context, hc *http.Client, as *ServerMetadata, resource, indicator string, scopes []string, local bool) (*Token, error) {
	cfg := t.Config
	form := url.Values{"grant_type": {cfg.Grant}, "resource": {indicator}}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	pre := cfg.client(as.Issuer, resource)
	if pre == nil {
		return nil, wrapf("token", "the %s grant needs a client registered with the authorization server %s for this server (%s), and none is configured for it (Config.Clients: %s); a client's credentials go only to its authorization server, for the servers it names", cfg.Grant, as.Issuer, resource, cfg.configured())
	}
	c := clientAuth{id: pre.ID, secret: pre.Secret, method: authMethod(as, pre.Secret != "")}
	switch cfg.Grant {
	case GrantClientCredentials:
		if pre.ID == "" {
			return nil, wrapf("token", "the client credentials grant needs the client's ID (Config.Clients, issuer %s)", as.Issuer)
		}
		if pre.PrivateKey != nil {
			assertion, err := clientAssertion(pre, as)
			if err != nil {
				return nil, &Error{"token", err}
			}
			c.method = "private_key_jwt"
			form.Set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
			form.Set("client_assertion", assertion)
		}
	case GrantJWTBearer:
		if pre.Assertion == nil {
			return nil, wrapf("token", "the JWT bearer grant needs the client's Assertion (Config.Clients, issuer %s)", as.Issuer)
		}
		assertion, err := pre.Assertion(ctx, as.Issuer, indicator)
		if err != nil {
			return nil, &Error{"token", err}
		}
		form.Set("assertion", assertion)
	default:
		return nil, wrapf("token", "unknown grant %q", cfg.Grant)
	}
	tok, err := t.exchange(ctx, hc, as.TokenEndpoint, c, form)
	if err != nil {
		return nil, err
	}
	tok.Scope, tok.Resource, tok.Indicator, tok.Issuer, tok.Local = strings.Join(scopes, " "), resource, indicator, as.Issuer, local
	if err := t.store.SetToken(ctx, resource, tok); err != nil {
		return nil, &Error{"token store", err}
	}
	return tok, nil
}

// clientAssertion is a JWT that authenticates the client to the token endpoint
// (private_key_jwt, RFC 7523 section 2.2): issued by and about the client, for the
// authorization server, good for a minute.
func clientAssertion(c *Client, as *ServerMetadata) (string, error) {
	alg := jose.SignatureAlgorithm(c.SigningAlgorithm)
	if alg == "" {
		alg = jose.ES256
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: c.PrivateKey}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		return "", err
	}
	now := time.Now()
	return jwt.Signed(signer).Claims(jwt.Claims{
		Issuer:   c.ID,
		Subject:  c.ID,
		Audience: jwt.Audience{as.Issuer},
		IssuedAt: jwt.NewNumericDate(now),
		Expiry:   jwt.NewNumericDate(now.Add(time.Minute)),
		ID:       randomString(16),
	}).Serialize()
}

// IDJAG is an Assertion for enterprise-managed authorization: it trades the user's ID token
// from the enterprise identity provider for an identity assertion authorization grant (an
// ID-JAG, by token exchange, RFC 8693) for the authorization server and resource asked, which
// the JWT bearer grant then trades for an access token. clientID is the client's id at the
// identity provider.
func IDJAG(hc *http.Client, tokenEndpoint, clientID, clientSecret, idToken string) func(ctx context.Context, issuer, resource string) (string, error) {
	if hc == nil {
		hc = http.DefaultClient
	}
	return func(ctx context.Context, issuer, resource string) (string, error) {
		form := url.Values{
			"grant_type":           {"urn:ietf:params:oauth:grant-type:token-exchange"},
			"subject_token":        {idToken},
			"subject_token_type":   {"urn:ietf:params:oauth:token-type:id_token"},
			"requested_token_type": {"urn:ietf:params:oauth:token-type:id-jag"},
			"audience":             {issuer},
			"resource":             {resource},
			"client_id":            {clientID},
		}
		if clientSecret != "" {
			form.Set("client_secret", clientSecret)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, tokenEndpoint, strings.NewReader(form.Encode()))
		if err != nil {
			return "", err
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Accept", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		var out struct {
			AccessToken string `json:"access_token"`
			Error       string `json:"error"`
		}
		json.Unmarshal(data, &out)
		if resp.StatusCode != http.StatusOK || out.AccessToken == "" {
			return "", fmt.Errorf("token exchange at the identity provider %s: HTTP %d %s", tokenEndpoint, resp.StatusCode, serverText(out.Error))
		}
		return out.AccessToken, nil
	}
}
