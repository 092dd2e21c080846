package protect

import (
	"context"
	"crypto"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// DPoP-bound tokens (RFC 9449): a token whose claims (or introspection answer) carry cnf is
// bound to a key, or a certificate, of its client's. Sent as a bearer token it is refused:
// whoever copied it does not hold the key. With the DPoP scheme (mcp.DPoPVerifier) its
// proof is checked as RFC 9449 section 4.3 says: a JWT of type dpop+jwt, signed with an
// asymmetric algorithm by the public key in its header, whose SHA-256 thumbprint is the
// token's cnf.jkt; for this request's method (htm) and URL (htu, compared normalized,
// without query), issued within a minute of now (iat), for this token (ath, its SHA-256),
// and never seen before (jti, remembered until the proof would be too old anyway, per key:
// proofMemory). The memory of proofs is this process's, shared by its verifiers: replicas
// behind a load balancer each have their own, so a proof replayed to another replica within
// the minute is not caught there.

var (
	_ mcp.DPoPVerifier = (*JWT)(nil)
	_ mcp.DPoPVerifier = (*Introspection)(nil)
)

// The algorithms a proof may be signed with: asymmetric ones only, whose public key the
// proof carries.
var proofAlgorithms = []jose.SignatureAlgorithm{jose.ES256, jose.ES384, jose.ES512, jose.RS256, jose.RS384, jose.RS512,
	jose.PS256, jose.PS384, jose.PS512, jose.EdDSA}

const (
	proofWindow = time.Minute // how far from now a proof's iat may be
	maxJTI      = 256         // bytes of a proof's jti
)

// seenProofs are the proofs the verifiers of this process took.
var seenProofs = proofs{memory: newProofMemory(proofsPerKey, proofsSoft, proofsHard)}

// DPoPAlgorithms are the algorithms a proof may be signed with (mcp.DPoPVerifier), which
// the server advertises.
func (v *JWT) DPoPAlgorithms() []string { return proofAlgorithmNames() }

// DPoPAlgorithms are the algorithms a proof may be signed with (mcp.DPoPVerifier), which
// the server advertises.
func (v *Introspection) DPoPAlgorithms() []string { return proofAlgorithmNames() }

func proofAlgorithmNames() []string {
	names := make([]string, len(proofAlgorithms))
	for i, a := range proofAlgorithms {
		names[i] = string(a)
	}
	return names
}

// VerifyDPoP checks a DPoP-bound JWT access token and its proof (mcp.DPoPVerifier).
func (v *JWT) VerifyDPoP(ctx context.Context, token string, proof mcp.DPoPProof) (*mcp.AuthInfo, error) {
	info, err := v.verify(ctx, token)
	if err != nil {
		return nil, err
	}
	return info, seenProofs.check(proof, token, info.Claims, v.leeway())
}

// VerifyDPoP checks a DPoP-bound opaque token and its proof (mcp.DPoPVerifier).
func (v *Introspection) VerifyDPoP(ctx context.Context, token string, proof mcp.DPoPProof) (*mcp.AuthInfo, error) {
	info, err := v.verify(ctx, token)
	if err != nil {
		return nil, err
	}
	return info, seenProofs.check(proof, token, info.Claims, time.Minute)
}

// notBound refuses a token bound to a key or a certificate (cnf) that came as a bearer
// token.
func notBound(info *mcp.AuthInfo, err error) (*mcp.AuthInfo, error) {
	if err != nil {
		return nil, err
	}
	if _, bound := info.Claims["cnf"]; bound {
		return nil, errors.New("the token is bound to a key of its client's (cnf) and came as a bearer token, without proof of the key: refused (RFC 9449 section 7.2)")
	}
	return info, nil
}

// proofs checks DPoP proofs and remembers those it took, so that each is taken once.
type proofs struct {
	memory *proofMemory
}

// proofClaims are the claims of a DPoP proof.
type proofClaims struct {
	JTI string           `json:"jti"`
	HTM string           `json:"htm"`
	HTU string           `json:"htu"`
	IAT *jwt.NumericDate `json:"iat"`
	ATH string           `json:"ath"`
}

// check checks proof for token, whose claims are claims (their cnf.jkt names the key).
func (p *proofs) check(proof mcp.DPoPProof, token string, claims map[string]any, leeway time.Duration) error {
	cnf, _ := claims["cnf"].(map[string]any)
	jkt, _ := cnf["jkt"].(string)
	if jkt == "" {
		return errors.New("a token with the DPoP scheme that is not bound to a DPoP key (no cnf.jkt)")
	}
	tok, err := jwt.ParseSigned(proof.Proof, proofAlgorithms)
	if err != nil {
		return fmt.Errorf("the DPoP proof is not a JWT signed with an asymmetric algorithm: %w", err)
	}
	if len(tok.Headers) != 1 {
		return errors.New("a DPoP proof with more than one signature")
	}
	h := tok.Headers[0]
	if typ, _ := h.ExtraHeaders[jose.HeaderType].(string); typ != "dpop+jwt" {
		return fmt.Errorf("the DPoP proof's type is %q, not dpop+jwt", typ)
	}
	if h.JSONWebKey == nil || !h.JSONWebKey.IsPublic() || !h.JSONWebKey.Valid() {
		return errors.New("the DPoP proof carries no public key (jwk)")
	}
	var c proofClaims
	if err := tok.Claims(h.JSONWebKey.Key, &c); err != nil {
		return fmt.Errorf("the DPoP proof's signature does not verify with its key: %w", err)
	}
	thumb, err := h.JSONWebKey.Thumbprint(crypto.SHA256)
	if err != nil {
		return fmt.Errorf("the DPoP proof's key: %w", err)
	}
	if subtle.ConstantTimeCompare([]byte(base64.RawURLEncoding.EncodeToString(thumb)), []byte(jkt)) != 1 {
		return errors.New("the DPoP proof is signed with another key than the one the token is bound to (cnf.jkt)")
	}
	sum := sha256.Sum256([]byte(token))
	now := time.Now()
	switch {
	case c.JTI == "" || len(c.JTI) > maxJTI:
		return errors.New("the DPoP proof has no jti, or one over 256 bytes")
	case c.HTM != proof.Method:
		return fmt.Errorf("the DPoP proof is for %q, not for this request's %s", c.HTM, proof.Method)
	case !sameTarget(c.HTU, proof.URL):
		return fmt.Errorf("the DPoP proof is for %q, not for this request's %s", c.HTU, proof.URL)
	case c.IAT == nil:
		return errors.New("the DPoP proof has no iat")
	case c.IAT.Time().After(now.Add(proofWindow + leeway)), c.IAT.Time().Before(now.Add(-proofWindow - leeway)):
		return fmt.Errorf("the DPoP proof was issued at %v, not within a minute of now", c.IAT.Time().UTC())
	case subtle.ConstantTimeCompare([]byte(c.ATH), []byte(base64.RawURLEncoding.EncodeToString(sum[:]))) != 1:
		return errors.New("the DPoP proof is not for this token (ath)")
	}
	return p.memory.remember(jkt, c.JTI, c.IAT.Time().Add(proofWindow+leeway), now)
}

// sameTarget reports whether a proof's htu is the request's URL, both normalized as RFC
// 3986 sections 6.2.2 and 6.2.3 say (scheme and host case, the default port, an empty
// path, percent-encoding), without query or fragment.
func sameTarget(htu, target string) bool {
	a, err1 := url.Parse(htu)
	b, err2 := url.Parse(target)
	if err1 != nil || err2 != nil || a.Host == "" || a.User != nil {
		return false
	}
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(hostPort(a), hostPort(b)) && pathOf(a) == pathOf(b)
}

func hostPort(u *url.URL) string {
	port := u.Port()
	if port == "" || strings.EqualFold(u.Scheme, "https") && port == "443" || strings.EqualFold(u.Scheme, "http") && port == "80" {
		return u.Hostname()
	}
	return u.Hostname() + ":" + port
}

func pathOf(u *url.URL) string {
	if u.Path == "" {
		return "/"
	}
	return u.Path
}
