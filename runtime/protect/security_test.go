package protect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// A verifier configured so that it would take any issuer's or any audience's tokens, or
// one that would fetch its keys or ask about tokens over plain http elsewhere, takes no
// token, and says what to set.
func TestVerifiersNeedIssuerAndAudience(t *testing.T) {
	is := newIssuer(t)
	as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"active": true, "sub": "bob", "aud": "https://other.example/mcp", "exp": time.Now().Add(time.Hour).Unix()})
	}))
	defer as.Close()
	for name, tc := range map[string]struct {
		v    mcp.TokenVerifier
		want string
	}{
		"jwt without an issuer":          {&JWT{JWKSURL: is.srv.URL, Audience: "https://mcp.example/mcp"}, "Issuer is empty"},
		"jwt without an audience":        {&JWT{Issuer: "https://as.example", JWKSURL: is.srv.URL}, "Audience is empty"},
		"jwt keys over http elsewhere":   {&JWT{Issuer: "https://as.example", JWKSURL: "http://as.example/keys", Audience: "https://mcp.example/mcp"}, "JWKSURL"},
		"introspection without audience": {&Introspection{Endpoint: as.URL}, "Audience is empty"},
		"introspection over http":        {&Introspection{Endpoint: "http://as.example/introspect", Audience: "https://mcp.example/mcp"}, "Endpoint"},
	} {
		t.Run(name, func(t *testing.T) {
			token := "opaque"
			if _, ok := tc.v.(*JWT); ok {
				token = is.token(t, claims(map[string]any{"iss": "https://evil.example", "aud": "https://other.example/mcp"}))
			}
			info, err := tc.v.VerifyToken(context.Background(), token)
			if err == nil {
				t.Fatalf("accepted: %+v", info)
			}
			if !strings.Contains(err.Error(), tc.want) || !errors.Is(err, mcp.ErrVerifierUnavailable) {
				t.Errorf("error %q: want one about %q that wraps mcp.ErrVerifierUnavailable", err, tc.want)
			}
			if err := tc.v.(interface{ Validate() error }).Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate: %v", err)
			}
		})
	}
}

// A server whose verifier is configured so that it would take any issuer's or any
// audience's tokens does not start: HTTPHandler panics and ServeHTTPListener returns the
// verifier's error (before, both started, and answered every client 503), as for a server
// without its Resource. A verifier that is configured starts.
func TestMisconfiguredVerifierStopsTheServer(t *testing.T) {
	for name, tc := range map[string]struct {
		v    mcp.TokenVerifier
		want string
	}{
		"jwt without an issuer":          {&JWT{JWKSURL: "https://as.example/keys", Audience: "https://mcp.example/mcp"}, "Issuer is empty"},
		"jwt without an audience":        {&JWT{Issuer: "https://as.example"}, "Audience is empty"},
		"jwt keys over http elsewhere":   {&JWT{Issuer: "https://as.example", JWKSURL: "http://as.example/keys", Audience: "https://mcp.example/mcp"}, "JWKSURL"},
		"introspection without audience": {&Introspection{Endpoint: "https://as.example/introspect"}, "Audience is empty"},
		"introspection over http":        {&Introspection{Endpoint: "http://as.example/introspect", Audience: "https://mcp.example/mcp"}, "Endpoint"},
		"jwt":                            {&JWT{Issuer: "https://as.example", Audience: "https://mcp.example/mcp"}, ""},
		"introspection":                  {&Introspection{Endpoint: "https://as.example/introspect", Audience: "https://mcp.example/mcp"}, ""},
	} {
		t.Run(name, func(t *testing.T) {
			opts := &mcp.HTTPOptions{Auth: &mcp.AuthOptions{Verifier: tc.v, Resource: "https://mcp.example/mcp"}}
			srv := mcp.NewServer(mcp.Implementation{Name: "protected", Version: "1"}, nil)
			panicked := func() (r any) {
				defer func() { r = recover() }()
				srv.HTTPHandler(opts).Close()
				return nil
			}()
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			stopped, stop := context.WithCancel(context.Background())
			stop() // a server that starts stops at once
			served := srv.ServeHTTPListener(stopped, ln, opts)
			if tc.want == "" {
				if panicked != nil || served != nil {
					t.Errorf("a configured verifier: HTTPHandler panicked with %v, ServeHTTPListener returned %v", panicked, served)
				}
				return
			}
			if !strings.Contains(fmt.Sprint(panicked), tc.want) {
				t.Errorf("HTTPHandler: panicked with %v, want a panic about %q", panicked, tc.want)
			}
			if served == nil || !strings.Contains(served.Error(), tc.want) || !strings.HasPrefix(served.Error(), "mcp: HTTPOptions.Auth.Verifier is not usable: ") {
				t.Errorf("ServeHTTPListener: %v, want the verifier's error about %q", served, tc.want)
			}
		})
	}
}

