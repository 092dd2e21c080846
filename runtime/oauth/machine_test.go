package oauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// The grants without a person: client credentials with a secret (Basic) or a signed
// assertion (private_key_jwt), and a workload's JWT traded for a token.
func TestMachineGrants(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	var srv *httptest.Server
	var got url.Values
	var basicID, basicSecret string
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer machine-token" {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+srv.URL+`/prm"`)
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
			"code_challenge_methods_supported": []string{"S256"}})
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		got = r.PostForm
		basicID, basicSecret, _ = r.BasicAuth()
		json.NewEncoder(w).Encode(map[string]any{"access_token": "machine-token", "token_type": "Bearer"})
	})
	srv = httptest.NewServer(mux)
	defer srv.Close()

	call := func(cfg *Config) {
		t.Helper()
		c := &http.Client{Transport: &Transport{Config: cfg}}
		resp, err := c.Get(srv.URL + "/mcp")
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%v %v", resp, err)
		}
		resp.Body.Close()
		if got.Get("resource") != srv.URL+"/mcp" {
			t.Errorf("resource %q", got.Get("resource"))
		}
	}

	call(&Config{Grant: GrantClientCredentials, Clients: []Client{{Issuer: srv.URL, Resources: []string{srv.URL}, ID: "svc", Secret: "s3cret"}}})
	if got.Get("grant_type") != "client_credentials" || basicID != "svc" || basicSecret != "s3cret" {
		t.Errorf("client credentials with a secret: %v, Basic %q:%q", got, basicID, basicSecret)
	}

	call(&Config{Grant: GrantClientCredentials, Clients: []Client{{Issuer: srv.URL, Resources: []string{srv.URL}, ID: "svc", PrivateKey: key}}})
	tok, err := jwt.ParseSigned(got.Get("client_assertion"), []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		t.Fatalf("client_assertion: %v (%v)", err, got)
	}
	var claims jwt.Claims
	if err := tok.Claims(&key.PublicKey, &claims); err != nil {
		t.Fatalf("the assertion's signature: %v", err)
	}
	if claims.Issuer != "svc" || claims.Subject != "svc" || !claims.Audience.Contains(srv.URL) || claims.ID == "" ||
		got.Get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" || basicID != "" {
		t.Errorf("private_key_jwt: %+v %v", claims, got)
	}

	call(&Config{Grant: GrantJWTBearer, Clients: []Client{{Issuer: srv.URL, Resources: []string{srv.URL}, ID: "workload", Assertion: func(context.Context, string, string) (string, error) { return "the-workload-jwt", nil }}}})
	if got.Get("grant_type") != GrantJWTBearer || got.Get("assertion") != "the-workload-jwt" || basicID != "" {
		t.Errorf("jwt bearer: %v", got)
	}

	// Enterprise-managed: the user's ID token traded at the identity provider for an ID-JAG
	// for this authorization server and resource, then the ID-JAG for a token.
	var exchanged url.Values
	idp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		exchanged = r.PostForm
		json.NewEncoder(w).Encode(map[string]any{"access_token": "the-id-jag", "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag"})
	}))
	defer idp.Close()
	call(&Config{Grant: GrantJWTBearer, Clients: []Client{{Issuer: srv.URL, Resources: []string{srv.URL}, ID: "app", Secret: "app-secret", Assertion: IDJAG(nil, idp.URL, "idp-app", "", "the-id-token")}}})
	if exchanged.Get("subject_token") != "the-id-token" || exchanged.Get("audience") != srv.URL || exchanged.Get("resource") != srv.URL+"/mcp" ||
		exchanged.Get("requested_token_type") != "urn:ietf:params:oauth:token-type:id-jag" || exchanged.Get("client_id") != "idp-app" {
		t.Errorf("token exchange: %v", exchanged)
	}
	if got.Get("assertion") != "the-id-jag" || basicID != "app" || basicSecret != "app-secret" {
		t.Errorf("jwt bearer with the ID-JAG: %v, Basic %q", got, basicID)
	}
}
