package protect

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// issuer is a test authorization server's signing side: its keys at /keys, and tokens.
type issuer struct {
	srv     *httptest.Server
	key     *ecdsa.PrivateKey
	kid     string
	typ     string // of the tokens' header; at+jwt when ""
	fetches atomic.Int32
	serve   atomic.Pointer[func(http.ResponseWriter, *http.Request)] // instead of the keys, when set
}

func newIssuer(t *testing.T) *issuer {
	is := &issuer{kid: "k1"}
	is.rotate(t, "k1")
	is.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		is.fetches.Add(1)
		if f := is.serve.Load(); f != nil {
			(*f)(w, r)
			return
		}
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &is.key.PublicKey, KeyID: is.kid, Algorithm: "ES256", Use: "sig"}}})
	}))
	t.Cleanup(is.srv.Close)
	return is
}

func (is *issuer) rotate(t *testing.T, kid string) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	is.key, is.kid = key, kid
}

func (is *issuer) token(t *testing.T, claims map[string]any) string {
	return is.tokenWith(t, is.kid, claims)
}

func (is *issuer) tokenWith(t *testing.T, kid string, claims map[string]any) string {
	typ := is.typ
	if typ == "" {
		typ = "at+jwt"
	}
	opts := (&jose.SignerOptions{}).WithHeader("kid", kid)
	if typ != "none" {
		opts = opts.WithType(jose.ContentType(typ))
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: is.key}, opts)
	if err != nil {
		t.Fatal(err)
	}
	s, err := jwt.Signed(signer).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func claims(over map[string]any) map[string]any {
	c := map[string]any{"iss": "https://as.example", "aud": "https://mcp.example/mcp", "sub": "ada", "scope": "read files:write",
		"exp": time.Now().Add(time.Hour).Unix(), "iat": time.Now().Unix(), "client_id": "c1"}
	for k, v := range over {
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
	}
	return c
}

func TestJWT(t *testing.T) {
	is := newIssuer(t)
	v := &JWT{Issuer: "https://as.example", JWKSURL: is.srv.URL, Audience: "https://mcp.example/mcp"}
	ctx := context.Background()
	info, err := v.VerifyToken(ctx, is.token(t, claims(nil)))
	if err != nil || info.Subject != "ada" || strings.Join(info.Scopes, " ") != "read files:write" || info.ClientID != "c1" {
		t.Fatalf("a good token: %+v %v", info, err)
	}
	for name, bad := range map[string]map[string]any{
		"another audience": {"aud": "https://other.example/mcp"},
		"another issuer":   {"iss": "https://evil.example"},
		"expired":          {"exp": time.Now().Add(-time.Hour).Unix()},
		"no expiry":        {"exp": nil},
	} {
		if _, err := v.VerifyToken(ctx, is.token(t, claims(bad))); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	// Signed by a key the issuer does not publish.
	other := &issuer{}
	other.rotate(t, "k1")
	if _, err := v.VerifyToken(ctx, other.token(t, claims(nil))); err == nil {
		t.Error("a token signed by another key: accepted")
	}
	if _, err := v.VerifyToken(ctx, "not.a.jwt"); err == nil {
		t.Error("garbage: accepted")
	}
	// The issuer rotates its key: a token with the new key id makes the verifier fetch the
	// set again (once the refetch interval allows).
	is.rotate(t, "k2")
	v.tried = time.Now().Add(-time.Minute)
	before := is.fetches.Load()
	if _, err := v.VerifyToken(ctx, is.token(t, claims(nil))); err != nil || is.fetches.Load() != before+1 {
		t.Errorf("after rotation: %v (%d fetches)", err, is.fetches.Load()-before)
	}
}

func TestIntrospection(t *testing.T) {
	var active atomic.Bool
	active.Store(true)
	as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		id, secret, _ := r.BasicAuth()
		if id != "rs" || secret != "s3cret" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"active": active.Load() && r.PostForm.Get("token") == "opaque",
			"sub": "bob", "scope": "read", "aud": []string{"https://mcp.example/mcp"}, "exp": time.Now().Add(time.Hour).Unix()})
	}))
	defer as.Close()
	v := &Introspection{Endpoint: as.URL, ClientID: "rs", ClientSecret: "s3cret", Audience: "https://mcp.example/mcp"}
	info, err := v.VerifyToken(context.Background(), "opaque")
	if err != nil || info.Subject != "bob" || info.Scopes[0] != "read" {
		t.Fatalf("%+v %v", info, err)
	}
	if _, err := v.VerifyToken(context.Background(), "unknown"); err == nil {
		t.Error("an inactive token: accepted")
	}
	wrong := *v
	wrong.Audience = "https://elsewhere.example/mcp"
	if _, err := wrong.VerifyToken(context.Background(), "opaque"); err == nil {
		t.Error("a token for another audience: accepted")
	}
}
