package protect

import (
	"bytes"
	"context"
	"crypto"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/oauth"
)

// dpopAuthorizationServer offers DPoP (dpop_signing_alg_values_supported) and issues JWT
// access tokens bound to the key of the token request's proof (cnf.jkt), signed by is, for
// the resource indicator; it approves every authorization at once.
func dpopAuthorizationServer(t *testing.T, is *issuer) *httptest.Server {
	return authorizationServer(t, is, []string{"ES256"}, nil)
}

// authorizationServer is dpopAuthorizationServer offering DPoP with the algorithms algs
// (none: it offers no DPoP, and refuses every token request); it counts the
// authorizations it is asked for in authorizations, when that is not nil.
func authorizationServer(t *testing.T, is *issuer, algs []string, authorizations *atomic.Int32) *httptest.Server {
	var srv *httptest.Server
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		meta := map[string]any{"issuer": srv.URL, "authorization_endpoint": srv.URL + "/authorize", "token_endpoint": srv.URL + "/token",
			"jwks_uri": is.srv.URL, "code_challenge_methods_supported": []string{"S256"}}
		if len(algs) > 0 {
			meta["dpop_signing_alg_values_supported"] = algs
		}
		json.NewEncoder(w).Encode(meta)
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		if authorizations != nil {
			authorizations.Add(1)
		}
		q := r.URL.Query()
		http.Redirect(w, r, q.Get("redirect_uri")+"?"+url.Values{"code": {q.Get("resource")}, "state": {q.Get("state")}}.Encode(), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		proof, err := jwt.ParseSigned(r.Header.Get("DPoP"), []jose.SignatureAlgorithm{jose.ES256})
		if err != nil || proof.Headers[0].JSONWebKey == nil {
			w.WriteHeader(http.StatusBadRequest)
			json.NewEncoder(w).Encode(map[string]string{"error": "invalid_dpop_proof"})
			return
		}
		thumb, _ := proof.Headers[0].JSONWebKey.Thumbprint(crypto.SHA256)
		tok := is.token(t, claims(map[string]any{"iss": srv.URL, "aud": r.PostForm.Get("resource"),
			"cnf": map[string]any{"jkt": base64.RawURLEncoding.EncodeToString(thumb)}}))
		json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "token_type": "DPoP", "expires_in": 3600})
	})
	srv = httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// recorder keeps the Authorization and DPoP headers of the requests it sends.
type recorder struct {
	mu   sync.Mutex
	sent []http.Header
}