// RFC 9068: a token typed at+jwt is an access token. An untyped (or "JWT") one is taken,
// unless it carries what only ID tokens carry; any other type is refused, and with
// RequireATJWT so is every token not typed at+jwt.
func TestTokenType(t *testing.T) {
	is := newIssuer(t)
	v := &JWT{Issuer: "https://as.example", JWKSURL: is.srv.URL, Audience: "https://mcp.example/mcp"}
	strict := &JWT{Issuer: "https://as.example", JWKSURL: is.srv.URL, Audience: "https://mcp.example/mcp", RequireATJWT: true}
	for _, tc := range []struct {
		typ          string
		extra        map[string]any
		ok, strictOK bool
	}{
		{typ: "at+jwt", ok: true, strictOK: true},
		{typ: "application/at+jwt", ok: true, strictOK: true},
		{typ: "AT+JWT", ok: true, strictOK: true},
		{typ: "JWT", ok: true},
		{typ: "none", ok: true}, // no typ header
		{typ: "JWT", extra: map[string]any{"nonce": "n-0S6_WzA2Mj"}},
		{typ: "JWT", extra: map[string]any{"at_hash": "77QmUPtjPfzWtF2AnpK9RQ"}},
		{typ: "none", extra: map[string]any{"c_hash": "LDktKdoQak3Pk0cnXxCltA"}},
		{typ: "dpop+jwt"},
		{typ: "logout+jwt"},
		{typ: "id_token+jwt"},
	} {
		is.typ = tc.typ
		token := is.token(t, claims(tc.extra))
		if _, err := v.VerifyToken(context.Background(), token); (err == nil) != tc.ok {
			t.Errorf("typ %q %v: %v, want ok %v", tc.typ, tc.extra, err, tc.ok)
		}
		if _, err := strict.VerifyToken(context.Background(), token); (err == nil) != tc.strictOK {
			t.Errorf("RequireATJWT, typ %q %v: %v, want ok %v", tc.typ, tc.extra, err, tc.strictOK)
		}
	}
}

// Both verifiers say who issued the token and to which client.
func TestAuthInfoIssuerAndClient(t *testing.T) {
	is := newIssuer(t)
	v := &JWT{Issuer: "https://as.example", JWKSURL: is.srv.URL, Audience: "https://mcp.example/mcp"}
	info, err := v.VerifyToken(context.Background(), is.token(t, claims(map[string]any{"client_id": nil, "azp": "app"})))
	if err != nil || info.Issuer != "https://as.example" || info.ClientID != "app" {
		t.Errorf("jwt: %+v %v", info, err)
	}
	as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"active": true, "sub": "bob", "iss": "https://as.example", "azp": "app",
			"aud": "https://mcp.example/mcp", "exp": time.Now().Add(time.Hour).Unix()})
	}))
	defer as.Close()
	iv := &Introspection{Endpoint: as.URL, Audience: "https://mcp.example/mcp"}
	info, err = iv.VerifyToken(context.Background(), "opaque")
	if err != nil || info.Issuer != "https://as.example" || info.ClientID != "app" || info.Subject != "bob" {
		t.Errorf("introspection: %+v %v", info, err)
	}
	// An introspection endpoint that speaks for another issuer than the one configured.
	iv.Issuer = "https://other.example"
	if _, err := iv.VerifyToken(context.Background(), "opaque"); err == nil {
		t.Error("a response of another issuer: accepted")
	}
}

