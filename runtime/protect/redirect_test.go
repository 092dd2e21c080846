package protect

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/go-jose/go-jose/v4"
)

// names sends the host names of a test's URLs to local servers: name:port -> address.
func names(addrs map[string]string) *http.Client {
	return &http.Client{Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true},
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			var d net.Dialer
			if to, ok := addrs[addr]; ok {
				return d.DialContext(ctx, network, to)
			}
			return d.DialContext(ctx, network, addr)
		},
	}}
}

// Validate checks JWKSURL (https, or http on loopback), and the fetch keeps to that rule
// through redirects: keys.example (https) redirecting to plain http on another machine
// (cdn.example) gets no keys from there, so that whoever is on that path cannot sign
// tokens the server takes. A redirect to https is followed.
func TestJWKSRedirectsOnlyToEndpoints(t *testing.T) {
	forged, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &forged.PublicKey, KeyID: "k1", Algorithm: "ES256", Use: "sig"}}})
	}))
	defer plain.Close()
	is := newIssuer(t)
	secure := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/to-http":
			http.Redirect(w, r, "http://cdn.example/keys", http.StatusFound)
		case "/to-https":
			http.Redirect(w, r, "/keys", http.StatusFound)
		case "/keys":
			json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &is.key.PublicKey, KeyID: is.kid, Algorithm: "ES256", Use: "sig"}}})
		}
	}))
	defer secure.Close()
	hc := names(map[string]string{"keys.example:443": secure.Listener.Addr().String(), "cdn.example:80": plain.Listener.Addr().String()})

	v := &JWT{Issuer: "https://as.example", JWKSURL: "https://keys.example/to-http", Audience: "https://mcp.example/mcp", HTTPClient: hc}
	if err := v.Validate(); err != nil {
		t.Fatal(err)
	}
	forger := &issuer{key: forged, kid: "k1"}
	if info, err := v.VerifyToken(context.Background(), forger.token(t, claims(nil))); err == nil {
		t.Errorf("a token signed with keys fetched over plain http from another machine: accepted (%s)", info.Subject)
	} else if !strings.Contains(err.Error(), "redirected") {
		t.Errorf("the error does not say the redirect was refused: %v", err)
	}

	v = &JWT{Issuer: "https://as.example", JWKSURL: "https://keys.example/to-https", Audience: "https://mcp.example/mcp", HTTPClient: hc}
	if _, err := v.VerifyToken(context.Background(), is.token(t, claims(nil))); err != nil {
		t.Errorf("keys through a redirect to https: %v", err)
	}
}

// The introspection request carries the token and the server's credentials (Basic): a
// redirect is followed only on the endpoint's origin. To plain http on the same host
// (net/http sends Authorization again to the same host, whatever the scheme) and to another
// host, neither the token nor the credentials leave, and the verifier is unavailable; to a
// path of the same origin, it is followed.
func TestIntrospectionRedirectsOnlyOnItsOrigin(t *testing.T) {
	var mu sync.Mutex
	var leaked []string
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		mu.Lock()
		leaked = append(leaked, r.Header.Get("Authorization")+" "+r.PostForm.Get("token"))
		mu.Unlock()
		json.NewEncoder(w).Encode(map[string]any{"active": true, "aud": "https://mcp.example/mcp", "sub": "mallory", "exp": 9999999999})
	}))
	defer plain.Close()
	secure := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/to-http":
			http.Redirect(w, r, "http://as.example/introspect", http.StatusTemporaryRedirect)
		case "/elsewhere":
			http.Redirect(w, r, "https://other.example/introspect", http.StatusTemporaryRedirect)
		case "/moved":
			http.Redirect(w, r, "/introspect", http.StatusPermanentRedirect)
		case "/introspect":
			r.ParseForm()
			if id, secret, _ := r.BasicAuth(); id != "rs" || secret != "rs-secret" || r.PostForm.Get("token") != "opaque" {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			json.NewEncoder(w).Encode(map[string]any{"active": true, "aud": "https://mcp.example/mcp", "sub": "ada", "exp": 9999999999})
		}
	}))
	defer secure.Close()
	hc := names(map[string]string{
		"as.example:443": secure.Listener.Addr().String(), "as.example:80": plain.Listener.Addr().String(),
		"other.example:443": secure.Listener.Addr().String(),
	})
	verify := func(path string) (string, error) {
		v := &Introspection{Endpoint: "https://as.example" + path, ClientID: "rs", ClientSecret: "rs-secret", Audience: "https://mcp.example/mcp", HTTPClient: hc}
		info, err := v.VerifyToken(context.Background(), "opaque")
		if err != nil {
			return "", err
		}
		return info.Subject, nil
	}
	for _, path := range []string{"/to-http", "/elsewhere"} {
		if sub, err := verify(path); err == nil || !strings.Contains(err.Error(), "redirected") {
			t.Errorf("%s: %q %v, want the redirect refused", path, sub, err)
		}
	}
	if sub, err := verify("/moved"); err != nil || sub != "ada" {
		t.Errorf("a redirect on the endpoint's origin: %q %v", sub, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(leaked) > 0 {
		t.Errorf("plain http got %q", leaked)
	}
}
