package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// DPoP (RFC 9449): a token bound to a key of its client's comes as "Authorization: DPoP
// <token>", with a DPoP header holding a proof, a JWT the client signed with that key for
// this one request. A protected server whose Verifier is a DPoPVerifier takes such tokens
// (mcpgen's own client sends them to authorization servers that offer DPoP); one whose
// Verifier is not refuses them. A DPoPVerifier refuses a bound token sent as a plain bearer
// token (RFC 9449 section 7.2): whoever copied it does not have the key.
//
// A server whose Verifier is a DPoPVerifier says so: its 401 and 403 answers carry a DPoP
// challenge beside the Bearer one, with the same parameters and the algorithms proofs may
// be signed with, and its metadata lists them. AuthOptions.RequireDPoP takes DPoP-bound
// tokens only.

// DPoPProof is a request's DPoP proof, with what it must be for.
type DPoPProof struct {
	Proof  string // the DPoP header
	Method string // the request's method, the proof's htm
	URL    string // the URL the client sent the request to, the proof's htu (without query)
}

// DPoPVerifier is a TokenVerifier that takes DPoP-bound tokens: VerifyDPoP checks the token
// as VerifyToken does, that it is bound to a key (cnf.jkt), and that the proof is signed
// with that key, for this request and this token, recent, and not seen before.
// DPoPAlgorithms are the JWS algorithms ("ES256", ...) it takes proofs signed with, which
// the server advertises: in its challenge (DPoP algs=, RFC 9449 section 7.1) and its
// protected resource metadata (dpop_signing_alg_values_supported, RFC 9728).
type DPoPVerifier interface {
	TokenVerifier
	VerifyDPoP(ctx context.Context, token string, proof DPoPProof) (*AuthInfo, error)
	DPoPAlgorithms() []string
}

// verifyDPoP checks a token that came with the DPoP scheme, and its proof.
func (g *guard) verifyDPoP(r *http.Request, token string) (*AuthInfo, error) {
	v, ok := g.opts.Auth.Verifier.(DPoPVerifier)
	if !ok {
		return nil, errors.New("a token with the DPoP scheme, and the verifier takes bearer tokens only (it is no mcp.DPoPVerifier)")
	}
	proofs := r.Header.Values("DPoP")
	if len(proofs) != 1 {
		return nil, fmt.Errorf("%d DPoP headers: a request with a DPoP-bound token carries one proof", len(proofs))
	}
	return v.VerifyDPoP(r.Context(), token, DPoPProof{Proof: proofs[0], Method: r.Method, URL: g.requestURL(r)})
}

// requestURL is the URL the client sent r to: on the origin of AuthOptions.Resource when
// it is set (behind a proxy, the proxy's), else on the one the request reached.
func (g *guard) requestURL(r *http.Request) string {
	origin := ""
	if res := g.opts.Auth.Resource; res != "" {
		if i := strings.Index(res, "://"); i >= 0 {
			host, _, _ := strings.Cut(res[i+3:], "/")
			origin = res[:i+3] + host
		}
	}
	if origin == "" {
		scheme := "http"
		if r.TLS != nil {
			scheme = "https"
		}
		origin = scheme + "://" + r.Host
	}
	return origin + r.URL.EscapedPath()
}