// An issuer's keys that cannot be fetched, or an introspection endpoint that does not
// answer, is an outage (mcp.ErrVerifierUnavailable: the server answers 503), not a bad
// token; the error says what failed, for the server's log.
func TestVerifierUnavailable(t *testing.T) {
	is := newIssuer(t)
	down := func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", http.StatusInternalServerError) }
	is.serve.Store(&down)
	v := &JWT{Issuer: "https://as.example", JWKSURL: is.srv.URL, Audience: "https://mcp.example/mcp"}
	_, err := v.VerifyToken(context.Background(), is.token(t, claims(nil)))
	if !errors.Is(err, mcp.ErrVerifierUnavailable) || !strings.Contains(err.Error(), "HTTP 500") {
		t.Errorf("keys answering 500: %v", err)
	}
	closed := httptest.NewServer(nil)
	closed.Close()
	for name, endpoint := range map[string]string{"500": is.srv.URL, "connection refused": closed.URL} {
		iv := &Introspection{Endpoint: endpoint, Audience: "https://mcp.example/mcp"}
		if _, err := iv.VerifyToken(context.Background(), "opaque"); !errors.Is(err, mcp.ErrVerifierUnavailable) {
			t.Errorf("introspection %s: %v", name, err)
		}
	}
	// A token the issuer says is not active, or for another audience, is a bad token.
	as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"active": r.FormValue("token") == "other-aud", "aud": "https://other.example/mcp"})
	}))
	defer as.Close()
	iv := &Introspection{Endpoint: as.URL, Audience: "https://mcp.example/mcp"}
	for _, token := range []string{"inactive", "other-aud"} {
		if _, err := iv.VerifyToken(context.Background(), token); err == nil || errors.Is(err, mcp.ErrVerifierUnavailable) {
			t.Errorf("%s: %v, want a bad token", token, err)
		}
	}
}

// slowKeys makes the issuer's key endpoint wait for release (or the request's end) before
// it answers, and reports each request on started.
func slowKeys(is *issuer) (started chan struct{}, release func()) {
	started = make(chan struct{}, 100)
	gate := make(chan struct{})
	var once sync.Once
	slow := func(w http.ResponseWriter, r *http.Request) {
		started <- struct{}{}
		select {
		case <-gate:
		case <-r.Context().Done():
			return
		}
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	is.serve.Store(&slow)
	return started, func() { once.Do(func() { close(gate) }) }
}

// A fetch of the keys for an unknown key id holds up no token whose key is known.
func TestKeyFetchDoesNotBlock(t *testing.T) {
	is := newIssuer(t)
	v := &JWT{Issuer: "https://as.example", JWKSURL: is.srv.URL, Audience: "https://mcp.example/mcp"}
	good := is.token(t, claims(nil))
	if _, err := v.VerifyToken(context.Background(), good); err != nil {
		t.Fatal(err)
	}
	v.mu.Lock()
	v.tried = time.Now().Add(-time.Minute) // a refetch is due
	v.mu.Unlock()
	started, release := slowKeys(is)
	unknownDone := make(chan struct{})
	defer func() { release(); <-unknownDone }()
	go func() {
		defer close(unknownDone)
		v.VerifyToken(context.Background(), is.tokenWith(t, "unknown", claims(nil)))
	}()
	<-started
	done := make(chan error, 1)
	go func() { _, err := v.VerifyToken(context.Background(), good); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("a good token: %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Error("a good token waited for the fetch of another key")
	}
}

// Tokens with unknown key ids that come together share one fetch.
func TestKeyFetchSingleFlight(t *testing.T) {
	is := newIssuer(t)
	v := &JWT{Issuer: "https://as.example", JWKSURL: is.srv.URL, Audience: "https://mcp.example/mcp"}
	started, release := slowKeys(is)
	var wg sync.WaitGroup
	var unavailable atomic.Int32
	for i := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := v.VerifyToken(context.Background(), is.tokenWith(t, "k"+string(rune('a'+i)), claims(nil)))
			if errors.Is(err, mcp.ErrVerifierUnavailable) {
				unavailable.Add(1)
			}
		}()
	}
	<-started
	time.Sleep(100 * time.Millisecond) // the others come while the fetch is under way
	release()
	wg.Wait()
	if n := is.fetches.Load(); n != 1 {
		t.Errorf("%d fetches for 10 tokens at once, want 1", n)
	}
	if unavailable.Load() != 10 {
		t.Errorf("%d of 10 saw the failed fetch as an outage", unavailable.Load())
	}
}

