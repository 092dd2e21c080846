package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

// dpopVerifier takes the token "bound" with the proof "good", and the bearer token "plain";
// it records the proofs it is given.
type dpopVerifier struct {
	mu     sync.Mutex
	proofs []DPoPProof
}

func (v *dpopVerifier) VerifyToken(ctx context.Context, token string) (*AuthInfo, error) {
	if token == "plain" {
		return &AuthInfo{Subject: "bob"}, nil
	}
	return nil, errors.New("a bound token, without its proof")
}

func (v *dpopVerifier) DPoPAlgorithms() []string { return []string{"ES256", "EdDSA"} }

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

// A server whose verifier takes DPoP-bound tokens says so (RFC 9449 section 7.1, RFC 9728):
// its 401 and 403 answers carry a DPoP challenge with the algorithms of the verifier's
// proofs after the Bearer one, both with the same resource_metadata, error and scope, and
// its metadata lists the algorithms. A server with a bearer-only verifier names Bearer
// alone. With RequireDPoP the challenge is DPoP alone, the metadata says
// dpop_bound_access_tokens_required, and a token the verifier takes as a bearer token is
// refused; RequireDPoP with a bearer-only verifier does not start.
func TestDPoPAdvertised(t *testing.T) {
	serve := func(v TokenVerifier, require bool) string {
		srv := quietServer(nil)
		srv.AddTool(Tool{Name: "delete", InputSchema: `{"type":"object"}`, Scopes: []string{"files:write"}, Handler: func(ctx context.Context, c *ToolCall) {
			c.ReturnText("deleted")
		}})
		h := srv.HTTPHandler(&HTTPOptions{Auth: &AuthOptions{Verifier: v, RequireDPoP: require,
			AuthorizationServers: []string{"https://auth.example.com"}, ScopesSupported: []string{"read"}}})
		ts := httptest.NewServer(h)
		t.Cleanup(func() { h.Close(); ts.Close() })
		return ts.URL
	}
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	send := func(url, auth, proof string) (int, []string) {
		req, _ := http.NewRequest(http.MethodPost, url+"/mcp", strings.NewReader(call))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", StatelessProtocolVersion)
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "delete")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		if proof != "" {
			req.Header.Set("DPoP", proof)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode, resp.Header.Values("WWW-Authenticate")
	}
	metadata := func(url string) map[string]any {
		resp, err := http.Get(url + "/.well-known/oauth-protected-resource/mcp")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var doc map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
			t.Fatal(err)
		}
		return doc
	}
	algs := `, algs="ES256 EdDSA"`

	url := serve(&dpopVerifier{}, false)
	meta := `resource_metadata="` + url + `/.well-known/oauth-protected-resource/mcp"`
	noToken := meta + `, scope="read", error_description="the request carries no access token"`
	badToken := meta + `, error="invalid_token", scope="read", error_description="the bearer token is not valid"`
	noScope := meta + `, error="insufficient_scope", scope="files:write", error_description="tools/call needs the scopes files:write"`
	for name, tc := range map[string]struct {
		auth, proof string
		status      int
		params      string
	}{
		"no token":                 {"", "", 401, noToken},
		"a bad bound token":        {"DPoP bound", "bad", 401, badToken},
		"a bad bearer token":       {"Bearer forged", "", 401, badToken},
		"a bound token, no scope":  {"DPoP bound", "good", 403, noScope},
		"a bearer token, no scope": {"Bearer plain", "", 403, noScope},
	} {
		status, got := send(url, tc.auth, tc.proof)
		want := []string{"Bearer " + tc.params, "DPoP " + tc.params + algs}
		if status != tc.status || !slices.Equal(got, want) {
			t.Errorf("%s: %d %q, want %d %q", name, status, got, tc.status, want)
		}
	}
	if doc := metadata(url); !slices.Equal(toStrings(doc["dpop_signing_alg_values_supported"]), []string{"ES256", "EdDSA"}) || doc["dpop_bound_access_tokens_required"] != nil {
		t.Errorf("the metadata of a server that takes DPoP: %v", doc)
	}

	// A verifier of bearer tokens only: Bearer alone.
	url = serve(TokenVerifierFunc(func(ctx context.Context, token string) (*AuthInfo, error) { return &AuthInfo{Subject: "ada"}, nil }), false)
	if status, got := send(url, "", ""); status != 401 || len(got) != 1 || !strings.HasPrefix(got[0], "Bearer ") {
		t.Errorf("a bearer-only server's challenge: %d %q", status, got)
	}
	if doc := metadata(url); doc["dpop_signing_alg_values_supported"] != nil {
		t.Errorf("the metadata of a bearer-only server: %v", doc)
	}

	// DPoP required.
	url = serve(&dpopVerifier{}, true)
	meta = `resource_metadata="` + url + `/.well-known/oauth-protected-resource/mcp"`
	for name, tc := range map[string]struct {
		auth, proof string
		status      int
		params      string
	}{
		"no token":                {"", "", 401, meta + `, scope="read", error_description="the request carries no access token"`},
		"a good bearer token":     {"Bearer plain", "", 401, meta + `, error="invalid_token", scope="read", error_description="this server takes DPoP-bound tokens only (Authorization: DPoP, with a DPoP proof)"`},
		"a bound token, no scope": {"DPoP bound", "good", 403, meta + `, error="insufficient_scope", scope="files:write", error_description="tools/call needs the scopes files:write"`},
	} {
		status, got := send(url, tc.auth, tc.proof)
		if want := []string{"DPoP " + tc.params + algs}; status != tc.status || !slices.Equal(got, want) {
			t.Errorf("DPoP required, %s: %d %q, want %d %q", name, status, got, tc.status, want)
		}
	}
	if doc := metadata(url); doc["dpop_bound_access_tokens_required"] != true || doc["dpop_signing_alg_values_supported"] == nil {
		t.Errorf("the metadata of a server that requires DPoP: %v", doc)
	}
	bearerOnly := &HTTPOptions{Auth: &AuthOptions{RequireDPoP: true, Verifier: TokenVerifierFunc(func(ctx context.Context, token string) (*AuthInfo, error) { return nil, nil })}}
	if err := bearerOnly.authProblem(); err == nil || !strings.Contains(err.Error(), "RequireDPoP needs a Verifier that takes DPoP-bound tokens") {
		t.Errorf("RequireDPoP with a bearer-only verifier: %v", err)
	}
}

// toStrings is a JSON array of strings as a slice.
func toStrings(v any) []string {
	a, _ := v.([]any)
	out := make([]string, 0, len(a))
	for _, e := range a {
		s, _ := e.(string)
		out = append(out, s)
	}
	return out
}
