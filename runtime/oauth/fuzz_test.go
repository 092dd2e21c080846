package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// fuzzNet is the whole network of an authorization, in memory: an MCP server at
// http://127.0.0.1:1/mcp that challenges with challenge until a request carries a token,
// and every other URL answered by what it looks like (resource metadata, authorization
// server metadata, registration, authorization, token), with the fuzzer's bytes.
type fuzzNet struct {
	challenge           string
	prm, as, reg, token []byte

	mu       sync.Mutex
	requests []*http.Request
	forms    []url.Values
}

func (n *fuzzNet) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		req.Body.Close()
	}
	form, _ := url.ParseQuery(string(body))
	n.mu.Lock()
	n.requests = append(n.requests, req)
	n.forms = append(n.forms, form)
	n.mu.Unlock()
	answer := func(status int, h http.Header, b []byte) (*http.Response, error) {
		if h == nil {
			h = http.Header{}
		}
		return &http.Response{StatusCode: status, Header: h, Body: io.NopCloser(bytes.NewReader(b)), Request: req}, nil
	}
	p := req.URL.Path
	switch {
	case req.URL.Host == "127.0.0.1:1" && p == "/mcp":
		if strings.HasPrefix(req.Header.Get("Authorization"), "Bearer ") || strings.HasPrefix(req.Header.Get("Authorization"), "DPoP ") {
			return answer(200, nil, []byte("ok"))
		}
		return answer(401, http.Header{"Www-Authenticate": {n.challenge}}, nil)
	case strings.Contains(p, "oauth-protected-resource"), strings.HasSuffix(p, "/prm"):
		return answer(200, nil, n.prm)
	case strings.Contains(p, "oauth-authorization-server"), strings.Contains(p, "openid-configuration"):
		return answer(200, nil, n.as)
	case strings.HasSuffix(p, "/register"):
		return answer(201, nil, n.reg)
	case strings.HasSuffix(p, "/authorize"):
		q := req.URL.Query()
		back := q.Get("redirect_uri") + "?" + url.Values{"code": {"c"}, "state": {q.Get("state")}}.Encode()
		return answer(302, http.Header{"Location": {back}}, nil)
	case strings.HasSuffix(p, "/token"):
		return answer(200, nil, n.token)
	}
	return answer(404, nil, nil)
}