// A fetch has its own time limit: a key endpoint that never answers makes the verifier
// report an outage, not hang; and a fetch the caller gave up on still counts against the
// refetch limit.
func TestKeyFetchTimeoutAndLimit(t *testing.T) {
	is := newIssuer(t)
	_, release := slowKeys(is)
	defer release()
	v := &JWT{Issuer: "https://as.example", JWKSURL: is.srv.URL, Audience: "https://mcp.example/mcp", FetchTimeout: 200 * time.Millisecond}
	start := time.Now()
	_, err := v.VerifyToken(context.Background(), is.token(t, claims(nil)))
	if !errors.Is(err, mcp.ErrVerifierUnavailable) || time.Since(start) > 5*time.Second {
		t.Errorf("a key endpoint that never answers: %v after %v", err, time.Since(start))
	}

	is2 := newIssuer(t)
	_, release2 := slowKeys(is2)
	defer release2()
	v2 := &JWT{Issuer: "https://as.example", JWKSURL: is2.srv.URL, Audience: "https://mcp.example/mcp", FetchTimeout: time.Minute}
	for i := range 10 {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		_, err := v2.VerifyToken(ctx, is2.tokenWith(t, "k"+string(rune('a'+i)), claims(nil)))
		cancel()
		if err == nil {
			t.Fatal("accepted")
		}
	}
	if n := is2.fetches.Load(); n != 1 {
		t.Errorf("%d fetches in 10 tries whose callers gave up, want 1", n)
	}
}

// A key id the issuer's set lacks is remembered for a while: tokens with it make no new
// fetch, even once the refetch limit would allow one; another unknown id does.
func TestUnknownKeyIDsRemembered(t *testing.T) {
	is := newIssuer(t)
	v := &JWT{Issuer: "https://as.example", JWKSURL: is.srv.URL, Audience: "https://mcp.example/mcp"}
	bad := is.tokenWith(t, "forged", claims(nil))
	if _, err := v.VerifyToken(context.Background(), bad); err == nil || errors.Is(err, mcp.ErrVerifierUnavailable) {
		t.Fatalf("an unknown key id: %v", err)
	}
	allowRefetch := func() {
		v.mu.Lock()
		v.tried = time.Now().Add(-refetchAfter - time.Second)
		v.mu.Unlock()
	}
	allowRefetch()
	before := is.fetches.Load()
	if _, err := v.VerifyToken(context.Background(), bad); err == nil {
		t.Fatal("accepted")
	}
	if n := is.fetches.Load() - before; n != 0 {
		t.Errorf("the same unknown key id fetched the keys again (%d)", n)
	}
	// A key id not seen before is worth a fetch (the issuer may have rotated).
	is.rotate(t, "k2")
	if _, err := v.VerifyToken(context.Background(), is.token(t, claims(nil))); err != nil || is.fetches.Load()-before != 1 {
		t.Errorf("a new key id after rotation: %v, %d fetches", err, is.fetches.Load()-before)
	}
}
