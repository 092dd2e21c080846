package protect

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// holder is a client's DPoP key.
type holder struct {
	key *ecdsa.PrivateKey
	jkt string // its JWK SHA-256 thumbprint, as cnf.jkt names it
}

func newHolder(t *testing.T) *holder {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	thumb, err := (&jose.JSONWebKey{Key: &key.PublicKey}).Thumbprint(crypto.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	return &holder{key: key, jkt: base64.RawURLEncoding.EncodeToString(thumb)}
}

// proof is a DPoP proof of h's for a request with token; edit changes its header options
// and claims before it is signed.
func (h *holder) proof(t *testing.T, method, u, token string, edit func(opts *jose.SignerOptions, c map[string]any) *jose.SignerOptions) string {
	sum := sha256.Sum256([]byte(token))
	c := map[string]any{"jti": randomID(), "htm": method, "htu": u, "iat": time.Now().Unix(), "ath": base64.RawURLEncoding.EncodeToString(sum[:])}
	opts := (&jose.SignerOptions{EmbedJWK: true}).WithType("dpop+jwt")
	alg, key := jose.ES256, any(h.key)
	if edit != nil {
		opts = edit(opts, c)
		if k, ok := c["_key"]; ok { // another signing key, and algorithm
			alg, key = c["_alg"].(jose.SignatureAlgorithm), k
			delete(c, "_key")
			delete(c, "_alg")
		}
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, opts)
	if err != nil {
		t.Fatal(err)
	}
	s, err := jwt.Signed(signer).Claims(c).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func randomID() string {
	b := make([]byte, 12)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// A token bound to a key (cnf, RFC 9449) is refused as a bearer token by both verifiers:
// whoever copied it does not hold the key. An unbound token is taken as before.
func TestBoundTokensAreNoBearerTokens(t *testing.T) {
	is := newIssuer(t)
	v := &JWT{Issuer: "https://as.example", JWKSURL: is.srv.URL, Audience: "https://mcp.example/mcp"}
	ctx := context.Background()
	bound := is.token(t, claims(map[string]any{"cnf": map[string]any{"jkt": "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"}}))
	if info, err := v.VerifyToken(ctx, bound); err == nil || !strings.Contains(err.Error(), "bound") {
		t.Errorf("a DPoP-bound JWT as a bearer token: %+v %v", info, err)
	}
	if _, err := v.VerifyToken(ctx, is.token(t, claims(nil))); err != nil {
		t.Errorf("an unbound JWT: %v", err)
	}
	as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		answer := map[string]any{"active": true, "sub": "bob", "aud": "https://mcp.example/mcp", "exp": time.Now().Add(time.Hour).Unix()}
		if r.PostForm.Get("token") == "bound" {
			answer["cnf"] = map[string]any{"jkt": "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"}
		}
		json.NewEncoder(w).Encode(answer)
	}))
	defer as.Close()
	iv := &Introspection{Endpoint: as.URL, Audience: "https://mcp.example/mcp"}
	if info, err := iv.VerifyToken(ctx, "bound"); err == nil || !strings.Contains(err.Error(), "bound") {
		t.Errorf("a DPoP-bound opaque token as a bearer token: %+v %v", info, err)
	}
	if _, err := iv.VerifyToken(ctx, "plain"); err != nil {
		t.Errorf("an unbound opaque token: %v", err)
	}
}

