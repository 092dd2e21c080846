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
)

// Introspection verifies opaque access tokens by asking the authorization server (OAuth 2.0
// Token Introspection, RFC 7662): the token must be active, for Audience, and not expired.
type Introspection struct {
	Endpoint     string // the authorization server's introspection endpoint
	ClientID     string // this server's credentials at the authorization server
	ClientSecret string
	Audience     string // the aud the tokens must name: this server's canonical URI
	// HTTPClient asks; the default is http.DefaultClient.
	HTTPClient *http.Client
}

var _ mcp.TokenVerifier = (*Introspection)(nil)

// VerifyToken asks the authorization server about a token.
func (v *Introspection) VerifyToken(ctx context.Context, token string) (*mcp.AuthInfo, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, v.Endpoint,
		strings.NewReader(url.Values{"token": {token}, "token_type_hint": {"access_token"}}.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if v.ClientID != "" {
		req.SetBasicAuth(url.QueryEscape(v.ClientID), url.QueryEscape(v.ClientSecret))
	}
	hc := v.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("introspection: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("introspection: POST %s: HTTP %d", v.Endpoint, resp.StatusCode)
	}
	claims := map[string]any{}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&claims); err != nil {
		return nil, fmt.Errorf("introspection: %w", err)
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
	if v.Audience != "" && !slices.Contains(aud, v.Audience) {
		return nil, fmt.Errorf("the token is for %v, not for %s", aud, v.Audience)
	}
	info := &mcp.AuthInfo{Claims: claims, Scopes: scopesOf(claims)}
	info.Subject, _ = claims["sub"].(string)
	info.ClientID, _ = claims["client_id"].(string)
	if exp, ok := claims["exp"].(float64); ok {
		info.Expiry = time.Unix(int64(exp), 0)
		if time.Now().After(info.Expiry) {
			return nil, errors.New("the token has expired")
		}
	}
	return info, nil
}
