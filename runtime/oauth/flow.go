package oauth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// ResourceMetadata is a server's protected resource metadata (RFC 9728).
type ResourceMetadata struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported"`
	// The algorithms the server takes DPoP proofs signed with, and whether it takes
	// DPoP-bound tokens only (RFC 9449 section 5.2).
	DPoPSigningAlgValuesSupported []string `json:"dpop_signing_alg_values_supported"`
	DPoPBoundAccessTokensRequired bool     `json:"dpop_bound_access_tokens_required"`
}

// ServerMetadata is an authorization server's metadata (RFC 8414, OpenID Connect discovery).
type ServerMetadata struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint"`
	ScopesSupported                   []string `json:"scopes_supported"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
	ClientIDMetadataDocumentSupported bool     `json:"client_id_metadata_document_supported"`
	IssParameterSupported             bool     `json:"authorization_response_iss_parameter_supported"`
	DPoPSigningAlgValuesSupported     []string `json:"dpop_signing_alg_values_supported"`
	JWKSURI                           string   `json:"jwks_uri"`
}

// authorize runs the whole flow for a server that challenged a request to u.
// local says the server is on the user's machine or network (reachedLocal).
func (t *Transport) authorize(ctx context.Context, u *url.URL, resource string, ch Challenge, scopes []string, stale *Token, local bool) (*Token, error) {
	lock := t.flowLock(resource)
	lock.Lock()
	defer lock.Unlock()
	// Another request may have authorized while this one waited: its token, if it is not
	// the one refused and has the scopes asked, does.
	if cur, err := t.store.Token(ctx, resource); err == nil && cur != nil && (stale == nil || cur.AccessToken != stale.AccessToken) &&
		!slices.ContainsFunc(scopes, func(s string) bool { return !slices.Contains(strings.Fields(cur.Scope), s) }) {
		return cur, nil
	}

	if t.cfgErr != nil {
		return nil, &Error{"configuration", t.cfgErr}
	}
	// A server on the user's machine or network may name endpoints there; one on the
	// internet may not, except an authorization server the user configured a client for.
	prm, err := t.resourceMetadata(ctx, t.flowClient(local), u, ch)
	if err != nil {
		return nil, err
	}
	// The metadata must be about this server: a document for another resource would send
	// the user's token elsewhere.
	if !sameResource(prm.Resource, resource) {
		return nil, wrapf("discovery", "the protected resource metadata is for %q, not for this server (%s)", prm.Resource, resource)
	}
	if len(prm.AuthorizationServers) == 0 {
		return nil, wrapf("discovery", "the protected resource metadata names no authorization server")
	}
	issuer := prm.AuthorizationServers[0]
	hc := t.flowClient(local || t.Config.client(issuer, resource) != nil)
	as, err := t.serverMetadata(ctx, hc, issuer)
	if err != nil {
		return nil, err
	}
	if len(scopes) == 0 {
		scopes = prm.ScopesSupported
	}
	// The client's DPoP key is an ES256 one: its tokens are bound when the authorization
	// server offers that, and the server, if it says, takes it.
	dpop := slices.Contains(as.DPoPSigningAlgValuesSupported, "ES256") &&
		(len(prm.DPoPSigningAlgValuesSupported) == 0 || slices.Contains(prm.DPoPSigningAlgValuesSupported, "ES256"))
	if prm.DPoPBoundAccessTokensRequired {
		// A token it would refuse is not worth the user's login.
		switch {
		case !dpop:
			return nil, wrapf("discovery", "the server takes DPoP-bound tokens only (dpop_bound_access_tokens_required), and this client binds tokens to an ES256 key, which the authorization server %s (dpop_signing_alg_values_supported %q) and the server (%q) do not both take", as.Issuer, as.DPoPSigningAlgValuesSupported, prm.DPoPSigningAlgValuesSupported)
		case t.Config.Grant != "":
			return nil, wrapf("discovery", "the server takes DPoP-bound tokens only (dpop_bound_access_tokens_required), and the %s grant gets bearer tokens here: use the authorization code flow", t.Config.Grant)
		}
	}
	if t.Config.Grant != "" {
		return t.machineToken(ctx, hc, as, resource, prm.Resource, scopes, local)
	}
	// What the authorization code flow needs of the server, and the other grants do not.
	if !slices.Contains(as.CodeChallengeMethodsSupported, "S256") {
		return nil, wrapf("discovery", "the authorization server %s does not offer PKCE with S256 (code_challenge_methods_supported), which MCP requires", as.Issuer)
	}
	if as.AuthorizationEndpoint == "" {
		return nil, wrapf("discovery", "the authorization server metadata of %s has no authorization endpoint", as.Issuer)
	}
	if slices.Contains(as.ScopesSupported, "offline_access") && !slices.Contains(scopes, "offline_access") && len(scopes) > 0 {
		scopes = append(append([]string(nil), scopes...), "offline_access") // a refresh token, where offered
	}
	c, err := t.register(ctx, hc, as, resource)
	if err != nil {
		return nil, err
	}
	c.dpop = dpop
	// The resource indicator is the metadata's resource, exactly as published (RFC 9728:
	// the identifier tokens for this server carry as their audience).
	indicator := prm.Resource
	code, verifier, err := t.code(ctx, as, c, indicator, scopes)
	if err != nil {
		return nil, err
	}
	form := url.Values{
		"grant_type":    {"authorization_code"},
		"code":          {code},
		"redirect_uri":  {t.Config.RedirectURL},
		"code_verifier": {verifier},
		"resource":      {indicator},
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

// sameResource reports whether the resource a metadata document names is the server's:
// the same URI, or one of its prefixes at a path boundary (the metadata of a host covers
// its paths).
func sameResource(metadata, resource string) bool {
	m := strings.TrimSuffix(metadata, "/")
	if m == "" {
		return false
	}
	mu, err1 := url.Parse(m)
	ru, err2 := url.Parse(resource)
	if err1 != nil || err2 != nil || !strings.EqualFold(mu.Scheme, ru.Scheme) || !strings.EqualFold(mu.Host, ru.Host) {
		return false
	}
	return ru.Path == mu.Path || strings.HasPrefix(ru.Path, strings.TrimSuffix(mu.Path, "/")+"/")
}

// resourceMetadata fetches the server's protected resource metadata: from the challenge's
// resource_metadata, else from the well-known URIs, path-specific first (RFC 9728 section
// 3.1).
func (t *Transport) resourceMetadata(ctx context.Context, hc *http.Client, u *url.URL, ch Challenge) (*ResourceMetadata, error) {
	var candidates []string
	if ch.ResourceMetadata != "" {
		if err := CheckEndpoint(ch.ResourceMetadata); err != nil {
			return nil, wrapf("discovery", "the challenge's resource_metadata: %v: refused", err)
		}
		// On the server's own origin, or https: not plain http to another port or host.
		m, _ := url.Parse(ch.ResourceMetadata)
		if m.Scheme != "https" && !(strings.EqualFold(m.Scheme, u.Scheme) && strings.EqualFold(m.Host, u.Host)) {
			return nil, wrapf("discovery", "the challenge's resource_metadata %q is neither on the server's origin nor https: refused", ch.ResourceMetadata)
		}
		candidates = append(candidates, ch.ResourceMetadata)
	} else {
		origin := u.Scheme + "://" + u.Host
		if p := strings.TrimSuffix(u.Path, "/"); p != "" {
			candidates = append(candidates, origin+"/.well-known/oauth-protected-resource"+p)
		}
		candidates = append(candidates, origin+"/.well-known/oauth-protected-resource")
	}
	var errs []error
	for _, c := range candidates {
		var m ResourceMetadata
		if err := getJSON(ctx, hc, c, &m); err != nil {
			errs = append(errs, err)
			continue
		}
		return &m, nil
	}
	return nil, &Error{"discovery", fmt.Errorf("no protected resource metadata: %w", errors.Join(errs...))}
}

// DiscoverServer fetches an authorization server's metadata, trying OAuth (RFC 8414) and
// OpenID Connect discovery in the order the MCP authorization page gives, path-inserted forms
// first for an issuer with a path, and checks that it names the issuer asked for, compared
// as strings. hc nil is http.DefaultClient.
func DiscoverServer(ctx context.Context, hc *http.Client, issuer string) (*ServerMetadata, error) {
	if err := CheckEndpoint(issuer); err != nil {
		return nil, wrapf("discovery", "the authorization server: %v", err)
	}
	u, _ := url.Parse(issuer)
	origin := u.Scheme + "://" + u.Host
	path := strings.TrimSuffix(u.Path, "/")
	var candidates []string
	if path != "" {
		candidates = []string{
			origin + "/.well-known/oauth-authorization-server" + path,
			origin + "/.well-known/openid-configuration" + path,
			origin + path + "/.well-known/openid-configuration",
		}
	} else {
		candidates = []string{origin + "/.well-known/oauth-authorization-server", origin + "/.well-known/openid-configuration"}
	}
	var errs []error
	for _, c := range candidates {
		var m ServerMetadata
		if err := getJSON(ctx, hc, c, &m); err != nil {
			errs = append(errs, err)
			continue
		}
		if m.Issuer != issuer {
			return nil, wrapf("discovery", "the authorization server metadata at %s names the issuer %q, not %q", c, m.Issuer, issuer)
		}
		for _, e := range []struct{ name, url string }{
			{"authorization_endpoint", m.AuthorizationEndpoint}, {"token_endpoint", m.TokenEndpoint},
			{"registration_endpoint", m.RegistrationEndpoint}, {"jwks_uri", m.JWKSURI},
		} {
			if e.url == "" {
				continue
			}
			if err := CheckEndpoint(e.url); err != nil {
				return nil, wrapf("discovery", "the authorization server metadata at %s: %s: %v: refused", c, e.name, err)
			}
		}
		return &m, nil
	}
	return nil, &Error{"discovery", fmt.Errorf("no authorization server metadata for %s: %w", issuer, errors.Join(errs...))}
}

// serverMetadata discovers an authorization server (DiscoverServer) and checks that it has
// a token endpoint, which every grant needs.
func (t *Transport) serverMetadata(ctx context.Context, hc *http.Client, issuer string) (*ServerMetadata, error) {
	m, err := DiscoverServer(ctx, hc, issuer)
	if err != nil {
		return nil, err
	}
	if m.TokenEndpoint == "" {
		return nil, wrapf("discovery", "the authorization server metadata of %s has no token endpoint", issuer)
	}
	return m, nil
}

// getJSON GETs a JSON document; hc nil is http.DefaultClient.
func getJSON(ctx context.Context, hc *http.Client, u string, v any) error {
	if hc == nil {
		hc = http.DefaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: HTTP %d", u, resp.StatusCode)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("GET %s: %v", u, err)
	}
	return nil
}

// clientAuth is how the client authenticates to the token endpoint.
type clientAuth struct {
	id, secret string
	method     string // client_secret_basic, client_secret_post, none
	dpop       bool   // the tokens are bound to the client's DPoP key
}

// register settles the client's id: the client configured for this authorization server
// and the server (resource), else its metadata document's URL where the authorization
// server takes those, else one from dynamic registration. A client configured for another
// authorization server, or for other servers, is never used here.
func (t *Transport) register(ctx context.Context, hc *http.Client, as *ServerMetadata, resource string) (clientAuth, error) {
	cfg := t.Config
	switch pre := cfg.client(as.Issuer, resource); {
	case pre != nil:
		return clientAuth{id: pre.ID, secret: pre.Secret, method: authMethod(as, pre.Secret != "")}, nil
	case cfg.ClientMetadataURL != "" && as.ClientIDMetadataDocumentSupported:
		return clientAuth{id: cfg.ClientMetadataURL, method: "none"}, nil
	case as.RegistrationEndpoint == "":
		hint := ""
		if cfg.ClientMetadataURL == "" {
			hint = " (or Config.ClientMetadataURL is not set)"
		}
		return clientAuth{}, wrapf("registration", "the authorization server %s takes no Client ID Metadata Documents%s and has no registration endpoint: configure a client registered with it (Config.Clients with Issuer %q, and this server, %s, in its Resources; clients are configured for: %s)", as.Issuer, hint, as.Issuer, resource, cfg.configured())
	}
	name := cfg.ClientName
	if name == "" {
		name = "mcpgen"
	}
	reg := map[string]any{
		"client_name":                name,
		"redirect_uris":              []string{cfg.RedirectURL},
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": "none",
		"application_type":           applicationType(cfg.RedirectURL),
	}
	body, _ := json.Marshal(reg)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, as.RegistrationEndpoint, strings.NewReader(string(body)))
	if err != nil {
		return clientAuth{}, &Error{"registration", err}
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return clientAuth{}, &Error{"registration", err}
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode/100 != 2 {
		return clientAuth{}, wrapf("registration", "POST %s: HTTP %d: %s", as.RegistrationEndpoint, resp.StatusCode, serverText(string(data)))
	}
	var out struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
		AuthMethod   string `json:"token_endpoint_auth_method"`
	}
	if err := json.Unmarshal(data, &out); err != nil || out.ClientID == "" {
		return clientAuth{}, wrapf("registration", "POST %s: no client_id in %s", as.RegistrationEndpoint, serverText(string(data)))
	}
	m := out.AuthMethod
	if m == "" {
		m = authMethod(as, out.ClientSecret != "")
	}
	return clientAuth{id: out.ClientID, secret: out.ClientSecret, method: m}, nil
}

// applicationType is the OpenID application_type of a client with the redirect URI (SEP-837):
// native for one that the user's own machine receives (loopback, localhost, a custom
// scheme), web for one served from elsewhere.
func applicationType(redirect string) string {
	u, err := url.Parse(redirect)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" {
		return "native"
	}
	switch h := u.Hostname(); {
	case h == "localhost", strings.HasSuffix(h, ".localhost"), h == "127.0.0.1", h == "::1":
		return "native"
	}
	return "web"
}

// authMethod picks how a client authenticates to the token endpoint from what the server
// offers: client_secret_basic (the default of RFC 8414), else client_secret_post, for a
// client with a secret; none for one without.
func authMethod(as *ServerMetadata, hasSecret bool) string {
	if !hasSecret {
		return "none"
	}
	offered := as.TokenEndpointAuthMethodsSupported
	if len(offered) == 0 || slices.Contains(offered, "client_secret_basic") {
		return "client_secret_basic"
	}
	if slices.Contains(offered, "client_secret_post") {
		return "client_secret_post"
	}
	return "client_secret_basic"
}

// code runs the authorization request and returns the code and the PKCE verifier.
func (t *Transport) code(ctx context.Context, as *ServerMetadata, c clientAuth, resource string, scopes []string) (code, verifier string, err error) {
	if t.Config.Authorize == nil {
		return "", "", &Error{"authorization", errNoAuthorize}
	}
	verifier = randomString(32)
	sum := sha256.Sum256([]byte(verifier))
	state := randomString(16)
	q := url.Values{
		"response_type":         {"code"},
		"client_id":             {c.id},
		"redirect_uri":          {t.Config.RedirectURL},
		"code_challenge":        {base64.RawURLEncoding.EncodeToString(sum[:])},
		"code_challenge_method": {"S256"},
		"state":                 {state},
		"resource":              {resource},
	}
	if len(scopes) > 0 {
		q.Set("scope", strings.Join(scopes, " "))
	}
	authURL := as.AuthorizationEndpoint
	if strings.Contains(authURL, "?") {
		authURL += "&" + q.Encode()
	} else {
		authURL += "?" + q.Encode()
	}
	back, err := t.Config.Authorize(ctx, authURL)
	if err != nil {
		return "", "", &Error{"authorization", err}
	}
	got := back.Query()
	// RFC 9207: an issuer that says it sends iss must; one that sends it must be the one
	// asked, compared as strings. Checked first, and on errors too: a response from
	// another server is not acted on at all.
	iss, hasIss := got["iss"]
	switch {
	case hasIss && (len(iss) != 1 || iss[0] != as.Issuer):
		return "", "", wrapf("authorization", "the authorization response comes from the issuer %q, not %q (RFC 9207): refused", strings.Join(iss, ","), as.Issuer)
	case !hasIss && as.IssParameterSupported:
		return "", "", wrapf("authorization", "the authorization server %s says it names itself in its responses (iss), and this one does not: refused (RFC 9207)", as.Issuer)
	}
	if e := got.Get("error"); e != "" {
		return "", "", wrapf("authorization", "the authorization server refused: %s", serverText(strings.TrimSpace(e+" "+got.Get("error_description"))))
	}
	if got.Get("state") != state {
		return "", "", wrapf("authorization", "the authorization response's state is not the request's")
	}
	if code = got.Get("code"); code == "" {
		return "", "", wrapf("authorization", "the authorization response has no code")
	}
	return code, verifier, nil
}

// exchange posts a token request, authenticating the client as c says.
func (t *Transport) exchange(ctx context.Context, hc *http.Client, endpoint string, c clientAuth, form url.Values) (*Token, error) {
	// Basic authentication carries the id; every other method names it in the form (with
	// private_key_jwt, the assertion authenticates).
	if c.method != "client_secret_basic" {
		form.Set("client_id", c.id)
	}
	if c.method == "client_secret_post" {
		form.Set("client_secret", c.secret)
	}
	var out tokenResponse
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
		if err != nil {
			return nil, &Error{"token", err}
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Accept", "application/json")
		if c.method == "client_secret_basic" {
			req.SetBasicAuth(url.QueryEscape(c.id), url.QueryEscape(c.secret))
		}
		if c.dpop {
			proof, err := t.dpop.proof(http.MethodPost, req.URL, "", endpoint)
			if err != nil {
				return nil, &Error{"dpop", err}
			}
			req.Header.Set("DPoP", proof)
		}
		resp, err := hc.Do(req)
		if err != nil {
			return nil, &Error{"token", err}
		}
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		out = tokenResponse{} // nothing of a refused attempt carries over
		json.Unmarshal(data, &out)
		if c.dpop && attempt == 0 && out.Error == "use_dpop_nonce" && resp.Header.Get("DPoP-Nonce") != "" {
			t.dpop.setNonce(endpoint, resp.Header.Get("DPoP-Nonce"))
			continue
		}
		if resp.StatusCode != http.StatusOK || out.AccessToken == "" {
			if out.Error != "" {
				return nil, wrapf("token", "POST %s: %s", endpoint, serverText(strings.TrimSpace(out.Error+" "+out.Description)))
			}
			return nil, wrapf("token", "POST %s: HTTP %d: %s", endpoint, resp.StatusCode, serverText(string(data)))
		}
		break
	}
	tok := &Token{AccessToken: out.AccessToken, TokenType: out.TokenType, RefreshToken: out.RefreshToken,
		TokenEndpoint: endpoint, ClientID: c.id, ClientSecret: c.secret, AuthMethod: c.method}
	if out.ExpiresIn > 0 {
		tok.Expiry = time.Now().Add(time.Duration(out.ExpiresIn) * time.Second)
	}
	return tok, nil
}

// tokenResponse is a token endpoint's answer, or its error.
type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	RefreshToken string `json:"refresh_token"`
	ExpiresIn    int64  `json:"expires_in"`
	Error        string `json:"error"`
	Description  string `json:"error_description"`
}

// refresh trades a token's refresh token for a new one, and stores it.
func (t *Transport) refresh(ctx context.Context, old *Token) (*Token, error) {
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {old.RefreshToken}}
	if old.Indicator != "" {
		form.Set("resource", old.Indicator)
	}
	// Where the token came from, as it was when it was issued: not looked up again.
	hc := t.flowClient(old.Local || old.Issuer != "" && t.Config.client(old.Issuer, old.Resource) != nil)
	tok, err := t.exchange(ctx, hc, old.TokenEndpoint, clientAuth{id: old.ClientID, secret: old.ClientSecret, method: old.AuthMethod, dpop: old.isDPoP()}, form)
	if err != nil {
		return nil, err
	}
	tok.Scope, tok.Resource, tok.Indicator, tok.Issuer, tok.Local = old.Scope, old.Resource, old.Indicator, old.Issuer, old.Local
	if tok.RefreshToken == "" {
		tok.RefreshToken = old.RefreshToken
	}
	if err := t.store.SetToken(ctx, old.Resource, tok); err != nil {
		return nil, &Error{"token store", err}
	}
	return tok, nil
}

// serverText is text a server sent (a body, an error code, its description) as it goes
// into an error, which a terminal may show: its first 200 bytes, quoted with escapes when
// they hold anything but printable characters and spaces, so that a hostile server's escape
// sequences (rewriting what the terminal shows, or setting the clipboard) arrive as text.
func serverText(s string) string {
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	for _, c := range s {
		if c == utf8.RuneError || !unicode.IsGraphic(c) || unicode.IsSpace(c) && c != ' ' {
			return strconv.QuoteToGraphic(s)
		}
	}
	return s
}

func randomString(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
