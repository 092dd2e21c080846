package oauth

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
)

// world is a protected MCP server and its authorization server, in one httptest server:
// what the flow meets, with knobs for what can go wrong.
type world struct {
	t   *testing.T
	srv *httptest.Server

	mu          sync.Mutex
	need        []string // scopes the MCP endpoint requires
	tokens      map[string][]string
	issued      int
	refreshed   int
	codes       map[string]authRequest
	badIss      bool // the authorization response names another issuer
	prmResource string
	noS256      bool
	withhold    string // a scope the token endpoint never grants
	expiresIn   int
	registered  []map[string]any
	tokenForms  []url.Values
	tokenAuth   []string       // the Authorization header of each token request
	asMeta      map[string]any // over the authorization server's metadata
	prmURL      string         // the challenge's resource_metadata, when set
}

type authRequest struct {
	challenge, resource, scope string
}

func newWorld(t *testing.T) *world {
	w := &world{t: t, tokens: map[string][]string{}, codes: map[string]authRequest{}, expiresIn: 3600}
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", w.mcp)
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(rw http.ResponseWriter, r *http.Request) {
		resource := w.prmResource
		if resource == "" {
			resource = w.srv.URL + "/mcp"
		}
		json.NewEncoder(rw).Encode(map[string]any{"resource": resource, "authorization_servers": []string{w.srv.URL + "/as"}, "scopes_supported": []string{"read"}})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server/as", func(rw http.ResponseWriter, r *http.Request) {
		methods := []string{"S256"}
		if w.noS256 {
			methods = []string{"plain"}
		}
		meta := map[string]any{
			"issuer": w.srv.URL + "/as", "authorization_endpoint": w.srv.URL + "/as/authorize", "token_endpoint": w.srv.URL + "/as/token",
			"registration_endpoint": w.srv.URL + "/as/register", "code_challenge_methods_supported": methods,
			"authorization_response_iss_parameter_supported": true,
		}
		for k, v := range w.asMeta {
			meta[k] = v
		}
		json.NewEncoder(rw).Encode(meta)
	})
	mux.HandleFunc("/as/register", func(rw http.ResponseWriter, r *http.Request) {
		var m map[string]any
		json.NewDecoder(r.Body).Decode(&m)
		w.mu.Lock()
		w.registered = append(w.registered, m)
		w.mu.Unlock()
		rw.WriteHeader(http.StatusCreated)
		json.NewEncoder(rw).Encode(map[string]any{"client_id": "dyn-client"})
	})
	mux.HandleFunc("/as/authorize", func(rw http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		code := fmt.Sprintf("code-%d", len(w.codes))
		w.mu.Lock()
		w.codes[code] = authRequest{challenge: q.Get("code_challenge"), resource: q.Get("resource"), scope: q.Get("scope")}
		w.mu.Unlock()
		iss := w.srv.URL + "/as"
		if w.badIss {
			iss = "https://evil.example/as"
		}
		back := q.Get("redirect_uri") + "?" + url.Values{"code": {code}, "state": {q.Get("state")}, "iss": {iss}}.Encode()
		http.Redirect(rw, r, back, http.StatusFound)
	})
	mux.HandleFunc("/as/token", func(rw http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		w.mu.Lock()
		defer w.mu.Unlock()
		w.tokenForms = append(w.tokenForms, r.PostForm)
		w.tokenAuth = append(w.tokenAuth, r.Header.Get("Authorization"))
		var scopes []string
		switch r.PostForm.Get("grant_type") {
		case "authorization_code":
			req, ok := w.codes[r.PostForm.Get("code")]
			sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
			if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != req.challenge || r.PostForm.Get("resource") != req.resource {
				rw.WriteHeader(http.StatusBadRequest)
				json.NewEncoder(rw).Encode(map[string]string{"error": "invalid_grant"})
				return
			}
			for _, sc := range strings.Fields(req.scope) {
				if sc != w.withhold {
					scopes = append(scopes, sc)
				}
			}
		case "refresh_token":
			w.refreshed++
			scopes = w.tokens["refresh:"+r.PostForm.Get("refresh_token")]
		}
		w.issued++
		tok := fmt.Sprintf("tok-%d", w.issued)
		w.tokens[tok] = scopes
		w.tokens["refresh:r-"+tok] = scopes
		json.NewEncoder(rw).Encode(map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": w.expiresIn, "refresh_token": "r-" + tok})
	})
	w.srv = httptest.NewServer(mux)
	t.Cleanup(w.srv.Close)
	return w
}