// FuzzAuthorization runs the whole authorization against servers that answer with the
// fuzzer's bytes: challenge, resource metadata, authorization server metadata,
// registration and token responses. Whatever they say, the client does not crash or hang,
// opens and posts only to endpoints CheckEndpoint accepts, and sends the secret of the
// client configured for https://as.example to that authorization server only.
func FuzzAuthorization(f *testing.F) {
	okPRM := `{"resource":"http://127.0.0.1:1/mcp","authorization_servers":["https://as.example"],"scopes_supported":["read"]}`
	okAS := `{"issuer":"https://as.example","authorization_endpoint":"https://as.example/authorize","token_endpoint":"https://as.example/token","registration_endpoint":"https://as.example/register","code_challenge_methods_supported":["S256"]}`
	otherPRM := strings.Replace(okPRM, "https://as.example", "https://other.example", 1)
	otherAS := strings.ReplaceAll(okAS, "https://as.example", "https://other.example")
	okReg := `{"client_id":"dyn","client_secret":"dyn-secret","token_endpoint_auth_method":"client_secret_post"}`
	okToken := `{"access_token":"t","token_type":"Bearer","expires_in":3600,"refresh_token":"r"}`
	ch := `Bearer resource_metadata="http://127.0.0.1:1/prm", scope="read"`
	f.Add(ch, okPRM, okAS, okReg, okToken)
	f.Add(ch, otherPRM, otherAS, okReg, okToken)
	f.Add(`Bearer scope="a b"`, okPRM, okAS, okReg, `{"access_token":"t","token_type":"DPoP"}`)
	f.Add(ch, okPRM, strings.Replace(okAS, `"https://as.example/authorize"`, `"file:///etc/passwd"`, 1), okReg, okToken)
	f.Add(ch, `{"resource":"http://127.0.0.1:1","authorization_servers":["https://as.example/tenant"]}`, strings.Replace(okAS, `"issuer":"https://as.example"`, `"issuer":"https://as.example/tenant"`, 1), `{}`, `{"error":"invalid_grant"}`)
	f.Add(`Basic realm="x", Bearer error="insufficient_scope", scope="write"`, okPRM, `{"issuer":"https://as.example","token_endpoint":"https://as.example/token"}`, `[]`, `null`)
	f.Fuzz(func(t *testing.T, challenge, prm, as, reg, token string) {
		n := &fuzzNet{challenge: challenge, prm: []byte(prm), as: []byte(as), reg: []byte(reg), token: []byte(token)}
		hc := &http.Client{Transport: n}
		var opened []string
		cfg := &Config{
			Clients:     []Client{{Issuer: "https://as.example", ID: "pre", Secret: "s3cret", Resources: []string{"http://127.0.0.1:1"}}},
			RedirectURL: "http://127.0.0.1:9/callback",
			HTTPClient:  hc,
			Authorize: func(ctx context.Context, authURL string) (*url.URL, error) {
				opened = append(opened, authURL)
				return FollowRedirect(hc)(ctx, authURL)
			},
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://127.0.0.1:1/mcp", strings.NewReader("{}"))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("{}")), nil }
		resp, err := (&http.Client{Transport: &Transport{Base: n, Config: cfg}}).Do(req)
		if err == nil {
			resp.Body.Close()
		}
		if ctx.Err() != nil {
			t.Fatalf("the authorization ran out of time: %v", err)
		}
		for _, u := range opened {
			if CheckEndpoint(u) != nil {
				t.Errorf("opened %q", u)
			}
		}
		var m ResourceMetadata
		json.Unmarshal([]byte(prm), &m)
		ourIssuer := len(m.AuthorizationServers) > 0 && m.AuthorizationServers[0] == "https://as.example"
		for i, r := range n.requests {
			if r.URL.Host == "127.0.0.1:1" && r.URL.Path == "/mcp" {
				continue
			}
			if err := CheckEndpoint(r.URL.String()); err != nil && !strings.HasSuffix(r.URL.Path, "/callback") {
				t.Errorf("requested %s: %v", r.URL, err)
			}
			id, secret, _ := r.BasicAuth()
			if (secret == "s3cret" || id == "pre" || n.forms[i].Get("client_secret") == "s3cret" || n.forms[i].Get("client_id") == "pre") && !ourIssuer {
				t.Errorf("the client of https://as.example went to %s, for the authorization server %v", r.URL, m.AuthorizationServers)
			}
		}
	})
}

// FuzzParseChallenge: no header crashes the parser, and parameters written as RFC 7235
// quoted strings come back as they were.
func FuzzParseChallenge(f *testing.F) {
	f.Add(`Bearer resource_metadata="https://s/.well-known/oauth-protected-resource", scope="a b"`, "files:read files:write", `needs "a"`)
	f.Add(`Basic realm="x", DPoP error="use_dpop_nonce"`, "", `\`)
	f.Add(`Bearer error=invalid_token,scope=x`, "x", "")
	f.Add(`Bearer ,,=, "`, `"`, `,`)
	f.Fuzz(func(t *testing.T, header, scope, desc string) {
		if c, ok := ParseChallenge(http.Header{"Www-Authenticate": {header}}); ok && !strings.EqualFold(c.Scheme, "Bearer") && !strings.EqualFold(c.Scheme, "DPoP") {
			t.Errorf("%q: scheme %q", header, c.Scheme)
		}
		for _, s := range []string{scope, desc} {
			if !utf8.ValidString(s) || strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
				return // not a header value
			}
		}
		quote := func(s string) string {
			return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
		}
		h := http.Header{"Www-Authenticate": {`Basic realm="x", Bearer scope=` + quote(scope) + `, error_description=` + quote(desc) + `, error="insufficient_scope"`}}
		c, ok := ParseChallenge(h)
		if !ok || c.Scope != scope || c.ErrorDescription != desc || c.Error != "insufficient_scope" {
			t.Errorf("%q: %+v %v", h.Get("Www-Authenticate"), c, ok)
		}
	})
}

// The fuzz harness's good seed is a whole authorization: the fuzzer starts from a run
// that reaches the token endpoint with the configured client, not from one refused early.
func TestFuzzHarness(t *testing.T) {
	n := &fuzzNet{
		challenge: `Bearer resource_metadata="http://127.0.0.1:1/prm"`,
		prm:       []byte(`{"resource":"http://127.0.0.1:1/mcp","authorization_servers":["https://as.example"]}`),
		as:        []byte(`{"issuer":"https://as.example","authorization_endpoint":"https://as.example/authorize","token_endpoint":"https://as.example/token","code_challenge_methods_supported":["S256"]}`),
		token:     []byte(`{"access_token":"t","token_type":"Bearer"}`),
	}
	hc := &http.Client{Transport: n}
	rt := &Transport{Base: n, Config: &Config{Clients: []Client{{Issuer: "https://as.example", ID: "pre", Secret: "s3cret", Resources: []string{"http://127.0.0.1:1"}}},
		RedirectURL: "http://127.0.0.1:9/callback", HTTPClient: hc, Authorize: FollowRedirect(hc)}}
	resp, err := (&http.Client{Transport: rt}).Post("http://127.0.0.1:1/mcp", "application/json", strings.NewReader("{}"))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%v %v", resp, err)
	}
	resp.Body.Close()
	last := n.requests[len(n.requests)-2] // the token request, before the MCP request's retry
	if id, secret, _ := last.BasicAuth(); last.URL.String() != "https://as.example/token" || id != "pre" || secret != "s3cret" {
		t.Errorf("the token request: %s, Basic %q:%q", last.URL, id, secret)
	}
}
