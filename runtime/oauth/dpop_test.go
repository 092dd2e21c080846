package oauth

import (
	"crypto"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// dpopClaims checks a DPoP proof (typ, a public key of its own that verifies it) and returns
// its claims and the key's thumbprint.
func dpopClaims(t *testing.T, proof string) (map[string]any, string) {
	t.Helper()
	tok, err := jwt.ParseSigned(proof, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		t.Fatalf("DPoP proof: %v", err)
	}
	h := tok.Headers[0]
	if h.ExtraHeaders["typ"] != "dpop+jwt" || h.JSONWebKey == nil || !h.JSONWebKey.IsPublic() {
		t.Fatalf("DPoP proof header: %+v", h)
	}
	claims := map[string]any{}
	if err := tok.Claims(h.JSONWebKey.Key, &claims); err != nil {
		t.Fatalf("DPoP proof signature: %v", err)
	}
	thumb, _ := h.JSONWebKey.Thumbprint(crypto.SHA256)
	return claims, base64.RawURLEncoding.EncodeToString(thumb)
}

// With an authorization server that offers DPoP, the token request carries a proof, the
// token goes as "DPoP <token>" with a fresh proof per request (bound to the token by ath),
// and a server's use_dpop_nonce is answered with its nonce.
func TestDPoP(t *testing.T) {
	var srv *httptest.Server
	var mu sync.Mutex
	var keys []string
	jtis := map[string]bool{}
	askedNonce := false
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		if auth == "" {
			w.Header().Set("WWW-Authenticate", `DPoP resource_metadata="`+srv.URL+`/prm"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		claims, thumb := dpopClaims(t, r.Header.Get("DPoP"))
		mu.Lock()
		defer mu.Unlock()
		sum := sha256.Sum256([]byte("bound-token"))
		if auth != "DPoP bound-token" || claims["htm"] != "POST" || claims["htu"] != srv.URL+"/mcp" || claims["ath"] != base64.RawURLEncoding.EncodeToString(sum[:]) || jtis[claims["jti"].(string)] {
			t.Errorf("request: %q %v", auth, claims)
		}
		jtis[claims["jti"].(string)] = true
		keys = append(keys, thumb)
		if claims["nonce"] != "rs-nonce" {
			askedNonce = true
			w.Header().Set("DPoP-Nonce", "rs-nonce")
			w.Header().Set("WWW-Authenticate", `DPoP error="use_dpop_nonce"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Write([]byte("ok"))
	})
	mux.HandleFunc("/prm", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"resource": srv.URL + "/mcp", "authorization_servers": []string{srv.URL}})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"issuer": srv.URL, "authorization_endpoint": srv.URL + "/authorize", "token_endpoint": srv.URL + "/token",
			"code_challenge_methods_supported": []string{"S256"}, "dpop_signing_alg_values_supported": []string{"ES256"}})
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		http.Redirect(w, r, q.Get("redirect_uri")+"?"+url.Values{"code": {"c"}, "state": {q.Get("state")}}.Encode(), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		claims, thumb := dpopClaims(t, r.Header.Get("DPoP"))
		if claims["htm"] != "POST" || claims["htu"] != srv.URL+"/token" || claims["ath"] != nil {
			t.Errorf("token request proof: %v", claims)
		}
		if claims["nonce"] != "as-nonce" {
			w.Header().Set("DPoP-Nonce", "as-nonce")
			w.WriteHeader(http.StatusBadRequest)
			json.NewEncoder(w).Encode(map[string]string{"error": "use_dpop_nonce"})
			return
		}
		mu.Lock()
		keys = append(keys, thumb)
		mu.Unlock()
		json.NewEncoder(w).Encode(map[string]any{"access_token": "bound-token", "token_type": "DPoP"})
	})
	srv = httptest.NewServer(mux)
	defer srv.Close()

	c := &http.Client{Transport: &Transport{Config: &Config{Clients: []Client{{Issuer: srv.URL, ID: "c", Resources: []string{srv.URL + "/mcp"}}}, RedirectURL: "http://127.0.0.1:9/cb", Authorize: FollowRedirect(nil)}}}
	for range 2 {
		resp, err := c.Post(srv.URL+"/mcp", "application/json", nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%v %v", resp, err)
		}
		resp.Body.Close()
	}
	if !askedNonce || len(keys) < 3 {
		t.Fatalf("nonce asked %v, %d proofs", askedNonce, len(keys))
	}
	for _, k := range keys[1:] {
		if k != keys[0] {
			t.Errorf("proofs signed by different keys: %v", keys)
		}
	}
}