// mcp answers with the scopes of the token, or challenges.
func (w *world) mcp(rw http.ResponseWriter, r *http.Request) {
	io.ReadAll(r.Body)
	w.mu.Lock()
	defer w.mu.Unlock()
	meta := w.srv.URL + "/.well-known/oauth-protected-resource/mcp"
	if w.prmURL != "" {
		meta = w.prmURL
	}
	scopes, ok := w.tokens[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
	if !ok {
		rw.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+meta+`", scope="read"`)
		rw.WriteHeader(http.StatusUnauthorized)
		return
	}
	for _, s := range w.need {
		if !slices.Contains(scopes, s) {
			rw.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="`+strings.Join(w.need, " ")+`", resource_metadata="`+meta+`"`)
			rw.WriteHeader(http.StatusForbidden)
			return
		}
	}
	fmt.Fprint(rw, strings.Join(scopes, " "))
}

func (w *world) client() (*http.Client, *Transport) {
	rt := &Transport{Config: &Config{RedirectURL: "http://127.0.0.1:9/callback", Authorize: FollowRedirect(nil)}}
	return &http.Client{Transport: rt}, rt
}

func post(t *testing.T, c *http.Client, url string) (string, error) {
	t.Helper()
	resp, err := c.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	return string(body), nil
}

func TestFlow(t *testing.T) {
	w := newWorld(t)
	c, _ := w.client()
	got, err := post(t, c, w.srv.URL+"/mcp")
	if err != nil || got != "read" {
		t.Fatalf("first request: %q %v", got, err)
	}
	// The token is kept: the next request needs no new one.
	if _, err := post(t, c, w.srv.URL+"/mcp"); err != nil || w.issued != 1 {
		t.Errorf("second request: %v, %d tokens issued", err, w.issued)
	}
	reg := w.registered[0]
	if reg["application_type"] != "native" || reg["token_endpoint_auth_method"] != "none" {
		t.Errorf("registration: %v", reg)
	}
	if f := w.tokenForms[0]; f.Get("resource") != w.srv.URL+"/mcp" || f.Get("client_id") != "dyn-client" {
		t.Errorf("token request: %v", f)
	}
}

// A 403 insufficient_scope gets a token with the union of the scopes; a server that keeps
// asking gets a bounded number of tries.
func TestStepUp(t *testing.T) {
	w := newWorld(t)
	c, _ := w.client()
	if _, err := post(t, c, w.srv.URL+"/mcp"); err != nil {
		t.Fatal(err)
	}
	w.need = []string{"write"}
	got, err := post(t, c, w.srv.URL+"/mcp")
	if err != nil || got != "read write" {
		t.Fatalf("after step-up: %q %v", got, err)
	}
	// A server that keeps asking for a scope the authorization server never grants: the
	// client gives up after MaxAuthorizations (3) and returns the server's 403.
	w.need = []string{"never-granted"}
	w.withhold = "never-granted"
	before := len(w.codes)
	if _, err := post(t, c, w.srv.URL+"/mcp"); err == nil || err.Error() != "HTTP 403" {
		t.Errorf("a scope never granted: %v, want the 403", err)
	}
	if n := len(w.codes) - before; n != 3 {
		t.Errorf("%d authorizations for one request, want 3", n)
	}
}

func TestRefresh(t *testing.T) {
	w := newWorld(t)
	w.expiresIn = 1 // expired at once, with the client's margin
	c, _ := w.client()
	if _, err := post(t, c, w.srv.URL+"/mcp"); err != nil {
		t.Fatal(err)
	}
	if _, err := post(t, c, w.srv.URL+"/mcp"); err != nil {
		t.Fatal(err)
	}
	if w.refreshed != 1 || w.tokenForms[1].Get("grant_type") != "refresh_token" || w.tokenForms[1].Get("resource") != w.srv.URL+"/mcp" {
		t.Errorf("refreshed %d times; second token request %v", w.refreshed, w.tokenForms[1])
	}
}

func TestRefusals(t *testing.T) {
	for name, tc := range map[string]struct {
		break_ func(w *world)
		want   string
	}{
		"another issuer answered":    {func(w *world) { w.badIss = true }, "RFC 9207"},
		"metadata of another server": {func(w *world) { w.prmResource = "https://elsewhere.example/mcp" }, "not for this server"},
		"no PKCE with S256":          {func(w *world) { w.noS256 = true }, "S256"},
	} {
		t.Run(name, func(t *testing.T) {
			w := newWorld(t)
			tc.break_(w)
			c, _ := w.client()
			_, err := post(t, c, w.srv.URL+"/mcp")
			var oe *Error
			if !errors.As(err, &oe) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an *oauth.Error about %q", err, tc.want)
			}
			if w.issued != 0 {
				t.Errorf("%d tokens issued", w.issued)
			}
		})
	}
}

func TestParseChallenge(t *testing.T) {
	h := http.Header{}
	h.Add("WWW-Authenticate", `Basic realm="x", Bearer error="insufficient_scope", scope="a b", resource_metadata="https://s/.well-known/oauth-protected-resource", error_description="needs \"a\""`)
	c, ok := ParseChallenge(h)
	if !ok || c.Error != "insufficient_scope" || c.Scope != "a b" || c.ResourceMetadata != "https://s/.well-known/oauth-protected-resource" || c.ErrorDescription != `needs "a"` {
		t.Errorf("%+v %v", c, ok)
	}
	if _, ok := ParseChallenge(http.Header{"Www-Authenticate": {`Basic realm="x"`}}); ok {
		t.Error("a Basic challenge taken for Bearer")
	}
}

func TestCanonicalResource(t *testing.T) {
	for in, want := range map[string]string{
		"HTTPS://MCP.Example.com/mcp?x=1#f": "https://mcp.example.com/mcp",
		"https://mcp.example.com/":          "https://mcp.example.com",
		"http://127.0.0.1:8080/server/mcp":  "http://127.0.0.1:8080/server/mcp",
	} {
		u, _ := url.Parse(in)
		if got := CanonicalResource(u); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}
