package oauth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net/url"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// DPoP (RFC 9449): with an authorization server that offers it
// (dpop_signing_alg_values_supported), the client binds its tokens to a key of its own: the
// token request and every request with the token carry a proof, a JWT signed with the key,
// for that one request. A server that wants a nonce in the proofs says so with
// use_dpop_nonce and a DPoP-Nonce header; the client sends the request again with it, and
// keeps using it.

// dpopKey is the client's proof-of-possession key, made when first needed, and the nonces
// servers gave it.
type dpopKey struct {
	once   sync.Once
	key    *ecdsa.PrivateKey
	err    error
	mu     sync.Mutex
	nonces map[string]string // by server (the token endpoint, or a resource)
}

func (d *dpopKey) signer() (*ecdsa.PrivateKey, error) {
	d.once.Do(func() { d.key, d.err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader) })
	return d.key, d.err
}

func (d *dpopKey) setNonce(server, nonce string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.nonces == nil {
		d.nonces = map[string]string{}
	}
	d.nonces[server] = nonce
}

func (d *dpopKey) nonce(server string) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.nonces[server]
}

// proof is a DPoP proof for one request: its method and URL (without query or fragment),
// the hash of the access token it goes with (none for a token request), and the server's
// nonce, if it gave one.
func (d *dpopKey) proof(method string, u *url.URL, accessToken, server string) (string, error) {
	key, err := d.signer()
	if err != nil {
		return "", err
	}
	opts := (&jose.SignerOptions{EmbedJWK: true}).WithType("dpop+jwt")
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, opts)
	if err != nil {
		return "", err
	}
	htu := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path, RawPath: u.RawPath}
	claims := map[string]any{
		"jti": randomString(16),
		"htm": method,
		"htu": htu.String(),
		"iat": jwt.NewNumericDate(time.Now()),
	}
	if accessToken != "" {
		sum := sha256.Sum256([]byte(accessToken))
		claims["ath"] = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	if n := d.nonce(server); n != "" {
		claims["nonce"] = n
	}
	return jwt.Signed(signer).Claims(claims).Serialize()
}
