package mcp

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// dpopVerifier takes the token "bound" with the proof "good", and records the proofs it is
// given.
type dpopVerifier struct {
	mu     sync.Mutex
	proofs []DPoPProof
}

func (v *dpopVerifier) VerifyToken(ctx context.Context, token string) (*AuthInfo, error) {
	return nil, errors.New("a bound token, without its proof")
}

func (v *dpopVerifier) VerifyDPoP(ctx context.Context, token string, p DPoPProof) (*AuthInfo, error) {
	v.mu.Lock()
	v.proofs = append(v.proofs, p)
	v.mu.Unlock()
	if token != "bound" || p.Proof != "good" {
		return nil, errors.New("no")
	}
	return &AuthInfo{Subject: "ada"}, nil
}

// A token with the DPoP scheme goes, with its one proof and the request's method and URL (on
// AuthOptions.Resource's origin when it is set), to a verifier that is a DPoPVerifier; a
// verifier that is not refuses the scheme, and so does a request with no proof or two.
func TestDPoPSchemeReachesItsVerifier(t *testing.T) {
	ping := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	serve := func(v TokenVerifier, resource string) string {
		h := quietServer(nil).HTTPHandler(&HTTPOptions{Auth: &AuthOptions{Verifier: v, Resource: resource, AuthorizationServers: []string{"https://auth.example.com"}}})
		ts := httptest.NewServer(h)
		t.Cleanup(func() { h.Close(); ts.Close() })
		return ts.URL
	}
	send := func(url, auth string, proofs ...string) int {
		req, _ := http.NewRequest(http.MethodPost, url+"/mcp?x=1", strings.NewReader(ping))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", StatelessProtocolVersion)
		req.Header.Set("Mcp-Method", "tools/list")
		req.Header.Set("Authorization", auth)
		for _, p := range proofs {
			req.Header.Add("DPoP", p)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}

	v := &dpopVerifier{}
	url := serve(v, "")
	for _, auth := range []string{"DPoP bound", "dpop bound"} {
		if code := send(url, auth, "good"); code != http.StatusOK {
			t.Errorf("%s with its proof: %d", auth, code)
		}
	}
	for name, code := range map[string]int{
		"no proof":    send(url, "DPoP bound"),
		"two proofs":  send(url, "DPoP bound", "good", "good"),
		"a bad proof": send(url, "DPoP bound", "bad"),
		"as bearer":   send(url, "Bearer bound", "good"),
	} {
		if code != http.StatusUnauthorized {
			t.Errorf("%s: %d, want 401", name, code)
		}
	}
	v.mu.Lock()
	if p := v.proofs[0]; p.Method != http.MethodPost || p.URL != url+"/mcp" {
		t.Errorf("the verifier got %+v, want POST %s/mcp", p, url)
	}
	v.mu.Unlock()

	// Behind a proxy the URL the client used is on the Resource's origin.
	v = &dpopVerifier{}
	url = serve(v, "https://mcp.example.com/mcp")
	send(url, "DPoP bound", "good")
	v.mu.Lock()
	if len(v.proofs) != 1 || v.proofs[0].URL != "https://mcp.example.com/mcp" {
		t.Errorf("behind a proxy the verifier got %+v, want https://mcp.example.com/mcp", v.proofs)
	}
	v.mu.Unlock()

	// A verifier of bearer tokens only.
	url = serve(TokenVerifierFunc(func(ctx context.Context, token string) (*AuthInfo, error) { return &AuthInfo{Subject: "ada"}, nil }), "")
	if code := send(url, "DPoP bound", "good"); code != http.StatusUnauthorized {
		t.Errorf("the DPoP scheme with a bearer-only verifier: %d, want 401", code)
	}
	if code := send(url, "Bearer plain"); code != http.StatusOK {
		t.Errorf("a bearer token: %d", code)
	}
}