func (rec *recorder) RoundTrip(r *http.Request) (*http.Response, error) {
	rec.mu.Lock()
	rec.sent = append(rec.sent, http.Header{"Authorization": r.Header.Values("Authorization"), "Dpop": r.Header.Values("DPoP")})
	rec.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

// mcpgen's own OAuth client, with an authorization server that offers DPoP, gets a token
// bound to its key and calls a tool of an mcpgen server protected by protect.JWT, sending
// "Authorization: DPoP" and a proof per request (before, the server took only the Bearer
// scheme, and refused its own client). The same token and proof sent again are refused as
// a replay, and the token sent as a bearer token is refused: whoever copied them does not
// have the key.
func TestDPoPEndToEnd(t *testing.T) {
	is := newIssuer(t)
	as := dpopAuthorizationServer(t, is)
	var logs bytes.Buffer
	var logMu sync.Mutex
	srv := mcp.NewServer(mcp.Implementation{Name: "protected", Version: "1"}, &mcp.ServerOptions{
		Logger: slog.New(slog.NewTextHandler(&lockedWriter{w: &logs, mu: &logMu}, nil))})
	srv.AddTool(mcp.Tool{Name: "whoami", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *mcp.ToolCall) {
		c.ReturnText("you are " + mcp.AuthInfoFrom(ctx).Subject)
	}})
	var handler http.Handler
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.ServeHTTP(w, r) }))
	defer web.Close()
	resource := web.URL + "/mcp"
	h := srv.HTTPHandler(&mcp.HTTPOptions{Auth: &mcp.AuthOptions{
		Verifier:             &JWT{Issuer: as.URL, Audience: resource}, // the keys through the issuer's metadata
		Resource:             resource,
		AuthorizationServers: []string{as.URL},
	}})
	defer h.Close()
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	mux.Handle("/.well-known/oauth-protected-resource/", h)
	handler = mux

	rec := &recorder{}
	rt := &oauth.Transport{Base: rec, Config: &oauth.Config{RedirectURL: "http://127.0.0.1:9/callback", Authorize: oauth.FollowRedirect(nil),
		Clients: []oauth.Client{{Issuer: as.URL, ID: "app", Resources: []string{resource}}}}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, version := range []string{"", mcp.StatelessProtocolVersion} {
		c, err := mcp.Connect(ctx, &mcp.StreamableHTTPTransport{URL: resource, HTTPClient: &http.Client{Transport: rt}}, &mcp.ClientOptions{ProtocolVersion: version})
		if err != nil {
			logMu.Lock()
			defer logMu.Unlock()
			t.Fatalf("connect (%q): %v\n%s", version, err, logs.String())
		}
		res, err := c.CallTool(ctx, "whoami", nil)
		c.Close()
		if err != nil || res.Content[0].(mcp.Text).Text != "you are ada" {
			t.Fatalf("whoami (%q): %v %v", version, res, err)
		}
	}
	rec.mu.Lock()
	var last http.Header
	for _, sent := range rec.sent {
		if auth := sent.Get("Authorization"); auth != "" {
			if !strings.HasPrefix(auth, "DPoP ") || len(sent.Values("Dpop")) != 1 {
				t.Errorf("a request sent Authorization %q with %d proofs", auth, len(sent.Values("Dpop")))
			}
			last = sent
		}
	}
	rec.mu.Unlock()
	if last == nil {
		t.Fatal("no request carried the token")
	}

	post := func(auth, proof string) int {
		req, _ := http.NewRequest(http.MethodPost, resource, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", auth)
		if proof != "" {
			req.Header.Set("DPoP", proof)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	token := strings.TrimPrefix(last.Get("Authorization"), "DPoP ")
	for name, tc := range map[string]struct{ auth, proof, logged string }{
		"the last request's token and proof again": {last.Get("Authorization"), last.Get("Dpop"), "replay"},
		"the token as a bearer token":              {"Bearer " + token, "", "came as a bearer token"},
		"the token as a bearer token, with proof":  {"Bearer " + token, last.Get("Dpop"), "came as a bearer token"},
		"the token without a proof":                {"DPoP " + token, "", "0 DPoP headers"},
	} {
		if code := post(tc.auth, tc.proof); code != http.StatusUnauthorized {
			t.Errorf("%s: HTTP %d, want 401", name, code)
		}
		logMu.Lock()
		if !strings.Contains(logs.String(), tc.logged) {
			t.Errorf("%s: the server's log does not say %q:\n%s", name, tc.logged, logs.String())
		}
		logMu.Unlock()
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// A server that takes DPoP-bound tokens only (AuthOptions.RequireDPoP) challenges with DPoP
// alone and says so in its metadata; mcpgen's own client gets a bound token through that
// challenge and calls a tool. With an authorization server that offers no DPoP, or offers
// it without ES256 (the client's key), the client fails before the user is sent to log in,
// saying why, rather than get a token the server refuses.
func TestDPoPRequiredEndToEnd(t *testing.T) {
	is := newIssuer(t)
	for name, tc := range map[string]struct {
		algs []string
		fail string
	}{
		"dpop offered":       {algs: []string{"ES256"}},
		"dpop not offered":   {fail: "takes DPoP-bound tokens only"},
		"dpop without ES256": {algs: []string{"PS256"}, fail: "takes DPoP-bound tokens only"},
	} {
		t.Run(name, func(t *testing.T) {
			var authorizations atomic.Int32
			as := authorizationServer(t, is, tc.algs, &authorizations)
			srv := mcp.NewServer(mcp.Implementation{Name: "protected", Version: "1"}, nil)
			srv.AddTool(mcp.Tool{Name: "whoami", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *mcp.ToolCall) {
				c.ReturnText("you are " + mcp.AuthInfoFrom(ctx).Subject)
			}})
			var handler http.Handler
			web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.ServeHTTP(w, r) }))
			defer web.Close()
			resource := web.URL + "/mcp"
			h := srv.HTTPHandler(&mcp.HTTPOptions{Auth: &mcp.AuthOptions{
				Verifier:             &JWT{Issuer: as.URL, Audience: resource},
				Resource:             resource,
				AuthorizationServers: []string{as.URL},
				RequireDPoP:          true,
			}})
			defer h.Close()
			mux := http.NewServeMux()
			mux.Handle("/mcp", h)
			mux.Handle("/.well-known/oauth-protected-resource/", h)
			handler = mux

			rt := &oauth.Transport{Config: &oauth.Config{RedirectURL: "http://127.0.0.1:9/callback", Authorize: oauth.FollowRedirect(nil),
				Clients: []oauth.Client{{Issuer: as.URL, ID: "app", Resources: []string{resource}}}}}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			c, err := mcp.Connect(ctx, &mcp.StreamableHTTPTransport{URL: resource, HTTPClient: &http.Client{Transport: rt}}, nil)
			if tc.fail != "" {
				if err == nil {
					c.Close()
					t.Fatal("connected")
				}
				if !strings.Contains(err.Error(), tc.fail) || authorizations.Load() != 0 {
					t.Errorf("connect: %v, after %d authorizations; want an error saying %q before any", err, authorizations.Load(), tc.fail)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			res, err := c.CallTool(ctx, "whoami", nil)
			if err != nil || res.Content[0].(mcp.Text).Text != "you are ada" {
				t.Fatalf("whoami: %v %v", res, err)
			}
		})
	}
}
