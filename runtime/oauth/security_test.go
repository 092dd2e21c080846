package oauth

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
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
	for _, good := range []string{"https://as.example/token", "https://as.example:8443/t?x=1", "http://127.0.0.1:8080/cb", "http://[::1]:9/x", "http://localhost:3000/token", "http://app.localhost/x"} {
		if err := CheckEndpoint(good); err != nil {
			t.Errorf("%s: %v", good, err)
		}
	}
	for _, bad := range []string{"", "/token", "file:///etc/passwd", "javascript:alert(1)", "http://as.example/token", "http://10.0.0.1/x",
		"https://u:p@as.example/", "https:///path", "https://as.example/x#frag", "http://127.0.0.1.evil.example/x", "ftp://as.example/"} {
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
