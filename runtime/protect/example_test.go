package protect_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/mcpgen/mcpgen/runtime/protect"
)

// A JWT verifier checks the token's signature against the issuer's published keys (JWKS),
// and its issuer, audience and expiry. Here the issuer is a test server in this process that
// signs with an ES256 key; a server passes the verifier to mcp.AuthOptions.
func ExampleJWT() {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		log.Fatal(err)
	}
	keys := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k1", Algorithm: "ES256", Use: "sig"}}})
	}))
	defer keys.Close()
	sign := func(audience string) string {
		signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, (&jose.SignerOptions{}).WithHeader("kid", "k1"))
		if err != nil {
			log.Fatal(err)
		}
		token, err := jwt.Signed(signer).Claims(map[string]any{
			"iss": "https://auth.example.com", "aud": audience, "sub": "ada", "client_id": "notes-app",
			"scope": "notes:read notes:write", "exp": time.Now().Add(time.Hour).Unix(),
		}).Serialize()
		if err != nil {
			log.Fatal(err)
		}
		return token
	}

	verifier := &protect.JWT{
		Issuer:   "https://auth.example.com",
		JWKSURL:  keys.URL, // empty: found in the issuer's metadata
		Audience: "https://notes.example.com/mcp",
	}
	ctx := context.Background()
	info, err := verifier.VerifyToken(ctx, sign("https://notes.example.com/mcp"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(info.Subject, info.ClientID, info.Scopes)
	if _, err := verifier.VerifyToken(ctx, sign("https://another.example.com/mcp")); err != nil {
		fmt.Println("a token for another server is refused")
	}
	// Output:
	// ada notes-app [notes:read notes:write]
	// a token for another server is refused
}

// An introspection verifier asks the authorization server about each opaque token
// (RFC 7662). Here the authorization server is a test server in this process that knows one
// token.
func ExampleIntrospection() {
	as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		if r.PostForm.Get("token") != "opaque-token-of-ada" {
			json.NewEncoder(w).Encode(map[string]any{"active": false})
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"active": true, "sub": "ada", "scope": "notes:read",
			"aud": "https://notes.example.com/mcp", "exp": time.Now().Add(time.Hour).Unix()})
	}))
	defer as.Close()

	verifier := &protect.Introspection{
		Endpoint:     as.URL,
		ClientID:     "notes-server",
		ClientSecret: "s3cret",
		Audience:     "https://notes.example.com/mcp",
	}
	ctx := context.Background()
	info, err := verifier.VerifyToken(ctx, "opaque-token-of-ada")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(info.Subject, info.Scopes)
	if _, err := verifier.VerifyToken(ctx, "a-token-it-does-not-know"); err != nil {
		fmt.Println("an inactive token is refused")
	}
	// Output:
	// ada [notes:read]
	// an inactive token is refused
}