// A DPoP proof is taken only as RFC 9449 section 4.3 says: typ dpop+jwt, an asymmetric
// signature by the public key in its header, which is the one the token is bound to; this
// request's method and URL (normalized, without query); issued within a minute; for this
// token; once.
func TestDPoPProofChecks(t *testing.T) {
	is := newIssuer(t)
	v := &JWT{Issuer: "https://as.example", JWKSURL: is.srv.URL, Audience: "https://mcp.example/mcp"}
	ctx := context.Background()
	h, other := newHolder(t), newHolder(t)
	const target = "https://mcp.example/mcp"
	token := is.token(t, claims(map[string]any{"cnf": map[string]any{"jkt": h.jkt}}))
	set := func(k string, val any) func(*jose.SignerOptions, map[string]any) *jose.SignerOptions {
		return func(o *jose.SignerOptions, c map[string]any) *jose.SignerOptions {
			if val == nil {
				delete(c, k)
			} else {
				c[k] = val
			}
			return o
		}
	}
	request := mcp.DPoPProof{Method: http.MethodPost, URL: target}
	verify := func(tok, proof string) error {
		p := request
		p.Proof = proof
		_, err := v.VerifyDPoP(ctx, tok, p)
		return err
	}

	good := h.proof(t, "POST", target, token, nil)
	if err := verify(token, good); err != nil {
		t.Fatalf("a good proof: %v", err)
	}
	if err := verify(token, good); err == nil || !strings.Contains(err.Error(), "replay") {
		t.Errorf("the same proof again: %v, want it refused as a replay", err)
	}
	for _, htu := range []string{"HTTPS://MCP.Example:443/mcp", "https://mcp.example/mcp?x=1", "https://mcp.example/%6Dcp"} {
		if err := verify(token, h.proof(t, "POST", htu, token, nil)); err != nil {
			t.Errorf("htu %s, the same URL normalized: %v", htu, err)
		}
	}
	hmacKey := []byte("0123456789abcdef0123456789abcdef")
	for name, tc := range map[string]struct {
		token, proof, want string
	}{
		"another method":      {token, h.proof(t, "GET", target, token, nil), "not for this request"},
		"another URL":         {token, h.proof(t, "POST", "https://mcp.example/other", token, nil), "not for this request"},
		"another host":        {token, h.proof(t, "POST", "https://evil.example/mcp", token, nil), "not for this request"},
		"plain http":          {token, h.proof(t, "POST", "http://mcp.example/mcp", token, nil), "not for this request"},
		"an old proof":        {token, h.proof(t, "POST", target, token, set("iat", time.Now().Add(-3*time.Minute).Unix())), "within a minute"},
		"a proof from later":  {token, h.proof(t, "POST", target, token, set("iat", time.Now().Add(3*time.Minute).Unix())), "within a minute"},
		"no iat":              {token, h.proof(t, "POST", target, token, set("iat", nil)), "no iat"},
		"no jti":              {token, h.proof(t, "POST", target, token, set("jti", nil)), "no jti"},
		"a huge jti":          {token, h.proof(t, "POST", target, token, set("jti", strings.Repeat("j", 300))), "no jti"},
		"another token's ath": {token, h.proof(t, "POST", target, "another-token", nil), "ath"},
		"no ath":              {token, h.proof(t, "POST", target, token, set("ath", nil)), "ath"},
		"another key":         {token, other.proof(t, "POST", target, token, nil), "another key"},
		"typ JWT": {token, h.proof(t, "POST", target, token, func(o *jose.SignerOptions, c map[string]any) *jose.SignerOptions {
			return o.WithType("JWT")
		}), "dpop+jwt"},
		"no jwk": {token, h.proof(t, "POST", target, token, func(o *jose.SignerOptions, c map[string]any) *jose.SignerOptions {
			return (&jose.SignerOptions{}).WithType("dpop+jwt")
		}), "no public key"},
		"HMAC": {token, h.proof(t, "POST", target, token, func(o *jose.SignerOptions, c map[string]any) *jose.SignerOptions {
			c["_key"], c["_alg"] = hmacKey, jose.HS256
			return (&jose.SignerOptions{}).WithType("dpop+jwt").WithHeader("jwk", map[string]any{"kty": "oct", "k": base64.RawURLEncoding.EncodeToString(hmacKey)})
		}), "asymmetric"},
		"a garbled proof":  {token, "not.a.jwt", "asymmetric"},
		"an unbound token": {is.token(t, claims(nil)), h.proof(t, "POST", target, is.token(t, claims(nil)), nil), "not bound"},
		"an expired token": {is.token(t, claims(map[string]any{"cnf": map[string]any{"jkt": h.jkt}, "exp": time.Now().Add(-time.Hour).Unix()})), good, "expired"},
	} {
		if err := verify(tc.token, tc.proof); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error about %q", name, err, tc.want)
		}
	}
}
